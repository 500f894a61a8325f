"""The learner's front door: JupyterLab, started by the README's command, opens the index in headless Chromium, and runs
a notebook of the library's widgets (driven by Playwright) with the trajectory viewer and the reward curves live and the
browser console clean."""
import json, os, re, secrets, shutil, socket, subprocess, sys, time, urllib.request
from contextlib import contextmanager
from pathlib import Path
import pytest
from conftest import CHROMIUM, chromium

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / 'README.md').read_text(encoding='utf-8')
NO_CHROMIUM = 'headless Chromium not installed: apt-get install -y chromium (Debian package)'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); return s.getsockname()[1]


def test_readme_says_how_to_open_the_index():
    assert re.search(r'^jupyter lab --notebook-dir=\. nbs/index\.ipynb$', README, re.M), 'the README gives the command that opens the index'
    assert 'pip install -e ".[lab]"' in README.split('## Two commands')[1].split('```')[1]      # the first command brings JupyterLab


@contextmanager
def readme_lab(tmp_path: Path, *extra):
    "JupyterLab started by the README's command (plus `extra` flags) from the repo root; yields (base URL, token, log path)."
    cmd = re.search(r'^(jupyter lab --notebook-dir=\. nbs/index\.ipynb)$', README, re.M).group(1).split()
    port, token = free_port(), 'test-token'
    argv = [str(Path(sys.executable).with_name(cmd[0]))] + cmd[1:] + [
        '--no-browser', f'--port={port}', '--ServerApp.ip=127.0.0.1', f'--IdentityProvider.token={token}', *extra]
    if os.geteuid() == 0: argv.append('--allow-root')                 # CI runs as root; Jupyter refuses root without it
    env = {**os.environ, 'JUPYTER_RUNTIME_DIR': str(tmp_path / 'runtime'), 'JUPYTERLAB_WORKSPACES_DIR': str(tmp_path / 'ws'),
           'JUPYTER_CONFIG_DIR': str(tmp_path / 'config')}
    log_path = tmp_path / 'lab.log'
    log = open(log_path, 'w')
    lab = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        base = f'http://127.0.0.1:{port}'
        for _ in range(120):
            try:
                urllib.request.urlopen(f'{base}/api/status?token={token}', timeout=2); break
            except OSError: time.sleep(0.5)
        else: pytest.fail('JupyterLab did not answer within a minute:\n' + log_path.read_text()[-3000:])
        yield base, token, log_path
    finally:
        lab.terminate()
        try: lab.wait(30)
        except subprocess.TimeoutExpired: lab.kill(); lab.wait(10)
        log.close()


def test_jupyterlab_opens_the_index(tmp_path):
    if not CHROMIUM.exists(): pytest.skip(NO_CHROMIUM)
    with readme_lab(tmp_path) as (base, token, _):
        r = chromium(f'{base}/lab/tree/nbs/index.ipynb?token={token}', '--dump-dom', budget_ms=60000)
        dom = r.stdout
        assert 'jp-Notebook' in dom, dom[-2000:]                                  # the notebook panel is open ...
        assert 'The paper in one page' in dom and 'Reading order' in dom, dom[-2000:]   # ... showing the index, rendered


# A notebook a learner could write from the docs: two SimPhone episodes played by the expert through the rollout loop,
# stepped in the viewer (with the expert's golds), and a few metric rows drawn as reward curves. Seconds, no training.
WIDGET_CELLS = [
    "from mobile_r1.rollout import run_episode\n"
    "from mobile_r1.sim.expert import ExpertPolicy\n"
    "from mobile_r1.sim.phone import SimPhone\n"
    "from mobile_r1.sim.tasks import get_task\n"
    "from mobile_r1.widgets import RewardCurves, TrajectoryViewer\n"
    "trajs = [run_episode(ExpertPolicy(), SimPhone(), get_task('Shop/cart/Mi 14 Phone'), seed=s) for s in (0, 1)]\n"
    "[len(t.turns) for t in trajs]",
    "viewer = TrajectoryViewer(trajs, golds='sim')\nviewer",
    "curves = RewardCurves([{'stage': 2, 'step': s, 'reward/mean': s / 10, 'format_ok': 1.0, 'loss': 1 / s} for s in range(1, 6)])\n"
    "curves",
]
VIEWER_CELL, CURVES_CELL = 1, 2
FEED_CURVES = "curves({'stage': 3, 'step': 1, 'reward/mean': 0.9, 'kl': 0.05})"    # a MetricsLog row, sent after the plot is up
WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json'

# Console errors that are JupyterLab's own noise, not the library's: (regex, why). Empty: JupyterLab 4.6 on this offline
# machine logs none (no favicon 404, no news or update request without the learner's consent). Add an entry only with its reason.
CONSOLE_ALLOW: list[tuple[str, str]] = []


