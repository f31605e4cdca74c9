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


#: the page that holds the current measured figures, each in a region a benchmark script rewrites
DOC = ROOT / "docs" / "benchmarks.md"
_REGION = "<!-- measured:{name} -->"
_END = "<!-- /measured -->"


def read_region(text: str, name: str) -> str:
    """The body of the ``<!-- measured:NAME -->`` ... ``<!-- /measured -->`` region of ``text``."""
    start = _REGION.format(name=name)
    if text.count(start) != 1:
        raise ValueError(f"expected one {start} region, found {text.count(start)}")
    head, rest = text.split(start, 1)
    if _END not in rest:
        raise ValueError(f"{start} has no closing {_END}")
    return rest.split(_END, 1)[0]


def replace_region(path: str | Path, name: str, body: str) -> bool:
    """Rewrite the body of the ``<!-- measured:NAME -->`` region of the Markdown file ``path``
    (atomically; the rest of the file unchanged). ValueError when the region is absent, repeated or
    unclosed, so a renamed marker is never silently skipped. Returns whether the text changed."""
    from sdcrisk.data import atomic_write

    path = Path(path)
    text = path.read_text()
    old = read_region(text, name)
    new_body = "\n" + body.strip("\n") + "\n"
    if old == new_body:
        return False
    start = _REGION.format(name=name)
    head, rest = text.split(start, 1)
    new = head + start + new_body + _END + rest.split(_END, 1)[1]
    atomic_write(path, lambda tmp: Path(tmp).write_text(new))
    return True


def machine_text() -> str:
    """The machine a benchmark ran on, in one line: CPU model, logical CPUs, Python, system."""
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                    if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} logical CPUs, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}")


def one_thread_per_process() -> None:
    """A benchmark pool's worker initialiser: numba on one thread, one process per core."""
    try:
        import numba

        numba.set_num_threads(1)
    except ImportError:  # pragma: no cover - numba is a dependency
        pass


def coverage_columns(covered, target: float) -> dict:
    """A calibration row's coverage columns: the share of runs whose interval held the null value
    (``covered``: one truth value per run), its Wilson interval and whether it reaches ``target``."""
    from sdcrisk.measures.uncertainty import wilson_interval

    k, n = int(sum(bool(c) for c in covered)), len(covered)
    low, high = wilson_interval(k, n)
    cover = 100.0 * k / n
    return {"coverage of 0 %": f"{cover:.1f}", "Wilson 95 % interval": f"[{low:.1f}, {high:.1f}]",
            f"coverage >= {target:g} %": "pass" if cover >= target else "FAIL"}


def rows_below(table, target: float, label) -> str:
    """The sentence naming a calibration table's rows below ``target`` (``label(row)`` names one)."""
    failed = table.loc[table[f"coverage >= {target:g} %"] == "FAIL"] if len(table) else table
    names = "; ".join(f"{label(r)} ({r['coverage of 0 %']} %)" for _, r in failed.iterrows())
    return f"Rows below {target:g} %: {names or 'none'}."

