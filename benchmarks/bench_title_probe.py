"""Can more practice at finding titles teach a base to read? Continue a phone base on the title taps of its
pretraining data alone (`--only title`) or on all its steps (`--only all`, the control), for a wall-time budget, then
split its answers by step kind (`mobile_r1.pretrain.grounding_by_kind`) on fresh trajectories of its pretraining tasks
(data seed 7).

    python benchmarks/bench_title_probe.py BASE --name NAME [--only title|all] [--lr 1e-3] [--minutes 2.6]
        [--freeze-vision] [--data runs/probe/data] [--episodes 4000] [--test-episodes 120] [--out runs/probe]

Writes OUT/probe_NAME.json. Sized for a GPU (batch 64, 4 loader workers); on 2 CPU cores use a longer budget."""
import argparse, json, time
from pathlib import Path
from datasets import Dataset
from trl import SFTTrainer
from mobile_r1.data import PromptConfig, read_dataset, sft_sample
from mobile_r1.policy import Policy, PolicyConfig, load_policy
from mobile_r1.pretrain import PretrainConfig, grounding_by_kind, pretrain_data, step_kind
from mobile_r1.stage1 import Stage1Config, TimeLimit, read_screens, sft_args


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('base'); ap.add_argument('--name', required=True)
    ap.add_argument('--only', choices=('title', 'all'), default='title')
    ap.add_argument('--lr', type=float, default=1e-3); ap.add_argument('--minutes', type=float, default=2.6)
    ap.add_argument('--data', default='runs/probe/data'); ap.add_argument('--episodes', type=int, default=4000)
    ap.add_argument('--test-episodes', type=int, default=120); ap.add_argument('--out', default='runs/probe')
    ap.add_argument('--freeze-vision', action=argparse.BooleanOptionalAction, default=False,
                    help='keep the vision tower fixed (the first probes did, by PolicyConfig\'s default); stage 1 trains it')
    a = ap.parse_args()
    t0, out = time.time(), Path(a.out); out.mkdir(parents=True, exist_ok=True)
    if not (Path(a.data) / 'data.jsonl').exists(): pretrain_data(PretrainConfig(episodes=a.episodes, workers=12), a.data)
    test_dir = out / 'test'
    if not (test_dir / 'data.jsonl').exists(): pretrain_data(PretrainConfig(episodes=a.test_episodes, workers=4, seed=7), test_dir)
    eps = read_dataset(a.data)
    model, proc = load_policy(PolicyConfig(model=a.base, freeze_vision=a.freeze_vision))
    size = proc.image_processor.size
    prompt = PromptConfig(max_pixels=size.longest_edge, min_pixels=size.shortest_edge)
    rows = [sft_sample(e, i, prompt, lazy=True) for e in eps for i in range(len(e.steps)) if a.only == 'all' or step_kind(e.steps[i]) == 'title']
    cfg = Stage1Config(base=a.base, data=a.data, out_dir=str(out / a.name), max_steps=int(a.minutes * 60 * 1.8), batch_size=64, lr=a.lr,
                       logging_steps=25, loader_workers=4, prompt=prompt)   # steps: the budget at the H200's 1.8 steps a second
    tr = SFTTrainer(model=model, args=sft_args(cfg, Path(cfg.out_dir)), train_dataset=Dataset.from_list(rows).with_transform(read_screens),
                    processing_class=proc, callbacks=[TimeLimit(a.minutes)])
    tr.train()
    kinds = grounding_by_kind(Policy(tr.model.eval(), proc), read_dataset(test_dir))
    res = {'name': a.name, 'base': a.base, 'only': a.only, 'freeze_vision': a.freeze_vision, 'lr': a.lr, 'rows': len(rows), 'steps': tr.state.global_step,
           'loss': [h['loss'] for h in tr.state.log_history if 'loss' in h][::4], 'kinds': kinds, 'wall_s': round(time.time() - t0)}
    (out / f'probe_{a.name}.json').write_text(json.dumps(res, indent=1))
    print(a.name, res['steps'], {k: (v['n'], v['correct'], v['names']) for k, v in kinds.items()}, flush=True)


if __name__ == '__main__':
    main()