@pytest.fixture(scope='module')
def widget_lab(tmp_path_factory):
    "One JupyterLab for this module's browser tests: the README's command, the app exposed as `window.jupyterapp` to drive it."
    if not CHROMIUM.exists(): pytest.skip(NO_CHROMIUM)
    pytest.importorskip('playwright.sync_api', reason='playwright not installed: pip install -e ".[dev]"')
    with readme_lab(tmp_path_factory.mktemp('lab'), '--LabApp.expose_app_in_browser=True') as lab: yield lab


def write_notebook(path: Path, cells: list[str]):
    nb = {'cells': [{'cell_type': 'code', 'execution_count': None, 'id': f'c{i}', 'metadata': {}, 'outputs': [], 'source': src}
                    for i, src in enumerate(cells)],
          'metadata': {'kernelspec': {'name': 'python3', 'display_name': 'Python 3 (ipykernel)', 'language': 'python'},
                       'language_info': {'name': 'python'}},
          'nbformat': 4, 'nbformat_minor': 5}
    path.write_text(json.dumps(nb, indent=1), encoding='utf-8')


class Console:
    "What the browser console said: errors (console.error and uncaught page errors) and every line, for diagnostics."
    def __init__(self, page):
        self.errors, self.lines = [], []
        page.on('console', self._console)
        page.on('pageerror', lambda e: self._error(f'pageerror: {e}'))
        page.on('response', lambda r: r.status >= 400 and self.lines.append(f'HTTP {r.status} {r.url}'))
    def _console(self, m):
        if m.type == 'error': self._error(f'console.error: {m.text} ({m.location.get("url", "")})')
        elif m.type != 'debug': self.lines.append(f'console.{m.type}: {m.text}')
    def _error(self, text): self.errors.append(text); self.lines.append(text)
    def unexpected(self) -> list[str]: return [e for e in self.errors if not any(re.search(rx, e) for rx, _ in CONSOLE_ALLOW)]
    def tail(self, n=40) -> str: return '\n'.join(self.lines[-n:])


