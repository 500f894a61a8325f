"""The main job end to end with the smoke preset, through the installed `mobile-r1` command."""
import json, shutil, subprocess, sys
from pathlib import Path
import pytest

EXE = Path(sys.executable).with_name('mobile-r1')


def run(*args, timeout=600):
    return subprocess.run([str(EXE), *args], capture_output=True, text=True, timeout=timeout)


def test_quickstart_smoke_writes_everything_resumes_and_refuses(tmp_path):
    out = tmp_path / 'qs'
    r = run('quickstart', '--preset', 'smoke', '--out', str(out))
    assert r.returncode == 0, r.stderr[-3000:]
    for f in ('metrics.jsonl', 'table.md', 'table.json', 'report.html', 'quickstart.json'):
        assert (out / f).exists(), f
    assert any((out / 'trajectories').iterdir())
    rows = json.loads((out / 'table.json').read_text())['rows']
    assert [r['model'] for r in rows] == [m for m in ('Stage 1', 'Stage 1+2', 'Stage 1+2+3') for _ in range(3)]
    assert {r['split'] for r in rows} == {'train_tasks', 'held_out', 'unseen_apps'}
    stages = {json.loads(l)['stage'] for l in (out / 'metrics.jsonl').read_text().splitlines()}
    assert stages == {1, 2, 3}
    assert 'Stage 1+2+3' in r.stdout and 'report.html' in r.stdout
    # a second run of the same preset resumes (nothing to redo), another preset is refused
    again = run('quickstart', '--preset', 'smoke', '--out', str(out))
    assert again.returncode == 0 and again.stdout.count('skipped') >= 9, again.stdout
    other = run('quickstart', '--preset', 'tiny', '--out', str(out))
    assert other.returncode == 2 and 'other settings' in other.stderr
    # view rebuilds the report
    (out / 'report.html').unlink()
    v = run('view', str(out))
    assert v.returncode == 0 and (out / 'report.html').exists()


def test_quickstart_refuses_a_foreign_folder(tmp_path):
    (tmp_path / 'x.txt').write_text('mine')
    r = run('quickstart', '--preset', 'smoke', '--out', str(tmp_path))
    assert r.returncode == 2 and 'not empty' in r.stderr


def test_resumed_stage3_keeps_its_rows_up_to_the_checkpoint(tmp_path, monkeypatch):
    "A run killed inside stage 3 resumes from its checkpoint: stage 3's rows up to it stay, later ones are redone once."
    import mobile_r1.quickstart as Q
    from mobile_r1.metrics import read_metrics
    calls = []
    def fake_stage3(cfg, log):
        ck = Path(str(cfg.out_dir) + '-checkpoint')
        start = json.loads((ck / 'mobile_r1.json').read_text())['iteration'] if ck.exists() else 0
        calls.append(start)
        for it in range(start, 4):
            log.log(it + 1, loss=0.0)
            if it + 1 == 2 and not ck.exists():
                ck.mkdir(parents=True); (ck / 'mobile_r1.json').write_text(json.dumps({'iteration': 2}))
            if it + 1 == 3 and len(calls) == 1: raise KeyboardInterrupt          # killed after logging step 3
        shutil.copytree(Q.Path(cfg.base), cfg.out_dir)
    monkeypatch.setattr(Q, 'train_stage3', fake_stage3)
    out = tmp_path / 'qs'
    with pytest.raises(KeyboardInterrupt): Q.run_quickstart(out, 'smoke', progress=lambda m: None)
    Q.run_quickstart(out, 'smoke', progress=lambda m: None)
    assert calls == [0, 2]
    assert [r['step'] for r in read_metrics(out / 'metrics.jsonl', stage=3)] == [1, 2, 3, 4]


def test_train_data_is_recorded_at_the_data_popup_rate(tmp_path):
    "The train split's expert trajectories come from phones at `data_popup_prob` (the evaluation splits keep SimPhone's)."
    from dataclasses import replace
    import mobile_r1.quickstart as Q
    from mobile_r1.data import read_dataset
    pops = lambda p: sum('pop-up' in s.subtask for e in read_dataset(p) for s in e.steps)
    counts = {}
    for rate in (0.0, 1.0):
        data, _ = Q._paths(tmp_path / str(rate))
        Q._make_data(replace(Q.PRESETS['smoke'], data_popup_prob=rate), data)
        counts[rate] = pops(data['train'])
    assert counts[0.0] == 0 and counts[1.0] >= 8, counts


def test_view_opens_the_report_or_serves_it(tmp_path):
    "`view --open` hands report.html to the default browser ($BROWSER here); `--serve` serves it on 127.0.0.1 and says where."
    import os, time, urllib.request
    run_dir = tmp_path / 'run'; run_dir.mkdir()
    (run_dir / 'metrics.jsonl').write_text(json.dumps({'stage': 1, 'step': 1, 'time_s': 0.1, 'loss': 2.0}) + '\n')
    seen = tmp_path / 'opened.txt'
    browser = tmp_path / 'browser.sh'
    browser.write_text(f'#!/bin/sh\necho "$1" > {seen}\n'); browser.chmod(0o755)
    env = {**os.environ, 'BROWSER': str(browser), 'DISPLAY': ':0'}
    r = subprocess.run([str(EXE), 'view', str(run_dir), '--open'], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0 and 'opened in your browser' in r.stdout, (r.stdout, r.stderr[-2000:])
    for _ in range(50):
        if seen.exists(): break
        time.sleep(0.1)
    assert seen.read_text().strip() == (run_dir / 'report.html').resolve().as_uri()
    no_display = {k: v for k, v in env.items() if k not in ('DISPLAY', 'WAYLAND_DISPLAY')}
    r = subprocess.run([str(EXE), 'view', str(run_dir), '--open'], capture_output=True, text=True, timeout=300, env=no_display)
    assert r.returncode == 0 and f'mobile-r1 view {run_dir} --serve' in r.stdout, r.stdout       # headless: it says what to do
    p = subprocess.Popen([str(EXE), 'view', str(run_dir), '--serve'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        url = line.split('serving it at ')[1].split()[0]
        assert url.startswith('http://127.0.0.1:') and url.endswith('/report.html'), line
        page = urllib.request.urlopen(url, timeout=30).read().decode()
        assert '<html' in page.lower() and 'mobile_r1: run' in page
    finally: p.terminate(); p.wait(30)
