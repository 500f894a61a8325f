"""Credit across turns in stage 3: trajectory-level credit (one advantage per trajectory) vs the step-aware departure
(lambda > 0), from the same stage 1+2 checkpoint with the same settings, evaluated like the quickstart's rows.
Run after `mobile-r1 quickstart --preset full --out RUN`: `python benchmarks/bench_credit.py RUN [--lam 0.5]`."""
import argparse, json
from pathlib import Path
from mobile_r1.evaluate import table_markdown
from mobile_r1.metrics import MetricsLog
from mobile_r1.quickstart import PRESETS, evaluate_model
from mobile_r1.stage3 import Stage3Config, train_stage3


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('run', help='a quickstart output folder (with models/stage2 and data/)')
    ap.add_argument('--lam', type=float, default=0.5, help='step-aware weight λ')
    a = ap.parse_args()
    run = Path(a.run)
    preset = json.loads((run / 'quickstart.json').read_text())['preset']
    cfg = PRESETS[preset]
    data = {s: run / 'data' / s for s in ('train', 'held_out', 'unseen_apps')}
    s3 = Stage3Config(base=str(run / 'models' / 'stage2'), out_dir=str(run / 'models' / f'stage3_step_aware_{a.lam}'),
                      iterations=cfg.stage3_iterations, tasks_per_iter=cfg.stage3_tasks, G=cfg.stage3_G,
                      max_turns=cfg.max_turns, popup_prob=cfg.popup_prob, step_aware=a.lam, world=cfg.world)
    train_stage3(s3, MetricsLog(run / f'metrics_step_aware_{a.lam}.jsonl', stage=3))
    rows = [r for r in json.loads((run / 'table.json').read_text())['rows'] if r['model'] == 'Stage 1+2+3']
    rows += evaluate_model(Path(s3.out_dir), f'Stage 1+2+3 (step-aware, λ={a.lam})', data, cfg)
    print(table_markdown(rows))


if __name__ == '__main__':
    main()
