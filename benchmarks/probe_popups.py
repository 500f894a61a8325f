"""Which pop-ups a policy closes: per kind of pop-up (an ad, closed by its ×; a permission dialog, answered), the
share of greedy steps that took the expert's action, and over `--k` answers sampled at `--temperature` at the same
states, the mean sampled success and pass@k. Episodes are greedy, on the training tasks of a world, on the
evaluation's own seed stream (never a training seed), with pop-ups at `--popup-prob`.

    python benchmarks/probe_popups.py MODEL [MODEL ...] [--world Video/like_video] [--popup-prob 0.5] [--episodes 64] [--out F.json]

RL can sharpen a close the policy sometimes samples; it rarely finds one it never samples (09c_headroom)."""
import argparse, json
from dataclasses import replace
import torch
from mobile_r1.env import make_env, play
from mobile_r1.evaluate import kind_rates, wilson_interval
from mobile_r1.policy import Policy
from mobile_r1.stage2 import sampled_correct
from mobile_r1.threads import use_threads


def popup_annotator(annotate):
    "An expert annotator whose label also names the pop-up on screen: (golden action, bbox, 'ad' | 'permission' | 'no pop-up')."
    return lambda phone, task: (*annotate(phone, task), phone.state.popup.kind if phone.state.popup is not None else 'no pop-up')


def probe(model: str, world, popup_prob: float, episodes: int, k: int, temperature: float, max_turns: int = 10) -> dict:
    torch.manual_seed(0)
    pol = Policy.load(model)
    env = make_env('sim', 'train', world=world, popup_prob=popup_prob, max_turns=max_turns)
    env = replace(env, annotate=popup_annotator(env.annotate))
    jobs = [(env.tasks[i % len(env.tasks)], 7 * 1_000_003 + i * 7919) for i in range(episodes)]   # online_eval's seed stream 7
    trajs = play(pol, env, jobs, max_turns, annotate=True)
    out = {'model': model, 'episodes': episodes, 'success': sum(bool(t.success) for t in trajs), 'greedy': kind_rates(trajs)}
    for kind in ('ad', 'permission'):
        turns = [(tr.instruction, u) for tr in trajs for u in tr.turns if u.gold is not None and u.gold[2] == kind]
        if not turns: continue
        hits = sampled_correct(pol, turns, k, temperature=temperature)
        out[kind] = {'sampled': {'rate': round(100 * sum(hits) / (k * len(hits)), 2), 'ci': wilson_interval(sum(hits), k * len(hits)), 'n': k * len(hits)},
                     f'pass@{k}': {'rate': round(100 * sum(h > 0 for h in hits) / len(hits), 2),
                                   'ci': wilson_interval(sum(h > 0 for h in hits), len(hits)), 'n': len(hits)}}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('models', nargs='+')
    ap.add_argument('--world', nargs='*', default=['Video/like_video'])
    ap.add_argument('--popup-prob', type=float, default=0.5)
    ap.add_argument('--episodes', type=int, default=64)
    ap.add_argument('--k', type=int, default=8)
    ap.add_argument('--temperature', type=float, default=1.0)
    ap.add_argument('--out', default=None, help='also write the results as JSON here')
    a = ap.parse_args()
    use_threads()
    res = []
    for m in a.models:
        r = probe(m, a.world, a.popup_prob, a.episodes, a.k, a.temperature)
        res.append(r)
        print(f"\n{m}: {r['success']} of {r['episodes']} episodes won")
        for kind in ('ad', 'permission'):
            g = r['greedy'].get(kind)
            if g is None: print(f'  {kind:<10} none met'); continue
            s = r.get(kind, {})
            print(f"  {kind:<10} greedy {g['rate']:5.1f}% {list(g['ci'])} (n={g['n']})   sampled {s['sampled']['rate']:5.1f}% (n={s['sampled']['n']})"
                  f"   pass@{a.k} {s[f'pass@{a.k}']['rate']:5.1f}% (n={s[f'pass@{a.k}']['n']})")
    if a.out:
        with open(a.out, 'w') as f: json.dump({'popup_prob': a.popup_prob, 'k': a.k, 'temperature': a.temperature, 'results': res}, f, indent=1)


if __name__ == '__main__':
    main()
