"""Stage 1 on CPU with the tiny model: the static table (held-out tasks and unseen apps) for the untrained model and
after stage 1, format compliance, stage-1 wall time and peak memory. Run: `python benchmarks/bench_stage1.py`
(add `--steps 300` for a shorter run). Writes table.md / table.json to --out."""
import argparse, json, resource, time
from pathlib import Path
from mobile_r1.data import read_dataset
from mobile_r1.evaluate import static_eval, table_row, write_table, table_markdown
from mobile_r1.metrics import MetricsLog
from mobile_r1.policy import Policy, tiny_qwen_vl
from mobile_r1.sim.generate import generate_dataset, sim_corpus
from mobile_r1.stage1 import Stage1Config, format_compliance, train_stage1


def peak_rss_mib() -> float: return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--out', default='runs/bench_stage1')
    ap.add_argument('--steps', type=int, default=600)
    ap.add_argument('--lr', type=float, default=2e-3)
    ap.add_argument('--train-episodes', type=int, default=300)
    ap.add_argument('--eval-episodes', type=int, default=40)
    a = ap.parse_args()
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    data = {s: out / 'data' / s for s in ('train', 'held_out', 'unseen_apps')}
    for s, p in data.items():
        if not p.exists(): generate_dataset(p, s, n=a.train_episodes if s == 'train' else a.eval_episodes, seed=hash(s) % 1000)
    base = out / 'tiny' if (out / 'tiny').exists() else tiny_qwen_vl(out / 'tiny', sim_corpus())
    print(f'data + tiny model: {time.time() - t0:.0f} s')
    splits = {s: read_dataset(data[s]) for s in ('held_out', 'unseen_apps')}
    rows = []
    untrained = Policy.load(str(base))
    for s, eps in splits.items(): rows.append(table_row('untrained', s, static_eval(untrained, eps)[0]))
    t1 = time.time()
    ck = train_stage1(Stage1Config(base=str(base), data=str(data['train']), out_dir=str(out / 'stage1'),
                                   max_steps=a.steps, lr=a.lr), MetricsLog(out / 'metrics.jsonl', stage=1))
    train_s = time.time() - t1
    pol = Policy.load(str(ck))
    for s, eps in splits.items(): rows.append(table_row('Stage 1', s, static_eval(pol, eps)[0]))
    fc = format_compliance(pol, splits['held_out'], max_steps=128)
    write_table(rows, out)
    print(table_markdown(rows))
    print(json.dumps({'stage1_wall_s': round(train_s, 1), 'steps': a.steps, 'steps_per_s': round(a.steps / train_s, 2),
                      'format_compliance_held_out': fc['format_ok'], 'peak_rss_mib': round(peak_rss_mib()),
                      'total_s': round(time.time() - t0)}))


if __name__ == '__main__':
    main()
