"""Build the docs site from the notebooks, offline, with their saved outputs.

    python tools/build_docs.py              # writes _site/ (open _site/index.html)
    python tools/build_docs.py --out DIR

Every notebook in `nbs/` becomes `DIR/NAME.html` (`nbs/index.ipynb` is the front page), every tutorial
`DIR/tutorials/NAME.html`, and `nbs/assets/` is copied beside them. Pages are rendered by nbconvert (it installs from
the package registry; nbdev's own site needs Quarto, which cannot install here). Like nbdev's site:
- cells marked `#| hide` are left out, and `#|` directive lines are removed from the code shown;
- links to notebooks (`[text](x.ipynb)`, and notebook names in backticks such as `nbs/09_stage2_grpo.ipynb` or
  `01a_grpo`) point to their pages.
Each page gets a bar linking the front page and the previous and next page. The build fails, naming the page, when a
local link or image points to nothing. Formulas are typeset by a local copy of MathJax (from the registry package
`jupyter-server-mathjax`), so the site needs no network."""
import argparse, html, json, re, shutil, sys, warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIRECTIVE = re.compile(r'^\s*#\|')


def pages(root: Path = ROOT) -> list[tuple[Path, str]]:
    "(notebook, its page's path in the site), in reading order: the front page, the reference, the course."
    nbs = sorted(p for p in (root / 'nbs').glob('*.ipynb') if p.stem != 'index')
    tuts = sorted((root / 'tutorials').glob('*.ipynb'))
    return ([(root / 'nbs' / 'index.ipynb', 'index.html')] + [(p, f'{p.stem}.html') for p in nbs]
            + [(p, f'tutorials/{p.stem}.html') for p in tuts])


def _rel(target: str, page: str) -> str:
    "The link from site page `page` to site path `target`."
    depth = page.count('/')
    return '../' * depth + target


def _link_notebooks(text: str, src: Path, site: dict, page: str) -> str:
    "Markdown links and backticked names of notebooks point to their pages."
    def target(name: str) -> str | None:
        p = (src.parent / name).resolve()
        if p in site: return _rel(site[p], page)
        stem = Path(name).stem
        hits = [v for k, v in site.items() if k.stem == stem or k.stem.split('_')[0] == stem]
        return _rel(hits[0], page) if len(hits) == 1 else None
    def md_link(m):
        t = target(m.group(2))
        return f'[{m.group(1)}]({t})' if t else m.group(0)
    text = re.sub(r'\[([^\]]+)\]\(([^)\s]+\.ipynb)\)', md_link, text)
    def tick(m):
        t = target(m.group(1))
        return f'[`{m.group(1)}`]({t})' if t else m.group(0)
    return re.sub(r'(?<!\[)`((?:\.\./)?(?:nbs/|tutorials/)?\d\d[a-z]?_[A-Za-z0-9_]+(?:\.ipynb)?)`', tick, text)


def _prepare(nb: dict, src: Path, site: dict, page: str) -> dict:
    "The notebook as a reader sees it: hidden cells out, directive lines out, notebook links to pages."
    cells = []
    for c in nb['cells']:
        lines = ''.join(c['source']).split('\n')
        if any(l.strip() in ('#| hide', '#|hide') for l in lines): continue
        if any(l.strip().startswith('#| default_exp') for l in lines): continue
        text = '\n'.join(l for l in lines if not DIRECTIVE.match(l)).strip('\n')
        if not text and not c.get('outputs'): continue
        if c['cell_type'] == 'markdown': text = _link_notebooks(text, src, site, page)
        cells.append({**c, 'source': text, 'metadata': {}})
    return {**nb, 'cells': cells}


