"""The benchmarks are run by hand, for minutes; here each runs at toy sizes, so that they cannot rot unnoticed."""
import importlib.util
import json, math, re, shutil
import os
import subprocess
import sys
from unittest import mock
from pathlib import Path
import pytest

ROOT = Path(__file__).parents[1]


def load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / 'benchmarks' / f'{name}.py')
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_other_apps():
    other_apps = load('bench_base').other_apps
    assert other_apps(('Video/like_video',)) == ('Shop', 'TravelPig', 'FoodDash', 'Maps', 'Chat', 'Settings', 'Music')
    assert 'Settings' not in other_apps(('Settings/turn_on', 'Video/like_video/Cat Compilation'))
    with pytest.raises(SystemExit, match='no other apps'): other_apps(None)


def test_bench_base_smoke(tmp_path):
    "Pretrain, stage 1 from both starts and stage 2 from the pretrained one, at toy sizes: one row per model."
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_base.py'), '--preset', 'smoke', '--pretrain-episodes', '8',
           '--pretrain-steps', '2', '--stage1-steps', '2', '--stage2-lr', '1e-4', '--episodes', '2', '--out', str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, 'IN_TEST': '1'}, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    rows = [l for l in r.stdout.splitlines() if '(n=2)' in l]
    assert [l.split('  ')[1].strip() for l in rows] == ['random init, stage 1 (2 steps)', 'pretrained base, stage 1 (2 steps)',
                                                        'pretrained base, stage 1 (2) + stage 2 (lr 0.0001)'], r.stdout
    assert 'pretrained on Shop, TravelPig, FoodDash, Maps, Chat, Settings, Music' in r.stdout
    assert (tmp_path / 'base' / 'config.json').exists() and (tmp_path / 'pretrain.jsonl').exists()


def test_bench_stage2_rounds_smoke(tmp_path):
    "Stage 2 again from a smoke run's stage 1, for 2 rounds: one train-task row per round, after the run's stage 1 row."
    from mobile_r1.quickstart import run_quickstart
    run_quickstart(tmp_path / 'run', 'smoke', progress=lambda m: None)
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_stage2_rounds.py'), str(tmp_path / 'run'), '--rounds', '2']
    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, 'IN_TEST': '1'}, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert 'round 1: ' in r.stdout and 'round 2: ' in r.stdout and r.stdout.count('(n=4)') == 3, r.stdout
    import json
    rows = json.loads((tmp_path / 'run' / 'stage2_rounds' / 'rounds.json').read_text())
    assert [x['round'] for x in rows] == [0, 1, 2] and all(x['online_episodes'] == 4 for x in rows)
    assert (tmp_path / 'run' / 'stage2_rounds' / 'stage2' / 'config.json').exists()


def test_probe_padding_smoke(tmp_path):
    "The padding probe on a smoke run's stage 1: rows with an unpadded prompt score the same either way."
    from mobile_r1.quickstart import run_quickstart
    run_quickstart(tmp_path / 'run', 'smoke', progress=lambda m: None)
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'probe_padding.py'), str(tmp_path / 'run'), '--prompts', '3'],
                       capture_output=True, text=True, env={**os.environ, 'IN_TEST': '1'}, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert 'rows have a padded prompt' in r.stdout, r.stdout
    unpadded = [l for l in r.stdout.splitlines() if l.startswith('not padded:')]
    assert all('|Δ log-prob| 0.000 per answer token' in l for l in unpadded), r.stdout


def test_bench_stage2_rounds_refuses_a_folder_without_a_run(tmp_path):
    with pytest.raises(SystemExit, match='no quickstart run'): load('bench_stage2_rounds').run_config(tmp_path)


def test_bench_stage2_rounds_refuses_a_run_without_stage1(tmp_path):
    import json
    (tmp_path / 'quickstart.json').write_text(json.dumps({'config': {'world': None}}))
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'bench_stage2_rounds.py'), str(tmp_path)], capture_output=True, text=True)
    assert r.returncode != 0 and 'no stage-1 model' in r.stderr, r.stderr[-2000:]


