"""Code provenance: a cell's code digest follows its code, not its comments or docstrings."""

import importlib
import re
import sys
import textwrap
from pathlib import Path

import pytest

from sdcrisk.replication import provenance
from sdcrisk.replication.evaluation import ATTACKS

CODE = textwrap.dedent('''
    """Module docstring."""
    import numpy as np


    def f(x):
        """Function docstring."""
        return np.sort(x)  # a comment
''')


def test_source_digest_ignores_comments_docstrings_and_layout():
    quiet = CODE.replace('"""Function docstring."""', '"""Reworded."""').replace("# a comment", "")
    quiet = quiet.replace("return np.sort(x)", "return np.sort(\n        x\n    )")
    assert provenance.source_digest(quiet) == provenance.source_digest(CODE)
    assert provenance.source_digest(CODE.replace("np.sort(x)", "np.sort(-x)")) != provenance.source_digest(CODE)
    only_doc = 'def g():\n    """Only a docstring."""\n'
    assert provenance.source_digest(only_doc) == provenance.source_digest("def g():\n    pass\n")


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    provenance.module_digest.cache_clear()


def test_package_digest_covers_every_module(plugin_dir):
    pkg = plugin_dir / "provpkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "kernel.py").write_text(CODE)
    before = provenance.module_digest("provpkg")
    (pkg / "sub" / "kernel.py").write_text(CODE.replace("np.sort(x)", "np.sort(x)[::-1]"))
    provenance.module_digest.cache_clear()
    assert provenance.module_digest("provpkg") != before


def matrix(attacks):
    return {"evaluation": "attack_matrix", "replicates": 1, "options": {"attacks": attacks}}


def test_cell_code_follows_plugin_methods_and_attacks(plugin_dir, monkeypatch):
    method = textwrap.dedent('''
        from sdcrisk.masking import register

        @register("provenance_toy", family="toy", randomised=False)
        def provenance_toy(x, rng):
            """Identity."""
            return x.copy()

        def attack(x, y, known, v, rng):
            return None
    ''')
    (plugin_dir / "provplugin.py").write_text(method)
    mod = importlib.import_module("provplugin")
    try:
        monkeypatch.setitem(ATTACKS, "ProvAttack", mod.attack)
        package_only = provenance.cell_code("rankswap")
        assert provenance.cell_code("mdav", {"evaluation": "location_scores", "options": {"scenarios": "2..all"}}) == package_only
        assert provenance.cell_code("rankswap", matrix(["DBRL"])) == package_only
        with_plugin = provenance.cell_code("provenance_toy")
        with_attack = provenance.cell_code("rankswap", matrix(["DBRL", "ProvAttack"]))
        assert with_plugin != package_only and with_attack != package_only
        (plugin_dir / "provplugin.py").write_text(method.replace('"""Identity."""', '"""The identity."""'))
        provenance.module_digest.cache_clear()
        assert provenance.cell_code("provenance_toy") == with_plugin  # docstring only
        (plugin_dir / "provplugin.py").write_text(method.replace("x.copy()", "x.copy() * 1.0"))
        provenance.module_digest.cache_clear()
        assert provenance.cell_code("provenance_toy") != with_plugin
        assert provenance.cell_code("rankswap", matrix(["DBRL", "ProvAttack"])) != with_attack
    finally:
        from sdcrisk.masking.registry import METHODS
        METHODS.pop("provenance_toy", None)
        sys.modules.pop("provplugin", None)


def test_every_rule_running_package_code_carries_a_digest():
    """Rules whose script calls the package take its code digest as a param (fetch_data verifies a
    checksum instead; notebooks list their support code as an input)."""
    rules = {}
    for smk in (Path(__file__).resolve().parents[1] / "workflow" / "rules").glob("*.smk"):
        # also rules inside an if or for block, and the unnamed ones of the cell batches (`name:`)
        for indent, name, body in re.findall(r"^([ \t]*)rule ?(\w*):\n((?:\1[ \t]+.*\n|\n)*)", smk.read_text(), flags=re.M):
            rules[name or "cell_batch_*"] = body
    assert {"cell", "cell_batch_*", "aggregate", "check", "table", "figure", "process_data", "belief_examples"} <= set(rules)
    cells_smk = (Path(__file__).resolve().parents[1] / "workflow" / "rules" / "cells.smk").read_text()
    shared = cells_smk.split("CELL_PARAMS = dict(")[1].split("\n)\n")[0]  # the cell rule's params
    for name, body in rules.items():
        if "script:" in body and name != "fetch_data":
            # a batch job's params: every cell's CELL_PARAMS (cell_params in cells.smk)
            body = body.replace("**CELL_PARAMS", shared).replace("batch_params(", shared)
            assert re.search(r"^\s+code=.*sdc_provenance\.", body, flags=re.M), name


def test_the_cells_digest_covers_every_module_the_compute_code_imports():
    """A module that the cells' code imports changes their numbers too (as sdcrisk.fixed_order's
    sums do): it is in COMPUTE_MODULES, or it is one that reads the configuration only."""
    import ast
    import importlib
    import pkgutil
    from pathlib import Path

    from sdcrisk.replication.provenance import COMPUTE_MODULES

    def modules(name):
        m = importlib.import_module(name)
        return [name] + [f"{name}.{i.name}" for i in pkgutil.iter_modules(getattr(m, "__path__", []))]

    compute = {m for c in COMPUTE_MODULES for m in modules(c)}
    outside = set()
    for name in compute:
        path = importlib.import_module(name).__file__
        package = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(Path(path).read_text())):
            if isinstance(node, ast.ImportFrom) and node.level and node.module:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}"
                if not any(target == c or target.startswith(c + ".") for c in COMPUTE_MODULES):
                    outside.add(target)
    assert outside <= {"sdcrisk.replication.config"}, outside
