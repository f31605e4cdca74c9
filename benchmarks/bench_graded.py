"""PRL-graded (`sdcrisk.linkage.graded.prl_graded`) against splink 5 (DuckDB), same pairs, one process.

    python benchmarks/bench_graded.py [--sizes 10000 100000 1000000] [--splink-max 1000000]
                                      [--splink-timeout 600] [--out benchmarks/results]

splink is a benchmark-only dependency (``pip install 'splink>=5,<6'``), not one of the package's.

Data: Census-like, 10 attributes (:func:`census_like`: the Census reference file's marginals and
rank correlations through a Gaussian copula, 4 decimals); masked by the registry's rank swapping p = 5 at every size and,
at 10^4, by additive noise a = 0.1 and MDAV (v = 3, k = 3). Every attribute is known.

splink, given PRL-graded's comparison ("rank levels"): per attribute the levels exact (equal
values) / |rank difference| <= 0.001, 0.01, 0.05, 0.20 (ranks: each value's mid-rank within its
own file divided by n, as PRL-graded's bands; ``AbsoluteDifferenceLevel`` on rank columns added to
both tables) / else; link_only between the two files; probability that two random records match
1/n; u by random sampling (``max_pairs`` 1e7); m by EM, one session per attribute group, blocked
on the group's 10 rank bins (``floor(l.r_j * 10) = floor(r.r_j * 10)`` for every j of the group,
written on the compared columns so splink leaves those comparisons' m to the other session).
Predictions: a union of equi-join rules on rank bins, ``floor(r_j * 10 + o_j)`` equal for every
attribute j of a group of 5 (two groups), one rule per offset combination o in {0, 0.5}^5 (64
rules): a pair whose rank differences are all below 5 % of n shares the bins of some rule (width
10 % of n), which keeps every true pair of rank swapping p = 5. Its pair count grows as n^2 (about
1.4 x 10^7 at 10^5, about 1.5 x 10^9 at 10^6); a size whose sampled estimate exceeds
``--splink-max-pairs`` (5 x 10^7) is recorded, not run. Then each original's 5 best predictions
enter a greedy one-to-one by match weight (a pair is linked when neither record is linked yet);
"% best" is each original's best-scoring masked record, not one-to-one. The second splink row
("value % levels", as the issue configured it) replaces the rank levels with value-based
percentage differences, exact / within 1 % / 5 % / 20 % (``abs(l - r) / greatest(abs(l),
abs(r))``) / else, with the same training and blocking.

Link rate: % of original records linked to their true masked record. splink runs in a child
process under a wall-clock limit (``--splink-timeout``), DuckDB memory limit 5 GB (it spills to
disk beyond); a run that exceeds the time or fails is recorded as such. Peak memory is the
child's (splink) or this process's growth (PRL-graded) max resident set. Blocking recall is the
share of true pairs the prediction rules generate (exact, from the same bin keys).

A configuration not kept (value levels, prediction rules "equal 100-record rank
bin" on one attribute each, EM on two such rules) linked 2.49 % at 10^4 and 0.24 % at 10^5: its
rules kept 57 % of the true pairs at 10^4 and 16 % at 10^5 (rank swapping moves every value by up
to 5 % of n, 500 and 5,000 records, so a 100-record bin of one attribute rarely holds both), and
its EM sessions were blocked on such rules (about 0.07 % matches among their pairs at 10^4;
splink advises 1-99 %). With the present blocking and training the value levels link 78 % at 10^4.
"""

from __future__ import annotations

import argparse
import csv
import itertools
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

LEVELS_PCT = (0.01, 0.05, 0.20)  # the value-based levels (percentage difference)
LEVELS_RANK = (0.001, 0.01, 0.05, 0.20)  # PRL-graded's bands, |rank difference| as a fraction of n
GROUPS = ((0, 1, 2, 4, 7), (3, 5, 6, 8, 9))  # attribute groups of splink's prediction rules
BINS = 10  # rank bins per attribute (width 10 % of n)
OFFSETS = (0.0, 0.5)  # bin offsets (in bins): every combination per group is one rule
EM_BINS = 10  # rank bins of the EM training rules (one per group, offset 0)
U_PAIRS = 1e7  # splink's u sample
DUCKDB_MEMORY = "5GB"  # DuckDB spills to disk beyond this
TOP = 5  # splink: best predictions per original entering the greedy one-to-one
LOAD_START = ", ".join(f"{v:.2f}" for v in os.getloadavg())


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


def rank_fractions(v: np.ndarray) -> np.ndarray:
    """Mid-rank of each value within its own column, divided by n (as PRL-graded's bands)."""
    from scipy.stats import rankdata

    return rankdata(v, axis=0, method="average") / v.shape[0]