def test_bench_learning_step_aware_and_its_assets(tmp_path):
    """The learning benchmark with the step-aware row, at the smoke preset; then the notebooks' asset tool on that run:
    the rows of every stage, the control last, an episode per model and the pop-up counts, replayed on SimPhone."""
    env = {**os.environ, 'IN_TEST': '1'}
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_learning.py'), '--preset', 'smoke', '--seeds', '1',
           '--step-aware', '1', '--out', str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    run = tmp_path / 'smoke-seed0'
    rows = json.loads((run / 'bench_rows.json').read_text())['rows']
    assert [x['model'] for x in rows][:4] == ['Stage 1', 'Stage 1+2', 'Stage 1+2+3', 'Stage 1+2+3, step-aware λ = 1']
    assert [x.get('control') for x in rows[-2:]] == ['longer', 'continued'] and all(x['online_episodes'] == 4 for x in rows)
    assert rows[-2]['model'].startswith('Stage 1, longer') and rows[-1]['model'].startswith('Stage 1, continued')
    assert (run / 'models' / 'stage1_continued' / 'mobile_r1.json').exists() and (run / 'metrics_continued.jsonl').exists()
    assert (run / 'metrics_step_aware1.jsonl').exists() and 'step-aware λ = 1 minus Stage 1+2' in r.stdout
    out = tmp_path / 'assets'
    cmd = [sys.executable, str(ROOT / 'tools' / 'real_run_assets.py'), str(run), '--out', str(out),
           '--models', 'stage2', 'stage3', 'stage3_step_aware1']
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    info = json.loads((out / 'run.json').read_text())
    assert info['models'] == ['stage2', 'stage3', 'stage3_step_aware1'] and set(info['popups']) == {'stage2', 'stage3_step_aware1'}
    assert all(0 <= c['closed'] <= c['popup_states'] for c in info['popups'].values())
    for f in ('metrics.jsonl', 'metrics_step_aware1.jsonl', 'table.json', 'bench_rows.json', 'stage2', 'stage3_step_aware1'):
        assert (out / f).exists(), f


