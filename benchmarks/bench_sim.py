"""SimPhone speed: steps/s with rendering (random actions, expert episodes) and time to write 1,000 expert
trajectories to disk. Run on one core: `taskset -c 0 python benchmarks/bench_sim.py`. Targets: >= 500 steps/s,
<= 60 s for 1,000 trajectories."""
import argparse, random, shutil, tempfile, time
from pathlib import Path
from mobile_r1.sim.core import SimConfig
from mobile_r1.sim.phone import SimPhone, random_action
from mobile_r1.sim.tasks import task_list
from mobile_r1.sim.expert import expert_action
from mobile_r1.sim.generate import generate_dataset, GenConfig

def random_steps(level: int, seconds: float) -> float:
    "Steps/s of random clicks/swipes/Back with a screenshot every step."
    ph, rng, n = SimPhone(SimConfig(level=level, popup_prob=0.1)), random.Random(0), 0
    ph.reset(seed=0); t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        *_, term, trunc, _ = ph.step(random_action(ph, rng)); n += 1
        if term or trunc: ph.reset()
    return n / (time.perf_counter() - t0)

def expert_steps(level: int, n_eps: int) -> tuple[float, float]:
    "Steps/s of expert-driven episodes: env step only, and env step + expert planning."
    ph, pool = SimPhone(SimConfig(level=level, popup_prob=0.1, max_steps=60)), task_list('train', level)
    env_t = plan_t = 0.0; n = 0
    for i in range(n_eps):
        ph.reset(pool[i % len(pool)], seed=i)
        for _ in range(60):
            t0 = time.perf_counter(); g = expert_action(ph, pool[i % len(pool)]); t1 = time.perf_counter()
            *_, term, trunc, _ = ph.step(g.action); t2 = time.perf_counter()
            plan_t += t1 - t0; env_t += t2 - t1; n += 1
            if term or trunc: break
    return n / env_t, n / (env_t + plan_t)

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--seconds', type=float, default=3.0)
    ap.add_argument('--trajectories', type=int, default=1000)
    a = ap.parse_args()
    for level in (0, 3):
        print(f'level {level}: random actions      {random_steps(level, a.seconds):8.0f} steps/s (rendering every step)')
        env, both = expert_steps(level, 200)
        print(f'level {level}: expert episodes     {env:8.0f} steps/s env only, {both:6.0f} steps/s with expert planning')
    out = Path(tempfile.mkdtemp()) / 'bench'
    t0 = time.perf_counter()
    generate_dataset(out, 'train', n=a.trajectories, level=0, seed=0, cfg=GenConfig(), progress=False)
    dt = time.perf_counter() - t0
    n_img = len(list((out / 'images').iterdir())); size = sum(p.stat().st_size for p in out.rglob('*')) / 2 ** 20
    print(f'generate_dataset: {a.trajectories} trajectories in {dt:.1f} s ({n_img} PNGs, {size:.0f} MiB)')
    shutil.rmtree(out.parent)
