"""What makes GRPO work here: from the same stage-1 model per seed, the paper's stage 2 (recorded steps) and stage 3
(trajectory-level credit), each fix from the field alone, a combination, the preset's own stage 2, and the
equal-time "more stage 1" control (stage 1 planned for its steps plus the RL stages' wall time, one schedule). Every
figure is train-task online success, greedy, on the evaluation's own seeds (never a training seed), with its episode count and 95% Wilson interval; then mean ± sd over seeds and the rise over
stage 1. Every seed run counts: nothing is picked after the fact.

    python benchmarks/bench_variants.py --seeds 3 [--preset tiny] [--out runs/bench_variants]
    python benchmarks/bench_variants.py --seeds 3 --variants paper,gigpo --combo partial,dynamic
    python benchmarks/bench_variants.py --seeds 1 --variants '' --set stage1_steps=1200 popup_prob=0.5 \
        --custom more_rl --s2 max_steps=32 rounds=3 lr=3e-4 --s3 iterations=24 lr=2e-4     # a budget sweep point

Each variant changes our reading of the paper's stages (the `paper` variant) as listed in VARIANTS (stage 2's changes, stage 3's changes); a variant
that only changes stage 3 starts from the paper's stage-2 model. `--combo a,b` adds a variant with the changes of
a and b together. Where the preset's stage 2 is already the paper's (`busy`, `full`), the variants start from its
model. A run resumes: finished models and rows are kept. Takes about one quickstart per seed plus a stage 2, a
stage 3 and two evaluations per variant (about an hour a seed for `tiny` on 2 CPU cores)."""
import argparse, json, statistics, sys, time
from dataclasses import replace
from pathlib import Path
from mobile_r1.evaluate import cell_text
from mobile_r1.policy import Policy
from mobile_r1.quickstart import PRESETS, _train, run_quickstart, stage_configs, train_tasks_row   # _train: rows of a killed attempt dropped

sys.path.insert(0, str(Path(__file__).parent))
from bench_learning import control, overrides, trained  # noqa: E402  (the same control, resume test and --set as the learning benchmark)

PAPER2 = dict(states='recorded', screen=0, rounds=1)     # the paper's stage 2: the recorded steps, every one of them
VARIANTS = {                                             # name: (stage 2's changes, stage 3's changes)
    'paper': ({}, {}),
    'partial': (dict(partial_credit=0.5), {}),                                            # GUI-G²'s near-miss credit
    'dr_grpo': (dict(loss_type='dr_grpo', scale_rewards='none'), dict(loss_type='dr_grpo', scale_rewards='none')),
    'clip_higher': (dict(epsilon_high=0.28), dict(eps_high=0.28)),                         # DAPO's clip-higher
    'dynamic': (dict(screen=8), dict(resample=4)),                                         # only groups with signal
    'larger_G': (dict(G=16, prompts_per_step=4), dict(G=16, tasks_per_iter=1)),           # the same answers per step
    'gigpo': ({}, dict(gigpo=1.0)),                                                        # step-level credit, no expert
    'replay': ({}, dict(replay=True)),                                                     # a past success into a failing group
    'step_aware': ({}, dict(step_aware=1.0)),                                              # our departure: each turn scored against the expert
}


def paper_stage2(run: Path, cfg) -> Path:
    "Where the paper's stage-2 model of a run lives: the preset's own when the preset's stage 2 is the paper's (as `busy`'s is)."
    base2 = stage_configs(cfg, run)[2]
    return Path(base2.out_dir) if replace(base2, **PAPER2) == base2 else run / 'variants' / 'paper' / 'stage2'