def test_popup_counts_replays_the_episode():
    "On phones where every screen opens a pop-up: a tap on its × counts as closed, a tap beside it does not."
    spec = importlib.util.spec_from_file_location('real_run_assets', ROOT / 'tools' / 'real_run_assets.py')
    tool = importlib.util.module_from_spec(spec); spec.loader.exec_module(tool)
    from mobile_r1.actions import Click, Open, Parsed
    from mobile_r1.rollout import Trajectory, Turn
    from mobile_r1.sim import SimConfig, SimPhone, task_list
    task, cfg = task_list('train', world=('Video/like_video',))[0], {'popup_prob': 1.0, 'max_turns': 5}
    ph = SimPhone(SimConfig(popup_prob=1.0)); ph.reset(task, seed=3); ph.step(Open('Video'))
    x1, y1, x2, y2 = next(b for i, _, b in ph.state.popup.buttons if i == ph.state.popup.close_id)
    turn = lambda a: Turn(None, [], '', Parsed(action=a))
    close, miss = Click(((x1 + x2) // 2, (y1 + y2) // 2)), Click((5, 600))
    trajs = [Trajectory(task.instruction, task.id, [turn(Open('Video')), turn(close)], success=False),
             Trajectory(task.instruction, task.id, [turn(Open('Video')), turn(miss), turn(miss)], success=False)]
    assert tool.popup_counts(trajs[:1], [(task, 3)], cfg) == {'popup_states': 1, 'closed': 1}
    assert tool.popup_counts(trajs[1:], [(task, 3)], cfg) == {'popup_states': 2, 'closed': 0}
    with pytest.raises(AssertionError, match='replay'):
        tool.popup_counts([Trajectory(task.instruction, task.id, [turn(Open('Video'))], success=True)], [(task, 3)], cfg)


def test_bench_shared_cores_smoke(tmp_path):
    "The library's variant at toy size: a solo run and a pair, each saying what it chose; the torchrun case on 2 processes."
    base = [sys.executable, str(ROOT / 'benchmarks' / 'bench_shared_cores.py'), '--steps', '2', '--episodes', '6', '--out', str(tmp_path)]
    r = subprocess.run(base + ['--variant', 'library'], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    row = json.loads(r.stdout.strip().splitlines()[-1])
    assert row['variant'] == 'library' and len(row['pair_s']) == 2 and len(row['ratio']) == 2, row
    assert all('per process' in c and 'PASSIVE (set by mobile_r1)' in c for c in [row['solo_chose'], *row['pair_chose']]), row
    r = subprocess.run(base + ['--launch', 'torchrun'], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    row = json.loads(r.stdout.strip().splitlines()[-1])
    assert row['two_chose'].startswith('1 per process (2 cores shared by 2 local processes') or os.cpu_count() != 2, row


def test_bench_variants_smoke(tmp_path):
    "The variants benchmark at the smoke preset: the paper's stages, a stage-3-only fix sharing the paper's stage 2, a combination, the control."
    env = {**os.environ, 'IN_TEST': '1'}
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_variants.py'), '--preset', 'smoke', '--seeds', '1',
           '--variants', 'paper,gigpo', '--combo', 'dynamic,clip_higher', '--out', str(tmp_path), '--custom', 'mine', '--s3', 'lr=1e-3']
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    run = tmp_path / 'smoke-seed0'
    rows = json.loads((run / 'variant_rows.json').read_text())['rows']
    assert [(x['variant'], x['stages']) for x in rows] == [
        ('stage 1', '1'), ('preset (smoke)', '2'), ('preset (smoke)', '2+3'), ('paper', '2'), ('paper', '2+3'), ('gigpo', '2'),
        ('gigpo', '2+3'), ('dynamic+clip_higher', '2'), ('dynamic+clip_higher', '2+3'), ('mine', '2'), ('mine', '2+3'), ('stage 1, longer', '1')]
    mine = json.loads((run / 'variants' / 'mine' / 'stage3' / 'mobile_r1.json').read_text())['config']
    assert mine['lr'] == 1e-3 and mine['base'].endswith('models/stage2')   # a custom variant: the preset's own stage 2, shared
    assert all(x['online_episodes'] == 4 for x in rows)
    assert not (run / 'variants' / 'gigpo' / 'stage2').exists()                 # a stage-3-only fix starts from the paper's stage 2
    assert rows[5]['online_success'] == rows[3]['online_success']
    s3 = [json.loads(l) for l in (run / 'variants' / 'dynamic+clip_higher' / 'metrics.jsonl').read_text().splitlines()]
    s3 = [x for x in s3 if x['stage'] == 3]
    assert s3 and all('signal_share' in x for x in s3)
    assert 'rise' in r.stdout
    # resume after a kill: a stage-2 folder holding only its trainer folder is trained again, its metric rows not doubled
    paper = run / 'variants' / 'paper'
    steps = [x['step'] for x in map(json.loads, (paper / 'metrics.jsonl').read_text().splitlines()) if x['stage'] == 2]
    shutil.rmtree(paper / 'stage2'); (paper / 'stage2' / 'trainer').mkdir(parents=True); (paper / 'rows.json').unlink()
    r2 = subprocess.run(cmd[:-10] + ['--variants', 'paper', '--out', str(tmp_path)], capture_output=True, text=True, env=env, timeout=900)
    assert r2.returncode == 0, r2.stderr[-3000:]
    assert (paper / 'stage2' / 'mobile_r1.json').exists()
    assert [x['step'] for x in map(json.loads, (paper / 'metrics.jsonl').read_text().splitlines()) if x['stage'] == 2] == steps
    # the notebook's assets from that run: every seed's rows, the curves, one episode before and after
    out = tmp_path / 'assets'
    a = subprocess.run([sys.executable, str(ROOT / 'tools' / 'variants_assets.py'), str(tmp_path), '--preset', 'smoke',
                        '--after', 'variants/dynamic+clip_higher/stage3', '--out', str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert a.returncode == 0, a.stderr[-3000:]
    info = json.loads((out / 'variants.json').read_text())
    assert [x['online_success'] for x in info['seeds']['0']['rows']] == \
           [x['online_success'] for x in json.loads((run / 'variant_rows.json').read_text())['rows']]
    assert info['seeds']['0']['sizes']['gigpo']['2'] == info['seeds']['0']['sizes']['paper']['2']   # it trained on the paper's stage 2
    assert {r['split'] for r in info['seeds']['0']['held_out']} <= {'held_out', 'unseen_apps'}           # the splits it does not train on
    ep = info['episode']
    assert sum(c['episodes'] for c in ep['by_task'].values()) == ep['episodes_compared'] == 4
    assert sum(c['before'] for c in ep['by_task'].values()) == ep['success']['before']
    assert (out / 'before' / 'data.jsonl').exists() and (out / 'after' / 'data.jsonl').exists()
    assert any('kl' in x for x in info['seeds']['0']['curves']['paper'])                               # TRL's KL to the reference, kept
    # rows and curves only (a run of older code, compared beside a newer one): no episode played, none written
    a = subprocess.run([sys.executable, str(ROOT / 'tools' / 'variants_assets.py'), str(tmp_path), '--preset', 'smoke', '--no-episode',
                        '--out', str(tmp_path / 'rows_only')], capture_output=True, text=True, env=env, timeout=600)
    assert a.returncode == 0, a.stderr[-3000:]
    only = json.loads((tmp_path / 'rows_only' / 'variants.json').read_text())
    assert only['episode'] is None and only['seeds']['0']['rows'] == info['seeds']['0']['rows']
    assert not (tmp_path / 'rows_only' / 'before').exists()
    bad = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'bench_variants.py'), '--variants', 'magic'], capture_output=True, text=True)
    assert bad.returncode != 0 and 'unknown variant' in bad.stderr


def test_variants_reuse_paper_stage2():
    "A preset whose stage 2 is the paper's (busy, full) lends its model to the stage-3-only variants; tiny's (visited states) does not."
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    from bench_variants import paper_stage2
    from mobile_r1.quickstart import PRESETS
    run = Path('r')
    assert paper_stage2(run, PRESETS['busy']) == paper_stage2(run, PRESETS['full']) == run / 'models' / 'stage2'
    assert paper_stage2(run, PRESETS['tiny']) == run / 'variants' / 'paper' / 'stage2'


def test_bench_rl_speed_smoke():
    "The RL speed benchmark runs end to end and ends on the two ratios."
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_rl_speed.py'), '--steps', '1', '--stage1-steps', '2', '--prompts', '2']
    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, 'IN_TEST': '1'}, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith('ratios, decode loop over stage') and 'stage 2' in last and 'stage 3' in last
    assert 'generation' in r.stdout and 'rollouts' in r.stdout


def test_bench_env_smoke():
    "The standard-API benchmark at a toy size: one row per path, and the targets line."
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'bench_env.py'), '--steps', '40', '--n', '2'],
                       capture_output=True, text=True, env={**os.environ, 'IN_TEST': '1'}, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    for row in ('SimPhone directly', 'Gymnasium, single', 'Gymnasium vector, sync N=2', 'Gymnasium vector, async N=2',
                'OpenEnv client over loopback'):
        assert row in r.stdout, r.stdout
    assert 'targets: Gymnasium single >= 0.90x direct' in r.stdout and 'OpenEnv >= 500 steps/s' in r.stdout, r.stdout

