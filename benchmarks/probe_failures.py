"""Where a policy fails online, and whether sampling ever gets those states right: the question to ask before
spending time on RL (RL can only amplify what sampling sometimes does).

For a model and the train tasks of a world: greedy success per task over fresh seeds, the first wrong turn of each
failed episode (turn, the expert's action, the policy's), then at each of those states `--samples` answers at each
`--temperature`: how many earn the action reward (`stage2.sampled_correct`, stage 2's own screen).

    python benchmarks/probe_failures.py RUN/models/stage1 --world Video/like_video --temperature 1.0 0.7"""
import argparse, collections
import torch
from mobile_r1.env import make_env, play
from mobile_r1.policy import Policy
from mobile_r1.stage2 import sampled_correct
from mobile_r1.stage3 import turn_correctness


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('model', help='a model folder')
    ap.add_argument('--world', nargs='*', default=None, help='apps, app/templates or task ids of the train split (default: all)')
    ap.add_argument('--episodes', type=int, default=64, help='greedy episodes, tasks cycled, fresh seeds (default 64)')
    ap.add_argument('--samples', type=int, default=16, help='answers sampled at each failing state (default 16)')
    ap.add_argument('--temperature', type=float, nargs='+', default=[1.0])
    ap.add_argument('--popup-prob', type=float, default=0.1)
    ap.add_argument('--max-turns', type=int, default=10)
    a = ap.parse_args()
    torch.manual_seed(0)
    pol = Policy.load(a.model)
    env = make_env('sim', 'train', world=a.world, popup_prob=a.popup_prob, max_turns=a.max_turns)
    jobs = [(env.tasks[k % len(env.tasks)], 7 * 1_000_003 + k * 7919) for k in range(a.episodes)]
    trajs = play(pol, env, jobs, a.max_turns, annotate=True)
    by_task, first, failing = collections.defaultdict(list), collections.Counter(), []
    for (task, _), tr in zip(jobs, trajs):
        by_task[task.instruction].append(bool(tr.success))
        if tr.success: continue
        i = next((k for k, ok in enumerate(turn_correctness([tr])[0]) if not ok), None)
        if i is None: first[('every turn right', tr.outcome, '')] += 1; continue
        bad = tr.turns[i]
        first[(i, type(bad.gold[0]).__name__, type(bad.action).__name__ if bad.action else 'invalid')] += 1
        failing.append((tr.instruction, bad))
    wins = sum(sum(v) for v in by_task.values())
    print(f'greedy success {wins}/{len(trajs)}; per task:')
    for q, v in sorted(by_task.items(), key=lambda kv: -sum(kv[1])): print(f'  {sum(v):3d}/{len(v):<3d} {q}')
    print('first wrong turn of each failed episode (turn, expert, policy): count')
    for k, n in first.most_common(): print(f'  {k}: {n}')
    for T in a.temperature:
        right = sampled_correct(pol, failing, a.samples, temperature=T)
        rows = collections.defaultdict(list)
        for (_, turn), r in zip(failing, right): rows[(len(turn.history), type(turn.gold[0]).__name__)].append(r)
        print(f'T = {T}: right answers among {a.samples} samples at each failing state')
        for (i, kind), v in sorted(rows.items()):
            print(f'  turn {i} ({kind}): {len(v)} states, {sum(r > 0 for r in v)} hit at least once, mean {sum(v) / len(v):.2f} right')


if __name__ == '__main__':
    main()
