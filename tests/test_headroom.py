"""`mobile-r1 headroom` as a user types it: a model measured before RL, the table printed and the JSON written; and
the clear error for a group size that can carry no signal."""
import json, os, subprocess, sys

ENV = {**os.environ, 'IN_TEST': '1'}


def test_headroom_command(tiny_model, tmp_path):
    cmd = [sys.executable, '-m', 'mobile_r1', 'headroom', str(tiny_model), '--world', 'Video/like_video/Cat Compilation',
           '--seeds', '2', '--k', '2', '--max-turns', '2', '--popup-prob', '0.5', '--out', str(tmp_path / 'h.json')]
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    h = json.loads((tmp_path / 'h.json').read_text())
    assert list(h['tasks']) == ['Video/like_video/Cat Compilation'] and h['config']['popup_prob'] == 0.5
    assert h['all']['greedy']['n'] == 2 and h['all']['sampled']['n'] == 4 and h['all']['pass@2']['n'] == 2
    assert '| Video/like_video/Cat Compilation |' in r.stdout and '| screen: home |' in r.stdout and 'pass@2' in r.stdout


def test_headroom_refuses_a_group_of_one(tiny_model):
    r = subprocess.run([sys.executable, '-m', 'mobile_r1', 'headroom', str(tiny_model), '--k', '1'], capture_output=True, text=True, env=ENV)
    assert r.returncode == 2 and 'k must be at least 2' in r.stderr and 'Traceback' not in r.stderr
