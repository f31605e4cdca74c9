"""The per-paper notebooks (notebooks/{paper}.ipynb): valid nbformat, a cell tagged `parameters`
that defines what workflow/rules/notebooks.smk passes, outputs stripped, one notebook per paper."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

from sdcrisk.replication import config as sdc_config

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
PAPERS = sorted({e["paper"] for e in sdc_config.load(REPO / "config" / "config.yaml")["experiments"].values()})


def _rule_parameters() -> set[str]:
    """Names passed with `-r NAME` / `-p NAME` in the notebook rule."""
    text = (REPO / "workflow" / "rules" / "notebooks.smk").read_text()
    return set(re.findall(r"-[rp] (\w+) ", text))


def test_one_notebook_per_paper():
    """Every notebook belongs to a configured paper, and every paper with published values or
    claims has a notebook (the belief paper publishes none but has one too)."""
    import pandas as pd

    stems = {p.stem for p in NOTEBOOKS}
    published = set()
    for name in ("published_values.csv", "published_claims.csv"):
        published |= set(pd.read_csv(REPO / "published" / name)["paper"])
    assert stems <= set(PAPERS)
    assert published <= stems
    assert "torra_belief" in stems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_valid_parametrised_and_stripped(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1 and tagged[0].cell_type == "code"
    names = {t.id for node in ast.parse(tagged[0].source).body if isinstance(node, ast.Assign) for t in node.targets}
    assert _rule_parameters() <= names, f"parameters cell lacks {_rule_parameters() - names}"
    assert ast.literal_eval(next(n.value for n in ast.parse(tagged[0].source).body
                                 if isinstance(n, ast.Assign) and n.targets[0].id == "paper")) == path.stem
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, "outputs must be stripped"
            ast.parse(cell.source)  # every code cell is valid Python
    assert any(c.cell_type == "markdown" and "claims" in c.source.lower() for c in nb.cells)


def test_notebooks_state_the_software_of_the_run(tmp_path):
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("nbs", REPO / "workflow" / "scripts" / "notebook_support.py")
    nbs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nbs)
    assert "not recorded" in nbs.environment_line(str(tmp_path))
    (tmp_path / "environment.json").write_text(json.dumps(
        {"python": "3.11.7", "machine": "x86_64", "packages": {"numpy": "2.4.6", "scipy": "1.17.1"}}))
    line = nbs.environment_line(str(tmp_path))
    assert line.startswith("Software: Python 3.11.7 (x86_64), numpy 2.4.6, scipy 1.17.1 ")
    for path in NOTEBOOKS:
        assert "nbs.environment_line(tables_dir)" in path.read_text()


def test_notebooks_show_the_check_rules_and_no_code(tmp_path):
    """The status rules come from the code that applies them (no notebook writes its own), and
    the HTML leaves the code cells out."""
    import importlib.util

    from sdcrisk.replication.check import CLOSE_RELATIVE, STATUS_RULES

    spec = importlib.util.spec_from_file_location("nbs", REPO / "workflow" / "scripts" / "notebook_support.py")
    nbs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nbs)
    text = nbs.status_rules()
    assert all(rule in text for rule in STATUS_RULES) and f"{100 * CLOSE_RELATIVE:.0f} %" in text
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert "**close**" not in prose and "within 1 point" not in prose, path.stem
        assert any("nbs.status_rules()" in c.source for c in nb.cells if c.cell_type == "code"), path.stem
    assert "nbconvert --to html --no-input" in (REPO / "workflow" / "rules" / "notebooks.smk").read_text()
