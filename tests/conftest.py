"""Shared fixtures: a tiny model and small SimPhone datasets, built once per test session."""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
import pytest

os.environ.setdefault('ADBUTILS_ADB_PATH', '/bin/false')   # never let adbutils start a real adb server


@pytest.fixture(scope='session')
def sim_data(tmp_path_factory):
    "Small train and held-out splits in the Mobile-R1 format."
    from mobile_r1.sim.generate import generate_dataset
    root = tmp_path_factory.mktemp('data')
    return {'train': generate_dataset(root / 'train', 'train', n=12, seed=0),
            'held_out': generate_dataset(root / 'held_out', 'held_out', n=4, seed=1)}


@pytest.fixture(scope='session')
def tiny_model(tmp_path_factory, sim_data):
    "A tiny Qwen2.5-VL whose tokenizer is trained on the small train split's text (fast to build)."
    from mobile_r1.data import read_dataset
    from mobile_r1.policy import episode_corpus, tiny_qwen_vl
    corpus = episode_corpus(read_dataset(sim_data['train']))
    return tiny_qwen_vl(tmp_path_factory.mktemp('models') / 'tiny', corpus=corpus, vocab_size=800)


CHROMIUM = Path('/usr/bin/chromium')   # Debian's `chromium`; CI installs it, tests that need it skip without it


def chromium(url, *args, budget_ms: int = 5000):
    "Run headless Chromium on `url` with a throwaway profile and no network chatter; returns the finished process."
    profile = tempfile.mkdtemp(prefix='chromium-')
    try:
        return subprocess.run([str(CHROMIUM), '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
                               '--disable-background-networking', '--disable-component-update', '--disable-sync',
                               f'--user-data-dir={profile}', f'--virtual-time-budget={budget_ms}', *args, url],
                              capture_output=True, text=True, timeout=90)
    finally: shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope='session')
def course_run_env(tmp_path_factory):
    """The tutorials' shared run (`mobile-r1 quickstart --preset course`), built once per session; MOBILE_R1_COURSE_RUN
    points to it. If MOBILE_R1_COURSE_RUN is already set (a developer's finished run), that run is used as it is."""
    from mobile_r1.course import COURSE_RUN_ENV, course_run
    out = Path(os.environ[COURSE_RUN_ENV]) if os.environ.get(COURSE_RUN_ENV) else tmp_path_factory.mktemp('course') / 'run'
    old = os.environ.get(COURSE_RUN_ENV)
    os.environ[COURSE_RUN_ENV] = str(out)
    course_run(out)
    yield out
    if old is None: os.environ.pop(COURSE_RUN_ENV, None)
    else: os.environ[COURSE_RUN_ENV] = old


def needs_course_run(nb_path) -> bool:
    "Whether a notebook reads the shared run (and so needs the `course_run_env` fixture first)."
    text = Path(nb_path).read_text(encoding='utf-8')
    return 'course_run(' in text and 'def course_run' not in text
