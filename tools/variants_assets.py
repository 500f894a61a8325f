"""Copy what `nbs/10a_grpo_fixes.ipynb` shows of a finished `benchmarks/bench_variants.py` run into
`nbs/assets/variants/`: every seed's rows (train-task online success of each variant, with its interval and n), the
quickstart's timings, format compliance and rows on the splits it does not train on, the training curves of each
variant (only the keys the notebook plots), and one evaluation episode played by two models of seed 0.

    python tools/variants_assets.py runs/bench_variants                       # --preset tiny, every finished seed
    python tools/variants_assets.py runs/bench_variants --after variants/larger_G+gigpo/stage3

The episode comes from the evaluation's own seed stream, never from a training seed, and is picked by the rule of
`tools/real_run_assets.py`: the first of the 128 whose outcome differs between `--before` (default Stage 1) and `--after`.

    python tools/variants_assets.py runs/bench_variants --preset busy --before models/stage2 --after variants/step_aware/stage3 --out variants_busy
    python tools/variants_assets.py runs/bench_variants --preset full --after models/stage3 --out variants_full   # no variants: the preset's own
    python tools/variants_assets.py runs/old_code --no-episode --out variants_prefix   # rows and curves only, no episode played"""
import argparse, json, shutil, sys
from pathlib import Path
from mobile_r1.metrics import read_metrics
from mobile_r1.rollout import save_trajectories

sys.path.insert(0, str(Path(__file__).parent))
from real_run_assets import acts, eval_jobs, pick_episode, play      # noqa: E402  (the same episode rule as the real-run assets)

ROOT = Path(__file__).resolve().parents[1]
ROW_KEYS = ('model', 'variant', 'stages', 'online_success', 'online_ci', 'online_episodes', 'online_format_errors', 'steps')
STATIC_KEYS = ('model', 'split', 'accuracy', 'grounding_acc', 'type_acc', 'online_success', 'online_ci', 'online_episodes')
CURVE_KEYS = ('stage', 'step', 'reward/action', 'format_ok', 'entropy', 'kl', 'frac_reward_zero_std', 'success_rate', 'signal_share',
              'episodes', 'episode_len', 'groups', 'extra', 'replayed', 'trained', 'screen/signal_share')
NAMES = {'models/stage1': 'Stage 1', 'models/stage2': 'Stage 1+2', 'models/stage3': 'Stage 1+2+3'}   # the preset's own models
SIZES = {2: ('G', 'prompts_per_step'), 3: ('G', 'tasks_per_iter')}   # what a curve's counts need: answers and groups per step


def trim(row: dict, keys) -> dict: return {k: row[k] for k in keys if k in row}


def variants(run: Path) -> list:
    "The run's variant folders (none when the benchmark ran the preset alone, `--variants ''`)."
    return sorted((run / 'variants').iterdir()) if (run / 'variants').exists() else []


def label(model: str) -> str: return NAMES.get(model, model.removeprefix('variants/'))


def curves(run: Path) -> dict:
    "Each variant's stage-2 and stage-3 metric rows (the preset's own from the quickstart's metrics), trimmed."
    out = {v.name: [trim(r, CURVE_KEYS) for r in read_metrics(v / 'metrics.jsonl')]
           for v in variants(run) if (v / 'metrics.jsonl').exists()}
    out['preset'] = [trim(r, CURVE_KEYS) for r in read_metrics(run / 'metrics.jsonl') if r['stage'] in (2, 3)]
    return out


def sizes(run: Path) -> dict:
    "Each variant's group size and groups per step, stage by stage, read from its saved models (a stage-3-only variant: the paper's stage 2)."
    def model(v, k):   # the variant's own, else the paper's stage 2: its own folder, or the preset's when they are one (`busy`)
        return next(p for p in (run / 'variants' / v / f'stage{k}', run / 'variants' / 'paper' / f'stage{k}', run / 'models' / f'stage{k}')
                    if p.exists())
    cfg = lambda path: json.loads((path / 'mobile_r1.json').read_text())['config']
    out = {v.name: {k: {f: cfg(model(v.name, k))[f] for f in SIZES[k]} for k in (2, 3)} for v in variants(run)}
    out['preset'] = {k: {f: cfg(run / 'models' / f'stage{k}')[f] for f in SIZES[k]} for k in (2, 3)}
    return out


