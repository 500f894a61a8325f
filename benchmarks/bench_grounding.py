"""Where do phone bases fail? Greedy step accuracy by what each golden step asks (`mobile_r1.pretrain.step_kind`):
a tap on a drawn title (reading), a tap on a fixed control, a swipe, the end. The steps are fresh expert trajectories
of the bases' own pretraining tasks (data seed 7: no base trained on these episodes), answered with the golden history.

    python benchmarks/bench_grounding.py runs/base/model [more bases] [--episodes 60] [--out runs/grounding.json]

Each base's card (config, steps, wall time, figures) and its logged loss curve go into the result beside its table,
so a notebook can show all of it from one file, and so does what it writes on the title steps (`title_answers`): the
kinds of list they come from, its thoughts that read a list (how many list a row twice, which no screen shows, and how
many stop at the named title), and how many places its taps go to. About two minutes a base on 2 CPU cores."""
import argparse, json, re
from collections import Counter
from pathlib import Path
from mobile_r1.data import PromptConfig, atomic_write, read_dataset
from mobile_r1.evaluate import answer_steps
from mobile_r1.metrics import read_metrics
from mobile_r1.policy import Policy
from mobile_r1.pretrain import PretrainConfig, check_base, grounding_by_kind, pretrain_data, step_kind
from mobile_r1.sim.content import kind_of


def title_answers(policy, eps) -> dict:
    "What a base writes on the title steps of `eps`: their list kinds, its list-reading thoughts, and its tap places."
    steps = [(e, i) for e in eps for i in range(len(e.steps)) if step_kind(e.steps[i]) == 'title']
    size = policy.processor.image_processor.size
    _, texts = answer_steps(policy, steps, PromptConfig(max_pixels=size.longest_edge, min_pixels=size.shortest_edge), batch_size=32,
                            desc='title answers') if steps else (None, [])
    kinds, places, scans, repeated, stops = Counter(), Counter(), 0, 0, 0
    for (e, i), t in zip(steps, texts):
        target = re.fullmatch(r'Tap "(.*)"\.', e.steps[i].action_text).group(1)
        kinds[kind_of(target)] += 1
        if m := re.search(r'Reading the list: (.*?)\.\s', t):
            said = [x.rsplit(' ', 1) for x in m.group(1).split('; ') if ' ' in x]
            scans += 1
            repeated += len({r for r, _ in said}) < len(said)
            stops += [r for r, v in said if v == 'yes'] == [target]
        c = re.search(r'"coordinate": \[(\d+), (\d+)\]', t)
        places[f'{c.group(1)}, {c.group(2)}' if c else 'none'] += 1
    top = places.most_common(1)
    return {'n': len(steps), 'kinds': dict(kinds), 'scans': scans, 'scans_repeating_a_row': repeated, 'scans_stopping_at_target': stops,
            'tap_places': len(places), 'top_place': top[0][0] if top else None, 'top_place_n': top[0][1] if top else 0}


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
        pol = Policy.load(b)
        kinds, titles = grounding_by_kind(pol, eps), title_answers(pol, eps)
        result['bases'][b] = {'card': card, 'kinds': kinds, 'loss': loss, 'title_answers': titles}
        print(b, {k: (v['n'], v['correct'], v['names']) for k, v in kinds.items()}, titles, flush=True)
    atomic_write(a.out, json.dumps(result, indent=1))
    print('wrote', a.out)


if __name__ == '__main__':
    main()
