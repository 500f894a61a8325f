"""The training path meets phones only through the `Phone` protocol: none of its modules imports the simulator or a view,
at any depth (a function-level import counts too)."""
import ast, subprocess, sys
from pathlib import Path
import mobile_r1

TRAINING_PATH = ('policy', 'decode', 'rollout', 'stage1', 'stage2', 'stage2_decode', 'shared_prompt', 'stage3')
FORBIDDEN = ('sim', 'widgets', 'report')


def _imports(path: Path) -> set[str]:
    "Every module a file imports, resolved against the package (`.sim.phone` -> mobile_r1.sim.phone)."
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import): out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ('mobile_r1.' if node.level else '') + (node.module or '')
            out.add(base.rstrip('.'))
            out |= {f'{base}.{a.name}'.lstrip('.') for a in node.names}
    return out


def test_the_training_path_imports_no_simulator_and_no_view():
    root = Path(mobile_r1.__file__).parent
    bad = {m: sorted(i for i in _imports(root / f'{m}.py') if any(i == f'mobile_r1.{f}' or i.startswith(f'mobile_r1.{f}.') for f in FORBIDDEN))
           for m in TRAINING_PATH}
    assert not any(bad.values()), bad


def test_importing_the_training_path_loads_no_simulator():
    code = ('import sys; import mobile_r1.stage1, mobile_r1.stage2, mobile_r1.stage3, mobile_r1.rollout, mobile_r1.policy; '
            'print(sorted(m for m in sys.modules if m.startswith(("mobile_r1.sim", "mobile_r1.widgets"))))')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == '[]'


def test_the_simulator_module_is_not_shadowed():
    import importlib
    assert type(importlib.import_module('mobile_r1.sim.tasks')).__name__ == 'module'
    import mobile_r1.sim.tasks as T
    assert callable(T.task_list) and hasattr(T, 'ALL_TASKS')