def test_bench_plateau_smoke(tmp_path):
    "Stage 1 at two step budgets, each its own run and schedule, each measured online on quiet and on the preset's phones; a rerun keeps both; `--set` runs in a folder of its own."
    env = {**os.environ, 'IN_TEST': '1'}
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_plateau.py'), '--preset', 'smoke', '--steps', '2', '3', '--out', str(tmp_path),
           '--set', 'popup_prob=0.2']
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    run = tmp_path / 'smoke-popup_prob=0.2-seed0'
    res = json.loads((run / 'plateau.json').read_text())
    assert [x['steps'] for x in res['rows']] == [2, 3] and res['popup_prob'] == 0.2 and res['changes'] == {'popup_prob': 0.2}
    for x in res['rows']:
        assert x['quiet']['online_episodes'] == 4 and x['preset_phones']['online_episodes'] == 4 and x['wall_s'] > 0
    assert (run / 'models' / 'stage1_3' / 'mobile_r1.json').exists()
    r2 = subprocess.run(cmd[:-6] + ['2', '--out', str(tmp_path), '--set', 'popup_prob=0.2'], capture_output=True, text=True, env=env, timeout=600)
    assert r2.returncode == 0 and 'steps' not in r2.stdout.split('by step budget')[0], r2.stdout[-2000:]   # nothing trained again
    bad = subprocess.run(cmd[:-1] + ['pop_prob=0.2'], capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode != 0 and 'KEY one of' in bad.stderr and 'popup_prob' in bad.stderr, bad.stderr[-2000:]

def test_the_paired_control_continues_the_longer_plan():
    "The continued control starts where the schedule planned over all the steps stands at stage 1's end (transformers' cosine)."
    import torch
    from transformers import get_cosine_schedule_with_warmup
    lr = load('bench_learning').cosine_lr
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=4e-3)
    sched = get_cosine_schedule_with_warmup(opt, num_warmup_steps=84, num_training_steps=1663)   # ceil(0.05 x 1663)
    for _ in range(1200): opt.step(); sched.step()
    assert abs(lr(4e-3, 1200, 1663, 0.05) - sched.get_last_lr()[0]) < 1e-12
    assert lr(4e-3, 0, 100, 0.05) == 0.0 and lr(4e-3, 5, 100, 0.05) == 4e-3 and lr(4e-3, 100, 100, 0.05) == 0.0


