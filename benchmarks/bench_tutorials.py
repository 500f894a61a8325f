"""How long each tutorial takes to run top to bottom (teacher version, solutions in), on this machine.

    python benchmarks/bench_tutorials.py                 # every tutorial; builds the shared course run first if needed
    python benchmarks/bench_tutorials.py tutorials/05_stage1_sft.ipynb

The shared run (`mobile-r1 course run`) is built once before timing and reported on its own line, since a class
builds it once, ahead of time. Each tutorial runs in a fresh interpreter (a student's fresh kernel); the target is at
most 5 minutes each on 2 CPU cores. Time it on a quiet machine: a second torch process on 2 cores slows training
about tenfold. The table goes to tutorials/README.md by hand."""
import subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 300
RUN_ONE = '''
import os, sys
from pathlib import Path
import nbdev.test as nbt
ok, secs = nbt.test_nb(Path(sys.argv[1]), skip_flags=['slow', 'gpu'], basepath=Path(sys.argv[2]))
sys.exit(0 if ok else 1)
'''


def main(paths):
    from mobile_r1.course import course_run
    t0 = time.time()
    out = course_run()
    print(f'shared course run ({out}): {time.time() - t0:6.1f} s (0 when it existed already)', flush=True)
    nbs = [Path(p).resolve() for p in paths] or sorted((ROOT / 'tutorials').glob('*.ipynb'))
    rows = []
    for nb in nbs:
        t0 = time.time()
        r = subprocess.run([sys.executable, '-c', RUN_ONE, str(nb), str(ROOT)], cwd=nb.parent, capture_output=True, text=True)
        secs = time.time() - t0
        rows.append((nb.name, secs, r.returncode == 0))
        print(f'{"ok  " if r.returncode == 0 else "FAIL"} {secs:6.1f} s  {nb.name}{"" if secs <= TARGET_S else "  (over the 5-minute target)"}', flush=True)
        if r.returncode: print(r.stdout[-2000:], r.stderr[-2000:])
    print('\n| tutorial | seconds on this machine |\n|---|---|')
    for name, secs, ok in rows: print(f'| {name} | {secs:.0f}{"" if ok else " (failed)"} |')
    print(f'| all | {sum(s for _, s, _ in rows):.0f} |')
    sys.exit(0 if all(ok for *_, ok in rows) else 1)


if __name__ == '__main__':
    main(sys.argv[1:])
