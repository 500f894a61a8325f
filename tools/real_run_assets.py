"""Copy what the notebooks show of a real run into `nbs/assets/<out>/`: the metric rows (every `metrics*.jsonl`), the
results table, and one episode (the same task and seed) played by each of the run's models in `--models`.

    python tools/real_run_assets.py runs/quickstart                             # `mobile-r1 quickstart` (13a)
    python tools/real_run_assets.py runs/popups-seed0 --out popups_run          # `... --preset popups` (08, 09, 10)
    python tools/real_run_assets.py runs/bench_learning/busy-seed0 --out busy_run --models stage2 stage3_step_aware1

The episode is taken from the evaluation's own seed stream (`online_eval(..., seed=7)`, as the train-task row), never
from a seed stages 2 or 3 trained on. Rule: the first episode whose outcome differs between the first and the last of
`--models` (by default Stage 1 and Stage 1+2+3); if none differs, the first whose actions differ; if none, the first
episode. `run.json` says which rule picked it."""
import argparse, json, shutil
from pathlib import Path
from mobile_r1.policy import Policy
from mobile_r1.rollout import run_episodes, save_trajectories
from mobile_r1.actions import Click
from mobile_r1.sim import SimConfig, SimPhone, task_list
from mobile_r1.sim.core import inside

ROOT = Path(__file__).resolve().parents[1]


def play(model: Path, jobs, cfg: dict):
    pol = Policy.load(str(model))
    phones = [SimPhone(SimConfig(popup_prob=cfg['popup_prob'], max_steps=cfg['max_turns'])) for _ in jobs]
    return run_episodes(pol, phones, [t for t, _ in jobs], [s for _, s in jobs], max_steps=cfg['max_turns'])


def popup_counts(trajs, jobs, cfg: dict) -> dict:
    "Pop-up states the agent met in `trajs` and how many it closed (a click on ×, Allow or Don't allow; not View), replayed on SimPhone."
    met = closed = 0
    for tr, (task, seed) in zip(trajs, jobs):
        ph = SimPhone(SimConfig(popup_prob=cfg['popup_prob'], max_steps=cfg['max_turns']))
        ph.reset(task, seed=seed)
        for t in tr.turns:
            if t.action is None or ph.state.status is not None: break
            p = ph.state.popup
            if p is not None:
                met += 1
                pt = [v / ph.cfg.scale for v in t.action.coordinate] if isinstance(t.action, Click) else None
                closed += pt is not None and any(inside(pt, b) for i, _, b in p.buttons if i != 'view')
            ph.step(t.action)
        assert task.is_successful(ph.state) == bool(tr.success), f'the replay of {task.id} seed {seed} differs from the episode'
    return {'popup_states': met, 'closed': closed}


def eval_jobs(cfg: dict) -> list:
    "The (task, phone seed) of each train-task evaluation episode of a quickstart of `cfg`: online_eval's own stream (seed=7)."
    pool = task_list('train', world=cfg['world'])
    return [(pool[k % len(pool)], 7 * 1_000_003 + k * 7919) for k in range(cfg['train_online_episodes'])]


def acts(tr) -> list[str]: return [str(t.action) for t in tr.turns]


def pick_episode(first, last) -> tuple[int, str]:
    "The episode to show and the rule that picked it: the first whose outcome differs, else whose actions differ, else the first."
    return next(((i, 'outcome differs') for i, (a, b) in enumerate(zip(first, last)) if bool(a.success) != bool(b.success)),
                next(((i, 'actions differ, same outcome') for i, (a, b) in enumerate(zip(first, last)) if acts(a) != acts(b)),
                     (0, 'no episode differs: the first one')))


def main(run: Path, out: str = 'real_run', models: tuple = ('stage1', 'stage2', 'stage3')):
    OUT = ROOT / 'nbs' / 'assets' / out
    st = json.loads((run / 'quickstart.json').read_text())
    cfg = st['config']
    jobs = eval_jobs(cfg)
    played = {m: play(run / 'models' / m, jobs, cfg) for m in dict.fromkeys((models[0], models[-1]))}
    first, last = played[models[0]], played[models[-1]]
    k, rule = pick_episode(first, last)
    if OUT.exists(): shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    for f in [*run.glob('metrics*.jsonl'), run / 'table.json', *run.glob('bench_rows.json')]: shutil.copy(f, OUT / f.name)
    for m in models: save_trajectories(play(run / 'models' / m, [jobs[k]], cfg), OUT / m)
    same = sum(acts(a) == acts(b) for a, b in zip(first, last))
    info = {'run': str(run), 'preset': st['preset'], 'config': cfg, 'timings': st['timings'], 'episode': k,
            'task': jobs[k][0].id, 'seed': jobs[k][1], 'rule': rule, 'episodes_compared': len(jobs),
            'models': list(models), 'same_actions_stage1_vs_final': same,   # the first vs the last of models
            'success': {m: sum(bool(t.success) for t in tr) for m, tr in played.items()},
            'popups': {m: popup_counts(tr, jobs, cfg) for m, tr in played.items()}}
    (OUT / 'run.json').write_text(json.dumps(info, indent=1))
    print(json.dumps({k: v for k, v in info.items() if k != 'config'}, indent=1))


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('run', type=Path, help='a finished quickstart or bench_learning run folder')
    ap.add_argument('--out', default='real_run', help='folder under nbs/assets/ (default real_run)')
    ap.add_argument('--models', nargs='+', default=['stage1', 'stage2', 'stage3'], help="model folders under RUN/models/")
    a = ap.parse_args()
    main(a.run, a.out, tuple(a.models))
