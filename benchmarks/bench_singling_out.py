"""Singling out at scale: the exact attack on 10^7 records x 8 keys, 1,000 three-attribute
predicates on 10^7 records.

    python benchmarks/bench_singling_out.py [--n 10000000] [--predicates 1000] [--out benchmarks/results]

Data (seeded): 8 keys. ``exact``: 8 categorical keys of 2 to 100 categories (skewed), the release
the original with 5 % of each key's cells recoded at random (PRAM-like). ``predicates``: 5 of those
categorical keys and 3 numeric ones (a latent normal factor plus noise, lognormal, rounded), the
release with the categorical cells recoded as above and the numeric values with 10 % multiplicative
noise. ``evaluate`` times the predicate evaluation alone: the columns sorted, then the predicates
(three-term conjunctions from random release records) counted in both files, in one batch (as
``singling_out`` counts the conjunctions it draws). The other cases
run :func:`sdcrisk.criteria.singling_out.singling_out` once. Each case runs in its own child
process (``--child``): wall and CPU time of the whole call (the data already in memory; the code
runs in one thread, so on a machine shared with other work the CPU time is the time it would
take alone), and the child's peak resident memory (VmHWM, inputs included). ``exact`` runs with ``max_terms=1`` (exact and
univariate attacks, no conjunction); ``predicates`` with ``predicates`` conjunctions of exactly
3 terms (``min_terms = max_terms = 3``) and as many baseline ones, plus the exact and univariate
attacks (no coarsening: the exact attack uses the 5 categorical keys).

Results: ``singling_out.md`` and ``singling_out.csv`` in ``--out``, and the ``singling_out``
region of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))
from common import machine_text  # noqa: E402

SEED = 59
CARDS = [2, 5, 10, 20, 50, 100, 7, 12]


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def make(n: int, case: str):
    import pandas as pd

    rng = np.random.default_rng([SEED, n])
    ncat = 8 if case == "exact" else 5
    o, r = {}, {}
    for j, card in enumerate(CARDS[:ncat]):
        p = 1.0 / np.arange(1, card + 1) ** 1.2
        col = rng.choice(card, size=n, p=p / p.sum()).astype(np.int16)
        o[f"cat {j}"] = col
        rel = col.copy()
        recode = rng.random(n) < 0.05
        rel[recode] = rng.integers(0, card, int(recode.sum()))
        r[f"cat {j}"] = rel
    if case == "predicates":
        f = rng.normal(size=n)
        for j in range(3):
            x = np.round(np.exp(3 + 0.5 * (0.7 * f + 0.7 * rng.normal(size=n))), 2)
            o[f"num {j}"] = x
            r[f"num {j}"] = np.round(x * (1 + 0.1 * rng.normal(size=n)), 2)
    return pd.DataFrame(o), pd.DataFrame(r), [k for k in o if k.startswith("cat ")]


def evaluate(n: int, predicates: int) -> dict:
    """The evaluation alone: ``predicates`` three-term conjunctions from random release records,
    each counted in the release and in the originals (the sorted-column slices of
    ``singling_out``; the sorting included in the time)."""
    from sdcrisk.criteria import singling_out as so

    o, r, cat = make(n, "predicates")
    rng = np.random.default_rng([SEED, 1])
    t0, c0 = time.perf_counter(), time.process_time()
    attrs = [so._Attribute(k, o[k], r[k], numeric=k not in cat) for k in o.columns]
    medians = [float(np.median(a.r)) if a.numeric else None for a in attrs]
    J = np.full((predicates, 3), -1, dtype=np.int64)
    OP = np.zeros((predicates, 3), dtype=np.int64)
    V = np.zeros((predicates, 3))
    for b in range(predicates):
        i = int(rng.integers(n))
        for t, j in enumerate(np.sort(rng.choice(len(attrs), size=3, replace=False))):
            a, v = attrs[j], attrs[j].r[i]
            J[b, t], V[b, t] = j, v
            OP[b, t] = (so._LE if v <= medians[j] else so._GE) if a.numeric else so._EQ
    counts = {}
    for side in ("r", "o"):
        c, _, _ = so._count_many(attrs, J, OP, V, side, 3)
        counts[side] = np.bincount(c, minlength=4).tolist()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    note = "; ".join(f"{'release' if s == 'r' else 'originals'}: count 0/1/2/3+ = " + "/".join(map(str, c))
                     for s, c in counts.items())
    return {"case": "evaluate", "n": n, "keys": len(attrs), "seconds": round(seconds, 2), "cpu": round(cpu, 2),
            "peak_mb": round(_peak_mb()),
            "rows": [{"attack": f"{predicates} three-term conjunctions counted in both files", "successes": 0,
                      "trials": predicates, "percent": float("nan"), "baseline_percent": float("nan"),
                      "baseline_trials": 0, "note": note}], "records_singled_out": 0}


def child(case: str, n: int, predicates: int) -> dict:
    from sdcrisk.criteria.singling_out import singling_out

    if case == "evaluate":
        return evaluate(n, predicates)
    o, r, cat = make(n, case)
    keys = list(o.columns)
    kw = dict(max_terms=1) if case == "exact" else dict(predicates=predicates, min_terms=3, max_terms=3)
    t0, c0 = time.perf_counter(), time.process_time()
    rows, evidence = singling_out(o, r, keys, categorical=cat, seed=SEED, **kw)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"case": case, "n": n, "keys": len(keys), "seconds": round(seconds, 2), "cpu": round(cpu, 2),
            "peak_mb": round(_peak_mb()),
            "rows": [{"attack": x.attack, "successes": round(x.successes, 2), "trials": x.trials,
                      "percent": round(x.percent, 3), "baseline_percent": round(x.baseline_percent, 3),
                      "baseline_trials": x.baseline_trials, "note": x.note} for x in rows],
            "records_singled_out": int(evidence["record"].nunique())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--predicates", type=int, default=1000)
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--child", nargs=3, metavar=("CASE", "N", "PREDICATES"))
    ap.add_argument("--no-docs", action="store_true", help="do not rewrite the region of docs/benchmarks.md")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child[0], int(a.child[1]), int(a.child[2]))))
        return
    load_start = os.getloadavg()
    results = []
    for case in ("exact", "evaluate", "predicates"):
        out = subprocess.run([sys.executable, __file__, "--child", case, str(a.n), str(a.predicates)],
                             check=True, capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "2"})
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(json.dumps(results[-1]), flush=True)
    load_end = os.getloadavg()
    command = "python benchmarks/bench_singling_out.py" + (f" --n {a.n}" if a.n != 10_000_000 else "") \
        + (f" --predicates {a.predicates}" if a.predicates != 1000 else "")
    machine = machine_text()
    load = ", ".join(f"{x:.2f}" for x in load_start) + " / " + ", ".join(f"{x:.2f}" for x in load_end)
    table = ["| case | records | keys | wall s | CPU s | peak MB | attack | successes / trials | % | "
             "baseline % (trials) | note |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    flat = []
    for res in results:
        what = {"exact": "`singling_out`, max_terms=1: exact + univariate, 8 categorical keys",
                "evaluate": "evaluation only: 3-term conjunctions from release records, 5 categorical + 3 numeric keys",
                "predicates": f"`singling_out`, predicates={a.predicates}, 3 terms: exact + univariate + "
                              "multivariate, 5 categorical + 3 numeric keys"}[res["case"]]
        for x in res["rows"]:
            if res["case"] == "evaluate":
                table.append(f"| {what} | {res['n']:,} | {res['keys']} | {res['seconds']} | {res['cpu']} | "
                             f"{res['peak_mb']} | {x['attack']} |  |  |  | {x['note']} |")
                continue
            table.append(f"| {what} | {res['n']:,} | {res['keys']} | {res['seconds']} | {res['cpu']} | {res['peak_mb']} | "
                         f"{x['attack']} | "
                         f"{x['successes']:.10g} / {x['trials']} | {x['percent']:.2f} | {x['baseline_percent']:.2f} "
                         f"({x['baseline_trials']}) | {x['note']} |")
            flat.append({"case": res["case"], "n": res["n"], "keys": res["keys"], "seconds": res["seconds"],
                         "cpu_seconds": res["cpu"], "peak_mb": res["peak_mb"], **x})
    body = "\n".join([f"Machine: {machine}. Command: `{command}`. Load average at the start / end of the run "
                      f"(1, 5, 15 min; the machine is shared with other work): {load}.", "", *table])
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "singling_out.md").write_text("# Singling out at scale\n\n" + (__doc__.split("\n\n", 2)[2]).strip()
                                         + "\n\n" + body + "\n")
    with open(out / "singling_out.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(flat[0]))
        w.writeheader()
        w.writerows(flat)
    if not a.no_docs:
        from common import replace_region

        replace_region(ROOT / "docs" / "benchmarks.md", "singling_out", body)


if __name__ == "__main__":
    main()