def test_bench_learning_overrides():
    "`--set KEY=VALUE` reads QuickstartConfig fields as their types and refuses a field that does not exist, naming the fields."
    from mobile_r1.quickstart import PRESETS
    ov = load('bench_learning').overrides
    assert ov(['stage1_steps=1200', 'popup_prob=0.5', 'content=procedural', 'world=Video,Shop'], PRESETS['tiny']) == \
        {'stage1_steps': 1200, 'popup_prob': 0.5, 'content': 'procedural', 'world': ('Video', 'Shop')}
    with pytest.raises(SystemExit, match='stage1_steps'): ov(['stage_one=3'], PRESETS['tiny'])
    with pytest.raises(SystemExit, match='KEY=VALUE'): ov(['stage1_steps'], PRESETS['tiny'])
    with pytest.raises(SystemExit, match='stage1_steps is int'): ov(['stage1_steps=many'], PRESETS['tiny'])


def test_probe_popups_labels_each_popup(monkeypatch):
    "The pop-up probe splits the states by the pop-up on screen; played by the expert, every ad and dialog is closed."
    from mobile_r1.sim.expert import ExpertPolicy
    pp = load('probe_popups')
    monkeypatch.setattr(pp.Policy, 'load', staticmethod(lambda m: ExpertPolicy()))
    monkeypatch.setattr(pp, 'sampled_correct', lambda pol, turns, k, temperature=1.0: [k - 1] * len(turns))
    r = pp.probe('expert', ['Video'], popup_prob=0.9, episodes=6, k=4, temperature=1.0)
    assert r['success'] == 6 and set(r['greedy']) <= {'ad', 'permission', 'no pop-up'} and r['greedy']['no pop-up']['rate'] == 100.0
    met = [k for k in ('ad', 'permission') if k in r['greedy']]
    assert met, r['greedy']
    for k in met:
        assert r['greedy'][k]['rate'] == 100.0 and r[k]['sampled']['rate'] == 75.0 and r[k]['pass@4']['rate'] == 100.0
        assert r[k]['pass@4']['n'] == r['greedy'][k]['n']


@pytest.mark.parametrize('task,extra', [('mark', []), ('scan', []), ('markread', []), ('solo', []), ('has', []), ('hastext', []), ('copytext', ['--blank']),
                                        ('titletext', ['--blank'])])
def test_bench_reading_probe_smoke(tmp_path, task, extra):
    "Each probe trains and scores at toy size; a tap probe scores taps, a reading probe readings, each in [0, 100]; a text control runs without the screen (--blank)."
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_reading_probe.py'), '--task', task, '--steps', '2', '--eval-every', '2',
           '--screens', '6', '--test-screens', '4', '--bs', '2', '--spec', '64,1,2,1,32,1', '--title-px', '20', '--out', str(tmp_path), *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads((tmp_path / f'{task}.json').read_text())
    assert res['args']['task'] == task and res['test'] >= 3 and [x['step'] for x in res['log']] == [2]
    assert 0 <= res['log'][0]['score'] <= 100 and res['log'][0]['loss'] > 0


