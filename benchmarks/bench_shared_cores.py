"""Two runs on one machine: the same short stage-1 job alone, then two copies at once, each copy's wall time over the
solo time. The ideal on C cores with runs that each use all C is 2x; torch's default threads (one per core each, with
OpenMP's workers spinning while they wait) gave 5.3x on 2 cores.

    python benchmarks/bench_shared_cores.py                       # the library's choice (mobile_r1.threads)
    python benchmarks/bench_shared_cores.py --variant default     # torch's own default, for comparison
    python benchmarks/bench_shared_cores.py --variant all         # every variant below, one after another
    python benchmarks/bench_shared_cores.py --launch torchrun     # 1 process of batch 8 against 2 torchrun processes of 4

Variants (each child process is a fresh Python, so environment variables take effect before torch loads):
  library   the library's choice: `mobile_r1.threads.use_threads()` (what train_stage1/2/3 call)
  default   torch's default: torch loaded before mobile_r1, one thread per core, OpenMP's default (spinning) wait
  omp1      as default, with OMP_NUM_THREADS=1
  passive   OMP_WAIT_POLICY=PASSIVE (one thread per core, idle workers sleep instead of spinning)
  fixed     MOBILE_R1_THREADS=<cores> (the library with its adaptation switched off: the override)
Prints one JSON line per variant: solo_s, pair_s (both), ratio (each pair run over solo), and what each child chose.
`--launch torchrun` instead runs the documented launch line (`python -m mobile_r1.cli train --stage 1`) as one process
of batch 8, then as 2 `torchrun` processes of batch 4 (the same global batch), and prints the 2-process time over the
1-process time (whole commands, imports included)."""
import argparse, json, os, subprocess, sys, time
from pathlib import Path

BASE_ENV = {k: v for k, v in os.environ.items() if k not in ('OMP_WAIT_POLICY', 'OMP_NUM_THREADS', 'MOBILE_R1_THREADS')}
TORCH_FIRST = 'BENCH_TORCH_FIRST'     # the child loads torch before mobile_r1: torch's defaults, as before the fix
VARIANTS = {'library': {}, 'default': {TORCH_FIRST: '1', 'MOBILE_R1_THREADS': 'torch'},
            'omp1': {TORCH_FIRST: '1', 'OMP_NUM_THREADS': '1', 'MOBILE_R1_THREADS': 'torch'},
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
    if os.environ.get(TORCH_FIRST): import torch          # before mobile_r1: OpenMP starts with its default (spinning) wait
    from mobile_r1.stage1 import Stage1Config, train_stage1
    from mobile_r1.quickstart import PRESETS
    import torch
    train_stage1(Stage1Config(base=model, data=data, out_dir=out, max_steps=steps, lr=PRESETS['tiny'].stage1_lr,
                              logging_steps=steps))
    print(json.dumps({'wall_s': round(time.time() - t0, 1), 'threads_at_end': torch.get_num_threads()}), flush=True)


def launch(data, model, out, steps, env):
    cmd = [sys.executable, __file__, '--child', str(data), str(model), str(out), str(steps)]
    return subprocess.Popen(cmd, env={**BASE_ENV, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


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


def torchrun_case(data, model, out: Path, steps: int) -> dict:
    "The same stage-1 job (global batch 8) on 1 process, then on 2 torchrun processes; whole-command wall times."
    bin_ = Path(sys.executable).parent
    def run(prefix, batch, name):
        cmd = prefix + ['-m', 'mobile_r1.cli', 'train', '--stage', '1', '--base', str(model), '--data', str(data),
                        '--out', str(out / name), '--steps', str(steps), '--set', f'batch_size={batch}', '--set', f'logging_steps={steps}']
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True, env=BASE_ENV)
        if r.returncode: raise SystemExit(f'{" ".join(cmd)} failed:\n{r.stderr[-3000:]}')
        chose = [l.split('threads:', 1)[1].strip() for l in r.stderr.splitlines() if 'threads:' in l]
        return round(time.time() - t0, 1), chose[0] if chose else None
    one, one_chose = run([sys.executable], 8, 'torchrun-one')
    two, two_chose = run([str(bin_ / 'torchrun'), '--standalone', '--nproc_per_node', '2'], 4, 'torchrun-two')
    return {'launch': 'torchrun', 'steps': steps, 'global_batch': 8, 'one_process_s': one, 'two_processes_s': two,
            'ratio': round(two / one, 2), 'one_chose': one_chose, 'two_chose': two_chose}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--child': return child(*sys.argv[2:5], int(sys.argv[5]))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--variant', default='library', choices=[*VARIANTS, 'all'])
    ap.add_argument('--steps', type=int, default=80, help='stage-1 steps per run (default 80, about 70 s alone on 2 cores)')
    ap.add_argument('--episodes', type=int, default=240, help='train-split trajectories (default: the tiny preset\'s 240)')
    ap.add_argument('--launch', default=None, choices=['torchrun'], help='measure the N-process case instead (see above)')
    ap.add_argument('--out', default='runs/bench_shared_cores')
    a = ap.parse_args()
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    data, model = prepare(out, a.episodes)
    if a.launch: return print(json.dumps(torchrun_case(data, model, out, a.steps)), flush=True)
    for v in (VARIANTS if a.variant == 'all' else [a.variant]):
        print(json.dumps(measure(v, data, model, out, a.steps)), flush=True)


if __name__ == '__main__':
    main()
