"""The released data as it is: the fixture built to the release's shapes loads, its quirks are counted, and stages 1
and 2 train on it (tools/make_release_fixture.py builds it)."""
import contextlib, io, json, shutil
from pathlib import Path
from mobile_r1.actions import Open, parse_response
from mobile_r1.cli import main
from mobile_r1.data import data_stats, read_dataset

RELEASE = Path(__file__).parent / 'fixtures' / 'release'


def test_release_fixture_loads_with_its_quirks_counted():
    eps = read_dataset(RELEASE)
    assert [e.steps[0].action for e in eps] == [Open('飞猪'), Open('闲鱼'), Open('淘宝')]
    st = data_stats(RELEASE)
    assert st['quirks'] == {'first step: coordinate-less "Tap" read as open(app_name)': 3,
                            'response: double-encoded tool call decoded': 3, "action 'Terminate' read as terminate": 2,
                            "action 'Tap' read as click": 1, "action 'Type' read as type": 1, "button 'Search' read as Enter": 1}
    assert (st['trajectories'], st['steps'], st['missing_images']) == (3, 13, 0)
    assert st['image_sizes'] == {'1080x2400': 2, '720x1280': 1}


def test_a_coordinate_less_tap_is_release_data_not_a_model_answer():
    "As release data it is the tap on the app's icon (read as open); as a model's answer it cannot be executed."
    raw = json.loads((RELEASE / 'data.jsonl').read_text().splitlines()[0])['trajectory'][0]
    body = json.loads(raw['action'])              # the release stores a JSON string of the call
    p = parse_response(f'<think>\nt\n</think><action>\na\n</action><tool_call>\n{body}\n</tool_call>')
    assert not p.format_ok and p.action is None and 'button must be one of' in p.error
    assert read_dataset(RELEASE, first_tap='skip')[0].steps[0].action.name == 'click'


def test_cli_data_stats(tmp_path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out): assert main(['data', 'stats', str(RELEASE)]) == 0
    assert 'quirks fixed: first step: coordinate-less "Tap" read as open(app_name) 3' in out.getvalue()
    with contextlib.redirect_stdout(out := io.StringIO()): assert main(['data', 'stats', str(RELEASE), '--json']) == 0
    assert json.loads(out.getvalue())['actions']['open'] == 3
    bad = tmp_path / 'bad'; shutil.copytree(RELEASE, bad)
    with contextlib.redirect_stderr(err := io.StringIO()): assert main(['data', 'stats', str(bad), '--first-tap', 'error']) == 2
    assert 'data.jsonl:1: step 0: a tap with no coordinate' in err.getvalue()


def test_stages_1_and_2_train_on_the_release_fixture(tiny_model, tmp_path):
    from mobile_r1.metrics import MetricsLog, read_metrics
    from mobile_r1.stage1 import Stage1Config, train_stage1
    from mobile_r1.stage2 import Stage2Config, train_stage2
    log = MetricsLog(tmp_path / 'm.jsonl', stage=1)
    s1 = train_stage1(Stage1Config(base=str(tiny_model), data=str(RELEASE), out_dir=str(tmp_path / 's1'), max_steps=2,
                                   batch_size=4, logging_steps=1), log)
    s2 = train_stage2(Stage2Config(base=str(s1), data=str(RELEASE), out_dir=str(tmp_path / 's2'), max_steps=1, G=2,
                                   prompts_per_step=2, max_completion_length=16), MetricsLog(tmp_path / 'm.jsonl', stage=2))
    assert (s2 / 'config.json').exists()
    rows = read_metrics(tmp_path / 'm.jsonl')
    assert {r['stage'] for r in rows} == {1, 2} and all(r['loss'] == r['loss'] for r in rows if 'loss' in r)