def held_out(run: Path) -> list:
    "The quickstart's rows on the splits it does not train on (static accuracy and grounding, online success), trimmed."
    return [trim(r, STATIC_KEYS) for r in json.loads((run / 'table.json').read_text())['rows'] if r['split'] != 'train_tasks']


def by_task(jobs, before, after) -> dict:
    "Per task of the evaluation: its episodes and the successes before and after."
    out = {}
    for (task, _), a, b in zip(jobs, before, after):
        c = out.setdefault(task.id, {'episodes': 0, 'before': 0, 'after': 0})
        c['episodes'] += 1; c['before'] += bool(a.success); c['after'] += bool(b.success)
    return out


def main(root: Path, preset: str = 'tiny', after: str = 'variants/larger_G+gigpo/stage3', out: str = 'variants', before: str = 'models/stage1',
         episode: bool = True):
    OUT = ROOT / 'nbs' / 'assets' / out
    runs = sorted((p for p in root.glob(f'{preset}-seed*') if (p / 'variant_rows.json').exists()), key=lambda p: int(p.name.rsplit('seed', 1)[1]))
    if not runs: sys.exit(f'no finished seed under {root} (a seed is finished when its variant_rows.json exists)')
    seeds = {}
    for run in runs:
        st = json.loads((run / 'quickstart.json').read_text())
        seeds[run.name.rsplit('seed', 1)[1]] = {
            'rows': [trim(r, ROW_KEYS) for r in json.loads((run / 'variant_rows.json').read_text())['rows']],
            'timings': st['timings'], 'format_compliance_stage1': st.get('format_compliance_stage1'), 'curves': curves(run),
            'sizes': sizes(run), 'held_out': held_out(run)}
    run0 = runs[0]
    cfg = json.loads((run0 / 'quickstart.json').read_text())['config']
    if OUT.exists(): shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    info = {'preset': preset, 'config': cfg, 'seeds': seeds, 'episode': None}
    if episode:
        jobs = eval_jobs(cfg)
        early, late = play(run0 / before, jobs, cfg), play(run0 / after, jobs, cfg)
        k, rule = pick_episode(early, late)
        save_trajectories([early[k]], OUT / 'before'); save_trajectories([late[k]], OUT / 'after')
        info['episode'] = {'seed_run': run0.name, 'index': k, 'task': jobs[k][0].id, 'phone_seed': jobs[k][1], 'rule': rule,
                           'before': label(before), 'after': label(after), 'episodes_compared': len(jobs),
                           'same_actions': sum(acts(a) == acts(b) for a, b in zip(early, late)),
                           'success': {'before': sum(bool(t.success) for t in early), 'after': sum(bool(t.success) for t in late)},
                           'by_task': by_task(jobs, early, late)}
        print(json.dumps(info['episode'], indent=1))
    (OUT / 'variants.json').write_text(json.dumps(info, indent=1))
    print(f'{len(seeds)} seed(s) -> {OUT}')


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('root', type=Path, help="bench_variants.py's --out folder")
    ap.add_argument('--preset', default='tiny')
    ap.add_argument('--after', default='variants/larger_G+gigpo/stage3', help='the model played after, under RUN/ of seed 0')
    ap.add_argument('--out', default='variants', help='folder under nbs/assets/ (default variants)')
    ap.add_argument('--before', default='models/stage1', help='the model played before, under RUN/ of seed 0 (default Stage 1)')
    ap.add_argument('--no-episode', action='store_true', help='rows, timings and curves only: play no episode')
    a = ap.parse_args()
    main(a.root, a.preset, a.after, a.out, a.before, episode=not a.no_episode)
