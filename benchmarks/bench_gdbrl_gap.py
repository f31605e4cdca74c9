"""GDBRL: the sparse solver against the exact optimum, the share left to its completion step, and
the cost of one tie draw (``truth=``: ``sdcrisk.linkage.global_distance.TIE_DRAWS`` draws).

Data: the synthetic Census-like files of ``bench_scaling.make_data`` (10 log-normal attributes
sharing one factor, rounded to 2 decimals), masked by rank swapping p = 5 ("rank swap") or by MDAV
k = 3 on one block of all attributes ("MDAV k=3": every record ties with its group). All attributes
known; the masked file in a random order (the order ``sdcrisk.assess`` uses), the same order for both
solvers. Exact: scipy's ``linear_sum_assignment`` on the dense matrix (2 x 8 n^2 bytes: 3.2 GB at
2 x 10^4, run alone). Sparse: 10 nearest candidates (eps 0.5), priced assignment, completion.

    python benchmarks/bench_gdbrl_gap.py --part gap --sizes 10000 20000
    python benchmarks/bench_gdbrl_gap.py --part completion --sizes 100000
    python benchmarks/bench_gdbrl_gap.py --part draws --sizes 1080 10000
    python benchmarks/bench_gdbrl_gap.py --part overhead --sizes 100000   # the nearest-record attacks

Each part prints markdown rows and appends them to benchmarks/out/gdbrl_gap.log; the tables of
benchmarks/results/gdbrl_gap.md are made of them.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_scaling import SEED, make_data  # noqa: E402

from sdcrisk.linkage.global_distance import CANDIDATES, _gdbrl  # noqa: E402
from sdcrisk.masking import mask  # noqa: E402

M = 10
LOG = HERE / "out" / "gdbrl_gap.log"


def masked(kind: str, x: np.ndarray) -> np.ndarray:
    if kind == "rank swap":
        return mask("rankswap", x, np.random.default_rng([SEED, *x.shape, 1]), p=5)
    return mask("mdav", x, k=3, v=x.shape[1])


def files(kind: str, n: int):
    """Original, masked in a random order, and the true masked index of every original record."""
    x = make_data(n, M)
    y = masked(kind, x)
    perm = np.random.default_rng([SEED, n, 2]).permutation(n)
    return x, y[perm], np.argsort(perm)


def solve(x, y, truth, method: str, candidates: int = CANDIDATES):
    t0 = time.perf_counter()
    res = _gdbrl(x, y, "euclidean", "own", "euclidean", method, candidates, 0.5)
    sec = time.perf_counter() - t0
    return res, sec, 100.0 * float(np.mean(res.links == truth))


def say(line: str) -> None:
    print(line, flush=True)
    LOG.parent.mkdir(exist_ok=True)
    with LOG.open("a") as fh:
        fh.write(line + "\n")


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def part_gap(n: int, kinds, candidates_list) -> None:
    for kind in kinds:
        x, y, truth = files(kind, n)
        ex, ex_s, ex_pc = solve(x, y, truth, "exact")
        say(f"| {n:,} | {kind} | exact | - | {ex_pc:.3f} % | {ex.info['total_cost']:.6f} | - | - | {ex_s:.1f} s "
            f"| {peak_gb():.2f} GB |")
        for k in candidates_list:
            sp, sp_s, sp_pc = solve(x, y, truth, "sparse", k)
            same = 100.0 * float(np.mean(sp.links == ex.links))
            gap = sp.info["total_cost"] / ex.info["total_cost"] - 1.0
            say(f"| {n:,} | {kind} | sparse k={k} | {sp.info['unmatched']:,} ({100 * sp.info['unmatched'] / n:.2f} %) "
                f"| {sp_pc:.3f} % | {sp.info['total_cost']:.6f} (+{gap:.2e}) | {sp_pc - ex_pc:+.3f} pp | {same:.1f} % "
                f"| {sp_s:.1f} s | {peak_gb():.2f} GB |")


def part_completion(n: int, kinds) -> None:
    for kind in kinds:
        x, y, truth = files(kind, n)
        sp, sp_s, sp_pc = solve(x, y, truth, "sparse")
        say(f"| {n:,} | {kind} | sparse k={CANDIDATES} | {sp.info['unmatched']:,} "
            f"({100 * sp.info['unmatched'] / n:.2f} %) | {sp_pc:.3f} % | {sp.info['total_cost']:.6f} | - | - "
            f"| {sp_s:.1f} s | {peak_gb():.2f} GB |")


def part_draws(n: int, kinds) -> None:
    """Seconds of one draw (a solve on a permuted masked file) and the spread of correct links over
    TIE_DRAWS draws, through run_attack as sdcrisk.assess calls it."""
    from sdcrisk.attacks import run_attack
    from sdcrisk.linkage.global_distance import TIE_DRAWS

    for kind in kinds:
        x, y, truth = files(kind, n)
        t0 = time.perf_counter()
        res = run_attack("GDBRL", x, y, np.arange(M), 2, np.random.default_rng(0), truth=truth)
        sec = time.perf_counter() - t0
        d = np.array(res.info["draws"]) * 100.0 / n
        say(f"| {n:,} | {kind} | {res.info.get('solver')} | {TIE_DRAWS} | {sec:.1f} s ({sec / TIE_DRAWS:.2f} s/draw) "
            f"| {d.min():.2f}-{d.max():.2f} % | {100 * res.credit.mean():.3f} % | {res.info['tied_records']:,} |")


def part_overhead(n: int, kinds) -> None:
    """Seconds of each exact-tie attack without and with ``truth`` (the tie count), best of 2."""
    from sdcrisk.attacks import run_attack

    for kind in kinds:
        x, y, truth = files(kind, n)
        for name in ("DBRL", "RBRL-Sum", "RBRL-Max", "RS-RL(p<=20%)", "L-RL(MA)"):
            secs = []
            for t in (None, truth):
                best = np.inf
                for _ in range(2):
                    t0 = time.perf_counter()
                    res = run_attack(name, x, y, np.arange(M), 2, np.random.default_rng(0), truth=t)
                    best = min(best, time.perf_counter() - t0)
                secs.append(best)
            say(f"| {n:,} | {kind} | {name} | {secs[0]:.2f} s | {secs[1]:.2f} s | {res.info['tied_records']:,} "
                f"| {100 * np.mean(res.links == truth):.3f} % | {100 * res.credit.mean():.3f} % |")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["gap", "completion", "draws", "overhead"], required=True)
    ap.add_argument("--sizes", type=int, nargs="+", required=True)
    ap.add_argument("--kinds", nargs="+", default=["rank swap", "MDAV k=3"])
    ap.add_argument("--candidates", type=int, nargs="+", default=[CANDIDATES])
    args = ap.parse_args(argv)
    os.environ.setdefault("SDCRISK_MEMORY_LIMIT", "8G")
    for n in args.sizes:
        if args.part == "gap":
            part_gap(n, args.kinds, args.candidates)
        elif args.part == "completion":
            part_completion(n, args.kinds)
        elif args.part == "draws":
            part_draws(n, args.kinds)
        else:
            part_overhead(n, args.kinds)


if __name__ == "__main__":
    main()
