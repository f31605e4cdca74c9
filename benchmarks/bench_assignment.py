"""Exact solvers of probabilistic linkage's assignment, side by side on the networks PRL builds.

    python benchmarks/bench_assignment.py [--n 100000] [--timeout 300] [--out benchmarks/results]

PRL and PRL-graded end in a maximum-weight one-to-one assignment on their candidate pairs, where
an original may stay unlinked (:func:`sdcrisk.linkage.assignment.assign_max_weight`, OR-Tools'
cost-scaling minimum-cost flow). The flow is most of PRL's time, and its time depends on the file
far more than on the number of edges. This script saves the networks of the synthetic
n x m files of ``bench_assess.py`` and ``bench_scaling.py`` (rank swapping p = 5, the same seeds) and
solves each with:

* ``flow``: the package's solver;
* ``LSA (reduction)``: OR-Tools' ``SimpleLinearSumAssignment`` (cost scaling specialised to
  assignment) on the usual reduction to a perfect matching: a copy of each masked record may take
  its record or the copy of any original adjacent to it, at cost 0, and each original may take
  its own copy (no link); 2 x edges + n + n' arcs;
* ``LAPJVsp (rectangular)``: scipy's ``min_weight_full_bipartite_matching`` on n x (n' + n),
  one private "no link" column per original (every original is matched, masked records may
  not be), costs ``K - gain``, ``K`` for "no link";
* ``LAPJVsp (direct)``: the same on the n x n' candidate graph alone. Not a solver of the
  problem (it links every original, and refuses where they cannot all be linked); its total is
  compared with the flow's;
* ``shortest paths``: what :func:`~sdcrisk.linkage.assignment.assign_max_weight` does from
  ``PATHS_MIN`` originals: successive shortest augmenting paths, one original at a time, each with
  a private "no link" column (the flow where they exceed their work bound; the note says so).
  The certified row-full matching it replaced has rows of its own in ``assignment.md``, kept
  from the run that measured it.

Each solver runs in a child process with ``--timeout``; the totals of the integer gains (1e-6
units) are compared with the flow's. The solvers choose differently among equal-weight optima,
so the links themselves differ; only the total weight is compared.
Results: ``assignment.md`` and ``assignment.csv`` in ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scaling import machine, make_data, masked_input  # noqa: E402

SOLVERS = ("flow", "shortest paths", "LSA (reduction)", "LAPJVsp (rectangular)", "LAPJVsp (direct)")
FIELDS = ["network", "n", "edges", "distinct_gains", "solver", "seconds", "total_gain", "linked", "note"]


def networks(n: int, m: int, folder: Path) -> list[tuple[str, Path]]:
    """Save ``(rows, cols, gain, n)`` of each network PRL / PRL-graded pass to their solver."""
    from bench_assess import _mask

    from sdcrisk.linkage import graded, probabilistic

    class Captured(Exception):
        pass

    x = make_data(n, m)
    files = {"bench_assess": _mask("rankswap", x, p=5), "bench_scaling": masked_input("DBRL", x)}
    out = []
    for label, y in files.items():
        for attack, module, call in (("PRL", probabilistic, lambda: probabilistic.prl(x, y)),
                                     ("PRL K=10", probabilistic, lambda: probabilistic.prl(x, y, max_candidates=10)),
                                     ("PRL-graded", graded, lambda: graded.prl_graded(x, y))):
            path = folder / f"{attack.replace(' ', '_')}_{label}.pkl"

            def capture(rows, cols, gain, n_rows, path=path, classes=None, **_):
                gain = gain if classes is None else gain[classes]
                with open(path, "wb") as f:
                    pickle.dump((rows, cols, gain, n_rows), f, protocol=4)
                raise Captured

            saved = module.assign_max_weight
            module.assign_max_weight = capture
            try:
                call()
            except Captured:
                out.append((f"{attack}, {label} file", path))
            finally:
                module.assign_max_weight = saved
    return out


def solve(solver: str, path: Path) -> dict:
    rows, cols, gain, n = pickle.load(open(path, "rb"))
    rows, cols = rows.astype(np.int64), cols.astype(np.int64)  # pair keys below need 64 bits
    ny = int(cols.max()) + 1
    units = np.rint(gain * 1e6).astype(np.int64)
    from ortools.graph.python import linear_sum_assignment
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    from sdcrisk.linkage.assignment import _flow_links, _shortest_paths, _units, assign_max_weight

    assign_max_weight(np.array([0, 0, 1], dtype=rows.dtype), np.array([0, 1, 0], dtype=cols.dtype),
                      np.array([2.0, 1.0, 1.0]), 2, paths_min=0)  # compiled
    t = time.perf_counter()
    note = ""
    if solver == "flow":
        links = _flow_links(rows, cols, [_units(gain)], n)
    elif solver == "shortest paths":  # what assign_max_weight does from PATHS_MIN originals
        links = _shortest_paths(rows, cols, _units(gain), n)
        if links is None:
            note = f"work bound reached ({time.perf_counter() - t:.2f} s), then the flow"
            links = _flow_links(rows, cols, [_units(gain)], n)
    elif solver == "LSA (reduction)":
        e = rows.size
        lsa = linear_sum_assignment.SimpleLinearSumAssignment()
        lsa.add_arcs_with_cost(np.concatenate([rows, np.arange(n), n + np.arange(ny), n + cols]),
                               np.concatenate([cols, ny + np.arange(n), np.arange(ny), ny + rows]),
                               np.concatenate([-units, np.zeros(n + ny + e, dtype=np.int64)]))
        status = lsa.solve()
        if status != lsa.OPTIMAL:
            raise RuntimeError(f"LSA ended with status {status}")
        mate = np.array([lsa.right_mate(i) for i in range(n)])
        links = np.where(mate < ny, mate, -1)
    else:
        k = float(units.max()) + 1.0  # integer-valued float costs: exact sums
        if solver == "LAPJVsp (rectangular)":
            m = csr_matrix((np.concatenate([k - units, np.full(n, k)]),
                            (np.concatenate([rows, np.arange(n)]), np.concatenate([cols, ny + np.arange(n)]))),
                           shape=(n, ny + n))
        else:
            m = csr_matrix((k - units, (rows, cols)), shape=(n, ny))
        try:
            r, c = min_weight_full_bipartite_matching(m)
        except ValueError as err:
            return {"seconds": round(time.perf_counter() - t, 2), "note": f"refused: {err}"}
        links = np.full(n, -1)
        links[r] = np.where(c < ny, c, -1)
    seconds = time.perf_counter() - t
    key = rows * ny + cols
    order = np.argsort(key)
    linked = np.flatnonzero(links >= 0)
    pos = np.searchsorted(key[order], linked * ny + links[linked])
    assert np.array_equal(key[order][pos], linked * ny + links[linked]), "a link outside the candidate edges"
    return {"seconds": round(seconds, 2), "total_gain": int(units[order][pos].sum()), "linked": int(linked.size),
            "note": note}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--m", type=int, default=10, help="attributes")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    ap.add_argument("--solve", nargs=2, metavar=("SOLVER", "NETWORK"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.solve:  # child process
        print(json.dumps(solve(args.solve[0], Path(args.solve[1]))))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, path in networks(args.n, args.m, Path(tmp)):
            r, c, gain, n = pickle.load(open(path, "rb"))
            base = {"network": label, "n": f"{n} x {args.m}", "edges": r.size, "distinct_gains": np.unique(gain).size}
            for solver in SOLVERS:
                try:
                    done = subprocess.run([sys.executable, __file__, "--solve", solver, str(path)], capture_output=True,
                                          text=True, timeout=args.timeout, env=dict(os.environ))
                    if done.returncode == 0:
                        result = json.loads(done.stdout.strip().splitlines()[-1])
                    else:
                        result = {"note": "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]}
                except subprocess.TimeoutExpired:
                    result = {"seconds": f"> {args.timeout:g}", "note": "timeout"}
                rows.append({**base, "solver": solver, **result})
                print(rows[-1], flush=True)
    flow = {r["network"]: r.get("total_gain") for r in rows if r["solver"] == "flow"}
    for r in rows:
        if r.get("total_gain") is not None and r["solver"] != "flow":
            r["note"] = (r["note"] + "; " if r["note"] else "") + (
                "same total as the flow" if r["total_gain"] == flow[r["network"]] else "total differs from the flow's")
    args.out.mkdir(parents=True, exist_ok=True)
    size = f"{args.n} x {args.m}"
    if (args.out / "assignment.csv").is_file():  # keep the rows of other sizes, and of solvers no longer run
        with open(args.out / "assignment.csv", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["n"] != size or r["solver"] not in SOLVERS] + rows
    with open(args.out / "assignment.csv", "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows)
    lines = ["# PRL's assignment: exact solvers side by side", "", "Machine:", "", *machine(), "",
             f"Written by `python benchmarks/bench_assignment.py --n N --m M --timeout {args.timeout:g}` (rows of "
             f"other sizes kept; last run: {size}); "
             "see its docstring for the networks and the solvers. Seconds of the solve alone (the network "
             "handed over, the solver's own set-up included).", "",
             "| " + " | ".join(FIELDS) + " |", "|" + "---|" * len(FIELDS)]
    lines += ["| " + " | ".join(str(r.get(k) if r.get(k) is not None else "") for k in FIELDS) + " |" for r in rows]
    (args.out / "assignment.md").write_text("\n".join(lines) + "\n")
    print("wrote", args.out / "assignment.md")


if __name__ == "__main__":
    main()
