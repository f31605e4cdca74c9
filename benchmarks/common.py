"""Shared helpers of the benchmark scripts: load the reference data, time a call (median)."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sdcrisk.data import DatasetSpec, fetch, load_table  # noqa: E402


def load(name: str) -> np.ndarray:
    """Census or EIA as a float64 array: copied from the directory $SDCRISK_DATA_MIRROR names, or
    downloaded from the pinned URL of config/datasets.yaml; sha256-verified either way."""
    entry = yaml.safe_load((ROOT / "config" / "datasets.yaml").read_text())["datasets"][name]
    spec = DatasetSpec.from_config(name, entry)
    mirror = os.environ.get("SDCRISK_DATA_MIRROR") or None
    with tempfile.TemporaryDirectory() as tmp:
        return load_table(spec, fetch(spec, Path(tmp) / spec.filename, mirror=mirror)).to_numpy()


def median_time(fn, repeat: int = 5, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))
