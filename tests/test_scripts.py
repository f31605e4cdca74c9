"""The benchmark and research scripts stay runnable as the package changes.

REPLICATION.md, README.md and docs/*.md cite the output of the research scripts (``research/``)
and the benchmarks (``benchmarks/``) as evidence, so each must at least compile and import only
names that exist. Checked statically (the scripts run for seconds to minutes): every ``from
sdcrisk... import name`` resolves, and every import from a sibling module names a file next to it
that defines the name at top level. Every research script answers ``--help`` (run in-process:
argument parsing comes before any data is read), is listed in ``research/README.md``, and every
script path or name the documents cite exists.
"""

import ast
import importlib
import re
import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
RESEARCH = ROOT / "research"
SCRIPTS = sorted(BENCH.glob("*.py")) + sorted(RESEARCH.glob("*.py"))
RESEARCH_SCRIPTS = [p for p in sorted(RESEARCH.glob("*.py")) if not p.name.endswith("_lib.py")]
DOCUMENTS = [ROOT / "REPLICATION.md", ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


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
        wanted = [a.name for a in node.names]
        if "*" in wanted:
            missing.append(f"{node.module}.* (import names explicitly)")
            continue
        if node.module.split(".")[0] == "sdcrisk":
            module = importlib.import_module(node.module)
            for name in wanted:
                if not hasattr(module, name):
                    try:
                        importlib.import_module(f"{node.module}.{name}")
                    except ImportError:
                        missing.append(f"{node.module}.{name}")
            continue
        sibling = path.parent / f"{node.module}.py"
        if not sibling.exists():
            continue  # a third-party module (numpy, scipy, ...)
        defined = _top_level_names(sibling)
        missing += [f"{node.module}.{name}" for name in wanted if name not in defined]
    return missing


def test_scripts_are_found():
    assert len(RESEARCH_SCRIPTS) > 40 and (RESEARCH / "README.md").exists()
    assert not (BENCH / "explore").exists()


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_script_compiles_and_its_imports_resolve(path):
    compile(path.read_text(), str(path), "exec")
    assert _unresolved(path) == []


@pytest.mark.parametrize("path", RESEARCH_SCRIPTS, ids=lambda p: p.name)
def test_research_script_answers_help(path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(RESEARCH))
    monkeypatch.setattr(sys, "argv", [str(path), "--help"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(path), run_name="__main__")
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_every_research_script_is_indexed():
    index = (RESEARCH / "README.md").read_text()
    assert [p.name for p in RESEARCH_SCRIPTS if f"`{p.name}`" not in index] == []


def test_cited_scripts_exist():
    """Paths under research/ or benchmarks/ (globs too) and bare ``name.py`` the documents cite."""
    missing = []
    for doc in DOCUMENTS:
        # files a README example writes itself (between <!-- extension-example NAME --> markers)
        text = doc.read_text()
        for example in re.findall(r"<!-- extension-example ([\w.]+) -->", text):
            text = text.replace(example, "")
        for folder, pattern in re.findall(r"\b(research|benchmarks)/([\w*]+\.py)", text):
            if not list((ROOT / folder).glob(pattern)):
                missing.append(f"{doc.name}: {folder}/{pattern}")
        for name in re.findall(r"(?<![\w/.-])([a-z][a-z0-9_]*\.py)\b", text):
            if not (RESEARCH / name).exists() and not list(ROOT.glob(f"[!.]*/**/{name}")) \
                    and not (ROOT / name).exists():
                missing.append(f"{doc.name}: {name}")
    assert missing == []
