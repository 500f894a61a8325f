"""The phone base end to end at toy sizes: `mobile-r1 pretrain` as a user types it, a quickstart that starts from the
base it wrote, the errors for a base that is not there, and the reading benchmark on it."""
import json, os, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).parents[1]
ENV = {**os.environ, 'IN_TEST': '1'}


@pytest.fixture(scope='module')
def toy_base(tmp_path_factory):
    "A base from the documented command at toy sizes (two data workers, so the parallel path runs; thoughts that scan lists; a title reader first)."
    out = tmp_path_factory.mktemp('base')
    cmd = [sys.executable, '-m', 'mobile_r1', 'pretrain', '--out', str(out), '--episodes', '6', '--steps', '3', '--batch-size', '4',
           '--workers', '2', '--eval-episodes', '2', '--scan', '--read-steps', '2']
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert '# mobile_r1 phone base (tiny)' in r.stdout and 'online success, held-out titles' in r.stdout, r.stdout[-2000:]
    return out / 'model'


def test_card(toy_base):
    from mobile_r1.pretrain import check_base, pretrain_tasks, vocab_fingerprint
    card = check_base(toy_base)
    assert card['steps_done'] == 3 and card['vocab'] == vocab_fingerprint() and card['config']['episodes'] == 6
    assert card['tasks'] == len(pretrain_tasks()) and set(card['figures']) == {'train', 'held_out'}
    assert all(card['figures'][s]['n_episodes'] == 2 for s in ('train', 'held_out'))
    data = [json.loads(l) for l in (toy_base.parent / 'data' / 'data.jsonl').read_text().splitlines()]
    assert len(data) == 6 and {d['trajectory'][0]['image'].split('/')[0] for d in data} == {'shard0', 'shard1'}
    assert not any(d['task_id'].startswith('Video/like_video/') for d in data)      # the kept-out world stays out
    assert card['config']['scan'] and any('Reading the list: ' in json.dumps(st) for d in data for st in d['trajectory'])   # --scan
    assert (toy_base / 'BASE.md').read_text().startswith('# mobile_r1 phone base')
    assert card['config']['read_steps'] == 2 and card['reader']['step'] == 2 and (toy_base.parent / 'reader' / 'tower.pt').is_file()