def test_bench_reading_probe_align(tmp_path):
    "--align adds a word-alignment loss (logged apart, near ln 12 + ln 10 while the embeddings are small and random); it refuses a probe whose rows are not titles, and --blank a probe that needs the screen."
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_reading_probe.py'), '--task', 'has', '--align', '1', '--steps', '2', '--eval-every', '2',
           '--screens', '6', '--test-screens', '4', '--bs', '2', '--spec', '64,1,2,1,32,1', '--out', str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    (e,) = json.loads((tmp_path / 'has.json').read_text())['log']
    assert abs(e['align_loss'] - (math.log(12) + math.log(10))) < 0.5 and e['loss'] > e['align_loss'], e
    r = subprocess.run(cmd[:3] + ['mark'] + cmd[4:], capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and '--task title, scan or has' in r.stderr
    r = subprocess.run(cmd[:3] + ['mark', '--blank'] + cmd[6:], capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and '--blank is for the text controls' in r.stderr


def test_bench_reading_probe_every_token(tmp_path):
    "--every-token puts the loss on every text token of the turn, the question's too, and on no image token or padding; without it, on the answer alone."
    import random, torch
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bench_reading_probe as b
    shots = b.screens('title', 2, 100, 15)
    for every in (False, True):
        p = b.Probe(b.args(['--task', 'title', '--spec', '64,1,2,1,32,1', '--out', str(tmp_path)] + ['--every-token'] * every))
        items = [p.item(img, rows, random.Random(i)) for i, (img, rows) in enumerate(shots)]
        seen = {}
        V = p.model.config.text_config.vocab_size
        p.model.forward = lambda labels=None, **kw: seen.update(labels=labels, **kw) or type('O', (), {'loss': torch.tensor(0.), 'logits': torch.zeros(*labels.shape, V)})()
        p.loss(items)
        ids, mask, lab = seen['input_ids'], seen['attention_mask'], seen['labels']
        text = (mask == 1) & (ids != p.proc.image_token_id)
        if every:
            assert torch.equal(lab != -100, text) and torch.equal(lab[text], ids[text])
            assert abs(p.named(items) - 2 * math.log(V)) < 1e-3           # uniform logits: two words of the vocabulary a title
        else:
            for r, (_, _, ans, _) in enumerate(items):
                want = p.proc.tokenizer(ans + '<|im_end|>')['input_ids']
                assert lab[r][lab[r] != -100].tolist() == want


def test_bench_reading_probe_rows(tmp_path):
    "--rows K keeps K rows of each feed, drawn per screen, and paints the others with the row's own background; it is refused where there is no feed."
    import numpy as np
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bench_reading_probe as b
    full, two = b.screens('title', 3, 100, 15), b.screens('title', 3, 100, 15, keep=2)
    for (img, rows), (img2, rows2) in zip(full, two):
        assert len(rows) > 2 and len(rows2) == 2 and set(rows2) <= set(rows)
        a, a2 = np.asarray(img), np.asarray(img2)
        for t, (x1, y1, x2, y2) in rows:
            same = np.array_equal(a[y1:y2, x1:x2], a2[y1:y2, x1:x2])
            assert same == ((t, (x1, y1, x2, y2)) in rows2)                           # kept rows untouched, the others painted
            if not same: assert len(np.unique(a2[y1:y2, x1:x2].reshape(-1, 3), axis=0)) == 1   # one flat colour
    assert [r for _, r in two] != [r[:2] for _, r in full]                            # drawn per screen, not the top two
    for bad in (['--task', 'mark', '--rows', '2'], ['--task', 'title', '--rows', '0']):
        with pytest.raises(SystemExit): b.args(bad + ['--out', str(tmp_path)])


def test_bench_reading_probe_text_controls():
    """hastext lists exactly the screen's titles and answers yes when the asked one is among them; copytext's answer is its listed titles, in order;
    titletext's answer is the place listed beside the named title."""
    import random
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bench_reading_probe as b
    rows = [('Quiet Guitar', (0, 86, 360, 150)), ('Golden Cats', (0, 150, 360, 214))]
    for task in ('hastext', 'copytext', 'titletext'):
        p = object.__new__(b.Probe); p.a, p.W, p.H = b.args(['--task', task]), 224, 392
        for s in range(20):
            _, q, ans, box = p.item(None, rows, random.Random(s))
            if task == 'titletext':
                places = dict(re.findall(r'"([^"]+)" at (\[\d+, \d+\]);', q))
                assert sorted(places) == sorted(t for t, _ in rows) and ans == places[re.search(r'Tap "([^"]+)"', q)[1]] and box, q
                continue
            listed = re.findall(r'"([^"]+)";', q)
            assert sorted(listed) == sorted(t for t, _ in rows) and box is None, q
            if task == 'copytext': assert ans == '; '.join(listed)
            else: assert ans == ('yes' if re.search(r'Is "([^"]+)"', q)[1] in listed else 'no')


def test_bench_reading_probe_scan():
    """scan's answer judges the rows above the named one 'no', in screen order, and ends at it with 'yes' and its place;
    its score parses the place after the scan and `found` counts the scans that stop at the named title."""
    import random
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bench_reading_probe as b
    rows = [('Quiet Guitar', (0, 86, 360, 150)), ('Golden Cats', (0, 150, 360, 214)), ('Lazy Dogs', (0, 214, 360, 278))]
    p = object.__new__(b.Probe); p.a, p.W, p.H = b.args(['--task', 'scan']), 224, 392
    seen = set()
    for s in range(30):
        _, q, ans, box = p.item(None, rows, random.Random(s))
        t = re.search(r'Tap "([^"]+)"', q)[1]; k = [v for v, _ in rows].index(t); seen.add(k)
        assert ans == '; '.join([f'{v} no' for v, _ in rows[:k]] + [f'{t} yes {p.place(rows[k][1])}']) and box == p.box(rows[k][1])
    assert seen == {0, 1, 2}
    item = p.item(None, rows, random.Random(0)); ans, box = item[2], item[3]
    cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
    p.texts, p.end = (lambda chunk: (['q'], [None])), 0
    p.model = type('Model', (), {'eval': lambda self: None, 'train': lambda self: None})()
    for out, hit, found in ((ans, 100.0, 1), (f'Lazy Dogs yes [{cx}, {cy}]', 100.0, 0), (ans.rsplit(' [', 1)[0] + ' [0, 0]', 0.0, 1)):
        p.proc = type('Proc', (), {'tokenizer': type('Tok', (), {'batch_decode': lambda self, c, skip_special_tokens: [out]})()})()
        with mock.patch.object(b, 'sample', lambda *a, **k: [[0]]), mock.patch.object(b, 'encode', lambda *a, **k: None):
            assert (p.score([item]), p.found) == (hit, found), out     # a greedy answer given, scored


@pytest.mark.parametrize('encoder,place', [('qwen', 'grid28'), ('mlp', 'fixed'), ('cnn', 'rows'), ('mlp', 'feed')])
def test_bench_reading_align_smoke(tmp_path, encoder, place):
    "Each encoder trains and scores at toy size; accuracies lie in [0, 100] and the untrained loss sits near the prior's."
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_reading_align.py'), '--encoder', encoder, '--place', place,
           '--steps', '2', '--eval-every', '2', '--bs', '4', '--test', '8', '--vision', '32,1', '--width', '32', '--out', str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads((tmp_path / f'{encoder}_{place}_9.json').read_text())
    (e,) = res['log']
    assert e['step'] == 2 and 0 <= e['adjective'] <= 100 and 0 <= e['noun'] <= 100
    assert abs(e['loss'] - res['prior_loss']) < 1.5, e


def test_bench_reading_align_places():
    "Titles start on the 28-pixel grid for grid28, on the 14-pixel grid (and off the 28) for grid14, at one place for fixed, anywhere for random."
    import random
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bench_reading_align as b
    at = lambda place: [b.where(random.Random(s), place, 224, 392) for s in range(40)]
    assert set(at('fixed')) == {(28, 140)}
    for place, g in (('grid28', 28), ('grid14', 14)):
        assert all(x % g == 0 and y % g == 0 for x, y in at(place)) and len(set(at(place))) > 20, place
    assert any(x % 28 for x, _ in at('grid14')) and any(x % 14 for x, _ in at('random'))
    img, ((i, j, row),) = b.screen(random.Random(0), 'rows', 9, 224, 392)
    assert img.size == (224, 392) and 0 <= i < 12 and 0 <= j < 10 and row is None
    img, labels = b.screen(random.Random(0), 'feed', 9, 224, 392)              # SimPhone's feed: one title a row, each in its own token row
    rows = [r for *_, r in labels]
    assert img.size == (224, 392) and len(labels) >= 5 and len(set(rows)) == len(rows) and all(0 <= r < 14 for r in rows)


def test_bench_reading_probe_chain(tmp_path):
    "A probe saves its model (--save); a second starts from it (--from-model) with the tower fixed (--freeze-tower): the tower's weights do not move, the language model's do."
    import torch
    from safetensors.torch import load_file
    base = [sys.executable, str(ROOT / 'benchmarks' / 'bench_reading_probe.py'), '--steps', '2', '--eval-every', '2', '--screens', '6',
            '--test-screens', '4', '--bs', '2', '--spec', '64,1,2,1,32,1', '--out', str(tmp_path), '--save']
    for extra in (['--task', 'read', '--name', 'first'], ['--task', 'title', '--name', 'second', '--from-model', str(tmp_path / 'first.model'), '--freeze-tower', '--text-first']):
        r = subprocess.run(base + extra, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
    a, b = (load_file(tmp_path / f'{n}.model' / 'model.safetensors') for n in ('first', 'second'))
    vis = [k for k in a if k.startswith('visual.') or '.visual.' in k]
    assert vis and all(torch.equal(a[k], b[k]) for k in vis)
    assert any(not torch.equal(a[k], b[k]) for k in a if k not in vis)
    a2 = json.loads((tmp_path / 'second.json').read_text())['args']
    assert a2['from_model'].endswith('first.model') and a2['text_first']


def test_bench_reading_probe_budget_holds_the_longest_answer(tmp_path):
    "The greedy answer's token budget holds the longest answer of each probe (seven places, echoed or not; a title's tap, echoed)."
    import random
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bench_reading_probe as b
    rows = [(f'Midnight {n}', (0, 86 + 64 * k, 360, 150 + 64 * k)) for k, n in enumerate(['Skyline', 'Noodles', 'Rockets', 'Puppies', 'Pandas', 'Garden', 'Guitar'])]
    for extra in (['--task', 'placestext'], ['--task', 'placestext', '--echo'], ['--task', 'titletext', '--echo'], ['--task', 'title']):
        p = b.Probe(b.args(extra + ['--spec', '64,1,2,1,32,1', '--out', str(tmp_path)]))
        _, _, ans, _ = p.item(None, rows, random.Random(0))
        assert len(p.proc.tokenizer(ans)['input_ids']) <= p.budget, (extra, ans)   # the answer scores without its end token


@pytest.mark.parametrize('order,place', [('question-first', 'after'), ('listing-first', 'before')])
def test_bench_lookup_questions(order, place):
    "Each question lists `--keys` distinct titles at distinct rows, top to bottom, and its answer is the place written beside the named one; the question stands where --order puts it."
    import random
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bench_lookup as b
    a = b.args(['--order', order, '--place', place, '--keys', '5'])
    pat = r'(\[\d+, \d+\]) "([^"]+)";' if place == 'before' else r'"([^"]+)" at (\[\d+, \d+\]);'
    for s in range(30):
        q, ans = b.question(random.Random(s), a)
        pairs = re.findall(pat, q)
        places = {t: p for p, t in pairs} if place == 'before' else dict(pairs)
        ys = [json.loads(p)[1] for p in places.values()]
        assert len(places) == 5 and len(set(ys)) == 5 and ys == sorted(ys), q
        named = re.search(r'Tap "([^"]+)"\.', q)
        assert ans == places[named[1]] and (named.start() == 0) == (order == 'question-first'), q
    with pytest.raises(SystemExit): b.args(['--keys', '0'])
    with pytest.raises(SystemExit): b.args(['--keys', '13', '--words', '1'])              # 12 one-word titles
    q, ans = b.question(random.Random(0), b.args(['--words', '1', '--keys', '12']))
    assert sorted(re.findall(r'"(\w+)" at', q)) == sorted(b.ADJ), q
    a = b.args(['--keys', '2-7'])                                   # a range: the count is drawn per question, all of it used
    counts = {len(re.findall(r' at \[', b.question(random.Random(s), a)[0])) for s in range(200)}
    assert counts == set(range(2, 8)) and a.name == 'question-first_after_k2-7'
    assert len(re.findall(r' at \[', b.question(random.Random(0), a, 7)[0])) == 7
    with pytest.raises(SystemExit): b.args(['--keys', '5-3'])
    with pytest.raises(SystemExit): b.args(['--keys', 'many'])


def test_bench_lookup_smoke(tmp_path):
    "The words-only lookup trains and scores at toy size, on text alone."
    cmd = [sys.executable, str(ROOT / 'benchmarks' / 'bench_lookup.py'), '--steps', '2', '--eval-every', '2', '--bs', '2', '--test', '4',
           '--spec', '64,1,2,1,32,1', '--order', 'listing-first', '--out', str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads((tmp_path / 'listing-first_after_k7.json').read_text())
    assert res['test'] == 4 and [x['step'] for x in res['log']] == [2] and 0 <= res['log'][0]['score'] <= 100 and res['log'][0]['loss'] > 0


def test_bench_lookup_losses(tmp_path):
    "The head on the answer's positions alone gives the model's own loss on the answer; --every-token gives its loss on every token; the score counts exact answers."
    import random, torch
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bench_lookup as b
    a = b.args(['--spec', '64,1,2,1,32,1', '--keys', '3', '--out', str(tmp_path)])
    m = b.Lookup(a); items = [b.question(random.Random(i), a) for i in range(4)]
    ids, labels, mask = m.batch(items)
    with torch.no_grad():
        assert torch.allclose(m.loss(items), m.model(input_ids=ids, attention_mask=mask, labels=labels).loss, atol=1e-5)
        m.every = True
        full = ids.masked_fill(mask == 0, -100)
        assert torch.allclose(m.loss(items), m.model(input_ids=ids, attention_mask=mask, labels=full).loss, atol=1e-5)
    assert m.score(items) == 0.0                                   # random weights write no answer exactly
