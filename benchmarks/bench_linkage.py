"""Timings of the linkage kernels on EIA (4092 x 10, all attributes known) against plain
full-matrix numpy/scipy baselines run in the same process (median of 5 runs each).

    python benchmarks/bench_linkage.py [--mirror DIR] [--repeat 5]

Baselines: DBRL = scipy.spatial.distance.cdist(sqeuclidean) + argmin on the full n x n matrix;
RBRL = broadcasting |R_i - S| over blocks of 256 rows; RS-RL = boolean n x n candidate matrices
(one per attribute, AND-ed) + masked cdist. Each baseline's links are checked against ours.
Masked file: a simple rank swap (P = 2 % of n) and multiplicative noise, seeded.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml
from scipy.spatial.distance import cdist
from scipy.stats import rankdata

from sdcrisk.data import DatasetSpec, fetch, load_table
from sdcrisk.linkage.distance import dbrl, standardise
from sdcrisk.linkage.location import rank_swap_intervals, rsrl, _sorted_masked
from sdcrisk.linkage.rank import rbrl

ROOT = Path(__file__).resolve().parents[1]


def load_eia(mirror: Path) -> np.ndarray:
    entries = yaml.safe_load((ROOT / "config" / "datasets.yaml").read_text())["datasets"]
    spec = DatasetSpec.from_config("eia", entries["eia"])
    with tempfile.TemporaryDirectory() as tmp:
        path = fetch(spec, Path(tmp) / spec.filename, mirror=mirror)
        return load_table(spec, path).to_numpy()


def simple_rank_swap(x, P, rng):
    """Random swaps within rank distance P (enough for timing; not the registry's algorithm)."""
    y = x.copy()
    n = x.shape[0]
    for j in range(x.shape[1]):
        order = np.argsort(x[:, j], kind="stable")
        vals = x[order, j].copy()
        for i in range(0, n - 1, 2):
            t = min(n - 1, i + 1 + int(rng.integers(P)))
            vals[i], vals[t] = vals[t], vals[i]
        y[order, j] = vals
    return y


def base_dbrl(x, y):
    xs, ys = standardise(x, y)
    return cdist(xs, ys, "sqeuclidean").argmin(axis=1)


def base_rbrl(x, y, crit):
    r, s = rankdata(x, axis=0), rankdata(y, axis=0)
    out = np.empty(x.shape[0], dtype=np.int64)
    for a in range(0, x.shape[0], 256):
        d = np.abs(r[a:a + 256, None, :] - s[None, :, :])
        out[a:a + 256] = (d.sum(axis=2) if crit == "sum" else d.max(axis=2)).argmin(axis=1)
    return out


def base_rsrl(x, y, P):
    a, b = rank_swap_intervals(x, y, P)
    _, _, pos = _sorted_masked(y)
    allowed = np.ones((x.shape[0], y.shape[0]), dtype=bool)
    for j in range(x.shape[1]):
        allowed &= (pos[None, :, j] >= a[:, j, None]) & (pos[None, :, j] < b[:, j, None])
    xs, ys = standardise(x, y)
    d = cdist(xs, ys, "sqeuclidean")
    d[~allowed] = np.inf
    links = d.argmin(axis=1)
    return np.where(allowed.any(axis=1), links, -1)


def timed(f, repeat):
    out = f()  # warm-up (numba compilation / caches)
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    x = load_eia(args.mirror)
    rng = np.random.default_rng(12345)
    n = x.shape[0]
    P = n * 2 // 100
    swapped = simple_rank_swap(x, P, rng)
    noisy = x * rng.uniform(0.9, 1.1, size=x.shape)

    cases = [
        ("DBRL", noisy, lambda: dbrl(x, noisy).links, lambda: base_dbrl(x, noisy), 0.2),
        ("RBRL-Sum", noisy, lambda: rbrl(x, noisy, criterion="sum").links,
         lambda: base_rbrl(x, noisy, "sum"), 1.0),
        ("RBRL-Max", noisy, lambda: rbrl(x, noisy, criterion="max").links,
         lambda: base_rbrl(x, noisy, "max"), 1.0),
        (f"RS-RL (P={P})", swapped, lambda: rsrl(x, swapped, distance=P).links,
         lambda: base_rsrl(x, swapped, P), 1.0),
    ]
    print(f"EIA {x.shape[0]} x {x.shape[1]}, all attributes known, median of {args.repeat} runs")
    print(f"{'attack':<16}{'ours [s]':>10}{'baseline [s]':>14}{'ratio':>8}{'target [s]':>12}  same links")
    for name, _, ours, base, target in cases:
        t1, l1 = timed(ours, args.repeat)
        t2, l2 = timed(base, args.repeat)
        same = bool(np.array_equal(l1, l2))
        print(f"{name:<16}{t1:>10.3f}{t2:>14.3f}{t2 / t1:>8.1f}{target:>12.1f}  {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
