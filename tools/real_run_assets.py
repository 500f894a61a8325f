"""Copy what the notebooks show of a real run into `nbs/assets/real_run/`: the metric rows, the results table, and one
episode (the same task and seed) played by the model after each stage.

    python tools/real_run_assets.py runs/bench_learning/tiny-seed0      # a finished quickstart (or bench_learning) run

The episode is taken from the evaluation's own seed stream (`online_eval(..., seed=7)`, as the train-task row), never
from a seed stages 2 or 3 trained on. Rule: the first episode whose outcome differs between Stage 1 and Stage 1+2+3;
if none differs, the first whose actions differ; if none, the first episode. `run.json` says which rule picked it."""
import json, shutil, sys
from pathlib import Path
from mobile_r1.policy import Policy
from mobile_r1.rollout import run_episodes, save_trajectories
from mobile_r1.sim import SimConfig, SimPhone, task_list

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / 'nbs' / 'assets' / 'real_run'
NAMES = {1: 'Stage 1', 2: 'Stage 1+2', 3: 'Stage 1+2+3'}


def play(model: Path, jobs, cfg: dict):
    pol = Policy.load(str(model))
    phones = [SimPhone(SimConfig(popup_prob=cfg['popup_prob'], max_steps=cfg['max_turns'])) for _ in jobs]
    return run_episodes(pol, phones, [t for t, _ in jobs], [s for _, s in jobs], max_steps=cfg['max_turns'])


def main(run: Path):
    st = json.loads((run / 'quickstart.json').read_text())
    cfg = st['config']
    pool = task_list('train', world=cfg['world'])
    jobs = [(pool[k % len(pool)], 7 * 1_000_003 + k * 7919) for k in range(cfg['train_online_episodes'])]   # online_eval's stream
    first, last = play(run / 'models' / 'stage1', jobs, cfg), play(run / 'models' / 'stage3', jobs, cfg)
    acts = lambda tr: [str(t.action) for t in tr.turns]
    k, rule = next(((i, 'outcome differs') for i, (a, b) in enumerate(zip(first, last)) if bool(a.success) != bool(b.success)),
                   next(((i, 'actions differ, same outcome') for i, (a, b) in enumerate(zip(first, last)) if acts(a) != acts(b)),
                        (0, 'no episode differs: the first one')))
    if OUT.exists(): shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    shutil.copy(run / 'metrics.jsonl', OUT / 'metrics.jsonl')
    shutil.copy(run / 'table.json', OUT / 'table.json')
    for stage in (1, 2, 3):
        tr = play(run / 'models' / f'stage{stage}', [jobs[k]], cfg)
        save_trajectories(tr, OUT / f'stage{stage}')
    same = sum(acts(a) == acts(b) for a, b in zip(first, last))
    info = {'run': str(run), 'preset': st['preset'], 'config': cfg, 'timings': st['timings'], 'episode': k,
            'task': jobs[k][0].id, 'seed': jobs[k][1], 'rule': rule, 'episodes_compared': len(jobs),
            'same_actions_stage1_vs_final': same,
            'success': {NAMES[s]: sum(bool(t.success) for t in tr) for s, tr in ((1, first), (3, last))}}
    (OUT / 'run.json').write_text(json.dumps(info, indent=1))
    print(json.dumps({k: v for k, v in info.items() if k != 'config'}, indent=1))


if __name__ == '__main__':
    main(Path(sys.argv[1]))