def block_keys(r: np.ndarray) -> list[np.ndarray]:
    """One int64 key per record and prediction rule: the rank bins ``floor(r_j * B + o)`` of
    the group's attributes, every offset combination o in OFFSETS^k (module docstring)."""
    keys = []
    for group in GROUPS:
        for offs in itertools.product(OFFSETS, repeat=len(group)):
            k = np.zeros(r.shape[0], dtype=np.int64)
            for j, o in zip(group, offs):
                k = k * (BINS + 2) + np.floor(r[:, j] * BINS + o).astype(np.int64)
            keys.append(k)
    return keys


def blocking_stats(rx: np.ndarray, ry: np.ndarray, sample: int = 1000) -> tuple[float, float]:
    """(recall, estimated pairs) of the union of the prediction rules. Recall: the share of
    true pairs (original i, masked i) that some rule keeps (exact). Pairs: mean over a random
    sample of originals of their distinct blocked masked records, times n."""
    kx, ky = block_keys(rx), block_keys(ry)
    n = rx.shape[0]
    recall = float(np.mean(np.any([a == b for a, b in zip(kx, ky)], axis=0)))
    sorted_y = [(np.sort(b), np.argsort(b, kind="stable")) for b in ky]
    rows = np.random.default_rng(3).choice(n, size=min(sample, n), replace=False)
    counts = []
    for i in rows:
        hits = [order[np.searchsorted(s, a[i]):np.searchsorted(s, a[i], side="right")]
                for a, (s, order) in zip(kx, sorted_y)]
        counts.append(np.unique(np.concatenate(hits)).size)
    return recall, float(np.mean(counts)) * n


def splink_link(x: np.ndarray, y: np.ndarray, levels: str) -> tuple[np.ndarray, np.ndarray, dict]:
    """splink 5 on DuckDB (module docstring); ``levels`` "rank" (PRL-graded's comparison) or
    "value" (the issue's percentage differences). Returns the best-per-original links, the greedy
    one-to-one links (-1: none) and counts."""
    import duckdb
    import pandas as pd
    import splink.comparison_level_library as cll
    import splink.comparison_library as cl
    from splink import Linker, SettingsCreator, block_on
    from splink.backends.duckdb import DuckDBAPI

    n, c = x.shape
    cols = [f"v{j}" for j in range(c)]

    def frame(v, offset):
        df = pd.DataFrame(v, columns=cols)
        r = rank_fractions(v)
        for j in range(c):
            df[f"r{j}"] = r[:, j]
            for k, o in enumerate(OFFSETS):
                df[f"b{j}_{k}"] = np.floor(r[:, j] * BINS + o).astype(np.int64)
        df.insert(0, "unique_id", np.arange(n, dtype=np.int64) + offset)
        return df

    a, b = frame(x, 0), frame(y, n)
    con = duckdb.connect()
    con.execute(f"SET threads TO {os.cpu_count() or 2}")
    con.execute(f"SET memory_limit = '{DUCKDB_MEMORY}'")
    db = DuckDBAPI(connection=con)
    if levels == "rank":
        comparisons = [cl.CustomComparison(
            [cll.ExactMatchLevel(f"v{j}")] + [cll.AbsoluteDifferenceLevel(f"r{j}", t) for t in LEVELS_RANK]
            + [cll.ElseLevel()], output_column_name=f"v{j}") for j in range(c)]
    else:
        comparisons = [cl.CustomComparison(
            [cll.ExactMatchLevel(col)] + [cll.PercentageDifferenceLevel(col, t) for t in LEVELS_PCT] + [cll.ElseLevel()],
            output_column_name=col) for col in cols]
    rules = [block_on(*[f"b{j}_{k}" for j, k in zip(group, offs)])
             for group in GROUPS for offs in itertools.product(range(len(OFFSETS)), repeat=len(group))]
    settings = SettingsCreator(link_type="link_only", comparisons=comparisons,
                               blocking_rules_to_generate_predictions=rules,
                               probability_two_random_records_match=1.0 / n, retain_matching_columns=False)
    linker = Linker([db.register(a, table_name="original"), db.register(b, table_name="masked")], settings,
                    log_level=40)
    linker.training.estimate_u_using_random_sampling(max_pairs=U_PAIRS, seed=1)
    # EM as splink recommends: one session per group of attributes, blocked on the group's rank
    # bins written on the compared columns, so the session estimates m of the other attributes
    for group in GROUPS:
        # (value levels: "l.v_j is not null", always true, names the compared column for splink)
        rule = " and ".join(f"floor(l.r{j} * {EM_BINS}) = floor(r.r{j} * {EM_BINS})"
                            + (f" and l.v{j} is not null" if levels == "value" else "") for j in group)
        linker.training.estimate_parameters_using_expectation_maximisation(rule)
    pred = linker.inference.predict()
    pairs = int(con.execute(f"select count(*) from {pred.physical_name}").fetchone()[0])
    top = con.execute(f"""
        select unique_id_l, unique_id_r, match_weight from (
          select unique_id_l, unique_id_r, match_weight,
                 row_number() over (partition by least(unique_id_l, unique_id_r)
                                    order by match_weight desc, greatest(unique_id_l, unique_id_r)) as k
          from {pred.physical_name}) where k <= {TOP}""").fetchnumpy()
    left, right = top["unique_id_l"].astype(np.int64), top["unique_id_r"].astype(np.int64)
    li, lj = np.minimum(left, right), np.maximum(left, right) - n  # original ids < n <= masked ids
    o = np.lexsort((lj, li, -top["match_weight"]))
    li, lj = li[o], lj[o]
    best = np.full(n, -1, dtype=np.int64)
    links = np.full(n, -1, dtype=np.int64)
    used = np.zeros(n, dtype=bool)
    for i, j in zip(li, lj):  # sorted by weight: the first pair of an original is its best
        if best[i] < 0:
            best[i] = j
        if links[i] < 0 and not used[j]:  # greedy one-to-one by match weight
            links[i] = j
            used[j] = True
    m = {}
    for cc in linker.misc.save_model_to_json()["comparisons"]:
        lv = [lvl for lvl in cc["comparison_levels"] if "m_probability" in lvl]
        m[cc["output_column_name"]] = [round(lvl["m_probability"], 3) for lvl in lv]
    return best, links, {"pairs": pairs, "m": m}


