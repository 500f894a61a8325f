"""Is stage 2's rise steady? Stage 2 of a quickstart run, started again from that run's stage-1 model and run for
more rounds, with the train-task online success (greedy, fresh seeds, pop-ups as in the run, with its 95% Wilson
interval) measured after every round.

    python benchmarks/bench_stage2_rounds.py RUN [--rounds 5] [--out RUN/stage2_rounds]

RUN is a folder written by `mobile-r1 quickstart` or `benchmarks/bench_learning.py` (e.g. runs/bench_learning/tiny-seed0).
Each round is the run's own: its visits, screen and steps per round (stage2_steps // stage2_rounds), its seed. Stage 2
draws the same in any process, so round r's model is the one a stage 2 of r rounds gives, and round `stage2_rounds`
reproduces the run's own stage 2 (90_what_we_tried, experiment 7). About 70 s a round, evaluation
included, for `tiny` on 2 CPU cores."""
import argparse, json, time
from dataclasses import replace
from pathlib import Path
from mobile_r1.evaluate import cell_text
from mobile_r1.metrics import MetricsLog
from mobile_r1.quickstart import QuickstartConfig, stage_configs, train_tasks_row
from mobile_r1.stage2 import train_stage2


def run_config(run: Path) -> QuickstartConfig:
    "The QuickstartConfig a run folder was made with (from its quickstart.json)."
    f = run / 'quickstart.json'
    if not f.exists(): raise SystemExit(f'{run} holds no quickstart run (no quickstart.json): pass a folder made by `mobile-r1 quickstart`')
    c = json.loads(f.read_text())['config']
    return QuickstartConfig(**{**c, 'world': tuple(c['world']) if c.get('world') else None})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('run', type=Path, help='a quickstart run folder with models/stage1')
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--out', type=Path, default=None, help='where the new stage 2 goes (default RUN/stage2_rounds)')
    a = ap.parse_args()
    qc, out = run_config(a.run), a.out or a.run / 'stage2_rounds'
    if not (a.run / 'models' / 'stage1' / 'config.json').exists():
        raise SystemExit(f'{a.run} has no stage-1 model yet (models/stage1): finish its quickstart first')
    if (out / 'metrics.jsonl').exists() or (out / 'rounds.json').exists():
        raise SystemExit(f'{out} holds an earlier rounds run: pass another --out, or delete it')
    if qc.stage2_states != 'visited': raise SystemExit(f"{a.run}'s stage 2 reads recorded steps and has no rounds: pass a run of a preset with stage2_states='visited'")
    per_round = max(1, qc.stage2_steps // qc.stage2_rounds)
    cfg = replace(stage_configs(qc, a.run)[2], out_dir=str(out / 'stage2'), rounds=a.rounds, max_steps=per_round * a.rounds)
    st = json.loads((a.run / 'quickstart.json').read_text())
    rows = [{**st['rows']['1'][0], 'round': 0}] if 'rows' in st else []
    t0 = time.time()

    def on_round(r, policy):
        rows.append({**train_tasks_row(policy, f'Stage 1+2, {r} round(s) ({r * per_round} steps)', qc), 'round': r})
        print(f'  round {r}: {cell_text(rows[-1], "online_success")}   online format errors {rows[-1]["online_format_errors"]}'
              f'   ({time.time() - t0:.0f} s)', flush=True)

    print(f'{a.run}: stage 2 for {a.rounds} rounds of {per_round} steps; train-task online success after each round')
    if rows: print(f'  round 0 (stage 1, from the run): {cell_text(rows[0], "online_success")}')
    train_stage2(cfg, MetricsLog(out / 'metrics.jsonl', stage=2), on_round=on_round)
    (out / 'rounds.json').write_text(json.dumps(rows, indent=1))
    print(f'wrote {out / "rounds.json"}')


if __name__ == '__main__':
    main()
