"""The base that ships with the package: it is there, small, well formed, and its card's command builds it again. A short
rerun of that command (the same data, the same schedule, stopped after 50 steps) must retrace the card's curve."""
import json, os, subprocess, sys
from pathlib import Path
import pytest

ENV = {**os.environ, 'IN_TEST': '1'}


def test_shipped_base_is_there():
    from mobile_r1.pretrain import SHIP_LIMIT_MB, SHIPPED_BASE, check_base
    card = check_base(SHIPPED_BASE)
    assert sum(f.stat().st_size for f in SHIPPED_BASE.iterdir()) < SHIP_LIMIT_MB * 2**20
    assert card['command'].startswith('mobile-r1 pretrain') and card['steps_done'] == card['config']['steps']   # its schedule ran whole
    assert (SHIPPED_BASE / 'BASE.md').read_text().startswith('# mobile_r1 phone base') and (SHIPPED_BASE / 'pretrain.jsonl').is_file()
    assert not card['config']['exclude'] or 'Video/like_video' in card['config']['exclude']    # never the quickstart's world


def test_shipped_base_retraces(tmp_path):
    "The card's command, stopped after 50 steps: the same trajectories (as many steps of data, over as many tasks) and the same losses."
    from mobile_r1.pretrain import SHIPPED_BASE, retrace_base
    r = retrace_base(SHIPPED_BASE, tmp_path / 'again', stop_step=50)
    assert r['train_samples'][0] == r['train_samples'][1] and r['tasks'][0] == r['tasks'][1], r
    assert list(r['loss']) == [50], r                                    # logged every 50 steps, as the long run was
    (card, again), = r['loss'].values()
    assert abs(again - card) <= 0.03 * card, r                           # float sums differ with the thread count and the CPU


def test_quickstart_from_shipped_base(tmp_path):
    "`--base shipped` takes the package's base: its weights and its tokenizer start stage 1 (and `--seed` reaches the run)."
    from mobile_r1.pretrain import SHIPPED_BASE
    run = tmp_path / 'run'
    r = subprocess.run([sys.executable, '-m', 'mobile_r1', 'quickstart', '--preset', 'smoke', '--base', 'shipped', '--seed', '1',
                        '--out', str(run)], capture_output=True, text=True, env=ENV, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    st = json.loads((run / 'quickstart.json').read_text())
    assert st['config']['base'] == 'shipped' and st['config']['seed'] == 1 and 'stage 3' in st['done']
    tiny = run / 'models' / 'tiny'
    assert (tiny / 'tokenizer.json').read_bytes() == (SHIPPED_BASE / 'tokenizer.json').read_bytes()
    assert (tiny / 'model.safetensors').read_bytes() == (SHIPPED_BASE / 'model.safetensors').read_bytes()


def test_package_data_carries_the_base():
    "Every file of the shipped base matches the package-data globs, so an installed (non-editable) package carries it too."
    import fnmatch, tomllib
    from mobile_r1.pretrain import SHIPPED_BASE
    root = Path(__file__).parents[1]
    globs = tomllib.loads((root / 'pyproject.toml').read_text())['tool']['setuptools']['package-data']['mobile_r1']
    files = [f.relative_to(root / 'mobile_r1').as_posix() for f in SHIPPED_BASE.iterdir()]
    assert files and all(any(fnmatch.fnmatch(f, g) for g in globs) for f in files), (files, globs)


def test_a_missing_shipped_base_names_its_fix(tmp_path, monkeypatch):
    "Were the package's base missing or built for another vocabulary, the quickstart would stop before any work, saying how to rebuild it."
    import shutil
    import mobile_r1.pretrain as P
    from mobile_r1.quickstart import base_path
    monkeypatch.setattr(P, 'SHIPPED_BASE', tmp_path / 'bases' / 'tiny')
    with pytest.raises(FileNotFoundError, match="the package's own base; rebuild it with the command on its card"): base_path('shipped')
    shutil.copytree(Path(P.__file__).parent / 'bases' / 'tiny', tmp_path / 'bases' / 'tiny')
    info = json.loads((tmp_path / 'bases' / 'tiny' / 'mobile_r1.json').read_text()); info['base']['vocab'] = '00000000'
    (tmp_path / 'bases' / 'tiny' / 'mobile_r1.json').write_text(json.dumps(info))
    with pytest.raises(ValueError, match='another SimPhone vocabulary'): base_path('shipped')
