"""The course: every tutorial's student version (solutions blanked by `mobile-r1 course student`) runs top to bottom
with every check failing in words (`NotYet`) and no other error; the teacher version (the tutorials themselves) is
run by tests/test_notebooks.py. Also: the structure each tutorial promises (goals, steps, exercises, recap)."""
import inspect, json
from pathlib import Path

import pytest
from execnb.shell import CaptureShell

from mobile_r1.course import GUIDE, answer_digest, is_check, GUIDE_FIELDS, answer_leaks, guide_answers, guide_entries, is_solution, student_notebook, write_course
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


class Wrong:
    "A wrong answer: equal to nothing, and with no length, items or arithmetic, as a student's first try may be."
    def __eq__(self, other): return False
    __hash__ = object.__hash__
    def __repr__(self): return 'Wrong()'


def digest(v) -> str | None:
    """The answer digest of a kernel value that could be an answer; None for what any kernel holds by chance (flags,
    small counts) and for what cannot be compared (modules, functions, classes)."""
    if v is None or v is ... or isinstance(v, (bool, Wrong, type)) or callable(v) or inspect.ismodule(v): return None
    if isinstance(v, int) and abs(v) < 100: return None
    try: return answer_digest(v, 4)
    except Exception: return None


@pytest.mark.parametrize('path', TUTORIALS, ids=ids)
def test_student_version_checks_fail_on_the_blank_and_on_a_wrong_answer(path, monkeypatch, request):
    """The student version runs top to bottom; each check fails in words on the blank and again on a wrong answer; and
    after each check no name in the kernel holds a right answer of its exercise (the teacher's solution is run at its
    place to learn the right answers, and what it bound is undone before the blank runs; a later step may show them)."""
    if needs_course_run(path): request.getfixturevalue('course_run_env')
    teacher = json.loads(path.read_text(encoding='utf-8'))
    nb = student_notebook(teacher)
    monkeypatch.setenv('IN_TEST', '1')
    monkeypatch.chdir(path.parent)
    sh = CaptureShell(path)
    ns, right = sh.user_ns, {}                      # right: digest of a right answer -> the name the solution gives it
    failed, other, leaks, last_solution = [], [], [], -1
    try:
        for i, c in enumerate(nb['cells']):
            if c['cell_type'] != 'code': continue
            src = ''.join(c['source'])
            if is_solution(teacher['cells'][i]):
                if failed and failed[-1] > last_solution: right = {}    # a new exercise: the steps after a check may show the last one's answer
                last_solution, before = i, dict(ns)
                sh.run(''.join(teacher['cells'][i]['source']))
                for name in [n for n in ns if not n.startswith('_') and (n not in before or before[n] is not ns[n])]:
                    if (d := digest(ns[name])) is not None: right[d] = name
                    if name in before: ns[name] = before[name]
                    else: del ns[name]
            errs = [o for o in sh.run(src) if o.get('output_type') == 'error']
            if is_check(src):
                assert errs and errs[0]['ename'] == 'NotYet', f'{path.name} cell {i}: a check passed (or crashed) on the blank: {errs}'
                assert 'fill in' in errs[0]['evalue'] or 'not yet' in errs[0]['evalue']
                blanks = [n for n, v in ns.items() if v is ... and not n.startswith('_')]
                for n in blanks: ns[n] = Wrong()
                errs = [o for o in sh.run(src) if o.get('output_type') == 'error']
                assert errs and errs[0]['ename'] == 'NotYet', f'{path.name} cell {i}: on a wrong answer the check passed (or crashed): {errs}'
                for n in blanks: ns[n] = ...
                leaks += [f'cell {i}: `{n}` holds the answer `{right[d]}`' for n, v in ns.items()
                          if not n.startswith('_') and (d := digest(v)) in right]
                failed.append(i)
            elif errs: other.append((i, errs[0]['ename'], errs[0]['evalue'][:200]))
    finally: sh.close() if hasattr(sh, 'close') else None
    assert failed, f'{path.name} has no check cells'
    assert not other, f'{path.name}: cells other than checks fail in the student version: {other}'
    assert not leaks, f'{path.name}: after a check, the kernel holds a right answer:\n  ' + '\n  '.join(leaks)


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