def _bar(i: int, order: list[tuple[Path, str]], title: str) -> str:
    page = order[i][1]
    def link(j, fmt):                                      # the page j, or nothing past either end
        return f'<a href="{_rel(order[j][1], page)}">{fmt.format(html.escape(order[j][0].stem))}</a>' if 0 <= j < len(order) else ''
    prev, nxt = link(i - 1, '&larr; {}'), link(i + 1, '{} &rarr;')
    return (f'<nav class="mr1-bar" style="font:14px system-ui,sans-serif;padding:8px 16px;border-bottom:1px solid #ddd;'
            f'display:flex;gap:16px"><a href="{_rel("index.html", page)}"><b>mobile_r1</b></a>'
            f'<span>{html.escape(title)}</span><span style="flex:1"></span>{prev}{nxt}</nav>')


def _refs(text: str) -> list[str]:
    "The href and src attributes of the page's tags (not text that looks like them inside code)."
    from html.parser import HTMLParser
    found = []
    class P(HTMLParser):
        def handle_starttag(self, tag, attrs): found.extend(v for k, v in attrs if k in ('href', 'src') and v)
    P().feed(text)
    return found


def check_links(out: Path) -> list[str]:
    "Local links and images in the built pages that point to nothing, as 'page: target'."
    bad = []
    for page in sorted(p for p in out.rglob('*.html') if 'mathjax' not in p.parts):
        for t in _refs(page.read_text(encoding='utf-8')):
            t = t.split('#')[0].split('?')[0]
            if not t or re.match(r'^[a-z]+:', t) or t.startswith('//'): continue
            if not (page.parent / t).exists(): bad.append(f'{page.relative_to(out)}: {t}')
    return bad


def build(out: Path, root: Path = ROOT) -> list[Path]:
    "Write the site to `out` (replaced whole); returns the pages written. Raises on a broken local link."
    from nbconvert import HTMLExporter
    warnings.filterwarnings('ignore', message='Your element with mimetype')   # empty widget-state outputs: nothing to show
    import nbformat
    order = pages(root)
    site = {p.resolve(): page for p, page in order}
    tmp = out.with_name(out.name + '.tmp')
    if tmp.exists(): shutil.rmtree(tmp)
    (tmp / 'tutorials').mkdir(parents=True)
    if (root / 'nbs' / 'assets').exists(): shutil.copytree(root / 'nbs' / 'assets', tmp / 'assets')
    if (root / 'tutorials' / 'assets').exists(): shutil.copytree(root / 'tutorials' / 'assets', tmp / 'tutorials' / 'assets')
    import jupyter_server_mathjax
    shutil.copytree(Path(jupyter_server_mathjax.__file__).parent / 'static', tmp / 'mathjax')
    exporter = HTMLExporter(template_name='lab', exclude_input_prompt=True, exclude_output_prompt=True)
    written = []
    for i, (src, page) in enumerate(order):
        exporter.mathjax_url = _rel('mathjax/MathJax.js', page) + '?config=TeX-AMS-MML_HTMLorMML-full,Safe'
        nb = _prepare(json.loads(src.read_text(encoding='utf-8')), src, site, page)
        title = next((c['source'].lstrip('# ').split('\n')[0] for c in nb['cells'] if c['cell_type'] == 'markdown'), src.stem)
        node = nbformat.reads(json.dumps(nb), as_version=4)           # joins multi-line strings, as reading a file does
        body, _ = exporter.from_notebook_node(node, resources={'metadata': {'name': title}})
        body = re.sub(r'(<body[^>]*>)', lambda m: m.group(1) + _bar(i, order, title), body, count=1)
        (tmp / page).write_text(body, encoding='utf-8')
        written.append(out / page)
    bad = check_links(tmp)
    if bad: raise SystemExit('broken local links:\n  ' + '\n  '.join(bad))
    if out.exists(): shutil.rmtree(out)
    tmp.rename(out)
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', default=str(ROOT / '_site'), help='output folder (default: _site/ in the repository)')
    args = ap.parse_args(argv)
    written = build(Path(args.out))
    print(f'{len(written)} pages in {args.out}; open {Path(args.out) / "index.html"}')


if __name__ == '__main__':
    sys.exit(main())
