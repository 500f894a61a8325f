"""Does the policy read? Stage 1 on the quickstart's world with procedural titles, from a phone base and from random
weights, then greedy online success on the training titles, on held-out titles (that no training episode shows) and,
per title, on a few titles of each split: the two-title probe of `nbs/90_what_we_tried.ipynb` (experiment 4) asks
whether titles are won in the same model, not traded for one another.

    python benchmarks/bench_reading.py --base runs/base/model [--steps 300] [--episodes 64] [--per-title 16] [--out runs/bench_reading]

Evaluation phones have no interruptions (pop-ups 0), as the demonstrations were recorded on quiet phones; every
figure is on evaluation seeds that no stage trained on (seed 7), with its 95% Wilson interval. Results go to
OUT/reading.json. Each stage 1 takes a few minutes on 2 CPU cores, each figure about a minute."""
import argparse, json, time
from pathlib import Path
from mobile_r1.data import atomic_write, read_dataset
from mobile_r1.evaluate import online_eval
from mobile_r1.metrics import MetricsLog
from mobile_r1.policy import Policy, episode_corpus, tiny_qwen_vl
from mobile_r1.pretrain import check_base
from mobile_r1.sim import task_list
from mobile_r1.sim.generate import GenConfig, generate_dataset
from mobile_r1.stage1 import Stage1Config, train_stage1

WORLD = ('Video/like_video',)


def figure(policy, split, n, world=WORLD, seed=7) -> dict:
    "Greedy online success of `policy` on `split` tasks of `world`, procedural titles, quiet phones."
    s, _ = online_eval(policy, split, world=world, content='procedural', n_episodes=n, seed=seed, popup_prob=0.0, max_turns=10)
    return {k: s[k] for k in ('online_success', 'online_ci', 'n_episodes', 'format_ok')}


def show(name, f) -> str:
    return f"{name:<44} {f['online_success']:5.1f} [{f['online_ci'][0]:.1f}, {f['online_ci'][1]:.1f}]  n={f['n_episodes']}  format {f['format_ok']}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--base', required=True, help='a phone base folder (mobile-r1 pretrain writes OUT/model)')
    ap.add_argument('--steps', type=int, default=300, help='stage-1 steps from each start')
    ap.add_argument('--lr', type=float, default=4e-3, help="stage 1's peak learning rate (the quickstart's)")
    ap.add_argument('--train-episodes', type=int, default=240, help='expert trajectories of the world (the quickstart records 240)')
    ap.add_argument('--episodes', type=int, default=64, help='episodes per split figure')
    ap.add_argument('--per-title', type=int, default=16, help='episodes per title in the per-title probe')
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--out', default='runs/bench_reading')
    a = ap.parse_args()
    card, out = check_base(a.base), Path(a.out)
    data = out / 'data'
    if not data.exists():
        generate_dataset(data, 'train', n=a.train_episodes, seed=10 * a.seed, world=WORLD, content='procedural',
                         cfg=GenConfig(popup_prob=0.03), overwrite=True)
    scratch = out / 'scratch'
    if not scratch.exists(): tiny_qwen_vl(scratch, corpus=episode_corpus(read_dataset(data)), vocab_size=800, seed=a.seed)
    train, held = task_list('train', world=WORLD, content='procedural'), task_list('held_out', world=WORLD, content='procedural')
    probe = [t.id for t in train[:2] + held[:2]]
    res = {'base': str(a.base), 'base_card': {k: card[k] for k in ('steps_done', 'figures', 'wall_s')}, 'args': vars(a), 'runs': {}}
    print(f'world {WORLD}, procedural titles: {len(train)} training titles, {len(held)} held out; stage 1 {a.steps} steps at lr {a.lr:g}')
    for name, start in (('base', Path(a.base)), ('scratch', scratch)):
        model = out / f'stage1-{name}'
        t0 = time.time()
        if not model.exists():
            train_stage1(Stage1Config(base=str(start), data=str(data), out_dir=str(model), max_steps=a.steps, lr=a.lr, seed=a.seed,
                                      logging_steps=max(1, a.steps // 10)), MetricsLog(out / f'metrics-{name}.jsonl', stage=1))
        pol, row = Policy.load(str(model)), {'stage1_s': round(time.time() - t0, 1)}
        for start_name, pol_ in (('before stage 1', Policy.load(str(start))), ('after stage 1', pol)):
            if name == 'scratch' and start_name == 'before stage 1': continue
            for split in ('train', 'held_out'):
                row[f'{split}, {start_name}'] = f = figure(pol_, split, a.episodes)
                print(show(f'{name}, {start_name}, {split} titles', f), flush=True)
        for tid in probe:
            row[tid] = f = figure(pol, 'train' if any(t.id == tid for t in train) else 'held_out', a.per_title, world=(tid,))
            print(show(f'{name}, after stage 1: {tid.split("/")[-1]}', f), flush=True)
        res['runs'][name] = row
        atomic_write(out / 'reading.json', json.dumps(res, indent=1))
    print(f'written to {out / "reading.json"}')


if __name__ == '__main__':
    main()
