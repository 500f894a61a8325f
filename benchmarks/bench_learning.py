"""Does RL visibly work? The whole quickstart pipeline once per seed, and per stage the online success on the training
tasks (fresh seeds, pop-ups on) with its 95% Wilson interval, then mean ± sd over seeds.

One control row answers "is it RL, or just more training?": stage 1 given the RL stages' time instead. It is trained
again from the run's tiny model on the same data for its own steps plus as many more as fit in the wall time stages 2
and 3 took, under one warm-up and one cosine decay over all of them: the schedule stage 1 would have had, had it been
planned that long. It never restarts at the peak learning rate (a restarted schedule loses 10 to 20 points on `full`).
That control is a fresh stage-1 run, and on pop-up phones one stage-1 run can differ from the next by tens of points,
so a second control is paired with the RL stages: stage 1 *continued* from the very model stages 2 and 3 start from,
for the same extra steps, its learning rate where the longer plan's cosine stands at stage 1's last step and decaying
to 0 over the extra steps (no warm-up, no restart).

With `--step-aware λ`, stage 3 runs a second time from the same stage 1+2 model with the step-aware departure
(`Stage3Config.step_aware`), beside the preset's own stage 3, and is evaluated the same way.

    python benchmarks/bench_learning.py --seeds 3 [--preset tiny] [--out runs/bench_learning]
    python benchmarks/bench_learning.py --preset busy --seeds 2 --step-aware 1     # where stage 3 matters
    python benchmarks/bench_learning.py --seeds 1 --set stage1_steps=1200 popup_prob=0.5 stage2_popup_prob=0.5   # a sweep point

`--set` changes fields of the preset's `QuickstartConfig` (read as `mobile-r1 train --set` reads them); the run folder's name
carries them, so each sweep point has its own.

Targets: the stage 1 → 1+2 rise is at least 10 points on every seed; stage 3 is reported as measured.
Takes about one quickstart per seed plus the two controls (about 16 minutes a seed for `tiny` on 2 CPU cores, about 27
for `busy` with `--step-aware`)."""
import argparse, json, math, statistics, sys, time
from dataclasses import replace
from pathlib import Path
from mobile_r1.cli import config_overrides
from mobile_r1.evaluate import cell_text
from mobile_r1.policy import Policy
from mobile_r1.quickstart import PRESETS, _train, run_quickstart, stage_configs, train_tasks_row   # _train: rows of a killed attempt dropped

NAMES = {'1': 'Stage 1', '2': 'Stage 1+2', '3': 'Stage 1+2+3'}


def overrides(pairs, base) -> dict:
    "`KEY=VALUE` pairs as fields of the dataclass `base` (read as `mobile-r1 train --set` reads them); bad input exits, naming the fields."
    try: return config_overrides(type(base), pairs)
    except ValueError as e: sys.exit(str(e))


def trained(model: Path) -> bool:
    "Whether `model` holds a finished model (a killed run leaves a folder with only its trainer state)."
    return (model / 'mobile_r1.json').exists()


def extra_steps(cfg, st: dict) -> int:
    "The stage-1 steps that fit in the wall time stages 2 and 3 took, at this run's own stage-1 rate."
    s1_rate = cfg.stage1_steps / st['timings']['stage 1']                 # stage-1 steps per second in this run
    return max(1, round((st['timings']['stage 2'] + st['timings']['stage 3']) * s1_rate))


def cosine_lr(peak: float, step: int, total: int, warmup_ratio: float) -> float:
    "Where stage 1's schedule (transformers' warm-up and cosine, planned over `total` steps) stands after `step` steps."
    warm = math.ceil(total * warmup_ratio)
    if step < warm: return peak * step / warm
    return peak * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm)))


