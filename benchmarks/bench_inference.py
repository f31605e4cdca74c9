"""Inference (sdcrisk.criteria.inference.infer): every original record a target, at scale.

    python benchmarks/bench_inference.py [--sizes 10000 100000 1000000] [--threads 2]
                                         [--out benchmarks/results] [--no-doc]

Data (:func:`files`, seed 0): n original records with 7 known attributes, 5 categorical (2, 4, 8,
16 and 50 categories: up to 102,400 key cells) and 2 numeric (standard normal), and a numeric
secret (lognormal, its log depending on the numeric attributes and the first two keys). The
release, n records: numeric known attributes with additive noise of 10 % of their sd, the secret
with multiplicative noise of 5 %, the categorical keys unchanged (the blocking keys of the
nearest-record attack). One linkage attack's links (the identity: each target linked to its own
release record) feed the linked-record attack. Every attack of :func:`infer` runs on all n targets
against all n release records, tolerance 5 %.

Each size runs in a fresh child process (``numba`` limited to ``--threads`` threads); the time is
the call's wall time after the data are made and numba's kernels are compiled (a first small call
in the same child); the memory is the child's peak resident set (``ru_maxrss``), the data
included. The machine is shared with other jobs: the times are noisy (a few tens of per cent).
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing as mp
import resource
import sys
import time
from pathlib import Path

import numpy as np

from common import DOC, ROOT, machine_text, replace_region  # noqa: F401  (common also puts src/ on sys.path)

CARDINALITIES = (2, 4, 8, 16, 50)


def files(n: int, seed: int = 0):
    """The original's and the release's known attributes and secret (module docstring)."""
    rng = np.random.default_rng(seed)
    xc = np.column_stack([rng.integers(0, k, n) for k in CARDINALITIES]).astype(np.int64)
    xn = rng.standard_normal((n, 2))
    sx = np.exp(3.0 + 0.3 * xn[:, 0] - 0.2 * xn[:, 1] + 0.1 * xc[:, 0] + 0.05 * xc[:, 1] + 0.2 * rng.standard_normal(n))
    yn = xn + 0.1 * rng.standard_normal((n, 2))
    sy = sx * (1.0 + 0.05 * rng.standard_normal(n))
    return xn, yn, xc, xc.copy(), sx, sy


def _child(n: int, threads: int, queue) -> None:
    import numba

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    from sdcrisk.criteria.inference import infer

    small = files(2000, 1)
    infer("s", small[4], small[5], categorical=False, xn=small[0], yn=small[1], xc=small[2], yc=small[3])
    xn, yn, xc, yc, sx, sy = files(n)
    t0 = time.perf_counter()
    res = infer("income", sx, sy, categorical=False, xn=xn, yn=yn, xc=xc, yc=yc,
                links={"DBRL": np.arange(n)}, tolerance=0.05)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    queue.put({"n": n, "seconds": seconds, "peak_gb": peak / 1e9,
               "rows": [(r.attack, r.percent, r.baseline_percent) for r in res.rows],
               "cells": res.diversity["cells"]})


def run(n: int, threads: int) -> dict:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    p = ctx.Process(target=_child, args=(n, threads, queue))
    p.start()
    out = queue.get()
    p.join()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    ap.add_argument("--no-doc", action="store_true", help="leave docs/benchmarks.md alone")
    args = ap.parse_args(argv)
    results = []
    for n in args.sizes:
        r = run(n, args.threads)
        print(f"n = {n:,}: {r['seconds']:.1f} s, peak {r['peak_gb']:.2f} GB, {r['cells']:,} key cells", flush=True)
        results.append(r)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/bench_inference.py " + " ".join(sys.argv[1:] if argv is None else argv)
    with open(out / "inference.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "seconds", "peak_gb", "key_cells", "attack", "success_percent", "baseline_percent"])
        for r in results:
            for attack, pct, base in r["rows"]:
                w.writerow([r["n"], f"{r['seconds']:.2f}", f"{r['peak_gb']:.2f}", r["cells"], attack, f"{pct:.2f}",
                            f"{base:.2f}"])
    table = ["| targets = release records | seconds | peak memory (GB) | key cells | " +
             " | ".join(f"{a} %" for a, _, _ in results[0]["rows"]) + " | baseline % |",
             "|---:|---:|---:|---:|" + "---:|" * (len(results[0]["rows"]) + 1)]
    for r in results:
        table.append(f"| {r['n']:,} | {r['seconds']:.1f} | {r['peak_gb']:.2f} | {r['cells']:,} | "
                     + " | ".join(f"{p:.1f}" for _, p, _ in r["rows"]) + f" | {r['rows'][0][2]:.1f} |")
    body = "\n".join([
        "Inference of a numeric secret (`sdcrisk.criteria.inference.infer`), every original record a target, 7 "
        "known attributes (5 categorical keys, 2 numeric), tolerance 5 %, "
        f"{args.threads} numba threads (`benchmarks/bench_inference.py`; data and timing in its docstring). "
        "The machine is shared with other jobs: times are noisy.", "",
        *table, "", f"Machine: {machine_text()}.", "", f"Command: `{command.strip()}`."])
    (out / "inference.md").write_text("# Inference at scale\n\n" + body + "\n")
    if not args.no_doc:
        replace_region(DOC, "inference", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
