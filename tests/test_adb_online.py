"""The real setting's path, without a phone: stage 3 and online evaluation over adb, with an LLM judge.

`mobile-r1 fake-adb` runs in a subprocess and serves two SimPhones as two adb devices; a loopback OpenAI-compatible
server (tests/test_judge.py's, written independently of the library) stands in for GPT-4o. In this process no
SimPhone may be built: the training loop meets the phones only through `AdbPhone` and the `Phone` protocol."""
import json, os, socket, subprocess, sys, time
from pathlib import Path
import pytest
from test_judge import KEY, Server, completion
from mobile_r1.cli import main
from mobile_r1.judge import RuleJudge
from mobile_r1.judge_client import JudgeConfig, OpenAIJudge
from mobile_r1.metrics import MetricsLog, read_metrics
from mobile_r1.stage3 import Stage3Config, stage3_env, train_stage3

SERIALS = 'emulator-5554,emulator-5556'
RELEASE = Path(__file__).parent / 'fixtures' / 'release'
CLI = [sys.executable, '-c', 'from mobile_r1.cli import main; raise SystemExit(main())']   # `mobile-r1`, wherever pip put it


def _free_port() -> int:
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


@pytest.fixture(scope='module')
def fake_adb():
    "Two fake phones behind `mobile-r1 fake-adb`, in a process of their own; yields the phone spec."
    port = _free_port()
    proc = subprocess.Popen([*CLI, 'fake-adb', '--port', str(port), '--serial', SERIALS],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.time() + 60
    while time.time() < end:
        try: socket.create_connection(('127.0.0.1', port), timeout=1).close(); break
        except OSError:
            if proc.poll() is not None: raise RuntimeError(f'fake-adb exited: {proc.stderr.read()}')
            time.sleep(0.2)
    yield f'adb:{SERIALS}@127.0.0.1:{port}'
    proc.terminate(); proc.wait(10)


@pytest.fixture
def judge_server(monkeypatch, tmp_path):
    "An OpenAI-compatible judge whose scores vary (so groups have a spread); the verdict cache goes to tmp."
    srv = Server([completion('Reason: nothing was achieved.\nScore: 1'), completion('Reason: partly there.\nScore: 3'),
                  completion('Reason: done.\nScore: 5')] * 6)
    monkeypatch.setenv('OPENAI_BASE_URL', srv.url); monkeypatch.setenv('OPENAI_API_KEY', KEY); monkeypatch.setenv('HOME', str(tmp_path))
    yield srv
    srv.close()


@pytest.fixture
def no_simphone(monkeypatch):
    "Building a SimPhone in this process fails the test."
    from mobile_r1.sim import phone
    def refuse(self, *a, **k): raise AssertionError('a SimPhone was built in the training process')
    monkeypatch.setattr(phone.SimPhone, '__init__', refuse)


@pytest.fixture
def tasks_file(tmp_path):
    f = tmp_path / 'tasks.jsonl'
    f.write_text('{"instruction": "Like the video \\"Panda Cam\\" in Video", "app": "Video", "id": "Video/like_video/Panda Cam"}\n'
                 '{"instruction": "打开视频，点赞“Travel Vlog”", "max_turns": 1}\n', encoding='utf-8')
    return f


def test_stage3_trains_two_iterations_over_adb(fake_adb, judge_server, no_simphone, tiny_model, tasks_file, tmp_path):
    "Three episodes per group on two phones (they queue), every episode judged, judge_agreement not measured."
    cfg = Stage3Config(base=str(tiny_model), out_dir=str(tmp_path / 's3'), phones=fake_adb, tasks=str(tasks_file), judge='openai',
                       iterations=2, tasks_per_iter=1, G=3, max_turns=2, max_new_tokens=24, beta=0.0, checkpoint_every=1)
    judge = OpenAIJudge(JudgeConfig(base_url=judge_server.url, cache_dir=None), api_key=KEY)   # no cache: count every request
    out = train_stage3(cfg, MetricsLog(tmp_path / 'm.jsonl', stage=3), judge=judge)
    rows = read_metrics(tmp_path / 'm.jsonl')
    assert [r['step'] for r in rows] == [1, 2] and (out / 'config.json').exists()
    assert all(r['judge_agreement'] is None for r in rows)           # no checker on a phone: not measured, never 1
    assert len(judge_server.seen) == 6                                # 2 iterations x G = 3 episodes, each judged once
    assert {r['success_rate'] for r in rows} <= {0.0, 1 / 3, 2 / 3, 1.0}


def test_online_eval_over_adb_through_the_cli(fake_adb, judge_server, no_simphone, tiny_model, tasks_file, tmp_path):
    out = tmp_path / 'eval'
    assert main(['eval', '--model', str(tiny_model), '--phones', fake_adb, '--tasks', str(tasks_file), '--judge', 'openai',
                 '--max-turns', '2', '--out', str(out), '--name', 'tiny']) == 0
    row = json.loads((out / 'table.json').read_text())['rows'][0]
    assert (row['model'], row['split'], row['online_episodes'], row['prompt_style']) == ('tiny', 'tasks', 2, 'mobile-r1')
    assert row['online_success'] in (0.0, 50.0, 100.0) and 1 <= len(judge_server.seen) <= 2   # identical requests are cached


def test_what_phones_without_a_checker_or_an_expert_refuse(fake_adb, tasks_file, capsys):
    with pytest.raises(ValueError, match="judge='rule' is SimPhone's checker.*use judge='openai'"):
        stage3_env(Stage3Config(phones=fake_adb, tasks=str(tasks_file), judge='rule'), RuleJudge())
    with pytest.raises(ValueError, match=r"step_aware=0.5 scores every turn against an expert.*step_aware=0"):
        stage3_env(Stage3Config(phones=fake_adb, tasks=str(tasks_file), step_aware=0.5), object())
    assert main(['train', '--stage', '3', '--base', 'x', '--out', 'y', '--phones', fake_adb, '--tasks', str(tasks_file)]) == 2
    assert "use judge='openai'" in capsys.readouterr().err


def test_a_hub_layout_checkpoint_gets_a_zero_shot_row_in_the_qwen_style(tiny_model, tmp_path):
    "Saved as a Hub repo holds it (no mobile_r1 files), found by its Hub id in an offline cache, scored in the qwen style."
    from mobile_r1.policy import load_policy
    model, proc = load_policy(str(tiny_model))
    snap = tmp_path / 'hub' / 'models--mobile-r1-test--tiny-vl' / 'snapshots' / ('0' * 40)
    model.save_pretrained(snap); proc.save_pretrained(snap)
    (snap.parents[1] / 'refs').mkdir(); (snap.parents[1] / 'refs' / 'main').write_text('0' * 40)
    assert not (snap / 'mobile_r1.json').exists()
    env = {**os.environ, 'HF_HUB_CACHE': str(tmp_path / 'hub'), 'HF_HUB_OFFLINE': '1'}
    r = subprocess.run([*CLI, 'eval', '--model', 'mobile-r1-test/tiny-vl', '--prompt-style', 'qwen', '--data', str(RELEASE),
                        '--split', 'held_out', '--no-online', '--out', str(tmp_path / 'eval')], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    row = json.loads((tmp_path / 'eval' / 'table.json').read_text())['rows'][0]
    assert (row['model'], row['prompt_style']) == ('tiny-vl', 'qwen') and row['accuracy'] is not None
