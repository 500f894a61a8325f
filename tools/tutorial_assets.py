"""Write the runs Tutorial 1 reads (`tutorials/assets/*.json`) from the library's committed assets, so the tutorial
quotes the same runs as the notebooks:

    python tools/tutorial_assets.py

- `tiny_seed0.json`: the default quickstart (`mobile-r1 quickstart`, `tiny`, seed 0), from `nbs/assets/tiny_today`.
- `popups_seed0.json`: the `popups` recipe on seed 0, from `nbs/assets/plateau/rl_dp01.json` (09c: stage 1, the
  preset's stages 2 and 3, and the two controls of `benchmarks/bench_learning.py`).

Each row is a train-task row: online success, greedy, 128 episodes on phone seeds no stage trained on, with its
95% Wilson interval. `tests/test_readme_figures.py` checks that the committed files are what this script writes."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEEP = ('online_success', 'online_ci', 'online_episodes', 'online_format_errors', 'online_interruptions')
NOTE = 'train-task online success: greedy, phone seeds no stage trained on, 95% Wilson interval'


def row(model: str, r: dict) -> dict: return {'model': model, **{k: r[k] for k in KEEP}}


def tiny() -> dict:
    q = json.loads((ROOT / 'nbs/assets/tiny_today/quickstart.json').read_text())
    rows = [row(r['model'], r) for stage in sorted(q['rows']) for r in q['rows'][stage] if r['split'] == 'train_tasks']
    return {'preset': 'tiny', 'seed': q['config']['seed'], 'popup_prob': q['config']['popup_prob'],
            'command': 'mobile-r1 quickstart', 'source': 'nbs/assets/tiny_today/quickstart.json', 'note': NOTE, 'rows': rows}


def popups() -> dict:
    d = json.loads((ROOT / 'nbs/assets/plateau/rl_dp01.json').read_text())
    by = {r['model']: r for r in d['rows']} | {r['model']: r for r in d['variants']['onpolicy']['rows']}
    ctl = {r['control']: r for r in d['rows'] if r.get('control')}
    rows = [row('Stage 1', by['Stage 1']), row('Stage 1+2', by['onpolicy: Stage 1+2']), row('Stage 1+2+3', by['onpolicy: Stage 1+2+3']),
            row('Stage 1 continued', ctl['continued']), row('Stage 1 planned longer', ctl['longer'])]
    steps = ctl['continued']['steps']
    return {'preset': 'popups', 'seed': 0, 'popup_prob': d['config']['popup_prob'],
            'command': "python benchmarks/bench_learning.py --set stage1_steps=1200 data_popup_prob=0.1 popup_prob=0.5, then "
                       "bench_variants.py --custom onpolicy (09c); the same stages as `mobile-r1 quickstart --preset popups`",
            'source': 'nbs/assets/plateau/rl_dp01.json', 'control_steps': steps,
            'note': f"{NOTE}. Stages 2 and 3 are the popups preset's. The two controls spend the wall time of stages 2 and 3 "
                    f"({steps} supervised steps) on stage 1 instead: 'continued' goes on from the stage-1 model with its "
                    f"learning rate decaying to 0; 'planned longer' is stage 1 trained from scratch for 1200 + {steps} steps "
                    f"under one schedule", 'rows': rows}


def main():
    for name, d in (('tiny_seed0', tiny()), ('popups_seed0', popups())):
        (ROOT / 'tutorials/assets' / f'{name}.json').write_text(json.dumps(d, indent=1, ensure_ascii=False) + '\n')
        print(name, [(r['model'], r['online_success']) for r in d['rows']])


if __name__ == '__main__': main()
