"""Shared helpers of the research scripts: repository paths, the reference data, the published values.

Published values are only compared against, never fed into a computation. The data are copied
from the directory $SDCRISK_DATA_MIRROR names, or downloaded from the pinned URL of
``config/datasets.yaml``; sha256-verified either way (as ``benchmarks/common.py`` does).
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: []

from __future__ import annotations

import csv
import functools
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))  # the package, also when it is not installed

from sdcrisk.data import DatasetSpec, fetch, load_table  # noqa: E402

PUBLISHED = ROOT / "published" / "published_values.csv"
CLAIMS = ROOT / "published" / "published_claims.csv"


@functools.cache
def _dataset_entry(name: str) -> dict:
    return yaml.safe_load((ROOT / "config" / "datasets.yaml").read_text())["datasets"][name]


@functools.cache
def _load(name: str) -> np.ndarray:
    spec = DatasetSpec.from_config(name, _dataset_entry(name))
    mirror = os.environ.get("SDCRISK_DATA_MIRROR") or None
    with tempfile.TemporaryDirectory() as tmp:
        return load_table(spec, fetch(spec, Path(tmp) / spec.filename, mirror=mirror)).to_numpy()


def load(name: str) -> np.ndarray:
    """Census or EIA (the masked attributes in file order) as a float64 array; a fresh copy per
    call of the array read once per process."""
    return _load(name).copy()


def columns(name: str) -> list[str]:
    """The attribute names of ``name`` in file order."""
    return list(_dataset_entry(name)["columns"])


@functools.cache
def _rows(path: Path) -> tuple[dict, ...]:
    with open(path) as f:
        return tuple(csv.DictReader(f))


def published(claims: bool = False, **where: str) -> list[dict]:
    """Rows of ``published/published_values.csv`` (``claims``: ``published_claims.csv``) whose
    columns equal ``where`` (e.g. ``paper="nin2007_location_rl", table="T3"``), as dicts of strings."""
    return [r for r in _rows(CLAIMS if claims else PUBLISHED) if all(r[k] == v for k, v in where.items())]


def int_list(text: str) -> list[int]:
    """argparse type of the scripts' comma-separated integer arguments ("2,10,20")."""
    return [int(v) for v in text.split(",")]
