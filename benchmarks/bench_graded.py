"""PRL-graded (`sdcrisk.linkage.graded.prl_graded`) against splink 5 (DuckDB), same pairs, one process.

    python benchmarks/bench_graded.py [--sizes 10000 100000 1000000] [--splink-max 1000000]
                                      [--splink-timeout 600] [--out benchmarks/results]

splink is a benchmark-only dependency (``pip install 'splink>=5,<6'``), not one of the package's.

Data: Census-like, 10 attributes (:func:`census_like`: the Census reference file's marginals and
rank correlations through a Gaussian copula, 4 decimals); masked by the registry's rank swapping p = 5 at every size and,
at 10^4, by additive noise a = 0.1 and MDAV (v = 3, k = 3). Every attribute is known.

splink, as in the issue: per attribute the levels exact / within 1 % / 5 % / 20 % (percentage
difference, ``abs(l - r) / greatest(abs(l), abs(r))``) / else; link_only between the two files;
u by random sampling (``max_pairs`` 1e7), m and the match share by EM on two blocking rules;
predictions from the blocking rules "equal 100-record rank bin on attribute j" (the rank of the
value within its own file, divided by 100, one rule per attribute, union); then one-to-one: the
candidate pairs of each original's 5 best predictions, taken greedily by match weight (a pair is
linked when neither record is linked yet). Link rate: % of original records linked to their true
masked record. splink runs in a child process under a wall-clock limit (``--splink-timeout``);
a run that exceeds it or fails is recorded as such. Peak memory is the child's (splink) or this
process's growth (PRL-graded) max resident set.
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing as mp
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

from common import ROOT, load  # noqa: F401  (common also puts src/ on sys.path)

from sdcrisk.linkage.graded import prl_graded  # noqa: E402
from sdcrisk.masking import mask  # noqa: E402

LEVELS_PCT = (0.01, 0.05, 0.20)
SPLINK_BIN = 100  # records per rank bin of splink's blocking rules
TOP = 5  # splink: best predictions per original entering the greedy one-to-one


def census_like(n: int, seed: int = 20260601) -> np.ndarray:
    """n records with the Census reference file's marginals and rank dependence (first 10
    attributes): a Gaussian copula fitted to its normal scores, each margin the Census column's
    empirical quantile function (linear interpolation), rounded to 4 decimals."""
    from scipy.special import ndtr, ndtri
    from scipy.stats import rankdata

    base = load("census")[:, :10]
    m = base.shape[0]
    scores = ndtri((rankdata(base, axis=0) - 0.5) / m)
    corr = np.corrcoef(scores, rowvar=False)
    rng = np.random.default_rng(seed)
    u = ndtr(rng.standard_normal((n, base.shape[1])) @ np.linalg.cholesky(corr).T)
    grid = (np.arange(m) + 0.5) / m
    x = np.column_stack([np.interp(u[:, j], grid, np.sort(base[:, j])) for j in range(base.shape[1])])
    return np.round(x, 4)


def masked_file(x: np.ndarray, masking: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    if masking == "rankswap p=5":
        return mask("rankswap", x, rng, p=5)
    if masking == "noise a=0.1":
        return mask("additive_noise", x, rng, a=0.1)
    if masking == "MDAV v=3 k=3":
        return mask("mdav", x, None, v=3, k=3)
    raise ValueError(masking)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def splink_link(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, dict]:
    """splink 5 on DuckDB (module docstring); returns the links (-1: none) and counts."""
    import duckdb
    import pandas as pd
    import splink.comparison_level_library as cll
    import splink.comparison_library as cl
    from scipy.stats import rankdata
    from splink import Linker, SettingsCreator, block_on
    from splink.backends.duckdb import DuckDBAPI

    n, c = x.shape
    cols = [f"v{j}" for j in range(c)]

    def frame(v, offset):
        df = pd.DataFrame(v, columns=cols)
        ranks = rankdata(v, axis=0, method="ordinal") - 1
        for j in range(c):
            df[f"bin{j}"] = (ranks[:, j] // SPLINK_BIN).astype(np.int64)
        df.insert(0, "unique_id", np.arange(n, dtype=np.int64) + offset)
        return df

    a, b = frame(x, 0), frame(y, n)
    con = duckdb.connect()
    con.execute(f"SET threads TO {os.cpu_count() or 2}")
    db = DuckDBAPI(connection=con)
    comparisons = [cl.CustomComparison(
        [cll.ExactMatchLevel(col)] + [cll.PercentageDifferenceLevel(col, t) for t in LEVELS_PCT] + [cll.ElseLevel()],
        output_column_name=col) for col in cols]
    rules = [block_on(f"bin{j}") for j in range(c)]
    settings = SettingsCreator(link_type="link_only", comparisons=comparisons,
                               blocking_rules_to_generate_predictions=rules,
                               probability_two_random_records_match=1.0 / n, retain_matching_columns=False)
    linker = Linker([db.register(a, table_name="original"), db.register(b, table_name="masked")], settings,
                    log_level=40)
    linker.training.estimate_u_using_random_sampling(max_pairs=1e7, seed=1)
    for j in (0, 1):
        linker.training.estimate_parameters_using_expectation_maximisation(block_on(f"bin{j}"))
    pred = linker.inference.predict()
    top = con.execute(f"""
        select unique_id_l, unique_id_r, match_weight from (
          select unique_id_l, unique_id_r, match_weight,
                 row_number() over (partition by least(unique_id_l, unique_id_r) order by match_weight desc, greatest(unique_id_l, unique_id_r)) as k
          from {pred.physical_name}) where k <= {TOP}""").fetchnumpy()
    pairs = int(con.execute(f"select count(*) from {pred.physical_name}").fetchone()[0])
    left, right = top["unique_id_l"].astype(np.int64), top["unique_id_r"].astype(np.int64)
    li, lj = np.minimum(left, right), np.maximum(left, right) - n  # original ids < n <= masked ids
    o = np.lexsort((lj, li, -top["match_weight"]))
    li, lj = li[o], lj[o]
    links = np.full(n, -1, dtype=np.int64)
    used = np.zeros(n, dtype=bool)
    for i, j in zip(li, lj):  # greedy one-to-one by match weight
        if links[i] < 0 and not used[j]:
            links[i] = j
            used[j] = True
    return links, {"pairs": pairs}


def _splink_child(x, y, queue):
    t0 = time.perf_counter()
    try:
        links, extra = splink_link(x, y)
        queue.put(("ok", time.perf_counter() - t0, float(np.mean(links == np.arange(x.shape[0])) * 100), peak_mb(),
                   extra))
    except BaseException as e:  # noqa: BLE001  (recorded as the row)
        queue.put(("error", time.perf_counter() - t0, float("nan"), peak_mb(), {"error": f"{type(e).__name__}: {e}"}))


def run_splink(x, y, timeout: float):
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_splink_child, args=(x, y, queue))
    t0 = time.perf_counter()
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return "timeout", time.perf_counter() - t0, float("nan"), float("nan"), {"error": f"over {timeout:.0f} s"}
    if queue.empty():
        return "error", time.perf_counter() - t0, float("nan"), float("nan"), {"error": f"exit code {proc.exitcode}"}
    return queue.get()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--splink-max", type=int, default=1_000_000, help="largest size splink is run at")
    ap.add_argument("--splink-timeout", type=float, default=600.0)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args()
    import splink

    rows = []
    warm = census_like(2000)
    prl_graded(warm, masked_file(warm, "rankswap p=5"))  # compile the kernels outside the timings
    for n in args.sizes:
        x = census_like(n)
        for masking in (["rankswap p=5", "noise a=0.1", "MDAV v=3 k=3"] if n <= 10_000 else ["rankswap p=5"]):
            y = masked_file(x, masking)
            base = peak_mb()
            t0 = time.perf_counter()
            res = prl_graded(x, y)
            t_g = time.perf_counter() - t0
            row_g = {"n": n, "masking": masking, "tool": "PRL-graded", "status": "ok", "seconds": round(t_g, 2),
                     "percent": round(res.percent_correct, 2), "peak_mb": round(max(peak_mb(), base), 0),
                     "pairs": res.info["pairs"], "note": f"EM {res.info['iterations']} it., converged "
                                                         f"{res.info['converged']}"}
            print(row_g, res.info["seconds"], flush=True)
            if n <= args.splink_max:
                status, t_s, pct, mb, extra = run_splink(x, y, args.splink_timeout)
                row_s = {"n": n, "masking": masking, "tool": f"splink {splink.__version__} (DuckDB)", "status": status,
                         "seconds": round(t_s, 2), "percent": round(pct, 2), "peak_mb": round(mb, 0),
                         "pairs": extra.get("pairs", ""), "note": extra.get("error", "")}
                ok = status == "ok"
                row_g["time_ratio"] = round(t_s / t_g, 1) if ok else f">{t_s / t_g:.1f}" if status == "timeout" else ""
                row_g["rate_ratio"] = round(res.percent_correct / pct, 2) if ok and pct > 0 else ""
                print(row_s, flush=True)
                rows += [row_g, row_s]
            else:
                rows.append(row_g)
    write(rows, args)


def write(rows, args) -> None:
    args.out.mkdir(parents=True, exist_ok=True)
    fields = ["n", "masking", "tool", "status", "seconds", "percent", "peak_mb", "pairs", "time_ratio", "rate_ratio",
              "note"]
    with open(args.out / "graded.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = ["# PRL-graded against splink 5", "",
             f"Machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}. "
             f"Command: `python benchmarks/bench_graded.py {' '.join(sys.argv[1:])}`.", "",
             "Link rate: % of original records linked to their true masked record; time ratio = splink seconds / "
             "PRL-graded seconds; rate ratio = PRL-graded % / splink %. Peak MB: max resident set of the process "
             "(PRL-graded: the benchmark process; splink: its child process).", "",
             "| n | masking | tool | status | seconds | % linked | peak MB | pairs | time ratio | rate ratio | note |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(k, "")) for k in ["n", "masking", "tool", "status", "seconds", "percent",
                                                                    "peak_mb", "pairs", "time_ratio", "rate_ratio",
                                                                    "note"]) + " |")
    (args.out / "graded.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