def test_quickstart_from_base(toy_base, tmp_path):
    "The quickstart, as typed, copies the base whole (its tokenizer too) and trains on from it, on procedural titles with thoughts that scan lists."
    from mobile_r1.data import read_dataset
    run = tmp_path / 'run'
    r = subprocess.run([sys.executable, '-m', 'mobile_r1', 'quickstart', '--preset', 'smoke', '--base', str(toy_base), '--content', 'procedural',
                        '--scan', '--out', str(run)], capture_output=True, text=True, env=ENV, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    st = json.loads((run / 'quickstart.json').read_text())
    assert 'stage 3' in st['done'] and st['config']['scan'] and st['config']['base'] == str(toy_base)
    assert 'note: the base' not in r.stdout + r.stderr                           # base and demonstrations both scan: nothing to say
    for split in ('train', 'held_out', 'unseen_apps'):
        assert {e.extra['content'] for e in read_dataset(run / 'data' / split)} == {'procedural'}
    assert any('Reading the list: ' in s.thought for e in read_dataset(run / 'data' / 'train') for s in e.steps)
    tiny = run / 'models' / 'tiny'
    assert json.loads((tiny / 'mobile_r1.json').read_text())['base']['steps_done'] == 3
    assert (tiny / 'tokenizer.json').read_bytes() == (toy_base / 'tokenizer.json').read_bytes()


def test_quickstart_base_errors(tmp_path):
    "A base that is not there, or not a base, stops the quickstart before any work, with the fix in the message."
    for base, says in ((str(tmp_path / 'nowhere'), 'no phone base at'), (str(tmp_path), 'is not a complete phone base')):
        r = subprocess.run([sys.executable, '-m', 'mobile_r1', 'quickstart', '--preset', 'smoke', '--base', base, '--out',
                            str(tmp_path / 'run')], capture_output=True, text=True, env=ENV, timeout=300)
        assert r.returncode == 2 and says in r.stderr and 'mobile-r1 pretrain' in r.stderr, r.stderr[-2000:]
        assert 'Traceback' not in r.stderr and not (tmp_path / 'run' / 'data').exists()


def test_bench_reading_smoke(toy_base, tmp_path):
    "Stage 1 from the base and from scratch on procedural titles; a row per split and per probed title."
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_reading.py'), '--base', str(toy_base), '--steps', '2', '--episodes', '2',
           '--per-title', '1', '--train-episodes', '4', '--out', str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads((tmp_path / 'reading.json').read_text())
    assert set(res['runs']) == {'base', 'scratch'}
    assert {'train, before stage 1', 'held_out, after stage 1'} <= set(res['runs']['base'])
    assert 'train, before stage 1' not in res['runs']['scratch']
    assert sum('/like_video/' in k for k in res['runs']['scratch']) == 4


def test_bench_grounding_and_title_probe_smoke(toy_base, tmp_path):
    "The step-kind split of a base's answers, and the probe that continues a base on title taps only (two steps planned; a 1.2-second budget may stop it after one on a busy machine)."
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_grounding.py'), str(toy_base), '--episodes', '3', '--out', str(tmp_path / 'g.json')]
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    g = json.loads((tmp_path / 'g.json').read_text())
    kinds = g['bases'][str(toy_base)]['kinds']
    assert sum(k['n'] for k in kinds.values()) == g['steps'] and {'fixed', 'terminate'} <= set(kinds)
    assert g['bases'][str(toy_base)]['card']['steps_done'] == 3
    ta = g['bases'][str(toy_base)]['title_answers']                                # what it writes on the title steps
    assert ta['n'] == kinds.get('title', {}).get('n', 0) == sum(ta['kinds'].values()) and ta['scans'] <= ta['n']
    assert ta['top_place_n'] <= ta['n'] and (ta['tap_places'] >= 1) == (ta['n'] > 0)
    curve = g['bases'][str(toy_base)]['loss']                                       # found where build_base writes it
    assert curve and all(e['loss'] > 0 and 1 <= e['step'] <= 3 for e in curve), curve
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_title_probe.py'), str(toy_base), '--name', 't', '--minutes', '0.02',
           '--data', str(toy_base.parent / 'data'), '--test-episodes', '3', '--out', str(tmp_path / 'p')]
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    p = json.loads((tmp_path / 'p' / 'probe_t.json').read_text())
    assert p['steps'] in (1, 2) and p['only'] == 'title' and 0 < p['rows'] < g['steps'] * 10


def test_pretrain_tower_flag(tmp_path):
    "`mobile-r1 pretrain --tower` reaches PretrainConfig: a missing file stops it before any work, with the fix in the message."
    r = subprocess.run([sys.executable, '-m', 'mobile_r1', 'pretrain', '--out', str(tmp_path / 'b'), '--scan', '--tower', str(tmp_path / 'no.pt')],
                       capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 2 and 'no vision tower at' in r.stderr and 'bench_reading_align.py --save' in r.stderr, r.stderr[-2000:]
    assert 'Traceback' not in r.stderr
    assert not (tmp_path / 'b').exists()
    r = subprocess.run([sys.executable, '-m', 'mobile_r1', 'pretrain', '--out', str(tmp_path / 'b'), '--read-steps', '10', '--tower', __file__],
                       capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 2 and 'not both' in r.stderr and 'Traceback' not in r.stderr and not (tmp_path / 'b').exists(), r.stderr[-2000:]


def test_pretrain_command_round_trip():
    "The command a base's card records parses back to the config that built it: every PretrainConfig setting has its flag."
    import shlex
    from dataclasses import fields
    from mobile_r1.cli import PRETRAIN_ARGS, build_parser, pretrain_config
    from mobile_r1.pretrain import PretrainConfig, pretrain_command
    assert set(PRETRAIN_ARGS.values()) == {f.name for f in fields(PretrainConfig)}
    cfg = PretrainConfig(out_dir='runs/b', exclude=('Video', 'Shop/buy'), content='fixed', size='small', max_pixels=50000,
                         episodes=7, steps=9, batch_size=3, lr=1e-3, popup_prob=0.2, scan=True, read_steps=4, max_minutes=2.5,
                         workers=2, eval_episodes=3, seed=1)
    for c in (cfg, PretrainConfig(), PretrainConfig(exclude=())):
        assert pretrain_config(build_parser().parse_args(shlex.split(pretrain_command(c))[1:])) == c, pretrain_command(c)
