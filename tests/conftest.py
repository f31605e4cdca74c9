"""Shared fixtures: the two reference files, fetched from the local mirror and checksum-verified."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from sdcrisk.data import MIRROR_ENV, DatasetSpec, fetch, load_table

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MIRROR = ROOT.parent / "shared" / "data"


def planned_jobs(output: str) -> dict[str, int]:
    """Jobs per rule from the "Job stats" table a Snakemake (dry) run prints; empty when nothing is to be done."""
    return {rule: int(n) for rule, n in re.findall(r"^(\w+)\s+(\d+)$", output, flags=re.M)}


def mirror_dir() -> Path:
    return Path(os.environ.get(MIRROR_ENV) or DEFAULT_MIRROR)


def dataset_spec(name: str) -> DatasetSpec:
    entries = yaml.safe_load((ROOT / "config" / "datasets.yaml").read_text())["datasets"]
    return DatasetSpec.from_config(name, entries[name])


def _load(name: str, tmp_path_factory) -> np.ndarray:
    spec = dataset_spec(name)
    if not (mirror_dir() / spec.filename).is_file():
        pytest.skip(f"reference data mirror {mirror_dir()} not available")
    path = fetch(spec, tmp_path_factory.mktemp("data") / spec.filename, mirror=mirror_dir())
    return load_table(spec, path).to_numpy()


@pytest.fixture(scope="session")
def census(tmp_path_factory) -> np.ndarray:
    """Census (CASCrefmicrodata), 1080 x 13 float64."""
    return _load("census", tmp_path_factory)


@pytest.fixture(scope="session")
def eia(tmp_path_factory) -> np.ndarray:
    """EIA, the 10 numeric attributes, 4092 x 10 float64."""
    return _load("eia", tmp_path_factory)


#: modules whose tests run Snakemake, a notebook, the SLURM cluster or the committed paper-scale outputs
SLOW_MODULES = {"test_workflow", "test_slurm", "test_cell_batch", "test_notebooks", "test_committed"}
#: fixtures that read the reference data
DATA_FIXTURES = {"census", "eia"}


def pytest_collection_modifyitems(config, items):
    """Mark as ``slow`` every test that reads the reference data or runs the DAG, so that
    ``pytest -m "not slow"`` is the fast subset of unit and property tests (README)."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if module in SLOW_MODULES or DATA_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
