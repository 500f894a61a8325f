"""Run every notebook in nbs/ and tutorials/ as a test, the way `nbdev-test` does (IN_TEST=1, flagged cells skipped)."""
from pathlib import Path
import pytest
import nbdev.test as nbt
from nbdev.config import get_config
from conftest import needs_course_run

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for d in ('nbs', 'tutorials') for p in (ROOT / d).glob('*.ipynb') if not p.name.startswith('_'))
SKIP_FLAGS = get_config(ROOT).tst_flags.split()


@pytest.mark.parametrize('nb', NOTEBOOKS, ids=[str(p.relative_to(ROOT)) for p in NOTEBOOKS])
def test_notebook(nb, request):
    if needs_course_run(nb): request.getfixturevalue('course_run_env')     # the tutorials' shared run, built once
    ok, secs = nbt.test_nb(nb, skip_flags=SKIP_FLAGS, basepath=ROOT)
    assert ok, f'{nb.relative_to(ROOT)} failed (its traceback is printed above)'