def variant(run: Path, cfg, name: str, s2: dict, s3: dict, paper2: bool = True) -> list[dict]:
    """Stage 2 and stage 3 of one variant from the run's stage-1 model, each evaluated; resumes what is done. Stage 2's
    changes apply to the paper's stage 2 (`paper2`), or to the preset's own (a `--custom` variant)."""
    _, base2, base3 = stage_configs(cfg, run).values()
    d = run / 'variants' / name
    rows_file = d / 'rows.json'
    if rows_file.exists(): return json.loads(rows_file.read_text())
    d.mkdir(parents=True, exist_ok=True)
    shared = paper_stage2(run, cfg) if paper2 else Path(base2.out_dir)          # stage-3-only variants share a stage 2
    m2, m3 = (d / 'stage2' if s2 else shared), d / 'stage3'
    if not trained(m2): _train(2, replace(base2, **{**(PAPER2 if paper2 else {}), **s2}, out_dir=str(m2)), m2.parent / 'metrics.jsonl')
    if not trained(m3): _train(3, replace(base3, base=str(m2), out_dir=str(m3), **s3), d / 'metrics.jsonl')
    rows = [{**train_tasks_row(Policy.load(str(m)), f'{name}: Stage 1+{k}', cfg), 'variant': name, 'stages': k}
            for k, m in (('2', m2), ('2+3', m3))]
    rows_file.write_text(json.dumps(rows, indent=1))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seeds', type=int, default=3, help='pipelines to run, seeds 0..N-1')
    ap.add_argument('--preset', default='tiny', choices=sorted(PRESETS))
    ap.add_argument('--out', default='runs/bench_variants')
    ap.add_argument('--variants', default=','.join(VARIANTS), help=f'comma-separated, of {", ".join(VARIANTS)}')
    ap.add_argument('--combo', default='', help='comma-separated variants whose changes are combined into one more variant')
    ap.add_argument('--set', nargs='+', default=[], metavar='KEY=VALUE', help="change the preset's QuickstartConfig fields (as bench_learning.py)")
    ap.add_argument('--custom', default='', metavar='NAME', help="one more variant: the preset's own stages with --s2 and --s3 changes")
    ap.add_argument('--s2', nargs='+', default=[], metavar='KEY=VALUE', help="the custom variant's Stage2Config changes")
    ap.add_argument('--s3', nargs='+', default=[], metavar='KEY=VALUE', help="the custom variant's Stage3Config changes")
    a = ap.parse_args()
    changes = overrides(a.set, PRESETS[a.preset])
    tag = ''.join(f'-{k}={v}' for k, v in changes.items())
    names = [v for v in a.variants.split(',') if v]
    combo = [v for v in a.combo.split(',') if v]
    bad = [v for v in names + combo if v not in VARIANTS]
    if bad: sys.exit(f'unknown variant(s) {bad}: choose from {", ".join(VARIANTS)}')
    table = {n: VARIANTS[n] for n in names}
    if combo:
        table['+'.join(combo)] = ({k: v for n in combo for k, v in VARIANTS[n][0].items()},
                                  {k: v for n in combo for k, v in VARIANTS[n][1].items()})
    custom = {}
    if a.custom:
        from mobile_r1.stage2 import Stage2Config
        from mobile_r1.stage3 import Stage3Config
        custom = {a.custom: (overrides(a.s2, Stage2Config()), overrides(a.s3, Stage3Config()))}
    per_seed = {}
    for seed in range(a.seeds):
        cfg, run = replace(PRESETS[a.preset], seed=seed, **changes), Path(a.out) / f'{a.preset}{tag}-seed{seed}'
        t0 = time.time()
        st = run_quickstart(run, a.preset, progress=lambda m: print(f'  seed {seed} {m}', flush=True), cfg=cfg)
        preset_rows = [r for k in sorted(st['rows']) for r in st['rows'][k] if r['split'] == 'train_tasks']
        rows = [{**preset_rows[0], 'variant': 'stage 1', 'stages': '1'}]
        rows += [{**r, 'variant': f'preset ({a.preset})', 'stages': s} for r, s in zip(preset_rows[1:], ('2', '2+3'))]
        for name, (s2, s3) in table.items():
            print(f'  seed {seed} variant {name} ...', flush=True)
            rows += variant(run, cfg, name, s2, s3)
        for name, (s2, s3) in custom.items():
            print(f'  seed {seed} custom variant {name} ...', flush=True)
            rows += variant(run, cfg, name, s2, s3, paper2=False)
        rows.append({**control(run, cfg, st), 'variant': 'stage 1, longer', 'stages': '1'})
        per_seed[seed] = rows
        (run / 'variant_rows.json').write_text(json.dumps({'rows': rows}, indent=1))
        print(f'\nseed {seed} ({time.time() - t0:.0f} s): train-task online success, {rows[0]["online_episodes"]} episodes per figure')
        for r in rows: print(f'  {r["variant"]:<24} Stage {r["stages"]:<4} {cell_text(r, "online_success")}   format errors {r["online_format_errors"]}')
    print(f'\n{a.preset}, {a.seeds} seed(s): train-task online success, mean ± sd over seeds; rise over stage 1 per seed')
    for i, row in enumerate(per_seed[0]):
        xs = [per_seed[s][i]['online_success'] for s in per_seed]
        rise = [round(x - per_seed[s][0]['online_success'], 2) for x, s in zip(xs, per_seed)]
        sd = statistics.stdev(xs) if len(xs) > 1 else float('nan')
        print(f'  {row["variant"]:<24} Stage {row["stages"]:<4} {statistics.mean(xs):6.2f} ± {sd:5.2f}   rise {rise}')
    (Path(a.out) / f'{a.preset}{tag}-variants.json').write_text(json.dumps({str(s): r for s, r in per_seed.items()}, indent=1))


if __name__ == '__main__':
    main()
