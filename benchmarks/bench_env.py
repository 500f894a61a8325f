"""SimPhone behind the standard APIs: steps per second directly, through the Gymnasium environment (single, and
vectorised at N = 8, sync and async), and through the OpenEnv client over loopback, in one run, with the ratios.

Every path plays the same kind of episode: SimPhone level 0, pop-ups at 0.1, 10 turns, actions drawn from one seeded
stream (taps at random points, Back, Home, swipes, opening an app), given as `Action` objects. "Direct" is
`SimPhone.step`, which returns the screenshot the agent sees (a PIL image); the Gymnasium path returns it as an RGB
array, with the history text, the format flag and the trajectory. Direct and Gymnasium single are timed in
alternating slices, so a busy machine slows both alike. Targets: Gymnasium single >= 0.9x direct; OpenEnv over
loopback >= 500 steps/s. Run: `python benchmarks/bench_env.py` (`--steps 200` for a quick look)."""
import argparse, os, random, socket, subprocess, sys, time, urllib.request

from mobile_r1.actions import Click, Open, Swipe, SystemButton
from mobile_r1.sim import SimConfig, SimPhone
from mobile_r1.sim.apps import TRAIN_APPS

KW = dict(level=0, popup_prob=0.1, max_turns=10)


def actions(seed: int):
    "An endless seeded stream of phone-agnostic actions."
    rng = random.Random(seed)
    while True:
        r = rng.random()
        if r < 0.15: yield Open(rng.choice(TRAIN_APPS))
        elif r < 0.27: yield SystemButton('Back')
        elif r < 0.32: yield SystemButton('Home')
        elif r < 0.42: yield Swipe((180, 480), (180, 200)) if rng.random() < 0.7 else Swipe((180, 200), (180, 480))
        else: yield Click((rng.randrange(360), rng.randrange(640)))


class Direct:
    "SimPhone as the library's own loop drives it (a task drawn per episode, like the environment does)."
    def __init__(self):
        from mobile_r1.sim import task_list
        self.phone, self.tasks, self.rng = SimPhone(SimConfig(level=0, popup_prob=0.1, max_steps=10)), task_list('train', 0), random.Random(0)
    def reset(self, seed=None): return self.phone.reset(self.tasks[self.rng.randrange(len(self.tasks))], seed=seed)
    def step(self, a): return self.phone.step(a)


def alternating(runners: dict, steps: int, slice_: int = 100) -> dict:
    "Steps/s of each runner (reset/step), timed in alternating slices of `slice_` steps."
    streams, seeds = {k: actions(0) for k in runners}, {k: random.Random(1) for k in runners}
    for k, r in runners.items(): r.reset(seed=0)
    spent = {k: 0.0 for k in runners}
    done = 0
    while done < steps:
        n = min(slice_, steps - done)
        for k, r in runners.items():
            a, rs = streams[k], seeds[k]
            t0 = time.perf_counter()
            for _ in range(n):
                _, _, term, trunc, _ = r.step(next(a))
                if term or trunc: r.reset(seed=rs.randrange(2 ** 31))
            spent[k] += time.perf_counter() - t0
        done += n
    return {k: steps / t for k, t in spent.items()}


def vector_rate(n: int, mode: str, steps: int) -> float:
    "Environment steps/s of `vector_env(n, mode)` (n phones, each stepped `steps // n` times)."
    from mobile_r1.gym_env import vector_env
    v = vector_env(n, mode=mode, **KW)
    try:
        v.reset(seed=0)
        streams = [actions(i) for i in range(n)]
        rounds = max(1, steps // n)
        t0 = time.perf_counter()
        for _ in range(rounds): v.step([next(s) for s in streams])
        return rounds * n / (time.perf_counter() - t0)
    finally: v.close()


def openenv_rate(steps: int) -> float:
    "Steps/s of one `PhoneClient` against `mobile-r1 serve-env` in its own process, over loopback."
    from mobile_r1.openenv_server import PhoneClient
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, '-m', 'mobile_r1', 'serve-env', '--port', str(port), '--level', '0', '--popup-prob', '0.1',
                             '--max-turns', '10'], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f'http://127.0.0.1:{port}'
    try:
        t0 = time.time()
        while True:
            if proc.poll() is not None: raise SystemExit(f'serve-env exited: {proc.stderr.read()[-2000:]}')
            try:
                with urllib.request.urlopen(url + '/health', timeout=2): break
            except OSError:
                if time.time() - t0 > 120: raise SystemExit('serve-env did not start within 120 s')
                time.sleep(0.2)
        with PhoneClient(base_url=url).sync() as c:
            a, rs = actions(0), random.Random(1)
            c.reset(seed=0)
            for _ in range(min(50, steps)): r = c.step(next(a)); r.done and c.reset(seed=rs.randrange(2 ** 31))   # warm up
            t0 = time.perf_counter()
            for _ in range(steps):
                r = c.step(next(a))
                r.observation.pixels()                       # the client reads the screenshot, as an agent would
                if r.done: c.reset(seed=rs.randrange(2 ** 31))
            return steps / (time.perf_counter() - t0)
    finally:
        proc.terminate(); proc.wait(10)


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--steps', type=int, default=6000, help='steps per measurement (default 6000)')
    ap.add_argument('--n', type=int, default=8, help='phones in the vector environments (default 8)')
    a = ap.parse_args()
    import gymnasium as gym
    from mobile_r1.gym_env import ENV_ID
    load = os.getloadavg()[0]
    print(f'{os.cpu_count()} cores, load average {load:.2f} before the run (another process running slows every figure)')
    rates = alternating({'direct': Direct(), 'gym': gym.make(ENV_ID, **KW)}, a.steps)
    rates[f'sync{a.n}'] = vector_rate(a.n, 'sync', a.steps)
    rates[f'async{a.n}'] = vector_rate(a.n, 'async', a.steps)
    rates['openenv'] = openenv_rate(max(50, a.steps // 4))
    d = rates['direct']
    rows = [('SimPhone directly', 'direct'), ('Gymnasium, single', 'gym'), (f'Gymnasium vector, sync N={a.n}', f'sync{a.n}'),
            (f'Gymnasium vector, async N={a.n}', f'async{a.n}'), ('OpenEnv client over loopback', 'openenv')]
    print(f'{"path":<34}{"steps/s":>9}{"x direct":>10}')
    for name, k in rows: print(f'{name:<34}{rates[k]:>9.0f}{rates[k] / d:>9.2f}x')
    print(f'targets: Gymnasium single >= 0.90x direct: {"met" if rates["gym"] / d >= 0.9 else "missed"} ({rates["gym"] / d:.2f}x); '
          f'OpenEnv >= 500 steps/s: {"met" if rates["openenv"] >= 500 else "missed"} ({rates["openenv"]:.0f})')
    print(f'load average after the run: {os.getloadavg()[0]:.2f}')
