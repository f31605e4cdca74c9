"""The package's layers, read from the imports in its source (``ast``, nothing imported): the
engine (``sdcrisk.masking``, ``sdcrisk.linkage``, ``sdcrisk.measures``, ``sdcrisk.attacks`` and
the top-level helper modules) imports neither product; the products ``sdcrisk.replication`` and
``sdcrisk.assess`` do not import each other; ``sdcrisk.cli`` is an entry point that no module
imports; the engine's parts import each other without a loop (``sdcrisk/__init__.py``,
``sdcrisk/assess/__init__.py`` and ``sdcrisk/replication/__init__.py`` state the rule)."""

import ast
import graphlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
COMMANDS = {"sdcrisk.cli", "sdcrisk.compile"}  # the entry point, and the compile command (it runs assess)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted((SRC / "sdcrisk").rglob("*.py"))}


def _imports(name: str, path: Path) -> list[tuple[str, str]]:
    """Every import of the module ``name`` at ``path`` (at top level or inside a function), as
    (the module imported, the name taken from it or "") with relative imports resolved: for
    ``from X import y`` the module is ``X.y`` where that is a module of the package, else ``X``."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for a in node.names:
                sub = f"{module}.{a.name}"
                found.append((sub, "") if sub in MODULES else (module, a.name))
    return [(m, n) for m, n in found if m == "sdcrisk" or m.startswith("sdcrisk.")]


IMPORTS = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(module: str) -> str:
    for product in ("replication", "assess"):
        if module == f"sdcrisk.{product}" or module.startswith(f"sdcrisk.{product}."):
            return product
    if module in COMMANDS:
        return "command"
    return "face" if module == "sdcrisk" else "engine"


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_the_modules_are_read():
    assert {"sdcrisk.cli", "sdcrisk.validation", "sdcrisk.linkage.base", "sdcrisk.replication.check",
            "sdcrisk.assess.assessment"} <= set(MODULES)
    assert ("sdcrisk.validation", "prepare") in IMPORTS["sdcrisk.measures.information_loss"]  # a name from a module
    assert ("sdcrisk.progress", "") in IMPORTS["sdcrisk.linkage.neighbours"]  # a module from a package
    assert ("sdcrisk.assess.arguments", "split") in IMPORTS["sdcrisk.assess.jobs"]  # resolved from ``.arguments``


@pytest.mark.parametrize("layer,forbidden", [("engine", ("sdcrisk.replication", "sdcrisk.assess", "sdcrisk.cli")),
                                             ("replication", ("sdcrisk.assess", "sdcrisk.cli")),
                                             ("assess", ("sdcrisk.replication", "sdcrisk.cli")),
                                             ("command", ("sdcrisk.cli",))])
def test_no_import_against_the_layers(layer, forbidden):
    wrong = [f"{name} imports {m}" + (f" ({n})" if n else "") for name, imports in IMPORTS.items()
             if _layer(name) == layer for m, n in imports
             if any(_within(m, f) for f in forbidden)]
    assert wrong == []


def test_compile_imports_no_replication():
    assert not [m for m, _ in IMPORTS["sdcrisk.compile"] if _within(m, "sdcrisk.replication")]


def _unit(module: str) -> str:
    """The engine's part a module belongs to: its subpackage (masking, linkage, measures) or itself."""
    parts = module.split(".")
    return ".".join(parts[:2]) if f"{parts[0]}.{parts[1]}" in MODULES and len(parts) > 2 else module


def test_the_engine_parts_import_each_other_without_a_loop():
    """E.g. ``linkage`` takes its input check from ``validation``, not ``measures`` from ``linkage``
    while ``linkage`` takes the units of ``measures``."""
    graph: dict[str, set[str]] = {}
    for name, imports in IMPORTS.items():
        if _layer(name) != "engine" or name == "sdcrisk":
            continue
        graph.setdefault(_unit(name), set()).update(
            _unit(m) for m, _ in imports if _layer(m) == "engine" and m != "sdcrisk" and _unit(m) != _unit(name))
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError naming the loop


def _python_files():
    for folder in ("src", "tests", "workflow", "benchmarks", "research"):
        yield from (ROOT / folder).rglob("*.py")


def test_nothing_imports_private_names_of_the_command_line():
    """``sdcrisk.cli`` is the entry point only: what other code needs of the command (its parser,
    ``--max-risk``, the report's meta) lives in ``sdcrisk.assess.arguments``."""
    wrong = []
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("cli") and (
                    node.module == "sdcrisk.cli" or (node.level and node.module == "cli")):
                wrong += [f"{path.relative_to(ROOT)}: {a.name}" for a in node.names if a.name.startswith("_")]
    for path in [ROOT / "Snakefile", *(ROOT / "workflow").rglob("*.smk")]:
        wrong += [f"{path.relative_to(ROOT)}: {m}" for m in re.findall(r"from sdcrisk\.cli import .*\b_\w+", path.read_text())]
    assert wrong == []


def test_the_rule_is_stated_in_the_package_docstrings():
    for name in ("sdcrisk", "sdcrisk.assess", "sdcrisk.replication"):
        doc = ast.get_docstring(ast.parse(MODULES[name].read_text()))
        assert "tests/test_layers.py" in doc and "engine imports neither product" in doc.replace("\n", " ")
