"""Where do phone bases fail? Greedy step accuracy by what each golden step asks (`mobile_r1.pretrain.step_kind`):
a tap on a drawn title (reading), a tap on a fixed control, a swipe, the end. The steps are fresh expert trajectories
of the bases' own pretraining tasks (data seed 7: no base trained on these episodes), answered with the golden history.

    python benchmarks/bench_grounding.py runs/base/model [more bases] [--episodes 60] [--out runs/grounding.json]

Each base's card (config, steps, wall time, figures) and its logged loss curve go into the result beside its table,
so a notebook can show all of it from one file. About two minutes a base on 2 CPU cores."""
import argparse, json
from pathlib import Path
from mobile_r1.data import atomic_write, read_dataset
from mobile_r1.metrics import read_metrics
from mobile_r1.policy import Policy
from mobile_r1.pretrain import PretrainConfig, check_base, grounding_by_kind, pretrain_data


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('bases', nargs='+', help='base model folders (each holding mobile_r1.json with a base card)')
    ap.add_argument('--episodes', type=int, default=60)
    ap.add_argument('--out', default='runs/grounding.json')
    a = ap.parse_args()
    data = Path(a.out).with_suffix('') / 'data'
    eps = read_dataset(pretrain_data(PretrainConfig(episodes=a.episodes, workers=2, seed=7), data))
    result = {'episodes': a.episodes, 'steps': sum(len(e.steps) for e in eps), 'data_seed': 7, 'bases': {}}
    for b in a.bases:
        card = check_base(b)                                    # the curve: beside the model (copied) or where build_base writes it
        curve = next((f for f in (Path(b) / 'pretrain.jsonl', Path(b).parent / 'pretrain.jsonl') if f.exists()), None)
        loss = [{'step': r['step'], 'loss': r['loss']} for r in read_metrics(curve) if r.get('loss') is not None] if curve else []
        kinds = grounding_by_kind(Policy.load(b), eps)
        result['bases'][b] = {'card': card, 'kinds': kinds, 'loss': loss}
        print(b, {k: (v['n'], v['correct'], v['names']) for k, v in kinds.items()}, flush=True)
    atomic_write(a.out, json.dumps(result, indent=1))
    print('wrote', a.out)


if __name__ == '__main__':
    main()
