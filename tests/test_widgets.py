"""Widgets and the HTML report: the viewer's state after moving its controls, the live curves, and `report.html`
opened in headless Chromium (skipped when /usr/bin/chromium is absent: CI installs Debian's `chromium`)."""
import html
import json
import re
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.actions import Click, Swipe, format_response, parse_response
from mobile_r1.judge import Verdict
from mobile_r1.metrics import MetricsLog
from mobile_r1.rollout import Trajectory, Turn, save_trajectories
from mobile_r1.sim.expert import expert_action
from mobile_r1.sim.phone import SimPhone
from mobile_r1.sim.tasks import get_task
from mobile_r1.widgets import (RewardCurves, TrajectoryViewer, draw_turn, n_frames, png_bytes, sim_golds,
                               trajectory_html, turn_view)
from mobile_r1.report import write_report
from conftest import CHROMIUM, chromium as _chromium

TASK = 'Shop/cart/Mi 14 Phone'


def make_trajectory(task_id=TASK, seed=0, wrong=None, max_turns=8):
    "A SimPhone episode built by hand from the expert's answers, with the actions at turns in `wrong` replaced."
    phone, task = SimPhone(), get_task(task_id)
    obs, _ = phone.reset(task, seed=seed)
    tr = Trajectory(task.instruction, task_id, seed=seed)
    for k in range(max_turns):
        g = expert_action(phone, task)
        text = format_response(g.think, g.action_text, (wrong or {}).get(k, g.action))
        turn = Turn(obs['screenshot'], [t.sentence() for t in tr.turns], text, parse_response(text))
        tr.turns.append(turn)
        obs, turn.reward, term, trunc, _ = phone.step(turn.action)
        if term or trunc: break
    tr.outcome = 'terminated' if term else 'step_limit'
    tr.success, tr.final_screenshot = task.is_successful(phone.state), obs['screenshot']
    return tr


@pytest.fixture(scope='module')
def trajs():
    return [make_trajectory(), make_trajectory(wrong={0: Click((340, 600)), 1: Swipe((180, 500), (180, 200))})]


def test_viewer_slider_shows_each_step(trajs):
    good, bad = trajs
    golds = [sim_golds(good), sim_golds(bad)]
    v = TrajectoryViewer(trajs, verdicts=[Verdict(1.0, 'done'), Verdict(0.5, 'two wasted actions')], golds=golds)
    v.picker.value = 1
    assert v.slider.max == n_frames(bad) - 1 == len(bad.turns)
    for k, t in enumerate(bad.turns):
        v.slider.value = k
        assert v.image.value == png_bytes(draw_turn(t.screenshot, t.action, *golds[1][k]))
        h = v.html.value
        assert f'step {k + 1} / {len(bad.turns)}' in h and f'reward <b>{t.reward:.2f}</b>' in h and 'format ok' in h
        assert html.escape(t.think) in h and 'two wasted actions' in h
    assert bad.turns[-1].reward == 1.0                 # the terminate step earned the task reward
    v.slider.value = v.slider.max                      # the last frame is the final screen
    assert v.image.value == png_bytes(bad.final_screenshot) and 'final screen' in v.html.value


def test_viewer_picker_and_compare(trajs):
    good, bad = trajs
    v = TrajectoryViewer(trajs)
    v.slider.value = 1
    assert v.image.value == png_bytes(turn_view(good, 1)[0])
    v.compare.value = 1                                # the second one beside the first, on the same slider
    assert v.shown() == [0, 1] and v.panes[1].box.layout.display is None
    assert v.panes[1].image.value == png_bytes(turn_view(bad, 1)[0])
    v.compare.value = -1
    assert v.panes[1].box.layout.display == 'none'
    static = v._repr_html_()                           # where widgets do not render: what the viewer shows now
    assert static.count('<img') == n_frames(good) and static == trajectory_html(good)
    v.compare.value = 1
    assert v._repr_html_() == trajectory_html(good) + trajectory_html(bad)
    assert 'text/html' in v._repr_mimebundle_()