# In the page: the open notebook's cells, each with its outputs (types and mime types, from the model) and facts about
# its output area's DOM.
CELLS_JS = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  return nb.widgets.map(cell => {
    const out = cell.node.querySelector('.jp-OutputArea');
    const n = cell.model.outputs ? cell.model.outputs.length : 0;
    const img = out && out.querySelector('.jupyter-widgets.widget-image, .jupyter-widgets img');
    return {
      count: cell.model.executionCount ?? null,
      outputs: Array.from({length: n}, (_, i) => cell.model.outputs.get(i).type),
      mimes: Array.from({length: n}, (_, i) => Object.keys(cell.model.outputs.get(i).data || {})).flat(),
      stderr: out ? Array.from(out.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]')).map(e => e.innerText) : [],
      widgetBox: !!(out && out.querySelector('.jupyter-widgets.widget-vbox')),
      widgetError: out ? /Error displaying widget|Loading widget\\.\\.\\./.test(out.innerText) : false,
      imgSrc: img ? (img.getAttribute('src') || '') : '',
      imgSize: img ? [img.naturalWidth, img.naturalHeight] : [0, 0],
      slider: !!(out && out.querySelector('.widget-slider, .widget-hslider')),
      sliderText: out && out.querySelector('.widget-readout') ? out.querySelector('.widget-readout').innerText : '',
      html: out && out.querySelector('.widget-html') ? out.querySelector('.widget-html').innerText : '',
      plot: !!(out && out.querySelector('.js-plotly-plot svg.main-svg')),
      lines: out ? Array.from(out.querySelectorAll('.js-plotly-plot .scatterlayer path.js-line')).filter(p => (p.getAttribute('d') || '').length > 2).length : 0,
    };
  });
}"""


def cells_now(page) -> list[dict]: return page.evaluate(CELLS_JS)


@contextmanager
def notebook_in_lab(lab, cells: list[str]):
    """Write a notebook of `cells` into a throwaway folder under the repo root (the lab's --notebook-dir), open it in
    headless Chromium (Playwright), wait for its kernel, run all cells and wait until each has run; yields (page, console).
    The folder is removed and the browser closed afterwards, whatever happens."""
    from playwright.sync_api import sync_playwright
    base, token, log_path = lab
    folder = ROOT / 'tests' / f'_lab_tmp_{secrets.token_hex(4)}'    # inside --notebook-dir=. so the lab can open it
    folder.mkdir()
    try:
        write_notebook(folder / 'widgets.ipynb', cells)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=['--no-sandbox', '--disable-gpu'])
            try:
                page = browser.new_page(viewport={'width': 1400, 'height': 1000})
                console = Console(page)
                try:
                    page.goto(f'{base}/lab/tree/{folder.relative_to(ROOT).as_posix()}/widgets.ipynb?token={token}', timeout=60000)
                    page.wait_for_function("() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                                           f" return w && w.content && w.content.widgets && w.content.widgets.length === {len(cells)}; }}",
                                           timeout=60000)
                    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.ready")   # the kernel is up
                    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
                    page.wait_for_function(f"() => ({CELLS_JS})().every(c => c.count !== null)", timeout=90000)
                except Exception as e:            # a timeout: say what the lab, the console and the page showed
                    pytest.fail(f'{type(e).__name__}: {e}\n--- lab log\n{log_path.read_text()[-3000:]}\n--- console\n'
                                f'{console.tail()}\n--- page text\n' + page.inner_text('body')[-3000:])
                yield page, console
                page.wait_for_timeout(500)        # late console messages
            finally: browser.close()
    finally: shutil.rmtree(folder, ignore_errors=True)


def test_jupyterlab_runs_the_widgets(widget_lab):
    "The viewer and the curves render as live widgets in JupyterLab, and the browser console stays clean."
    with notebook_in_lab(widget_lab, WIDGET_CELLS) as (page, console):
        try:                                      # the widgets draw a moment after their cell has run
            page.wait_for_function(f"() => {{ const c = ({CELLS_JS})(); return c[{VIEWER_CELL}].imgSize[0] > 0 && c[{CURVES_CELL}].lines > 0; }}",
                                   timeout=30000)
        except Exception: pass                    # asserted below, with the facts
        facts = cells_now(page)
        # Step the viewer like a learner: focus the slider's handle and press the right arrow key; the kernel redraws
        # the pane, so the next turn's image and "step 2" come back.
        handle = page.locator('.jp-CodeCell').nth(VIEWER_CELL).locator('.noUi-handle').first
        handle.focus(); handle.press('ArrowRight')
        # Feed the curves a row from the kernel, as a training loop's MetricsLog does: a fourth line (kl) appears.
        page.evaluate("code => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.requestExecute({code, silent: true}).done",
                      FEED_CURVES)
        try: page.wait_for_function(f"() => {{ const c = ({CELLS_JS})(); return /step 2 \\//.test(c[{VIEWER_CELL}].html)"
                                    f" && c[{CURVES_CELL}].lines > {facts[CURVES_CELL]['lines']}; }}", timeout=20000)
        except Exception: pass
        after = cells_now(page)
    show = (json.dumps(facts, indent=1)[-4000:] + '\n--- after stepping and feeding\n' + json.dumps(after, indent=1)[-3000:]
            + '\n--- console\n' + console.tail())
    assert all(c['count'] is not None for c in facts), show                       # every cell ran ...
    assert not any('error' in c['outputs'] for c in facts), show                  # ... without an exception ...
    assert not any('Traceback' in s for c in facts for s in c['stderr']), show    # ... or a traceback printed
    v, rc = facts[VIEWER_CELL], facts[CURVES_CELL]
    # (a) the trajectory viewer is a live widget: the widget manager drew its box (not the static strip) with the first
    # turn's image, the slider at 0 and the turn's text; the key press on the slider brought the next turn back
    assert WIDGET_VIEW in v['mimes'] and v['widgetBox'] and not v['widgetError'], show
    assert v['imgSrc'].startswith('blob:') and v['imgSize'][0] > 0, show
    assert v['slider'] and v['sliderText'] == '0' and 'step 1 / ' in v['html'], show
    v2 = after[VIEWER_CELL]
    assert v2['sliderText'] == '1' and 'step 2 / ' in v2['html'] and v2['imgSrc'] != v['imgSrc'], show
    # (b) the reward curves are a live plotly FigureWidget: its three fed metrics drawn (reward/mean, format_ok, loss),
    # and the row fed from the kernel afterwards drew a fourth (kl)
    assert WIDGET_VIEW in rc['mimes'] and rc['plot'] and not rc['widgetError'] and rc['lines'] == 3, show
    assert after[CURVES_CELL]['lines'] == 4, show
    # (c) the browser console is clean
    assert not console.unexpected(), '\n'.join(console.unexpected()) + '\n--- console\n' + console.tail()


def test_console_check_catches_errors(widget_lab):
    "The console check is not blind: a notebook whose output logs an error and throws one uncaught is caught twice."
    cells = ["from IPython.display import Javascript\n"
             "Javascript(\"console.error('boom from the notebook'); setTimeout(() => { throw new Error('uncaught boom') })\")"]
    with notebook_in_lab(widget_lab, cells) as (page, console):
        for _ in range(100):                      # the output's script runs, and its timer fires, a moment later
            if any('uncaught boom' in e for e in console.errors): break
            page.wait_for_timeout(100)
    errs = '\n'.join(console.unexpected())
    assert 'console.error: boom from the notebook' in errs and 'pageerror: ' in errs and 'uncaught boom' in errs, console.tail()
