"""No research script reads a published row that the check labels held-out without declaring it.

The scripts read published values only through ``research_lib.published(claims=..., **where)``.
This test finds every such call statically (the syntax tree, no data needed): in the script, and
in the functions of the research libraries it imports (followed through their calls). A keyword
given as a string constant, a module-level constant, or a parameter of the enclosing function
that its callers in the module pass as a constant is resolved; anything else matches every row
(conservative). The rows each call selects in ``published/`` must all be selected by the
script's declared criteria, else the calibration split (sdcrisk.replication.check) could label
a row the script consulted ``held-out``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest

from sdcrisk.replication.check import declared_criteria, matches

ROOT = Path(__file__).resolve().parents[1]
RESEARCH = ROOT / "research"
SCRIPTS = sorted(p for p in RESEARCH.rglob("*.py") if p.name != "research_lib.py")
ANY = object()  # an unresolved keyword value: every row


def _constants(tree: ast.Module) -> dict[str, str]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.update({t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)})
    return out


def _call_name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


class Module:
    """The ``published`` calls and the calls between the functions of one research module."""

    def __init__(self, path: Path):
        self.tree = ast.parse(path.read_text())
        self.consts = _constants(self.tree)
        self.funcs = {n.name: n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef)}
        self.imports = {a.asname or a.name: node.module for node in self.tree.body if isinstance(node, ast.ImportFrom)
                        for a in node.names}

    def _bindings(self, func: ast.FunctionDef) -> list[dict]:
        """Per call of ``func`` in this module: ``{parameter: value}`` (ANY when not a constant)."""
        params = [a.arg for a in func.args.args]
        out = []
        for call in (n for n in ast.walk(self.tree) if isinstance(n, ast.Call) and _call_name(n) == func.name):
            given = dict(zip(params, call.args)) | {k.arg: k.value for k in call.keywords if k.arg}
            out.append({p: self._value(v, None, {}) for p, v in given.items()})
        return out or [{}]

    def _value(self, node, func, binding: dict):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name) and func is not None and node.id in [a.arg for a in func.args.args]:
            return binding.get(node.id, ANY)
        if isinstance(node, ast.Name) and node.id in self.consts:
            return self.consts[node.id]
        return ANY

    def reads(self, func: ast.AST | None) -> list[dict]:
        """``{claims, where}`` of every ``published(...)`` call in ``func`` (None: the whole module),
        once per call of the enclosing function when its keywords come from the parameters."""
        out = []
        scope = func or self.tree
        for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call) and _call_name(n) == "published"):
            enclosing = func if isinstance(func, ast.FunctionDef) else next(
                (f for f in self.funcs.values() if call in list(ast.walk(f))), None)
            for binding in (self._bindings(enclosing) if enclosing is not None else [{}]):
                kw = {k.arg: self._value(k.value, enclosing, binding) for k in call.keywords}
                claims = kw.pop("claims", False)
                out.append({"claims": claims, "where": kw})
        return out

    def called(self, func: ast.FunctionDef) -> set[str]:
        return {_call_name(n) for n in ast.walk(func) if isinstance(n, ast.Call)} - {None}


_MODULES: dict[str, Module] = {}


def _module(name: str) -> Module | None:
    path = RESEARCH / f"{name}.py"
    if not path.exists():
        return None
    return _MODULES.setdefault(name, Module(path))


def script_reads(path: Path) -> list[dict]:
    """Every published read of the script and of the library functions it imports (transitively)."""
    mod = Module(path)
    reads = mod.reads(None)
    todo = [(lib, name) for name, lib in mod.imports.items() if lib and _module(lib)]
    seen = set()
    while todo:
        lib, name = todo.pop()
        if (lib, name) in seen:
            continue
        seen.add((lib, name))
        m = _module(lib)
        func = m.funcs.get(name)
        if func is None:
            continue
        reads += m.reads(func)
        todo += [(lib, c) for c in m.called(func) if c in m.funcs]
        todo += [(m.imports[c], c) for c in m.called(func) if c in m.imports and m.imports[c] and _module(m.imports[c])]
    return reads


def _published(claims: bool) -> pd.DataFrame:
    df = pd.read_csv(ROOT / "published" / ("published_claims.csv" if claims else "published_values.csv"),
                     dtype=str, keep_default_na=False)
    return df.rename(columns={"where": "table"}) if claims else df


def uncovered(path: Path) -> list[str]:
    """The published rows the script reads that its declaration does not select."""
    crit = declared_criteria(path)
    out = []
    for read in script_reads(path):
        rows = _published(read["claims"])
        col = {"where": "table"}
        for key, value in read["where"].items():
            if value is not ANY:
                rows = rows[rows[col.get(key, key)] == str(value)]
        missed = rows[~matches(rows, crit)] if crit else rows
        out += [f"{r.paper} {r.table} {r.dataset} {r.method} {r.measure}" for r in missed.itertuples()]
    return sorted(set(out))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.relative_to(RESEARCH).as_posix())
def test_no_row_a_script_reads_is_held_out(path):
    """A row a script reads (statically found) is selected by its declaration, or the committed
    check labels it calibration through another file: never held-out. (Many declarations name
    only the rows a script prints, narrower than what its loaders read; those rows are calibration
    rows through other scripts' declarations.)"""
    rep = pd.read_csv(ROOT / "tables" / "replication.csv", dtype=str, keep_default_na=False)
    held_out = {f"{r.paper} {r.table} {r.dataset} {r.method} {r.measure}" for r in rep[rep.split == "held-out"].itertuples()}
    missed = sorted(set(uncovered(path)) & held_out)
    assert not missed, f"{path.name} reads held-out rows its '# compares:' line omits: {missed[:3]}"


def test_the_reads_are_found(tmp_path):
    """The analysis finds constant, module-constant and caller-passed keywords, follows a library
    function's calls, and flags a read the declaration omits."""
    lib = RESEARCH / "rankswap_lib.py"
    reads = script_reads(RESEARCH / "pdist_visit.py")  # imports rankswap_lib.table3_line -> published_md2016_t3
    assert {"paper": "muralidhar2016_rank_rl", "table": "T3"} in [r["where"] for r in reads]
    assert lib.exists()
    bad = tmp_path / "bad.py"
    bad.write_text('"""doc"""\n# compares: [{paper: muralidhar2016_rank_rl, tables: [T3]}]\n'
                   "from research_lib import published\nPAPER = 'muralidhar2016_rank_rl'\n"
                   "def rows(table):\n    return published(paper=PAPER, table=table)\n"
                   "rows('T3')\nrows('T1')\n")
    missed = uncovered(bad)
    assert missed and all(m.startswith("muralidhar2016_rank_rl T1 ") for m in missed)
    bad.write_text(bad.read_text().replace("rows('T1')\n", ""))
    assert uncovered(bad) == []