def test_reward_curves_hold_the_rows_fed(tmp_path):
    rc = RewardCurves()
    log = MetricsLog(tmp_path / 'metrics.jsonl', stage=2, sinks=[rc])
    for s in range(1, 6): log.log(s, **{'reward/mean': s / 10, 'format_ok': 1.0})
    assert len(rc.rows) == 5
    trace = {t.name: t for t in rc.fig.data}
    assert list(trace['reward/mean'].x) == [1, 2, 3, 4, 5]
    assert list(trace['reward/mean'].y) == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])
    replay = RewardCurves.from_jsonl(tmp_path / 'metrics.jsonl')
    assert replay.rows == rc.rows


def _inputs(tmp_path, trajs):
    metrics = tmp_path / 'metrics.jsonl'
    metrics.write_text('\n'.join(json.dumps({'stage': st, 'step': s, 'reward/mean': s / 10, 'reward/format': 1 - 1 / s,
                                             'format_ok': 1.0}) for st in (2, 3) for s in range(1, 11)) + '\n')
    table = tmp_path / 'table.json'
    table.write_text(json.dumps({'rows': [
        {'model': 'stage 1', 'split': 'held_out', 'accuracy': 71.234, 'task_success': None, 'online_success': None},
        {'model': 'stage 3', 'split': 'held_out', 'accuracy': 80.0, 'online_success': 62.5, 'online_ci': [40.9, 80.0],
         'online_episodes': 16, 'online_format_errors': 2}]}))
    save_trajectories(trajs[1:], tmp_path / 'saved')
    return metrics, table, [trajs[0], tmp_path / 'saved']


def test_report_is_self_contained(tmp_path, trajs):
    metrics, table, src = _inputs(tmp_path, trajs)
    page = write_report(tmp_path / 'out', metrics, table, src, title='Test <run>').read_text()
    assert '<title>Test &lt;run&gt;</title>' in page and 'Plotly.newPlot' in page
    cells = re.findall(r'<td>(.*?)</td>', page.split('class="mr1-table"')[1].split('</table>')[0])
    assert cells[:4] == ['stage 1', 'held_out', '71.23', '-'] and cells[-2:] == ['62.50 [40.9, 80.0] (n=16)', '2']
    assert page.count('class="mr1-shot" src="data:image/png;base64,') == sum(n_frames(t) for t in trajs)
    assert not re.search(r'<(?:script|img|link|iframe)[^>]+(?:src|href)="(?:https?:)?//', page)
    assert [p.name for p in (tmp_path / 'out').iterdir()] == ['report.html']      # no temporary file left
    with pytest.raises(FileNotFoundError, match='metrics_path=None'): write_report(tmp_path, tmp_path / 'missing.jsonl')


def test_report_renders_in_chromium(tmp_path, trajs):
    if not CHROMIUM.exists(): pytest.skip('headless Chromium not installed: apt-get install -y chromium (Debian package)')
    metrics, table, src = _inputs(tmp_path, trajs)
    path = write_report(tmp_path / 'out', metrics, table, src)
    shot = tmp_path / 'shot.png'
    _chromium(path.as_uri(), f'--screenshot={shot}', '--window-size=1280,2000')
    assert shot.exists(), 'Chromium wrote no screenshot'
    colors = Image.open(shot).convert('RGB').getcolors(maxcolors=1 << 24)
    assert len(colors) > 500, f'the page looks blank: {len(colors)} distinct colours'

    dom = _chromium(path.as_uri(), '--dump-dom').stdout
    assert 'class="main-svg"' in dom, 'plotly did not draw the curves'
    assert 'class="scatterlayer' in dom and 'id="mr1-viewer"' in dom
    assert f'frame 1 / {n_frames(trajs[0])}' in dom, "the viewer's script did not run"
    visible = re.findall(r'<div class="mr1-step" data-step="(\d+)">\s*<img class="mr1-shot" src="data:image/png', dom)
    assert visible == ['0']                            # one frame on screen, its image inline

    k = 2                                              # open on the second trajectory's third frame
    dom = _chromium(path.as_uri() + f'#t=1&s={k}', '--dump-dom').stdout
    assert '<div class="mr1-traj" data-traj="0" hidden="">' in dom and '<div class="mr1-traj" data-traj="1">' in dom
    second = dom.split('<div class="mr1-traj" data-traj="1">')[1].split('<script')[0]
    assert re.findall(r'<div class="mr1-step" data-step="(\d+)">', second) == [str(k)]
    assert f'frame {k + 1} / {n_frames(trajs[1])}' in dom
