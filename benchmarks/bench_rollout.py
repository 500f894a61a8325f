"""Batched rollouts vs one episode after another: G=8 episodes of one task, played (a) by `run_episodes` with one
batched model call per turn and (b) by `run_episode` eight times, same model, same seeds, sampling at T=1.
Target: (a) >= 3x faster. Run: `python benchmarks/bench_rollout.py [--model DIR]` (default: builds a tiny model
and trains it briefly so episodes last several turns)."""
import argparse, tempfile, time
from pathlib import Path
from mobile_r1.policy import Policy, tiny_qwen_vl
from mobile_r1.rollout import run_episode, run_episodes
from mobile_r1.sim.core import SimConfig
from mobile_r1.sim.phone import SimPhone
from mobile_r1.sim.tasks import tasks


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--model', default=None, help='a trained model folder (default: a freshly trained tiny one)')
    ap.add_argument('--G', type=int, default=8)
    ap.add_argument('--max-turns', type=int, default=6)
    ap.add_argument('--repeats', type=int, default=2)
    a = ap.parse_args()
    if a.model is None:
        from mobile_r1.sim.generate import generate_dataset
        from mobile_r1.stage1 import Stage1Config, train_stage1
        d = Path(tempfile.mkdtemp())
        data = generate_dataset(d / 'train', 'train', n=60, seed=0)
        a.model = str(train_stage1(Stage1Config(base=str(tiny_qwen_vl(d / 'tiny')), data=str(data), out_dir=str(d / 's1'), max_steps=150)))
    pol = Policy.load(a.model)
    task = tasks('train')[0]
    phones = lambda: [SimPhone(SimConfig(max_steps=a.max_turns)) for _ in range(a.G)]
    kw = dict(max_steps=a.max_turns, temperature=1.0, max_new_tokens=128)
    run_episodes(pol, phones()[:2], [task] * 2, seeds=[0, 1], **kw)              # warm-up
    tb = ts = 0.0; turns_b = turns_s = 0
    for r in range(a.repeats):
        seeds = [r * 100 + g for g in range(a.G)]
        t0 = time.perf_counter(); tr = run_episodes(pol, phones(), [task] * a.G, seeds=seeds, **kw); tb += time.perf_counter() - t0
        turns_b += sum(map(len, tr))
        t0 = time.perf_counter()
        tr = [run_episode(pol, p, task, seed=s, **kw) for p, s in zip(phones(), seeds)]
        ts += time.perf_counter() - t0; turns_s += sum(map(len, tr))
    print(f'batched:    {tb / a.repeats:.2f} s per group of {a.G} ({turns_b / tb:.1f} turns/s)')
    print(f'sequential: {ts / a.repeats:.2f} s per group of {a.G} ({turns_s / ts:.1f} turns/s)')
    print(f'speed-up (turns/s): {(turns_b / tb) / (turns_s / ts):.2f}x  (target >= 3x)')


if __name__ == '__main__':
    main()
