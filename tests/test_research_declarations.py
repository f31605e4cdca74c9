"""Each research script's ``# compares:`` declaration covers every published row it reads.

The scripts read published values only through ``research_lib.published(claims=..., **where)``
(a script that opens the published files itself is listed in :data:`DIRECT` with the rows it
keeps). This test finds every such call statically (the syntax tree, no data needed): in the
script, and in the functions of the research libraries it imports (followed through their calls).
A keyword given as a string constant, a module-level constant, a parameter of the enclosing
function that its callers in the module pass as a constant, or the target of a loop over a literal
tuple of constants is resolved; anything else matches every row (conservative). Every row each
call selects in ``published/`` must be selected by the script's own declared criteria, and every
script that reads published rows must be an evidence file of ``docs/calibration.yaml``: then the
calibration split (sdcrisk.replication.check) labels every row a script consulted ``calibration``,
with the choices (``calibrated_by``) whose evidence read it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pandas as pd
import pytest

from sdcrisk.replication.check import declared_criteria, evidence_files, matches

ROOT = Path(__file__).resolve().parents[1]
RESEARCH = ROOT / "research"
SCRIPTS = sorted(p for p in RESEARCH.rglob("*.py") if p.name != "research_lib.py")
ANY = object()  # an unresolved keyword value: every row
PUBLISHED_FILES = ("published_values.csv", "published_claims.csv", "replication.csv")
#: Scripts that read the published values without ``research_lib.published``, with the ``where``
#: of the rows they keep (stated here from reading the script). sdcmicro_score.published_rows keeps
#: Nin, Herranz & Torra (2007) Tables 1-4 and 9-11; its read of tables/replication.csv is merged
#: (inner) with those rows.
DIRECT = {"peer/sdcmicro_score.py": [{"paper": "nin2007_location_rl", "table": t}
                                     for t in ("T1", "T2", "T3", "T4", "T9", "T10", "T11")]}


def _constants(tree: ast.Module) -> dict[str, str]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.update({t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)})
    return out


def _call_name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _product(options: dict) -> list[dict]:
    """Every combination of ``{key: [value, ...]}`` as ``{key: value}``."""
    out = [{}]
    for key, values in options.items():
        out = [o | {key: v} for o in out for v in values]
    return out


class Module:
    """The ``published`` calls and the calls between the functions of one research module."""

    def __init__(self, path: Path):
        self.tree = ast.parse(path.read_text())
        self.consts = _constants(self.tree)
        self.funcs = {n.name: n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef)}
        self.imports = {a.asname or a.name: node.module for node in self.tree.body if isinstance(node, ast.ImportFrom)
                        for a in node.names}
        self.parent = {child: node for node in ast.walk(self.tree) for child in ast.iter_child_nodes(node)}

    def _loop_values(self, name: ast.Name) -> list | None:
        """The values of ``name`` when the innermost loop (``for`` or comprehension) around it that
        binds it runs over a literal tuple or list of constants (or of tuples of constants, unpacked
        into a tuple target); None when no loop binds it, [ANY] when the loop's values are not literal."""
        node = name
        while node in self.parent:
            node = self.parent[node]
            loops = [node] if isinstance(node, ast.For) else \
                node.generators if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)) else []
            for loop in loops:
                targets = [loop.target] if isinstance(loop.target, ast.Name) else \
                    loop.target.elts if isinstance(loop.target, ast.Tuple) else []
                names = [t.id if isinstance(t, ast.Name) else None for t in targets]
                if name.id not in names:
                    continue
                if not isinstance(loop.iter, (ast.Tuple, ast.List)):
                    return [ANY]
                at = names.index(name.id)
                values = []
                for elt in loop.iter.elts:
                    item = elt if isinstance(loop.target, ast.Name) else \
                        elt.elts[at] if isinstance(elt, ast.Tuple) and len(elt.elts) == len(names) else None
                    values.append(item.value if isinstance(item, ast.Constant) else
                                  self.consts.get(item.id, ANY) if isinstance(item, ast.Name) else ANY)
                return values
        return None

    def _bindings(self, func: ast.FunctionDef) -> list[dict]:
        """Per call of ``func`` in this module, per combination of its arguments' possible values:
        ``{parameter: value}`` (ANY when not resolved)."""
        params = [a.arg for a in func.args.args]
        out = []
        for call in (n for n in ast.walk(self.tree) if isinstance(n, ast.Call) and _call_name(n) == func.name):
            given = dict(zip(params, call.args)) | {k.arg: k.value for k in call.keywords if k.arg}
            out += _product({p: self._values(v, None, {}) for p, v in given.items()})
        return out or [{}]

    def _values(self, node, func, binding: dict) -> list:
        """The possible values of the expression ``node`` inside ``func`` under ``binding``."""
        if isinstance(node, ast.Constant):
            return [node.value]
        if not isinstance(node, ast.Name):
            return [ANY]
        looped = self._loop_values(node)
        if looped is not None:
            return looped
        if func is not None and node.id in [a.arg for a in func.args.args]:
            return [binding.get(node.id, ANY)]
        return [self.consts.get(node.id, ANY)]

    def reads(self, func: ast.AST | None) -> list[dict]:
        """``{claims, where}`` of every ``published(...)`` call in ``func`` (None: the whole module),
        once per possible value of its keywords (caller-passed parameters, literal loops)."""
        out = []
        scope = func or self.tree
        for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call) and _call_name(n) == "published"):
            enclosing = func if isinstance(func, ast.FunctionDef) else next(
                (f for f in self.funcs.values() if call in list(ast.walk(f))), None)
            for binding in (self._bindings(enclosing) if enclosing is not None else [{}]):
                options = {k.arg: self._values(k.value, enclosing, binding) for k in call.keywords}
                for kw in _product(options):
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
    if name not in _MODULES:
        _MODULES[name] = Module(path)
    return _MODULES[name]


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


