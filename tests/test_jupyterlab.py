"""The learner's front door: JupyterLab, started by the README's command, opens the index in headless Chromium."""
import os, re, socket, subprocess, sys, time, urllib.request
from pathlib import Path
import pytest
from conftest import CHROMIUM, chromium

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / 'README.md').read_text(encoding='utf-8')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


def test_readme_says_how_to_open_the_index():
    assert re.search(r'^jupyter lab --notebook-dir=\. nbs/index\.ipynb$', README, re.M), 'the README gives the command that opens the index'
    assert 'pip install -e ".[lab]"' in README.split('## Two commands')[1].split('```')[1]      # the first command brings JupyterLab


def test_jupyterlab_opens_the_index(tmp_path):
    if not CHROMIUM.exists(): pytest.skip('headless Chromium not installed: apt-get install -y chromium (Debian package)')
    cmd = re.search(r'^(jupyter lab --notebook-dir=\. nbs/index\.ipynb)$', README, re.M).group(1).split()
    port, token = free_port(), 'test-token'
    argv = [str(Path(sys.executable).with_name(cmd[0]))] + cmd[1:] + [
        '--no-browser', f'--port={port}', '--ServerApp.ip=127.0.0.1', f'--IdentityProvider.token={token}']
    if os.geteuid() == 0: argv.append('--allow-root')                 # CI runs as root; Jupyter refuses root without it
    env = {**os.environ, 'JUPYTER_RUNTIME_DIR': str(tmp_path / 'runtime'), 'JUPYTERLAB_WORKSPACES_DIR': str(tmp_path / 'ws'),
           'JUPYTER_CONFIG_DIR': str(tmp_path / 'config')}
    log = open(tmp_path / 'lab.log', 'w')
    lab = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        base = f'http://127.0.0.1:{port}'
        for _ in range(120):
            try:
                urllib.request.urlopen(f'{base}/api/status?token={token}', timeout=2); break
            except OSError: time.sleep(0.5)
        else: pytest.fail('JupyterLab did not answer within a minute:\n' + (tmp_path / 'lab.log').read_text()[-3000:])
        r = chromium(f'{base}/lab/tree/nbs/index.ipynb?token={token}', '--dump-dom', budget_ms=60000)
        dom = r.stdout
        assert 'jp-Notebook' in dom, dom[-2000:]                                  # the notebook panel is open ...
        assert 'The paper in one page' in dom and 'Reading order' in dom, dom[-2000:]   # ... showing the index, rendered
    finally:
        lab.terminate()
        try: lab.wait(30)
        except subprocess.TimeoutExpired: lab.kill()
        log.close()
