"""Batched rollouts vs one episode after another: groups of G=8 episodes of one task, played (a) by `run_episodes`
with one batched model call per turn and (b) by `run_episode` eight times, same model, same seeds, sampling at T=1.
Several tasks, each played both ways in alternating order, so the sampled episode lengths and the machine's noise
average out. Target: (a) >= 3x the turns per second of (b).
Run: `python benchmarks/bench_rollout.py [--model DIR]`. The ratio depends on the episodes the model plays: when
the G copies end at very different turns, the batch shrinks and later turns run nearly alone. Pass a trained
stage-1 model (a quickstart's `models/stage1`); the default builds a tiny model and trains it for 150 steps, whose
episodes mostly end at the first turn."""
import argparse, statistics, tempfile, time
from pathlib import Path
from mobile_r1.policy import Policy, tiny_qwen_vl
from mobile_r1.rollout import run_episode, run_episodes
from mobile_r1.sim.core import SimConfig
from mobile_r1.sim.phone import SimPhone
from mobile_r1.sim.tasks import task_list


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--model', default=None, help='a trained model folder (default: a freshly trained tiny one)')
    ap.add_argument('--G', type=int, default=8)
    ap.add_argument('--max-turns', type=int, default=6)
    ap.add_argument('--tasks', type=int, default=4, help='how many training tasks (one group of G per task and repeat)')
    ap.add_argument('--repeats', type=int, default=2)
    a = ap.parse_args()
    if a.model is None:
        from mobile_r1.sim.generate import generate_dataset, sim_corpus
        from mobile_r1.stage1 import Stage1Config, train_stage1
        d = Path(tempfile.mkdtemp())
        data = generate_dataset(d / 'train', 'train', n=60, seed=0)
        a.model = str(train_stage1(Stage1Config(base=str(tiny_qwen_vl(d / 'tiny', sim_corpus())), data=str(data), out_dir=str(d / 's1'), max_steps=150)))
    pol = Policy.load(a.model)
    pool = task_list('train')
    chosen = [pool[i * len(pool) // a.tasks] for i in range(a.tasks)]     # spread over the apps
    phones = lambda n: [SimPhone(SimConfig(max_steps=a.max_turns)) for _ in range(n)]
    kw = dict(max_steps=a.max_turns, temperature=1.0, max_new_tokens=128)
    run_episodes(pol, phones(2), chosen[:1] * 2, seeds=[0, 1], **kw)                     # warm-up
    run_episode(pol, phones(1)[0], chosen[0], seed=0, **kw)

    def batched(task, seeds):
        t0 = time.perf_counter(); tr = run_episodes(pol, phones(a.G), [task] * a.G, seeds=seeds, **kw)
        lengths.extend(map(len, tr))
        return time.perf_counter() - t0, sum(map(len, tr))
    def sequential(task, seeds):
        t0 = time.perf_counter(); tr = [run_episode(pol, p, task, seed=s, **kw) for p, s in zip(phones(a.G), seeds)]
        return time.perf_counter() - t0, sum(map(len, tr))

    tot = {'batched': [0.0, 0], 'sequential': [0.0, 0]}
    ratios, lengths = [], []
    for r in range(a.repeats):
        for k, task in enumerate(chosen):
            seeds = [1000 * r + 10 * k + g for g in range(a.G)]
            order = [('batched', batched), ('sequential', sequential)]
            res = dict((name, f(task, seeds)) for name, f in (order if (r + k) % 2 == 0 else order[::-1]))
            for name, (s, n) in res.items(): tot[name][0] += s; tot[name][1] += n
            ratios.append((res['batched'][1] / res['batched'][0]) / (res['sequential'][1] / res['sequential'][0]))
    rate = {name: n / s for name, (s, n) in tot.items()}
    groups = a.tasks * a.repeats
    for name, (s, n) in tot.items():
        print(f'{name + ":":12s}{s / groups:.2f} s per group of {a.G}, {n / groups:.1f} turns ({rate[name]:.1f} turns/s)')
    print(f'episode lengths (batched runs): mean {statistics.mean(lengths):.1f} turns, '
          + ', '.join(f'{n}: {lengths.count(n)}' for n in sorted(set(lengths))))
    print(f'per-group speed-ups: median {statistics.median(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f}x over {groups} groups')
    print(f'speed-up (turns/s): {rate["batched"] / rate["sequential"]:.2f}x  (target >= 3x)')


if __name__ == '__main__':
    main()