def _splink_child(x, y, levels, queue):
    t0 = time.perf_counter()
    try:
        best, links, extra = splink_link(x, y, levels)
        ids = np.arange(x.shape[0])
        extra["best"] = float(np.mean(best == ids) * 100)
        queue.put(("ok", time.perf_counter() - t0, float(np.mean(links == ids) * 100), peak_mb(), extra))
    except BaseException as e:  # noqa: BLE001  (recorded as the row)
        msg = next((line for line in str(e).splitlines()[::-1] if "Error" in line), str(e).splitlines()[0])
        queue.put(("error", time.perf_counter() - t0, float("nan"), peak_mb(), {"error": f"{type(e).__name__}: {msg}"}))


def run_splink(x, y, levels: str, timeout: float):
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_splink_child, args=(x, y, levels, queue))
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
    ap.add_argument("--splink-max-pairs", type=float, default=5e7,
                    help="splink is not run when its rules' estimated pair count exceeds this")
    ap.add_argument("--value-max", type=int, default=100_000, help="largest size of the value-level splink row")
    ap.add_argument("--splink-timeout", type=float, default=600.0)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args()
    import splink

    tool = f"splink {splink.__version__} (DuckDB)"
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
            rows.append(row_g)
            if n > args.splink_max:
                continue
            recall, est = blocking_stats(rank_fractions(x), rank_fractions(y), sample=1000 if n <= 100_000 else 200)
            for levels in ("rank", "value"):
                label = f"{tool}, rank levels" if levels == "rank" else f"{tool}, value % levels (issue)"
                if levels == "value" and n > args.value_max:
                    continue
                if est > args.splink_max_pairs:
                    rows.append({"n": n, "masking": masking, "tool": label, "status": "not run",
                                 "pairs": f"~{est:.3g} (est.)", "recall": round(recall, 4),
                                 "note": f"estimated pairs above {args.splink_max_pairs:.0e}"})
                    print(rows[-1], flush=True)
                    continue
                status, t_s, pct, mb, extra = run_splink(x, y, levels, args.splink_timeout)
                ok = status == "ok"
                row_s = {"n": n, "masking": masking, "tool": label, "status": status, "seconds": round(t_s, 2),
                         "percent": round(pct, 2), "percent_best": round(extra["best"], 2) if ok else "",
                         "peak_mb": round(mb, 0), "pairs": extra.get("pairs", ""), "recall": round(recall, 4),
                         "note": extra.get("error", "")}
                if ok:
                    row_s["time_ratio"] = round(t_s / t_g, 1)
                    row_s["rate_ratio"] = round(res.percent_correct / pct, 3) if pct > 0 else ""
                elif status == "timeout":
                    row_s["time_ratio"] = f">{t_s / t_g:.1f}"
                print(row_s, extra.get("m", ""), flush=True)
                rows.append(row_s)
    write(rows, args)


def write(rows, args) -> None:
    args.out.mkdir(parents=True, exist_ok=True)
    fields = ["n", "masking", "tool", "status", "seconds", "percent", "percent_best", "peak_mb", "pairs", "recall",
              "time_ratio", "rate_ratio", "note"]
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
             "(PRL-graded: the benchmark process; splink: its child process). splink: % linked = greedy one-to-one "
             "over each original's 5 best predictions; % best = each original's best-scoring masked record (not "
             "one-to-one); blocking recall = share of the true pairs its prediction rules generate; pairs of a row "
             "not run: sampled estimate.", "",
             f"Load average at the start / end of the run: {LOAD_START} / {os.getloadavg()[0]:.2f}, "
             f"{os.getloadavg()[1]:.2f}, {os.getloadavg()[2]:.2f} (1, 5, 15 min).", "",
             "| n | masking | tool | status | seconds | % linked | % best | peak MB | pairs | blocking recall "
             "| time ratio | rate ratio | note |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(k, "")) for k in fields) + " |")
    (args.out / "graded.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
