"""The recorded software environment: what it lists, the pins, and the digests that follow it."""

import json
import re
from importlib import metadata
from pathlib import Path

from sdcrisk import environment, provenance

ROOT = Path(__file__).resolve().parents[1]


def _pins(text: str) -> dict[str, str]:
    return dict(re.findall(r"^([A-Za-z0-9._-]+)==(\S+)$", text, flags=re.M))


def test_closure_holds_the_declared_dependencies_and_their_own():
    deps = environment.closure()
    for name in ("numpy", "scipy", "pandas", "numba", "pyarrow", "matplotlib", "ortools"):
        assert deps[name] == metadata.version(name)
    assert "llvmlite" in deps  # needed by numba, not by sdcrisk directly
    # the library alone does not pull in the workflow (Snakemake, papermill, Jupyter, R reader, YAML)
    assert not {"snakemake", "papermill", "nbconvert", "ipykernel", "pyreadr", "pyyaml"} & set(deps)
    workflow = environment.closure(extras=("workflow",))
    assert {"snakemake", "papermill", "nbconvert", "ipykernel", "pyreadr", "pyyaml", "jsonschema"} <= set(workflow)
    assert "pytest" not in workflow and "pytest" in environment.closure(extras=("test",))
    assert "sdcrisk" not in deps


def test_versions_string_names_python_and_each_library():
    text = environment.versions(("numpy", "scipy"))
    assert text == f"python={environment.python_version()};numpy={metadata.version('numpy')};scipy={metadata.version('scipy')}"


def test_constraints_pin_every_package_the_project_needs():
    pins = _pins(environment.constraints())
    assert pins == environment.closure(extras=("workflow", "test"))


def test_committed_pins_cover_this_environment_and_the_committed_run():
    """constraints.txt pins every package the project needs here, and is the environment that
    produced the committed tables (tables/environment.json of the paper-scale run)."""
    pins = _pins((ROOT / "constraints.txt").read_text())
    assert set(environment.closure(extras=("workflow", "test"))) <= set(pins)
    recorded = json.loads((ROOT / "tables" / "environment.json").read_text())
    assert {k: pins[k] for k in recorded["packages"]} == recorded["packages"]


def test_library_versions_are_part_of_every_digest(monkeypatch):
    cell, table = provenance.cell_code("rankswap"), provenance.code_digest("sdcrisk.render")
    monkeypatch.setattr(provenance, "versions", lambda libs: "python=3.11;numpy=0.0")
    assert provenance.cell_code("rankswap") != cell
    assert provenance.code_digest("sdcrisk.render") != table


def test_environment_file_is_written_atomically(tmp_path):
    out = tmp_path / "tables" / "environment.json"
    environment.write(out)
    recorded = json.loads(out.read_text())
    assert recorded["packages"]["numpy"] == metadata.version("numpy")
    assert recorded["python"].startswith(environment.python_version())
    assert [p.name for p in out.parent.iterdir()] == ["environment.json"]
