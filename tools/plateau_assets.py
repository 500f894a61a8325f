"""Copy what the notebooks show of the stage-1 plateau and of RL from it into nbs/assets/plateau/:

    python benchmarks/bench_plateau.py --steps 300 600 1200 2400                       # runs/plateau/tiny-seed0
    mobile-r1 headroom runs/plateau/tiny-seed0/models/stage1_600 --popup-prob 0.5 --out runs/plateau/headroom_600_p05.json
    mobile-r1 headroom runs/plateau/tiny-seed0/models/stage1_1200 --popup-prob 0.5 --out runs/plateau/headroom_1200_p05.json
    python benchmarks/bench_learning.py --seeds 1 --set stage1_steps=1200 popup_prob=0.5
    python benchmarks/bench_variants.py --seeds 1 --variants '' --set stage1_steps=1200 popup_prob=0.5 --out runs/bench_learning \\
        --custom more_rl --s2 max_steps=48 rounds=3 lr=3e-4 --s3 iterations=24 lr=2e-4
    ...  --custom strong_rl --s2 max_steps=80 rounds=5 lr=1e-3 --s3 iterations=40 lr=5e-4 step_aware=1.0
    ...  --custom s3_curve --s3 iterations=40 lr=5e-4 step_aware=1.0 eval_every=5 eval_episodes=128
    python benchmarks/bench_plateau.py --steps 1200 --set data_popup_prob=0.1             # demonstrations with more pop-ups
    mobile-r1 headroom runs/plateau/tiny-data_popup_prob=0.1-seed0/models/stage1_1200 --popup-prob 0.5 --out runs/plateau/headroom_1200_p05_dp0.1.json
    python benchmarks/bench_variants.py ... --custom onpolicy --s2 max_steps=64 rounds=8 visit_episodes=96 lr=3e-4
    mobile-r1 headroom RUN/variants/onpolicy/stage2 --popup-prob 0.5 --out runs/plateau/headroom_onpolicy_s2.json
    python benchmarks/probe_popups.py RUN/models/stage1 RUN/variants/onpolicy/stage2 RUN/variants/strong_rl/stage2 --out runs/plateau/popups_plateau.json
    python tools/plateau_assets.py
    python benchmarks/bench_learning.py --seeds 1 --set stage1_steps=1200 data_popup_prob=0.1 popup_prob=0.5     # demonstrations with pop-ups at 0.1
    python benchmarks/bench_variants.py --seeds 1 --variants '' --set stage1_steps=1200 data_popup_prob=0.1 popup_prob=0.5 --out runs/bench_learning \
        --custom onpolicy --s2 max_steps=64 rounds=8 visit_episodes=96 lr=3e-4
    python tools/plateau_assets.py --run runs/bench_learning/tiny-stage1_steps=1200-data_popup_prob=0.1-popup_prob=0.5-seed0 --name rl_dp01.json
    # the same two benchmarks with --seeds 3 (seed 0 resumes; both controls per seed), then per seed N in 1, 2:
    python tools/plateau_assets.py --run runs/bench_learning/tiny-stage1_steps=1200-data_popup_prob=0.1-popup_prob=0.5-seedN --name rl_dp01_seedN.json
    # the same 600-step stage 1 with one thread instead of two (copied by hand: cp runs/plateau_t1/tiny-seed0/plateau.json 'plateau_threads=1.json')
    MOBILE_R1_THREADS=1 python benchmarks/bench_plateau.py --steps 600 --out runs/plateau_t1

rl_at_plateau.json holds the learning rows of that run (stage 1 at 1,200 steps, evaluated with pop-ups at 0.5),
the preset's RL stages, every custom variant found with the changes it made (and the greedy success its stage 3 logged
with `eval_every`), and the control."""
import argparse, json, shutil
from pathlib import Path
from mobile_r1.metrics import read_metrics

ROOT = Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--plateau', type=Path, default=ROOT / 'runs' / 'plateau')
    ap.add_argument('--run', type=Path, default=ROOT / 'runs' / 'bench_learning' / 'tiny-stage1_steps=1200-popup_prob=0.5-seed0')
    ap.add_argument('--out', type=Path, default=ROOT / 'nbs' / 'assets' / 'plateau')
    ap.add_argument('--name', default='rl_at_plateau.json', help="the run's file in --out")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    shutil.copy(a.plateau / 'tiny-seed0' / 'plateau.json', a.out / 'plateau.json')
    for d in sorted(a.plateau.glob('tiny-*-seed0')):                  # a sweep point (bench_plateau --set): plateau_KEY=VALUE.json
        if (d / 'plateau.json').exists(): shutil.copy(d / 'plateau.json', a.out / f'plateau_{d.name[len("tiny-"):-len("-seed0")]}.json')
    for f in sorted(a.plateau.glob('headroom_*.json')) + sorted(a.plateau.glob('popups_*.json')): shutil.copy(f, a.out / f.name)
    rows = json.loads((a.run / 'bench_rows.json').read_text())['rows']
    variants = {}
    for d in sorted((a.run / 'variants').iterdir()) if (a.run / 'variants').exists() else []:
        if not (d / 'rows.json').exists(): continue
        s2 = json.loads((d / 'stage2' / 'mobile_r1.json').read_text())['config'] if (d / 'stage2').exists() else None
        s3 = json.loads((d / 'stage3' / 'mobile_r1.json').read_text())['config']
        greedy = [r for r in read_metrics(d / 'metrics.jsonl', stage=3) if 'greedy_success' in r] if (d / 'metrics.jsonl').exists() else []
        visits = [{k: r[k] for k in ('step', 'visit/success_rate', 'visit/episodes', 'visit/kept')}
                  for r in read_metrics(d / 'metrics.jsonl', stage=2) if 'visit/success_rate' in r] if (d / 'metrics.jsonl').exists() else []
        variants[d.name] = {'rows': json.loads((d / 'rows.json').read_text()), 'stage2': s2, 'stage3': s3, 'greedy': greedy, 'visits': visits}
    st = json.loads((a.run / 'quickstart.json').read_text())
    visits = [{k: r[k] for k in ('step', 'visit/success_rate', 'visit/episodes', 'visit/kept')}
              for r in read_metrics(a.run / 'metrics.jsonl', stage=2) if 'visit/success_rate' in r]     # the preset's stage 2, round by round
    res = {'config': st['config'], 'timings': st['timings'], 'format_compliance_stage1': st.get('format_compliance_stage1'),
           'rows': rows, 'visits': visits, 'variants': variants}
    (a.out / a.name).write_text(json.dumps(res, indent=1))
    print('wrote', a.out, '| variants:', ', '.join(variants) or 'none')


if __name__ == '__main__':
    main()
