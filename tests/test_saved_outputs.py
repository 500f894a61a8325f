"""Notebooks are read before they are run: every cell that displays something (a screen, a table, a curve, a print)
carries its saved output, and all notebooks together stay within the size budget. `python tools/refresh_outputs.py`
refreshes them; `--check` lists what is missing."""
import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location('refresh_outputs', ROOT / 'tools' / 'refresh_outputs.py')
refresh = importlib.util.module_from_spec(spec); spec.loader.exec_module(refresh)


@pytest.mark.parametrize('nb', refresh.notebooks(), ids=lambda p: f'{p.parent.name}/{p.name}')
def test_displaying_cells_have_saved_outputs(nb):
    missing = refresh.missing_outputs(nb)
    assert not missing, 'cells that display something but have no saved output (run `python tools/refresh_outputs.py ' \
                        f'{nb.relative_to(ROOT)}`):\n  ' + '\n  '.join(missing)


def test_size_budget():
    assert refresh.size_mb() <= refresh.BUDGET_MB, f'notebooks hold {refresh.size_mb():.1f} MB, over the {refresh.BUDGET_MB} MB budget'


@pytest.mark.parametrize('nb', refresh.notebooks(), ids=lambda p: f'{p.parent.name}/{p.name}')
def test_no_cell_output_is_over_budget(nb):
    big = [f'cell {i}: {b / 1e3:.0f} KB' for i, b in refresh.output_sizes(nb) if b > refresh.CELL_KB * 1e3]
    assert not big, f'saved outputs over {refresh.CELL_KB} KB (show fewer frames, or smaller ones):\n  ' + '\n  '.join(big)


def test_outputs_together_are_within_budget():
    assert refresh.outputs_mb() <= refresh.OUTPUTS_MB, f'saved outputs hold {refresh.outputs_mb():.2f} MB, over {refresh.OUTPUTS_MB} MB'


def test_the_check_catches_a_missing_output(tmp_path):
    "The detector itself: what counts as displaying, and which cells are exempt."
    cells = {'obs["screenshot"]': True, 'print(table)': True, 'display(img); x = 1': True, 'x = 1': False,
             'test_eq(a, b)': False, '#| hide\nshow(img)': False, '#| export\ndef f(): print(1)': False,
             'fig.show()': True, '"a docstring"': False, 'phone.close();': False}
    nb = {'cells': [{'cell_type': 'code', 'source': s, 'outputs': [], 'metadata': {}} for s in cells]
                   + [{'cell_type': 'code', 'source': 'obs', 'metadata': {},
                       'outputs': [{'output_type': 'execute_result', 'data': {'text/plain': '1'}}]}],
          'metadata': {}, 'nbformat': 4, 'nbformat_minor': 5}
    (tmp_path / 'x.ipynb').write_text(json.dumps(nb))
    flagged = {int(m.split('cell ')[1].split(':')[0]) for m in refresh.missing_outputs(tmp_path / 'x.ipynb')}
    assert flagged == {i for i, shows in enumerate(cells.values()) if shows}


MACHINE_PATH = re.compile(r'(?<![\w.])/(?:tmp|root|home|Users|work|var/folders)/[\w.-]+')


@pytest.mark.parametrize('nb', refresh.notebooks(), ids=lambda p: f'{p.parent.name}/{p.name}')
def test_no_output_holds_a_machine_path(nb):
    "A saved output shows what a reader needs, not the folders of the machine that ran it (print names, not paths)."
    found = []
    for i, c in enumerate(json.loads(nb.read_text(encoding='utf-8'))['cells']):
        for o in c.get('outputs', []):
            text = ''.join(o.get('text', '')) + ''.join(v if isinstance(v, str) else ''.join(v)
                                                      for k, v in o.get('data', {}).items() if k.startswith('text/'))
            found += [f'cell {i}: {m}' for m in MACHINE_PATH.findall(text)]
    assert not found, 'outputs that show a machine path (refresh after printing a name instead):\n  ' + '\n  '.join(found[:10])


@pytest.mark.parametrize('nb', refresh.notebooks(), ids=lambda p: f'{p.parent.name}/{p.name}')
def test_widget_outputs_carry_a_static_rendering(nb):
    "A live widget renders nowhere static (a docs page, a code host): its output must carry a picture or HTML beside it."
    bare = [f'cell {i}' for i, c in enumerate(json.loads(nb.read_text(encoding='utf-8'))['cells']) for o in c.get('outputs', [])
            if 'application/vnd.jupyter.widget-view+json' in o.get('data', {})
            and not {'image/png', 'text/html'} & set(o['data'])]
    assert not bare, 'widget outputs with no static rendering (display the RewardCurves or TrajectoryViewer itself, not ' \
                     'its .fig or .box):\n  ' + '\n  '.join(bare)
