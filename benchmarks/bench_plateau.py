"""Has stage 1 stopped improving? Stage 1 of a preset trained for several step budgets, each a run of its own from the
same tiny model and the same expert trajectories (one cosine schedule over its whole budget, so no budget is a
truncated longer run), then each model's train-task online success: greedy, on the evaluation's own episode seeds,
on quiet phones (no pop-ups: the phones its demonstrations were mostly recorded on) and on the preset's phones.

    python benchmarks/bench_plateau.py [--preset tiny] [--seed 0] [--steps 150 300 600 1200 2400] [--out runs/plateau]
    python benchmarks/bench_plateau.py --steps 600 --set stage1_lr=8e-3      # a faster schedule, in a folder of its own

Writes OUT/PRESET-seedN/plateau.json (one row per budget: steps, wall seconds, loss at the end, both successes with
their intervals and n). RL pays where this curve is flat: while more stage-1 steps still help, dense expert labels beat
a sparse reward. Takes about 25 minutes for the default budgets of `tiny` on 2 CPU cores."""
import argparse, json, sys, time
from dataclasses import replace
from pathlib import Path
from mobile_r1.evaluate import cell_text
from mobile_r1.metrics import read_metrics
from mobile_r1.policy import Policy
from mobile_r1.quickstart import PRESETS, _make_model, _paths, _train, make_split, stage_configs, train_tasks_row
from mobile_r1.data import atomic_write
from mobile_r1.cli import config_overrides
from mobile_r1.threads import use_threads


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--preset', default='tiny', choices=sorted(PRESETS))
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--steps', type=int, nargs='+', default=[150, 300, 600, 1200, 2400])
    ap.add_argument('--out', default='runs/plateau')
    ap.add_argument('--set', nargs='+', default=[], metavar='KEY=VALUE', help="change the preset's QuickstartConfig fields")
    a = ap.parse_args()
    try: changes = config_overrides(type(PRESETS[a.preset]), a.set)
    except ValueError as e: sys.exit(str(e))
    use_threads()
    cfg = replace(PRESETS[a.preset], seed=a.seed, **changes)
    run = Path(a.out) / f'{a.preset}{"".join(f"-{k}={v}" for k, v in changes.items())}-seed{a.seed}'
    data, models = _paths(run)
    if not (data['train'] / 'data.jsonl').exists(): make_split(cfg, 'train', data['train'])
    if not (models['tiny'] / 'config.json').exists(): _make_model(cfg, data, models)
    res_file, rows = run / 'plateau.json', []
    if res_file.exists(): rows = json.loads(res_file.read_text())['rows']
    for n in a.steps:
        if any(r['steps'] == n for r in rows): continue          # a rerun keeps the budgets already measured
        s1, metrics = stage_configs(cfg, run)[1], run / f'metrics_{n}.jsonl'
        c = replace(s1, out_dir=str(run / 'models' / f'stage1_{n}'), max_steps=n, logging_steps=max(1, n // 20))
        t0 = time.time()
        _train(1, c, metrics)
        wall = round(time.time() - t0, 1)
        pol = Policy.load(c.out_dir)
        quiet = train_tasks_row(pol, f'stage 1, {n} steps, quiet phones', replace(cfg, popup_prob=0.0))
        busy = train_tasks_row(pol, f'stage 1, {n} steps, pop-ups {cfg.popup_prob}', cfg)
        loss = [r['loss'] for r in read_metrics(metrics) if 'loss' in r]
        rows.append({'steps': n, 'wall_s': wall, 'final_loss': loss[-1] if loss else None, 'quiet': quiet, 'preset_phones': busy})
        rows.sort(key=lambda r: r['steps'])
        atomic_write(res_file, json.dumps({'preset': a.preset, 'seed': a.seed, 'popup_prob': cfg.popup_prob,
                                           'stage1_lr': cfg.stage1_lr, 'changes': changes, 'rows': rows}, indent=1))
        print(f'{n:>5} steps ({wall:.0f} s, loss {rows[-1]["final_loss"]}): quiet {cell_text(quiet, "online_success")}, '
              f'pop-ups {cell_text(busy, "online_success")}', flush=True)
    print(f'\n{a.preset} seed {a.seed}: stage-1 train-task success by step budget')
    for r in rows:
        print(f'  {r["steps"]:>5} steps  {r["wall_s"]:>6.0f} s   quiet {cell_text(r["quiet"], "online_success"):<28} '
              f'pop-ups {cell_text(r["preset_phones"], "online_success")}')


if __name__ == '__main__':
    main()
