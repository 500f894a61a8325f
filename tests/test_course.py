"""The course: every tutorial's student version (solutions blanked by `mobile-r1 course student`) runs top to bottom
with every check failing in words (`NotYet`) and no other error; the teacher version (the tutorials themselves) is
run by tests/test_notebooks.py. Also: the structure each tutorial promises (goals, steps, exercises, recap)."""
import json
from pathlib import Path

import pytest
from execnb.shell import CaptureShell

from mobile_r1.course import GUIDE, is_check, GUIDE_FIELDS, answer_leaks, guide_answers, guide_entries, is_solution, student_notebook, write_course
from conftest import needs_course_run

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / 'tutorials').glob('*.ipynb'))
ids = [p.stem for p in TUTORIALS]


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
        assert is_check(nxt), f'{path.name}: the cell after solution cell {i} is not a check(...)'
    for c in nb['cells']:                                   # the saved run of the teacher version: every check passed, in words
        if c['cell_type'] == 'code' and is_check(''.join(c['source'])):
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
            if is_check(src):
                assert errs and errs[0]['ename'] == 'NotYet', f'{path.name} cell {i}: a check passed (or crashed) on the blank: {errs}'
                assert 'fill in' in errs[0]['evalue'] or 'not yet' in errs[0]['evalue']
                failed.append(i)
            elif errs: other.append((i, errs[0]['ename'], errs[0]['evalue'][:200]))
    finally: sh.close() if hasattr(sh, 'close') else None
    assert failed, f'{path.name} has no check cells'
    assert not other, f'{path.name}: cells other than checks fail in the student version: {other}'


def exercises(nb: dict) -> list[str]:
    "The exercise headings of a tutorial, as written after `## `."
    return [''.join(c['source']).split('\n')[0][3:].strip() for c in nb['cells']
            if c['cell_type'] == 'markdown' and ''.join(c['source']).startswith('## Exercise')]


@pytest.mark.parametrize('path', TUTORIALS, ids=ids)
def test_the_guide_covers_every_exercise(path):
    guide = path.parent / GUIDE / f'{path.stem}.md'
    assert guide.exists(), f'no teacher\'s guide for {path.name}: write {guide.relative_to(ROOT)}'
    entries = guide_entries(guide.read_text(encoding='utf-8'))
    for ex in exercises(json.loads(path.read_text(encoding='utf-8'))):
        assert ex in entries, f'{guide.name} has no section "## {ex}"'
        missing = [f for f in GUIDE_FIELDS if not entries[ex].get(f)]
        assert not missing, f'{guide.name}, {ex}: no {missing} (each a bullet: - **Intent.** ...)'


@pytest.mark.parametrize('path', TUTORIALS, ids=ids)
def test_the_student_version_gives_no_answer_away(path):
    "No solution line or expression, and no answer value from the teacher's guide, in the student's checks, text or README."
    guide = path.parent / GUIDE / f'{path.stem}.md'
    answers = guide_answers(guide.read_text(encoding='utf-8')) if guide.exists() else []
    leaks = answer_leaks(json.loads(path.read_text(encoding='utf-8')), answers, (path.parent / 'README.md').read_text(encoding='utf-8'))
    assert not leaks, f'{path.name}: the student version gives away\n  ' + '\n  '.join(leaks)


def test_the_student_folder_has_a_readme_and_no_guide(tmp_path):
    write_course(tmp_path / 'student', 'student', ROOT / 'tutorials')
    write_course(tmp_path / 'teacher', 'teacher', ROOT / 'tutorials')
    assert (tmp_path / 'student' / 'README.md').exists() and not (tmp_path / 'student' / GUIDE).exists()
    assert sorted(p.name for p in (tmp_path / 'teacher' / GUIDE).glob('*.md')) == [f'{p.stem}.md' for p in TUTORIALS]