@functools.cache
def _evidence() -> set[Path]:
    return set(evidence_files(ROOT / "docs" / "calibration.yaml"))


@functools.cache
def _published(claims: bool) -> pd.DataFrame:
    df = pd.read_csv(ROOT / "published" / ("published_claims.csv" if claims else "published_values.csv"),
                     dtype=str, keep_default_na=False)
    return df.rename(columns={"where": "table"}) if claims else df


def uncovered(path: Path, reads: list[dict] | None = None) -> list[str]:
    """The published rows the script reads (``reads``, default :func:`script_reads` and its
    :data:`DIRECT` reads) that its declaration does not select."""
    crit = declared_criteria(path)
    if reads is None:
        direct = DIRECT.get(path.relative_to(RESEARCH).as_posix(), []) if path.is_relative_to(RESEARCH) else []
        reads = script_reads(path) + [{"claims": False, "where": w} for w in direct]
    out = []
    for read in reads:
        rows = _published(read["claims"])
        col = {"where": "table"}
        for key, value in read["where"].items():
            if value is not ANY:
                rows = rows[rows[col.get(key, key)] == str(value)]
        missed = rows[~matches(rows, crit)] if crit else rows
        out += [f"{r.paper} {r.table} {r.dataset} {r.method} {r.param} {r.known} {r.measure}" for r in missed.itertuples()]
    return sorted(set(out))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.relative_to(RESEARCH).as_posix())
def test_declaration_covers_every_row_the_script_reads(path):
    """Every row each ``published(...)`` call of the script selects (statically found, through the
    library functions it imports) is selected by the script's own ``# compares:`` criteria."""
    missed = uncovered(path)
    assert not missed, (f"{path.relative_to(RESEARCH)} reads {len(missed)} published rows its '# compares:' line "
                        f"does not select, e.g. {missed[:3]}")


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.relative_to(RESEARCH).as_posix())
def test_a_script_reading_published_rows_is_evidence(path):
    """A script that reads published rows is an evidence file of docs/calibration.yaml (else its
    declaration would not reach the calibration split), and one that opens the published files
    itself is listed in DIRECT (else its reads would go unseen)."""
    rel = path.relative_to(RESEARCH).as_posix()
    opens = any(isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in PUBLISHED_FILES
                for n in ast.walk(ast.parse(path.read_text())))
    assert not opens or rel in DIRECT, f"{rel} opens a published file itself: read through research_lib.published"
    if script_reads(path) or rel in DIRECT:
        assert path in _evidence(), \
            f"{rel} reads published rows but is not an evidence file of docs/calibration.yaml"


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


def test_loop_targets_are_resolved(tmp_path):
    """A keyword bound by a loop over a literal tuple (plain or unpacked target, ``for`` or
    comprehension) selects exactly those values; a loop over anything else selects every row."""
    script = tmp_path / "loops.py"
    head = ('"""doc"""\n# compares: [{paper: muralidhar2016_rank_rl, tables: [T3]}]\n'
            "from research_lib import published\nPAPER = 'muralidhar2016_rank_rl'\n"
            "def rows(table):\n    return published(paper=PAPER, table=table)\n")
    script.write_text(head + "for table, name in (('T3', 'census'), ('T1', 'census')):\n    rows(table)\n")
    assert {r["where"]["table"] for r in script_reads(script)} == {"T3", "T1"}
    assert {m.split()[1] for m in uncovered(script)} == {"T1"}
    script.write_text(head.split("def rows")[0] + "x = [published(paper=PAPER, table=t) for t in ('T3',)]\n")
    assert [r["where"] for r in script_reads(script)] == [{"paper": "muralidhar2016_rank_rl", "table": "T3"}]
    assert uncovered(script) == []
    script.write_text(head + "for t in TABLES:\n    rows(t)\n")
    assert [r["where"]["table"] for r in script_reads(script)] == [ANY]
    every = _published(False)
    every = every[every.paper == "muralidhar2016_rank_rl"]
    assert len(uncovered(script)) == len(every[every.table != "T3"].drop_duplicates(
        ["table", "dataset", "method", "param", "known", "measure"]))
