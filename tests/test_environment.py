"""The recorded software environment: what it lists, the pins, and the digests that follow it."""

import json
import re
import tomllib
from importlib import metadata
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from sdcrisk.replication import environment, provenance

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


def test_closure_follows_extras_that_dependencies_request():
    """nbconvert requires bleach[css]: the css extra of bleach brings tinycss2."""
    assert any(Requirement(r).name == "bleach" and "css" in Requirement(r).extras for r in metadata.requires("nbconvert"))
    assert environment.closure(extras=("workflow",))["tinycss2"] == metadata.version("tinycss2")
    assert "tinycss2" not in environment.closure()


def test_walk_evaluates_markers_and_extras(monkeypatch):
    """The closure walk on a made-up dependency graph: markers, the project's extras, extras a
    dependency requests of another (also when the package was reached before without them)."""
    graph = {
        "top": ['base', 'late', 'opt[x]; extra == "feat"', 'old; python_version < "3"', 'gone'],
        "base": ['late[y]'],
        "late": ['yonly; extra == "y"'],
        "opt": ['xonly; extra == "x"', 'never; extra == "z"'],
        "xonly": [], "yonly": [], "old": [], "never": [],
    }
    monkeypatch.setattr(metadata, "requires", lambda name: graph[name])

    def version(name):
        if name == "gone":
            raise metadata.PackageNotFoundError(name)
        return "1.0"

    monkeypatch.setattr(metadata, "version", version)
    found, missing = environment.walk("top")
    assert set(found) == {"base", "late", "yonly"} and missing == {"gone"}
    found, _ = environment.walk("top", ("feat",))
    assert set(found) == {"base", "late", "yonly", "opt", "xonly"}


def test_constraints_pin_every_package_the_project_needs():
    pins = _pins(environment.constraints())
    assert pins == environment.closure(extras=environment.EXTRAS)
    assert environment.EXTRAS == tuple(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])


def test_committed_pins_cover_this_environment_and_the_committed_run():
    """A fresh ``pip install -e '.[workflow,test,cluster]' -c constraints.txt`` adds nothing outside
    constraints.txt: every distribution of the requirement closure (markers evaluated, extras
    requested by dependencies followed) is installed here and pinned with == at exactly its
    installed version. constraints.txt is also the environment that produced the committed tables
    (tables/environment.json of the paper-scale run)."""
    pins = _pins((ROOT / "constraints.txt").read_text())
    found, missing = environment.walk(extras=environment.EXTRAS)
    assert not missing, f"required but not installed: {sorted(missing)}"
    assert {k: pins.get(k) for k in found} == found
    assert {canonicalize_name(k) for k in pins} == set(pins), "constraints.txt names are canonical"
    recorded = json.loads((ROOT / "tables" / "environment.json").read_text())
    assert {k: pins[k] for k in recorded["packages"]} == recorded["packages"]


def _name_and_spec(text: str) -> tuple[str, str]:
    m = re.match(r"^\s*([A-Za-z0-9._-]+)\s*(.*)$", text)
    return canonicalize_name(m.group(1)), m.group(2).replace(" ", "")


def test_conda_environment_names_the_pyproject_packages():
    """environment.yml (conda) lists the same packages as pyproject.toml, dependencies and every
    extra (names normalised: case, '_', '-', '.'), with the same version bounds; python is the
    interpreter (requires-python), pip entries count as packages, ``-e .`` is the project."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted: dict[str, str] = {}
    for text in project["dependencies"] + [r for reqs in project["optional-dependencies"].values() for r in reqs]:
        req = Requirement(text)
        wanted[canonicalize_name(req.name)] = str(req.specifier)
    conda: dict[str, str] = {}
    pip: list[str] = []
    for entry in yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]:
        if isinstance(entry, dict):
            pip += entry["pip"]
        else:
            name, spec = _name_and_spec(entry)
            conda[name] = spec
    assert SpecifierSet(conda.pop("python")) == SpecifierSet(project["requires-python"])
    assert conda.pop("pip") == ""
    assert "-e ." in pip
    listed = dict(conda)
    for entry in pip:
        if entry != "-e .":
            name, spec = _name_and_spec(entry)
            assert name not in listed, f"{name} both in conda and in pip"
            listed[name] = spec
    assert set(listed) == set(wanted)
    assert {k: SpecifierSet(v) for k, v in listed.items()} == {k: SpecifierSet(v) for k, v in wanted.items()}


def test_library_versions_are_part_of_every_digest(monkeypatch):
    cell, table = provenance.cell_code("rankswap"), provenance.code_digest("sdcrisk.replication.render")
    monkeypatch.setattr(provenance, "versions", lambda libs: "python=3.11;numpy=0.0")
    assert provenance.cell_code("rankswap") != cell
    assert provenance.code_digest("sdcrisk.replication.render") != table


def test_environment_file_is_written_atomically(tmp_path):
    out = tmp_path / "tables" / "environment.json"
    environment.write(out)
    recorded = json.loads(out.read_text())
    assert recorded["packages"]["numpy"] == metadata.version("numpy")
    assert recorded["python"].startswith(environment.python_version())
    assert recorded["cpu"] == environment.cpu_model() and recorded["cpu"]
    assert recorded["blas"] == environment.blas()
    assert [p.name for p in out.parent.iterdir()] == ["environment.json"]


def test_cpu_model_and_blas_kernel_are_recorded(monkeypatch):
    """environment.json names the CPU (/proc/cpuinfo's model name) and the BLAS kernel in use
    (threadpoolctl: internal API, version, architecture) of the run."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists() and "model name" in cpuinfo.read_text():
        line = next(ln for ln in cpuinfo.read_text().splitlines() if ln.startswith("model name"))
        assert environment.cpu_model() == line.split(":", 1)[1].strip()
    libs = environment.blas()
    assert libs, "numpy's BLAS is found"
    for lib in libs:
        assert set(lib) == {"file", "internal_api", "version", "architecture"}
        assert lib["internal_api"] and lib["version"]
    assert "threadpoolctl" in environment.closure(extras=("workflow",))
    # without /proc/cpuinfo: platform.processor()
    monkeypatch.setattr(environment, "Path", lambda p: Path("/nonexistent/cpuinfo"))
    monkeypatch.setattr(environment.platform, "processor", lambda: "test-cpu")
    assert environment.cpu_model() == "test-cpu"
