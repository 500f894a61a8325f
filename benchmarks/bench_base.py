"""Does a base that has already used phones change the story? The paper starts from Qwen2.5-VL-3B, which reads
instructions before stage 1; the quickstart's tiny model starts from random weights. This benchmark pretrains the
tiny model on SimPhone's *other* train apps (expert trajectories, stage 1's own trainer, never the preset's world),
then runs the preset's stage 1 on the preset's world from that base and from the same random initialisation, and the
preset's stage 2 (at each `--stage2-lr`) from the pretrained stage 1. Each figure is online success on the training
tasks with fresh seeds and pop-ups (the quickstart's `train_tasks` row, 128 episodes) with its 95% Wilson interval.

    python benchmarks/bench_base.py [--stage1-steps 150 300] [--stage2-lr 5e-5 2e-4] [--out runs/bench_base]

The pretrained base is cached in OUT/base (about 16 minutes on 2 CPU cores for 1,500 steps); each stage 1 takes one to
three minutes, each stage 2 about five."""
import argparse, time
from dataclasses import replace
from pathlib import Path
from mobile_r1.evaluate import online_eval, table_row, cell_text
from mobile_r1.metrics import MetricsLog
from mobile_r1.policy import Policy, tiny_qwen_vl
from mobile_r1.quickstart import PRESETS, make_split, stage_configs
from mobile_r1.sim import TRAIN_APPS
from mobile_r1.sim.generate import generate_dataset, sim_corpus
from mobile_r1.stage1 import Stage1Config, train_stage1
from mobile_r1.stage2 import train_stage2


def other_apps(world) -> tuple:
    "The train apps that no entry of `world` (apps, app/templates or task ids) names."
    named = {w.split('/')[0] for w in world or ()}
    if not named: raise SystemExit('the preset trains on every app: there are no other apps to pretrain on')
    return tuple(a for a in TRAIN_APPS if a not in named)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--preset', default='tiny', choices=sorted(PRESETS))
    ap.add_argument('--pretrain-episodes', type=int, default=1200)
    ap.add_argument('--pretrain-steps', type=int, default=1500)
    ap.add_argument('--stage1-steps', type=int, nargs='+', default=[150])
    ap.add_argument('--stage2-lr', type=float, nargs='*', default=[5e-5, 2e-4], help='stage 2 from each pretrained stage 1')
    ap.add_argument('--episodes', type=int, default=None, help='episodes per figure (default: the preset\'s)')
    ap.add_argument('--out', default='runs/bench_base')
    a = ap.parse_args()
    cfg, out = PRESETS[a.preset], Path(a.out)
    n_eval = a.episodes or cfg.train_online_episodes

    def row(path, name):
        "Print the model's train-task row, evaluated as the quickstart's."
        online, _ = online_eval(Policy.load(str(path)), 'train', max_turns=cfg.max_turns, popup_prob=cfg.popup_prob,
                                world=cfg.world, n_episodes=n_eval, seed=7)
        r = table_row(name, 'train_tasks', None, online)
        print(f'  {name:<58} {cell_text(r, "online_success")}   format errors {r["online_format_errors"]}', flush=True)

    init, base = out / 'init', out / 'base'
    if not init.exists(): tiny_qwen_vl(init, corpus=sim_corpus(), vocab_size=2048, seed=cfg.seed)
    if not base.exists():
        apps = other_apps(cfg.world)
        data = generate_dataset(out / 'pretrain_data', 'train', n=a.pretrain_episodes, seed=100, world=apps, overwrite=True)
        t0 = time.time()
        c = Stage1Config(base=str(init), data=str(data), out_dir=str(base), max_steps=a.pretrain_steps, lr=cfg.stage1_lr,
                         seed=cfg.seed, logging_steps=max(1, min(50, a.pretrain_steps // 10)))
        train_stage1(c, MetricsLog(out / 'pretrain.jsonl', stage=0))
        print(f'pretrained on {", ".join(apps)}: {a.pretrain_steps} steps in {time.time() - t0:.0f} s', flush=True)
    world_data = out / 'data' / 'train'
    if not world_data.exists():   # the quickstart's own training data for this preset
        make_split(cfg, 'train', world_data)
    print(f'\n{a.preset} world {cfg.world}: train-task online success, {n_eval} episodes per figure')
    for steps in a.stage1_steps:
        for start, name in ((init, 'random init'), (base, 'pretrained base')):
            run = out / f'{name.split()[0]}-s{steps}'
            c1, c2, _ = stage_configs(replace(cfg, stage1_steps=steps), run).values()
            c1 = replace(c1, base=str(start), data=str(world_data))
            if not Path(c1.out_dir).exists(): train_stage1(c1, MetricsLog(run / 'metrics.jsonl', stage=1))
            row(c1.out_dir, f'{name}, stage 1 ({steps} steps)')
            if start is init: continue
            for lr in a.stage2_lr:
                c = replace(c2, data=str(world_data), lr=lr, out_dir=f'{c2.out_dir}-lr{lr:g}')
                if not Path(c.out_dir).exists(): train_stage2(c, MetricsLog(run / f'metrics-lr{lr:g}.jsonl', stage=2))
                row(c.out_dir, f'{name}, stage 1 ({steps}) + stage 2 (lr {lr:g})')


if __name__ == '__main__':
    main()
