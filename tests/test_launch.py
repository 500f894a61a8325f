"""The launch lines the docs give (README.md, configs/README.md) run as written: `python -m mobile_r1.cli` under
`torchrun` and `accelerate launch`, stages 1, 2 and 3 on 2 CPU processes. Only the sizes, the process count and the
folder they run in change. A launch that exits 0 without writing its model fails, and so does a documented launch
line that no test runs or checks."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mobile_r1.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / 'README.md', ROOT / 'configs' / 'README.md']
BIN = Path(sys.executable).parent
SIZES = {1: ['--steps', '2', '--set', 'batch_size=2', '--set', 'logging_steps=1'],
         2: ['--steps', '2', '--set', 'G=2', '--set', 'prompts_per_step=1', '--set', 'max_completion_length=16'],
         3: ['--steps', '2', '--set', 'tasks_per_iter=2', '--set', 'G=2', '--set', 'max_turns=2',
             '--set', 'max_new_tokens=16', '--set', 'checkpoint_every=1']}


def documented_launch_lines() -> list[str]:
    "Every command in the docs' fenced code blocks that starts the library through a launcher (continuations joined)."
    out = []
    for doc in DOCS:
        for block in re.findall(r'```(?:bash|sh)?\n(.*?)```', doc.read_text(encoding='utf-8'), re.S):
            for line in block.replace('\\\n', ' ').splitlines():
                line = ' '.join(line.split())
                if re.search(r'(torchrun|accelerate launch) .*-m mobile_r1(\.cli)?\b', line): out.append(line.rstrip(' &'))
    return out


def needs_gpus(line: str) -> bool:
    "A line that names GPUs, several GPU processes, DeepSpeed or vLLM: it cannot run on this CPU machine."
    return bool(re.search(r'CUDA_VISIBLE_DEVICES|--vllm|ddp_[248]gpu|zero[23]_', line))


def as_run_here(line: str, nproc: int = 2) -> list[str]:
    "The documented line as argv: the process count set to `nproc`, the stage's tiny sizes appended, the launcher from this venv."
    argv = shlex.split(line)
    while '=' in argv[0]: argv.pop(0)                          # leading VAR=value assignments (GPU lines only)
    if '--nproc_per_node' in argv: argv[argv.index('--nproc_per_node') + 1] = str(nproc)
    argv[0] = str(BIN / argv[0]) if (BIN / argv[0]).exists() else argv[0]
    stage = int(argv[argv.index('--stage') + 1])
    return argv + SIZES[stage]


def launch(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    "Run one launch line; it must exit 0 *and* leave a saved model in its --out folder."
    r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900, env={**os.environ, 'PYTHONUNBUFFERED': '1'})
    cmd = ' '.join(argv)
    assert r.returncode == 0, f'{cmd} failed:\n{r.stdout[-3000:]}\n{r.stderr[-5000:]}'
    out = cwd / argv[argv.index('--out') + 1]
    assert (out / 'mobile_r1.json').exists() and any(out.glob('*.safetensors')), \
        f'{cmd} exited 0 but wrote no model to {out}: a launch that runs nothing\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}'
    return r


@pytest.fixture
def quickstart_dir(tmp_path, tiny_model, sim_data):
    "A folder laid out as the repository after a finished quickstart: configs/, and the session's tiny model and data."
    os.symlink(ROOT / 'configs', tmp_path / 'configs')
    (tmp_path / 'runs' / 'quickstart' / 'models').mkdir(parents=True)
    (tmp_path / 'runs' / 'quickstart' / 'data').mkdir()
    os.symlink(tiny_model, tmp_path / 'runs' / 'quickstart' / 'models' / 'tiny')
    os.symlink(sim_data['train'], tmp_path / 'runs' / 'quickstart' / 'data' / 'train')
    return tmp_path


def test_the_docs_give_the_launch_lines_the_tests_run():
    lines = documented_launch_lines()
    cpu = [l for l in lines if not needs_gpus(l)]
    assert [int(shlex.split(l)[shlex.split(l).index('--stage') + 1]) for l in cpu if l.startswith('torchrun')] == [1, 2, 3], cpu
    assert any(l.startswith('accelerate launch') for l in cpu), cpu
    for line in lines:                                         # every line, GPU-only ones too, parses and names real files
        argv = shlex.split(line)
        m = argv.index('-m')
        assert argv[m + 1] in ('mobile_r1', 'mobile_r1.cli'), line
        build_parser().parse_args(argv[m + 2:])
        if '--config_file' in argv: assert (ROOT / argv[argv.index('--config_file') + 1]).exists(), line


def test_module_entry_points_run_the_cli():
    for mod in ('mobile_r1', 'mobile_r1.cli'):
        r = subprocess.run([sys.executable, '-m', mod, 'train', '--stage', '3', '--base', 'nowhere', '--out', 'x'],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 2 and 'no model at' in r.stderr, (mod, r.returncode, r.stderr[-2000:])


def test_a_launch_that_writes_nothing_fails(tmp_path):
    "The check itself: a launcher line that exits 0 and writes no model is caught (what `-m mobile_r1.cli` did before it had a main)."
    with pytest.raises(AssertionError, match='wrote no model'):
        launch([sys.executable, '-c', 'pass', '--stage', '1', '--out', 'runs/stage1'], tmp_path)


def test_documented_torchrun_lines_run_stages_1_2_3_on_two_processes(quickstart_dir):
    cpu = [l for l in documented_launch_lines() if l.startswith('torchrun') and not needs_gpus(l)]
    for line in cpu:                                           # in order: each stage starts from the one before
        r = launch(as_run_here(line), quickstart_dir)
        assert r.stderr.count('mobile_r1 threads: 1 per process (2 cores shared by 2 local processes') == 1 or \
            'set by --threads' in r.stderr or os.cpu_count() != 2, r.stderr[-2000:]
    rows = [json.loads(l) for l in (quickstart_dir / 'runs' / 'stage3-metrics.jsonl').read_text().splitlines()]
    assert [r['step'] for r in rows] == [1, 2] and all(r['episodes'] == 4 for r in rows)   # once, by process 0; 2 tasks x G 2
    s2 = [json.loads(l) for l in (quickstart_dir / 'runs' / 'stage2-metrics.jsonl').read_text().splitlines()]
    assert [r['step'] for r in s2] == [1, 2]


def test_documented_accelerate_line_runs(quickstart_dir):
    line = next(l for l in documented_launch_lines() if l.startswith('accelerate launch') and not needs_gpus(l))
    launch(as_run_here(line), quickstart_dir)
    rows = [json.loads(l) for l in (quickstart_dir / 'runs' / 'stage1-metrics.jsonl').read_text().splitlines()]
    assert [r['step'] for r in rows] == [1, 2]
