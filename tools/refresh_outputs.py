"""Re-run notebooks and save their outputs (tables, screens, curves) so a reader sees them before running anything.

    python tools/refresh_outputs.py                      # every notebook in nbs/ and tutorials/
    python tools/refresh_outputs.py nbs/11_evaluate.ipynb ...

Notebooks run the way the test suite runs them (IN_TEST=1: small, fast settings; `slow`/`gpu` cells skipped), so
the saved numbers are the smoke-sized ones unless a cell says otherwise. Then `nbdev-clean` strips run metadata.
    python tools/refresh_outputs.py --check              # list cells that display something but have no saved output

Budgets (checked at the end, and by tests/test_saved_outputs.py): no single cell's outputs over 100 KB, all outputs
together at most 5 MB, all notebook files together under 10 MB."""
import ast, json, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_MB = 10          # the notebook files, sources included
OUTPUTS_MB = 5          # the saved outputs of every notebook together
CELL_KB = 100           # the saved outputs of one cell


SHOWS = ('print', 'display', 'show', 'Markdown', 'HTML')   # calls whose output a reader should see


def displays(src: str) -> bool:
    "Whether a code cell shows something: its last statement is an expression (not a test), or it prints or displays."
    code = '\n'.join(l for l in src.splitlines() if not l.lstrip().startswith(('%', '!')))
    try: tree = ast.parse(code)
    except SyntaxError: return False
    if not tree.body: return False
    last = tree.body[-1]
    if isinstance(last, ast.Expr) and not code.rstrip().endswith(';'):      # a trailing ';' hides the value, as in IPython
        v = last.value
        quiet = (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id.startswith('test')) or \
                (isinstance(v, ast.Constant) and isinstance(v.value, str))
        if not quiet: return True
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            if (f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else '') in SHOWS: return True
    return False


def missing_outputs(nb: Path) -> list[str]:
    "The cells of `nb` a reader sees (not hidden, not exported, run under test) that display something but saved nothing."
    out = []
    for i, c in enumerate(json.loads(nb.read_text(encoding='utf-8'))['cells']):
        if c['cell_type'] != 'code' or c.get('outputs'): continue
        src = ''.join(c['source'])
        flags = [l.strip() for l in src.splitlines() if l.lstrip().startswith('#|')]
        if any(re.match(r'#\|\s*(hide|export|exports|eval:\s*false|slow|gpu)\b', f) for f in flags): continue
        if displays(src): out.append(f'{nb.name} cell {i}: {src.strip().splitlines()[-1][:70]}')
    return out


def notebooks() -> list[Path]:
    return sorted((ROOT / 'nbs').glob('*.ipynb')) + sorted((ROOT / 'tutorials').glob('*.ipynb'))


def size_mb() -> float:
    return sum(p.stat().st_size for p in notebooks()) / 2 ** 20


def output_sizes(nb: Path) -> list[tuple[int, int]]:
    "(cell index, bytes of its saved outputs as stored) for every code cell of `nb` with outputs."
    cells = json.loads(nb.read_text(encoding='utf-8'))['cells']
    return [(i, len(json.dumps(c['outputs'], ensure_ascii=False).encode())) for i, c in enumerate(cells) if c.get('outputs')]


def outputs_mb() -> float:
    return sum(b for nb in notebooks() for _, b in output_sizes(nb)) / 1e6


def _drop_stderr(nb: Path):
    "Warnings and progress bars are noise to a reader: keep what the cells print and display."
    d = json.loads(nb.read_text(encoding='utf-8'))
    for c in d['cells']:
        if 'outputs' in c: c['outputs'] = [o for o in c['outputs'] if not (o.get('output_type') == 'stream' and o.get('name') == 'stderr')]
    nb.write_text(json.dumps(d, indent=1, ensure_ascii=False) + '\n', encoding='utf-8')


def main(paths):
    if paths == ['--check']:
        missing = [m for nb in notebooks() for m in missing_outputs(nb)]
        print('\n'.join(missing) or 'every cell that displays something has a saved output', f'\nall notebooks: {size_mb():.1f} MB')
        sys.exit(1 if missing or size_mb() > BUDGET_MB else 0)
    import nbdev.test as nbt
    nbs = [Path(p).resolve() for p in paths] or notebooks()
    failed = []
    for nb in nbs:
        ok, secs = nbt.test_nb(nb, skip_flags=['slow', 'gpu'], basepath=ROOT, save=True)
        print(f'{"ok  " if ok else "FAIL"} {secs:6.1f}s  {nb.relative_to(ROOT)}', flush=True)
        if not ok: failed.append(nb)
        else: _drop_stderr(nb)
    subprocess.run(['nbdev-clean'], cwd=ROOT, check=True)
    size, outs = size_mb(), outputs_mb()
    big = [f'{nb.relative_to(ROOT)} cell {i}: {b / 1e3:.0f} KB' for nb in notebooks() for i, b in output_sizes(nb) if b > CELL_KB * 1e3]
    print(f'all notebooks: {size:.1f} MB (budget {BUDGET_MB} MB); their outputs: {outs:.2f} MB (budget {OUTPUTS_MB} MB)')
    if big: print(f'outputs over {CELL_KB} KB:\n  ' + '\n  '.join(big))
    if failed or big or size > BUDGET_MB or outs > OUTPUTS_MB: sys.exit(1)


if __name__ == '__main__':
    main(sys.argv[1:])
