"""The benchmark, calibration and exploration scripts stay runnable as the package changes.

REPLICATION.md and docs/benchmarks.md cite their output as evidence, so each must at least
compile and import only names that exist. Checked statically (the scripts run for minutes):
every ``from sdcrisk... import name`` resolves, and every import from a sibling script names a
file next to it that defines the name at top level.
"""

import ast
import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCH.glob("*.py")) + sorted((BENCH / "explore").glob("*.py"))


def _top_level_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _unresolved(path: Path) -> list[str]:
    missing = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.ImportFrom) or not node.module or node.level:
            continue
        wanted = [a.name for a in node.names if a.name != "*"]
        if node.module.split(".")[0] == "sdcrisk":
            module = importlib.import_module(node.module)
            for name in wanted:
                if not hasattr(module, name):
                    try:
                        importlib.import_module(f"{node.module}.{name}")
                    except ImportError:
                        missing.append(f"{node.module}.{name}")
            continue
        sibling = next((d / f"{node.module}.py" for d in (path.parent, BENCH)
                        if (d / f"{node.module}.py").exists()), None)
        if sibling is None:
            continue  # a third-party module (numpy, scipy, ...)
        defined = _top_level_names(sibling)
        missing += [f"{node.module}.{name}" for name in wanted if name not in defined]
    return missing


def test_scripts_are_found():
    assert len(SCRIPTS) > 40 and (BENCH / "explore" / "README.md").exists()


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(BENCH)))
def test_script_compiles_and_its_imports_resolve(path):
    compile(path.read_text(), str(path), "exec")
    assert _unresolved(path) == []
