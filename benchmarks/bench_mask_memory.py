"""Peak memory of every built-in masking method against its declared estimate (``memory=`` of
:func:`sdcrisk.masking.registry.register`, checked before each call against the memory limit).

    python benchmarks/bench_mask_memory.py [--n 1000000] [--columns 2,10,20]
                                           [--out benchmarks/results/mask_memory.md]

Data: ``bench_scaling.make_data`` (correlated skewed columns, 2 decimals; seeded). Each method
and number of columns runs in a fresh child process (memory freed by an earlier call and kept by
the allocator would hide part of the next call's): the method once on 5,000 records (numba
compilation), then the peak resident set is reset (``/proc/self/clear_refs``), the call is made
on n records, and the growth of the peak (``VmHWM``) over the resident set just before the call
is that call's memory beyond its input. Linux only. The table gives it per record beside the
method's estimate; "ok" is estimate >= measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# one parameterisation per method: the papers' usual ones (k = 3, p = 5, a = 0.5; all attributes
# in one block)
PARAMS = {
    "rankswap": {"p": 5}, "rankswap_pdist": {"p": 5}, "rankswap_pbuckets": {"buckets": 10},
    "individual_ranking_ma": {"k": 3}, "optimal_univariate_ma": {"k": 3},
    "mdav": {"k": 3}, "pcp_ma": {"k": 3}, "zscore_ma": {"k": 3},
    "additive_noise": {"a": 0.5}, "correlated_noise": {"a": 0.5}, "multiplicative_noise": {"b": 0.5},
}
MDAV_MAX = 100_000  # MDAV above this takes minutes: measured at this size instead


def _status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/self/status has no {key}")


def child(name: str, n: int, m: int) -> None:
    from bench_scaling import make_data

    from sdcrisk.masking import METHODS, mask

    size = min(n, MDAV_MAX) if name == "mdav" else n
    params = dict(PARAMS[name], **({"v": m} if "v" in {p.name for p in METHODS[name].params} else {}))
    x = make_data(size, m)
    mask(name, x[:5000], np.random.default_rng(0), **params)
    Path("/proc/self/clear_refs").write_text("5")
    base = _status("VmRSS")
    t0 = time.perf_counter()
    mask(name, x, np.random.default_rng(1), **params)
    wall = time.perf_counter() - t0
    used = _status("VmHWM") - base
    estimate = METHODS[name].memory(size, m, params)
    print(json.dumps({"method": name, "params": params, "n": size, "m": m, "wall_s": round(wall, 2),
                      "measured_b_per_record": round(used / size, 1),
                      "estimate_b_per_record": round(estimate / size, 1)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--columns", default="2,10,20")
    ap.add_argument("--out", default=str(HERE / "results" / "mask_memory.md"))
    ap.add_argument("--child", nargs=3, metavar=("METHOD", "N", "M"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), int(args.child[2]))
        return
    import numba

    rows = []
    for m in (int(c) for c in args.columns.split(",")):
        for name in PARAMS:
            out = subprocess.run([sys.executable, __file__, "--child", name, str(args.n), str(m)], check=True,
                                 capture_output=True, text=True)
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    lines = [
        "# Masking methods: peak memory against the declared estimate", "",
        f"Produced by `python benchmarks/bench_mask_memory.py --n {args.n} --columns {args.columns}` on "
        f"{platform.node() or 'this machine'} ({os.cpu_count()} cores, numba threads "
        f"{numba.get_num_threads()}), load average (1, 5, 15 min) {tuple(round(v, 2) for v in os.getloadavg())} at the end. "
        "Bytes per record beyond the input, the output included (growth of the child's peak "
        "resident set over the resident set before the call); estimate: the method's `memory=`, "
        "which `mask()` checks against the memory limit before it starts.", "",
        "| method | parameters | n | m | wall s | measured B/record | estimate B/record | ok |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        ok = r["estimate_b_per_record"] >= r["measured_b_per_record"]
        lines.append(f"| {r['method']} | {r['params']} | {r['n']:,} | {r['m']} | {r['wall_s']} | "
                     f"{r['measured_b_per_record']} | {r['estimate_b_per_record']} | {'yes' if ok else 'NO'} |")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
