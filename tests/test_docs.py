"""The docs site: `python tools/build_docs.py` turns every notebook and tutorial into a page offline, with saved
outputs and working links; the front page and a stage page are opened in headless Chromium, and every page with a
formula is checked for TeX left untypeset (skipped without Chromium)."""
import importlib.util
import re
from pathlib import Path

import pytest
from PIL import Image

from conftest import CHROMIUM, chromium

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location('build_docs', ROOT / 'tools' / 'build_docs.py')
docs = importlib.util.module_from_spec(spec); spec.loader.exec_module(docs)


@pytest.fixture(scope='module')
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp('docs') / 'site'
    docs.build(out)
    return out


def test_pages_links_and_hidden_cells(site):
    order = docs.pages()
    assert [p for _, p in order if not (site / p).exists()] == []
    assert docs.check_links(site) == []
    index = (site / 'index.html').read_text(encoding='utf-8')
    linked = set(re.findall(r'href="([^"#]+\.html)"', index))
    assert {p for _, p in order[1:]} <= linked, 'the front page must link every notebook and tutorial'
    stage3 = (site / '10_stage3_grpo.html').read_text(encoding='utf-8')
    assert '#| export' not in stage3 and '#| hide' not in stage3 and 'DyingJudge' not in stage3   # directives and hidden cells out
    assert 'href="01a_grpo.html"' in stage3                       # a notebook named in backticks links to its page
    assert 'data:image/png' in stage3                             # saved outputs (the curves) are on the page


def test_widget_outputs_show_their_static_rendering(site):
    "Live widgets cannot run on the site: the reward curves show their picture, the viewer its strip."
    page = (site / 'tutorials' / '01_quickstart.html').read_text(encoding='utf-8')
    curves = page.split('the live plot in Jupyter', 1)[1].split('jp-InputArea', 1)[0]
    assert 'data:image/png' in curves, 'the RewardCurves output shows no picture on the site'
    viewer = page.split('the live viewer in Jupyter', 1)[1].split('jp-InputArea', 1)[0]
    assert 'mr1-trajectory' in viewer and 'data:image/png' in viewer, 'the TrajectoryViewer output shows no strip on the site'


def test_broken_links_are_reported(tmp_path):
    (tmp_path / 'a.html').write_text('<a href="b.html">b</a> <img src="gone.png"> <code>src="not a tag"</code>')
    (tmp_path / 'b.html').write_text('<a href="a.html#top">a</a> <a href="https://example.org/x">x</a>')
    assert docs.check_links(tmp_path) == ['a.html: gone.png']


def test_site_renders_in_chromium(site, tmp_path):
    if not CHROMIUM.exists(): pytest.skip('headless Chromium not installed: apt-get install -y chromium (Debian package)')
    for page in ('index.html', '10_stage3_grpo.html'):
        shot = tmp_path / (page + '.png')
        chromium((site / page).as_uri(), f'--screenshot={shot}', '--window-size=1200,1600', budget_ms=15000)
        colors = Image.open(shot).convert('RGB').getcolors(maxcolors=1 << 24)
        assert len(colors) > 200, f'{page} looks blank: {len(colors)} distinct colours'
    dom = chromium((site / '10_stage3_grpo.html').as_uri(), '--dump-dom', budget_ms=15000).stdout
    assert 'class="mr1-bar"' in dom and 'Stage 3: task-level multi-turn GRPO' in dom
    assert re.search(r'class="MathJax[^"]*"', dom), 'MathJax did not typeset the formulas'


TEX = re.compile(r'\\(?:frac|rho|pi|mathcal|sum|mid|log|lambda|hat|overline|theta|cdot|epsilon|beta|min|clip|lt|le|ge|in)(?![a-zA-Z])')


def math_pages() -> list[str]:
    "The site pages whose notebook has a formula ($...$) in its markdown."
    import json
    out = []
    for nb, page in docs.pages():
        md = ''.join(''.join(c['source']) for c in json.loads(nb.read_text(encoding='utf-8'))['cells'] if c['cell_type'] == 'markdown')
        if re.search(r'\$[^$\n]+\$', md): out.append(page)
    return out


def untypeset_tex(dom: str) -> list[str]:
    "TeX commands left in a rendered page's visible text (scripts, code and MathJax's own markup set aside)."
    text = re.sub(r'<(script|style|pre|code|textarea)\b[^>]*>.*?</\1>', '', dom, flags=re.S)   # code may hold backslashes
    return sorted(set(TEX.findall(re.sub(r'<[^>]+>', ' ', text))))


def test_the_tex_detector():
    typeset = '<p>with <span class="MathJax">ρ</span><script type="math/tex">\\rho_{i,k} = \\pi_\\theta</script></p>'
    assert untypeset_tex(typeset) == []
    assert untypeset_tex('<p>with \\rho_{i,k} = \\pi_\\theta(y_{i,k} \\mid x)</p>') == ['\\mid', '\\pi', '\\rho', '\\theta']
    assert untypeset_tex('<pre>print("\\frac")</pre>') == []


def test_no_tex_is_left_untypeset(site):
    "Every page with a formula, in headless Chromium: MathJax typeset them all (no TeX command left in the page's text)."
    if not CHROMIUM.exists(): pytest.skip('headless Chromium not installed: apt-get install -y chromium (Debian package)')
    pages = math_pages()
    assert '09_stage2_grpo.html' in pages and '10_stage3_grpo.html' in pages, pages
    bad = {p: left for p in pages if (left := untypeset_tex(chromium((site / p).as_uri(), '--dump-dom', budget_ms=15000).stdout))}
    assert not bad, f'TeX left untypeset (a `<` inside a formula is a usual cause: write \\lt): {bad}'