def control(run: Path, cfg, st: dict) -> dict:
    "Stage 1 trained for its steps plus the RL stages' wall time, one schedule over all of them; its train-task row."
    extra = extra_steps(cfg, st)
    steps = cfg.stage1_steps + extra
    out = run / 'models' / 'stage1_longer'
    if not trained(out):
        s1 = stage_configs(cfg, run)[1]                                        # the run's own stage 1, planned longer
        _train(1, replace(s1, out_dir=str(out), max_steps=steps, logging_steps=max(1, steps // 20)), run / 'metrics_control.jsonl')
    name = f'Stage 1, longer ({cfg.stage1_steps} + {extra} steps = stages 2 and 3 wall time, one schedule)'
    return {**train_tasks_row(Policy.load(str(out)), name, cfg), 'steps': extra, 'control': 'longer'}


def continued(run: Path, cfg, st: dict) -> dict:
    """Stage 1 continued from its own model (the one stages 2 and 3 start from) for the RL stages' wall time; its
    train-task row. The learning rate starts where the schedule planned over all the steps stands at stage 1's last
    step and decays to 0 by a half cosine over the extra steps: no warm-up, no restart at the peak."""
    extra, s1 = extra_steps(cfg, st), stage_configs(cfg, run)[1]
    lr = cosine_lr(s1.lr, cfg.stage1_steps, cfg.stage1_steps + extra, s1.warmup_ratio)
    out = run / 'models' / 'stage1_continued'
    if not trained(out):
        _train(1, replace(s1, base=s1.out_dir, out_dir=str(out), max_steps=extra, lr=lr, warmup_ratio=0.0,
                          logging_steps=max(1, extra // 20)), run / 'metrics_continued.jsonl')
    name = f'Stage 1, continued ({extra} more steps from its model = stages 2 and 3 wall time, lr {lr:.1e} to 0)'
    return {**train_tasks_row(Policy.load(str(out)), name, cfg), 'steps': extra, 'control': 'continued'}


def step_aware(run: Path, cfg, lam: float) -> dict:
    "Stage 3 again from the run's stage 1+2 model with the step-aware switch at `lam`; its train-task row."
    c = stage_configs(cfg, run)[3]
    out = run / 'models' / f'stage3_step_aware{lam:g}'
    if not trained(out): _train(3, replace(c, out_dir=str(out), step_aware=lam), run / f'metrics_step_aware{lam:g}.jsonl')
    return train_tasks_row(Policy.load(str(out)), f'Stage 1+2+3, step-aware λ = {lam:g}', cfg)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seeds', type=int, default=3, help='pipelines to run, seeds 0..N-1')
    ap.add_argument('--preset', default='tiny', choices=sorted(PRESETS))
    ap.add_argument('--out', default='runs/bench_learning')
    ap.add_argument('--step-aware', type=float, default=None, metavar='λ',
                    help="also run stage 3 with the step-aware departure at this λ, from the same stage 1+2 model")
    ap.add_argument('--set', nargs='+', default=[], metavar='KEY=VALUE', help="change the preset's QuickstartConfig fields")
    a = ap.parse_args()
    changes = overrides(a.set, PRESETS[a.preset])
    tag = ''.join(f'-{k}={v}' for k, v in changes.items())
    per_seed = {}
    for seed in range(a.seeds):
        cfg, run = replace(PRESETS[a.preset], seed=seed, **changes), Path(a.out) / f'{a.preset}{tag}-seed{seed}'
        t0 = time.time()
        st = run_quickstart(run, a.preset, progress=lambda m: print(f'  seed {seed} {m}', flush=True), cfg=cfg)
        rows = [r for k in sorted(st['rows']) for r in st['rows'][k] if r['split'] == 'train_tasks']
        if a.step_aware: rows.append(step_aware(run, cfg, a.step_aware))
        rows += [control(run, cfg, st), continued(run, cfg, st)]
        per_seed[seed] = rows
        (run / 'bench_rows.json').write_text(json.dumps({'rows': rows}, indent=1))   # tools/real_run_assets.py copies it
        print(f'\nseed {seed} ({time.time() - t0:.0f} s): train-task online success, {rows[0]["online_episodes"]} episodes per figure')
        for r in rows: print(f'  {r["model"]:<50} {cell_text(r, "online_success")}   online format errors {r["online_format_errors"]}')
    print(f'\n{a.preset}, {a.seeds} seed(s): mean ± sd of train-task online success over seeds')
    for i, row in enumerate(per_seed[0]):
        name, xs = row['model'], [per_seed[s][i]['online_success'] for s in per_seed]
        if 'control' in row: name = f"Stage 1, {row['control']} (+{[per_seed[s][i]['steps'] for s in per_seed]} steps: stages 2 and 3 wall time)"
        sd = statistics.stdev(xs) if len(xs) > 1 else float('nan')
        print(f'  {name:<50} {statistics.mean(xs):6.2f} ± {sd:.2f}   per seed {xs}')
    rises = [round(per_seed[s][1]['online_success'] - per_seed[s][0]['online_success'], 2) for s in per_seed]
    print(f'\nstage 1 → 1+2 rise per seed: {rises}; target ≥ 10 on every seed: {"met" if min(rises) >= 10 else "missed"}')
    for i in [i for i, r in enumerate(per_seed[0]) if i >= 2 and 'control' not in r]:   # the stage-3 rows
        gains = [round(per_seed[s][i]['online_success'] - per_seed[s][1]['online_success'], 2) for s in per_seed]
        print(f'{per_seed[0][i]["model"]} minus Stage 1+2, per seed: {gains}')
    (Path(a.out) / f'{a.preset}{tag}-summary.json').write_text(json.dumps({str(s): r for s, r in per_seed.items()}, indent=1))


if __name__ == '__main__':
    main()
