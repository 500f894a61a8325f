"""Two runs on one machine: the same short stage-1 job alone, then two copies at once, each copy's wall time over the
solo time. The ideal on C cores with runs that each use all C is 2x; torch's default threads (one per core each, with
OpenMP's workers spinning while they wait) gave 5.3x on 2 cores.

    python benchmarks/bench_shared_cores.py                       # the library's choice (mobile_r1.threads)
    python benchmarks/bench_shared_cores.py --variant default     # torch's own default, for comparison
    python benchmarks/bench_shared_cores.py --variant all         # every variant below, one after another

Variants (each child process is a fresh Python, so environment variables take effect before torch loads):
  library   the library's choice: `mobile_r1.threads.use_threads()` (what train_stage1/2/3 call)
  default   torch's default: one thread per core, OpenMP's default wait policy
  omp1      OMP_NUM_THREADS=1
  passive   OMP_WAIT_POLICY=PASSIVE (one thread per core, idle workers sleep instead of spinning)
  fixed     MOBILE_R1_THREADS=<cores> (the library with its adaptation switched off: the override)
Prints one JSON line per variant: solo_s, pair_s (both), ratio (each pair run over solo), and what each child chose."""
import argparse, json, os, subprocess, sys, time
from pathlib import Path

VARIANTS = {'library': {}, 'default': {'MOBILE_R1_THREADS': 'torch'}, 'omp1': {'OMP_NUM_THREADS': '1', 'MOBILE_R1_THREADS': 'torch'},
            'passive': {'OMP_WAIT_POLICY': 'PASSIVE', 'MOBILE_R1_THREADS': 'torch'},
            'fixed': {'MOBILE_R1_THREADS': str(len(os.sched_getaffinity(0)))}}


def prepare(out: Path, episodes: int) -> tuple[Path, Path]:
    "The default preset's tiny model and a train split of `episodes` expert trajectories, built once in `out`."
    from mobile_r1.quickstart import PRESETS, make_split, _make_model
    from dataclasses import replace
    cfg = replace(PRESETS['tiny'], train_episodes=episodes)
    data, model = out / 'data' / 'train', out / 'models' / 'tiny'
    if not (data / 'data.jsonl').exists(): make_split(cfg, 'train', data)
    if not (model / 'config.json').exists(): _make_model(cfg, {'train': data}, {'tiny': model})
    return data, model


def child(data: str, model: str, out: str, steps: int) -> None:
    "One stage-1 run; prints its wall time and the thread count it ran with as JSON."
    t0 = time.time()
    import torch
    from mobile_r1.stage1 import Stage1Config, train_stage1
    from mobile_r1.quickstart import PRESETS
    train_stage1(Stage1Config(base=model, data=data, out_dir=out, max_steps=steps, lr=PRESETS['tiny'].stage1_lr,
                              logging_steps=steps))
    print(json.dumps({'wall_s': round(time.time() - t0, 1), 'threads_at_end': torch.get_num_threads()}), flush=True)


def launch(data, model, out, steps, env):
    cmd = [sys.executable, __file__, '--child', str(data), str(model), str(out), str(steps)]
    return subprocess.Popen(cmd, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p) -> dict:
    so, se = p.communicate()
    if p.returncode: raise SystemExit(f'a child run failed:\n{se[-3000:]}')
    chose = [l for l in se.splitlines() if 'threads:' in l]
    return {**json.loads(so.strip().splitlines()[-1]), 'chose': chose[0].split('threads:', 1)[1].strip() if chose else None}


def measure(variant: str, data, model, out: Path, steps: int) -> dict:
    env = VARIANTS[variant]
    solo = finish(launch(data, model, out / f'{variant}-solo', steps, env))
    ps = [launch(data, model, out / f'{variant}-pair{i}', steps, env) for i in range(2)]
    pair = [finish(p) for p in ps]
    return {'variant': variant, 'steps': steps, 'cores': len(os.sched_getaffinity(0)), 'solo_s': solo['wall_s'],
            'pair_s': [r['wall_s'] for r in pair], 'ratio': [round(r['wall_s'] / solo['wall_s'], 2) for r in pair],
            'solo_chose': solo['chose'], 'pair_chose': [r['chose'] for r in pair],
            'threads_at_end': [solo['threads_at_end']] + [r['threads_at_end'] for r in pair]}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--child': return child(*sys.argv[2:5], int(sys.argv[5]))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--variant', default='library', choices=[*VARIANTS, 'all'])
    ap.add_argument('--steps', type=int, default=80, help='stage-1 steps per run (default 80, about 70 s alone on 2 cores)')
    ap.add_argument('--episodes', type=int, default=240, help='train-split trajectories (default: the tiny preset\'s 240)')
    ap.add_argument('--out', default='runs/bench_shared_cores')
    a = ap.parse_args()
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    data, model = prepare(out, a.episodes)
    for v in (VARIANTS if a.variant == 'all' else [a.variant]):
        print(json.dumps(measure(v, data, model, out, a.steps)), flush=True)


if __name__ == '__main__':
    main()
