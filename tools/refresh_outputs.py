"""Re-run notebooks and save their outputs (tables, screens, curves) so a reader sees them before running anything.

    python tools/refresh_outputs.py                      # every notebook in nbs/ and tutorials/
    python tools/refresh_outputs.py nbs/11_evaluate.ipynb ...

Notebooks run the way the test suite runs them (IN_TEST=1: small, fast settings; `slow`/`gpu` cells skipped), so
the saved numbers are the smoke-sized ones unless a cell says otherwise. Then `nbdev-clean` strips run metadata.
Budget: all saved notebooks together stay under 10 MB (checked at the end)."""
import json, subprocess, sys
from pathlib import Path
import nbdev.test as nbt

ROOT = Path(__file__).resolve().parents[1]
BUDGET_MB = 10


def _drop_stderr(nb: Path):
    "Warnings and progress bars are noise to a reader: keep what the cells print and display."
    d = json.loads(nb.read_text(encoding='utf-8'))
    for c in d['cells']:
        if 'outputs' in c: c['outputs'] = [o for o in c['outputs'] if not (o.get('output_type') == 'stream' and o.get('name') == 'stderr')]
    nb.write_text(json.dumps(d, indent=1, ensure_ascii=False) + '\n', encoding='utf-8')


def main(paths):
    nbs = [Path(p).resolve() for p in paths] or sorted((ROOT / 'nbs').glob('*.ipynb')) + sorted((ROOT / 'tutorials').glob('*.ipynb'))
    failed = []
    for nb in nbs:
        ok, secs = nbt.test_nb(nb, skip_flags=['slow', 'gpu'], basepath=ROOT, save=True)
        print(f'{"ok  " if ok else "FAIL"} {secs:6.1f}s  {nb.relative_to(ROOT)}', flush=True)
        if not ok: failed.append(nb)
        else: _drop_stderr(nb)
    subprocess.run(['nbdev-clean'], cwd=ROOT, check=True)
    size = sum(p.stat().st_size for d in ('nbs', 'tutorials') for p in (ROOT / d).glob('*.ipynb')) / 2 ** 20
    print(f'all notebooks: {size:.1f} MB (budget {BUDGET_MB} MB)')
    if failed or size > BUDGET_MB: sys.exit(1)


if __name__ == '__main__':
    main(sys.argv[1:])
