"""What a reader sees states what the paper states, stands on its own, and reads as a lesson, not a lab notebook:
no rule credited to the paper that it never published, no pointer outside the project, no issue numbers or dates in
running text, and no markdown cell too long to read at once."""
import json, re
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / 'nbs').glob('*.ipynb')) + sorted((ROOT / 'tutorials').glob('*.ipynb'))
TEXTS = [ROOT / 'README.md', ROOT / 'tutorials' / 'README.md', ROOT / 'configs' / 'README.md'] + \
        sorted((ROOT / 'mobile_r1').rglob('*.py')) + sorted((ROOT / 'benchmarks').glob('*.py'))
MAX_MD_LINES = 40

FORBIDDEN = {                                                       # pattern: why, and what to write instead
    r"paper'?s (?:rule|credit rule)": 'the paper publishes no multi-turn credit rule: say "trajectory-level credit"',
    r"paper'?s (?:system )?prompt": 'the system prompt was seen in the released data, not in the paper: say "the release\'s"',
    r"(?:beat|over|than|whole world,) the paper'?s stages|the paper'?s stage 3 \(trajectory": 'the paper publishes no settings or credit rule for our runs: say "our reading of the paper\'s stages", or name what we chose',
    r'DESIGN\.md|PAPER\.md|\.\./shared/': 'the project never points outside itself: state the fact here, with its measurement',
    r'\b[Ii]ssues? #?\d+': 'no issue numbers in what a reader sees',
    r'\b20\d\d-\d\d-\d\d\b': 'no dates in running text: say what was measured, and how to measure it again',
}


CONTROL = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]')   # what no text needs: tab, newline and return stay


def test_control_detector():
    assert CONTROL.findall('earns $w e^{-2} \x07pprox 0.07$') == ['\x07'] and not CONTROL.findall('a\tb\nc\r\n')


def sources(nb: Path) -> list[tuple[int, str, str]]:
    return [(i, c['cell_type'], ''.join(c['source'])) for i, c in enumerate(json.loads(nb.read_text(encoding='utf-8'))['cells'])]


def violations(text: str) -> list[str]:
    return [f'{m.group(0)!r}: {why}' for pat, why in FORBIDDEN.items() for m in re.finditer(pat, text)]


def test_the_detector():
    assert violations("no fix beat the paper's stages") and not violations("stage 2 on recorded steps, as the paper's stage 2 trains")
    assert violations("the paper's system prompt") and violations('(PAPER.md)') and not violations("the release's system prompt")
    assert violations("the paper's rule gives every turn") and violations('see DESIGN.md') and violations('(issue 12)')
    assert violations('measured 2026-12-01') and not violations('trajectory-level credit, 128 episodes, seed 0')


@pytest.mark.parametrize('nb', NOTEBOOKS, ids=lambda p: f'{p.parent.name}/{p.name}')
def test_notebook_text(nb):
    bad = [f'cell {i}: {v}' for i, _, s in sources(nb) for v in violations(s)]
    bad += [f'cell {i}: control character {c!r} (a stray escape, such as \\a in "\\approx" written without its backslash)'
            for i, _, s in sources(nb) for c in sorted(set(CONTROL.findall(s)))]
    bad += [f'cell {i}: {n} lines of markdown (at most {MAX_MD_LINES}: split it, or move the history to 90_what_we_tried)'
            for i, t, s in sources(nb) if t == 'markdown' and (n := len(s.splitlines())) > MAX_MD_LINES]
    assert not bad, '\n  '.join([nb.name] + bad)


def test_package_and_readme_text():
    bad = [f'{p.relative_to(ROOT)}: {v}' for p in TEXTS for v in violations(p.read_text(encoding='utf-8'))]
    assert not bad, '\n  '.join(bad)
