"""The course: every tutorial's student version (solutions blanked by `mobile-r1 course student`) runs top to bottom
with every check failing in words (`NotYet`) and no other error; the teacher version (the tutorials themselves) is
run by tests/test_notebooks.py. Also: the structure each tutorial promises (goals, steps, exercises, recap)."""
import ast
import json
from pathlib import Path

import pytest
from execnb.shell import CaptureShell

from mobile_r1.course import is_solution, student_notebook
from conftest import needs_course_run

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / 'tutorials').glob('*.ipynb'))
ids = [p.stem for p in TUTORIALS]


def _is_check(src: str) -> bool:
    "A check cell: its last statement calls `check(...)`."
    try: body = ast.parse(src).body
    except SyntaxError: return False
    last = body[-1] if body else None
    return isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and getattr(last.value.func, 'id', '') == 'check'



@pytest.mark.parametrize('path', TUTORIALS, ids=ids)
def test_structure(path):
    nb = json.loads(path.read_text(encoding='utf-8'))
    cells = [(c['cell_type'], ''.join(c['source'])) for c in nb['cells']]
    md = '\n'.join(s for k, s in cells if k == 'markdown')
    for part in ('**Learning goals.**', '**The paper at full scale, and here.**', '## Step 1', '## Recap'):
        assert part in md, f'{path.name} lacks {part!r}'
    sols = [i for i, c in enumerate(nb['cells']) if is_solution(c)]
    assert 2 <= len(sols) <= 3, f'{path.name}: {len(sols)} exercises (2 or 3 expected)'
    for i in sols:                                          # each solution is followed by its check
        nxt = next(s for k, s in cells[i + 1:] if k == 'code')
        assert _is_check(nxt), f'{path.name}: the cell after solution cell {i} is not a check(...)'
    for c in nb['cells']:                                   # the saved run of the teacher version: every check passed, in words
        if c['cell_type'] == 'code' and _is_check(''.join(c['source'])):
            out = ''.join(''.join(o.get('text', '')) for o in c.get('outputs', []) if o.get('output_type') == 'stream')
            assert out.startswith('✓ ') and '<function' not in out, f'{path.name}: a check\'s saved output is {out[:120]!r}'


@pytest.mark.parametrize('path', TUTORIALS, ids=ids)
def test_student_version_checks_fail_on_the_blank(path, monkeypatch, request):
    if needs_course_run(path): request.getfixturevalue('course_run_env')
    nb = student_notebook(json.loads(path.read_text(encoding='utf-8')))
    monkeypatch.setenv('IN_TEST', '1')
    monkeypatch.chdir(path.parent)
    sh = CaptureShell(path)
    failed, other = [], []
    try:
        for i, c in enumerate(nb['cells']):
            if c['cell_type'] != 'code': continue
            src = ''.join(c['source'])
            errs = [o for o in sh.run(src) if o.get('output_type') == 'error']
            if _is_check(src):
                assert errs and errs[0]['ename'] == 'NotYet', f'{path.name} cell {i}: a check passed (or crashed) on the blank: {errs}'
                assert 'fill in' in errs[0]['evalue'] or 'not yet' in errs[0]['evalue']
                failed.append(i)
            elif errs: other.append((i, errs[0]['ename'], errs[0]['evalue'][:200]))
    finally: sh.close() if hasattr(sh, 'close') else None
    assert failed, f'{path.name} has no check cells'
    assert not other, f'{path.name}: cells other than checks fail in the student version: {other}'
