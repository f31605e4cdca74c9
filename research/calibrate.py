"""Calibrate the choices the papers leave open, on their deterministic experiments.

Every alternative is run on the deterministic cells and compared with the published cell;
published numbers are only *compared against* (mean absolute deviation, max |deviation|, count
within the published rounding), never fed into a computation. Checks (``--only``):

* ``t5`` -- Muralidhar & Domingo-Ferrer (2016) Table 5 (individual-ranking microaggregation, all attributes known; Census
  k = 10..540, EIA k = 341..2046) and the text's Census k = 216: DBRL standardisation
  ("own" / "original" / "none"), RBRL tie ranks ("average" / "min" / "ordinal"), and the
  tie-break of the link (first argmin = the package; last argmin and the expectation of a
  uniformly random choice among the tied minima, for information).
* ``scenarios`` -- Nin, Herranz & Torra (2007) Tables 7/8 (optimal univariate microaggregation, k = 10..50): the
  known-attribute scenario rule averaged into DLD and PLD (first j, j = 1..ceil(m/2) /
  1..floor(m/2) / 2..5; sampled j-subsets, j = 1..ceil(m/2), fixed rng; ``--exhaustive`` adds
  all j-subsets), and Nin, Herranz & Torra (2007) Table 5 L-RL counts (first c attributes, c = 2..5) under the
  candidate rule "group" vs "window".
* ``mdav`` -- Nin, Herranz & Torra (2007) Tables 10/11 (MDAV, v = 2, 3, 4; k = 5, 15, 25): DLD over the first j
  attributes vs the first g groups of variables.
* ``rounding`` -- the rank-swap maximum rank distance P = n p / 100 under floor / round / ceil,
  and Muralidhar & Domingo-Ferrer (2016) Table 2 (rank swapping variant "moore", p = 1, 5, 10 %; Census, where only p = 1
  differs, and EIA) RBRL-Max under floor vs ceil over a few maskings (mean, sd; the same seeds
  for both roundings).

Usage: python research/calibrate.py [--only t5,scenarios,mdav,rounding] [--cells]
       [--exhaustive] [--per-size N] [--maskings N]
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: muralidhar2016_rank_rl, tables: [T2, T5, "text of Sec. 4 (microaggregation)"]}, {paper: nin2007_location_rl, tables: [T5, T7, T8, T10, T11]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}, {paper: nin2008_multivariate_ma, tables: ["Tables 1-2 (text of Sec. 3.1)"], methods: [mdav]}]

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from research_lib import load, published
from sdcrisk.linkage.distance import dbrl, standardise
from sdcrisk.linkage.location import lrl_microaggregation
from sdcrisk.linkage.probabilistic import prl
from sdcrisk.linkage.rank import rank_matrix, rbrl
from sdcrisk.masking import mask
from sdcrisk.masking.microaggregation import attribute_blocks
from sdcrisk.masking.swapping import ROUNDINGS, rank_distance
from sdcrisk.measures.scenarios import average_linkage, block_columns, known_block_scenarios, known_scenarios

CHECKS = ("t5", "scenarios", "mdav", "rounding")
T5_K = {"census": (10, 54, 108, 270, 360, 540), "eia": (341, 372, 682, 1023, 1364, 2046)}
T78_K = (10, 20, 30, 40, 50)
MDAV_VK = [(v, k) for v in (2, 3, 4) for k in (5, 15, 25)]


# ---------------------------------------------------------------------------- published cells
def published_cells(paper: str, table: str) -> dict[tuple[str, str, str, str], float]:
    """{(dataset, param, known, measure): value} of one published table."""
    return {(r["dataset"], r["param"], r["known"], r["measure"]): float(r["value"])
            for r in published(paper=paper, table=table)}


def published_claim(dataset: str, method: str, param: str, measure: str) -> float | None:
    rows = published(claims=True, dataset=dataset, method=method, param=param, measure=measure)
    return float(rows[0]["value"]) if rows else None


def summary(label: str, rows, half_unit: float, width: int = 40) -> None:
    """Print MAD, max |d|, signed mean and the count of cells within the published rounding.

    ``rows``: (ours, published) pairs; a cell is within rounding when |ours - pub| <= half a
    unit of the published last digit (``half_unit``)."""
    o = np.array([r[0] for r in rows], dtype=float)
    p = np.array([r[1] for r in rows], dtype=float)
    d = o - p
    within = int((np.abs(d) <= half_unit + 1e-9).sum())
    print(f"  {label:<{width}} MAD {np.abs(d).mean():7.3f}  max|d| {np.abs(d).max():7.3f}  "
          f"signed {d.mean():+7.3f}  within +-{half_unit:g}: {within:>3}/{d.size}")


# ---------------------------------------------------------------------------- 1. Muralidhar & Domingo-Ferrer (2016) Table 5
def tie_outcomes(a: np.ndarray, b: np.ndarray, kind: str, block: int = 128):
    """Percent correct under first argmin, last argmin and the expectation of a uniformly random
    pick among the tied minima, for the criterion ``kind`` ("sq" squared Euclidean on float
    rows, "sum"/"max" of |rank differences| on integer rows), and the number of original records
    with more than one tied minimum. Direct blockwise arithmetic (exact for the integer ranks;
    for "sq" the same direct formula as the package's exact re-scoring)."""
    n = a.shape[0]
    first = last = 0
    expect = 0.0
    ambiguous = 0
    for s in range(0, n, block):
        diff = a[s:s + block, None, :] - b[None, :, :]
        if kind == "sq":
            d = (diff * diff).sum(axis=2)
        elif kind == "sum":
            d = np.abs(diff).sum(axis=2)
        else:
            d = np.abs(diff).max(axis=2)
        tied = d == d.min(axis=1, keepdims=True)
        rows = np.arange(s, s + d.shape[0])
        size = tied.sum(axis=1)
        own = tied[np.arange(d.shape[0]), rows]
        first += int((tied.argmax(axis=1) == rows).sum())
        last += int((n - 1 - tied[:, ::-1].argmax(axis=1) == rows).sum())
        expect += float((own / size).sum())
        ambiguous += int((size > 1).sum())
    return 100 * first / n, 100 * last / n, 100 * expect / n, ambiguous


def check_t5(data: dict, cells: bool) -> None:
    print("\n=== 1. Muralidhar & Domingo-Ferrer (2016) Table 5: individual-ranking MA, all attributes known (published 1 decimal)")
    pub = published_cells("muralidhar2016_rank_rl", "T5")
    dev = {}  # alternative -> list of (ours, published)
    ties = []
    for name, ks in T5_K.items():
        x = data[name]
        for k in ks + ((216,) if name == "census" else ()):
            y = mask("individual_ranking_ma", x, None, k=k)
            got = {}
            for mode in ("own", "original", "none"):
                got[f"DBRL std={mode}"] = dbrl(x, y, standardise=mode).percent_correct
            for method in ("average", "min", "ordinal"):
                for crit, lab in (("sum", "RBRL-Sum"), ("max", "RBRL-Max")):
                    got[f"{lab} ranks={method}"] = rbrl(x, y, criterion=crit, ranks=method).percent_correct
            xs, ys = standardise(x, y, "own")
            r, s_ = rank_matrix(x, "average"), rank_matrix(y, "average")
            tie = {"DBRL": tie_outcomes(xs, ys, "sq"), "RBRL-Sum": tie_outcomes(r, s_, "sum"),
                   "RBRL-Max": tie_outcomes(r, s_, "max")}
            if k == 216:
                p = {m: published_claim("census", "individual_ranking_ma", "k=216", m)
                     for m in ("DBRL", "RBRL-Sum")}
            else:
                p = {m: pub.get((name, f"k={k}", "all", m)) for m in ("DBRL", "RBRL-Sum", "RBRL-Max")}
            tag = f"{name} k={k}" + (" (text)" if k == 216 else "")
            for alt, v in got.items():
                pv = p.get(alt.split(" ")[0])
                if pv is not None and k != 216:
                    dev.setdefault(alt, []).append((v, pv))
            for meas, (f, la, ex, amb) in tie.items():
                pv = p.get(meas)
                if pv is not None and k != 216:
                    dev.setdefault(f"{meas} tie=first (check)", []).append((f, pv))
                    dev.setdefault(f"{meas} tie=last", []).append((la, pv))
                    dev.setdefault(f"{meas} tie=random (expected)", []).append((ex, pv))
                ties.append((tag, meas, f, la, ex, amb))
            if cells or k == 216:
                pubs = "  ".join(f"{m} {v:.1f}" for m, v in p.items() if v is not None)
                print(f"  {tag:<22} published: {pubs}")
                print("      ours: " + "  ".join(f"{a} {v:.2f}" for a, v in got.items()))
    print("  -- deviation over the 12 table rows (k=216 excluded; shown above):")
    for alt, rows in dev.items():
        summary(alt, rows, 0.05)
    print("  -- ties (all attributes; average ranks, own standardisation): "
          "first / last / random-expected %, records with >1 tied minimum")
    for tag, meas, f, la, ex, amb in ties:
        if cells or amb:
            print(f"    {tag:<22} {meas:<9} {f:6.2f} {la:6.2f} {ex:6.2f}  ambiguous {amb}")


# ---------------------------------------------------------------------------- 2. Nin, Herranz & Torra (2007) Tables 7/8, 5
def scenario_rules(m: int, exhaustive: bool, per_size: int):
    """{rule label: list of known-column arrays}; sizes are len(arrays)."""
    half_up, half_down = math.ceil(m / 2), max(1, m // 2)
    rules = {
        f"first_j j=1..ceil(m/2)={half_up}": known_scenarios(m, "first_j"),
        f"first_j j=1..floor(m/2)={half_down}": known_scenarios(m, "first_j", j_max=half_down),
        "first_j j=2..5": known_scenarios(m, "first_j", j_min=2, j_max=min(5, m)),
        f"sampled_subsets j=1..{half_up} ({per_size}/j, rng 0)":
            known_scenarios(m, "sampled_subsets", rng=np.random.default_rng(0), per_size=per_size),
    }
    if exhaustive:
        rules[f"all_subsets j=1..{half_up}"] = known_scenarios(m, "all_subsets")
    return rules


def linkage_percent(meas: str, x: np.ndarray, y: np.ndarray, known: np.ndarray) -> float:
    """DLD (DBRL, own standardisation) or PLD (PRL, default coincidence "nearest", rng 0) in %."""
    if meas == "DLD":
        return dbrl(x, y, known=known).percent_correct
    return prl(x, y, known=known, rng=np.random.default_rng(0)).percent_correct


def check_scenarios(data: dict, cells: bool, exhaustive: bool, per_size: int, pld: bool) -> None:
    print("\n=== 2. Nin, Herranz & Torra (2007) Tables 7/8: optimal univariate MA, DLD/PLD scenario rule (published 2 decimals)")
    for table, name in (("T7", "census"), ("T8", "eia")):
        x = data[name]
        m = x.shape[1]
        pub = published_cells("nin2007_location_rl", table)
        rules = scenario_rules(m, exhaustive, per_size)
        masked = {k: mask("optimal_univariate_ma", x, None, k=k) for k in T78_K}
        print(f"  {name} (m={m}); scenarios per rule: " + ", ".join(f"{len(v)}" for v in rules.values()))
        memo = {}  # (measure, k, known columns) -> percent: the rules share their first-j scenarios
        for meas in ("DLD", "PLD") if pld else ("DLD",):
            for label, scen in rules.items():
                sizes = [len(c) for c in scen]
                rows = []
                for k in T78_K:
                    vals = []
                    for c in scen:
                        key = (meas, k, tuple(c.tolist()))
                        if key not in memo:
                            memo[key] = linkage_percent(meas, x, masked[k], c)
                        vals.append(memo[key])
                    rows.append((average_linkage(vals, sizes), pub[(name, str(k), "", meas)]))
                summary(f"{meas} {label}", rows, 0.005, 52)
                if cells:
                    print("      k=10..50 ours/pub: " + "  ".join(f"{o:.2f}/{p:.2f}" for o, p in rows))
    print("\n=== 2b. Nin, Herranz & Torra (2007) Table 5: L-RL count, optimal univariate MA, first c = 2..5 attributes known")
    pub = published_cells("nin2007_location_rl", "T5")
    for name in ("census", "eia"):
        x = data[name]
        masked = {k: mask("optimal_univariate_ma", x, None, k=k) for k in T78_K}
        for rule in ("group", "window"):
            rows = []
            for k, y in masked.items():
                for c in range(2, 6):
                    ours = lrl_microaggregation(x, y, known=np.arange(c), rule=rule, k=k).n_correct
                    rows.append((ours, pub[(name, str(k), str(c), "LLD_count")]))
            summary(f"{name} L-RL rule={rule}", rows, 0.5)
            if cells:
                print("      (k,c) ours/pub: " + "  ".join(
                    f"{k},{c}:{int(o)}/{int(p)}" for (k, c), (o, p) in
                    zip([(k, c) for k in T78_K for c in range(2, 6)], rows)))


# ---------------------------------------------------------------------------- 3. Nin, Herranz & Torra (2007) Tables 10/11
def check_mdav(data: dict, cells: bool) -> None:
    print("\n=== 3. Nin, Herranz & Torra (2007) Tables 10/11: MDAV, DLD scenario rule (published 2 decimals)")
    for table, name in (("T10", "census"), ("T11", "eia")):
        x = data[name]
        m = x.shape[1]
        pub = published_cells("nin2007_location_rl", table)
        rows = {"first j attributes, j=1..ceil(m/2)": [], "first g groups, g=2..n_blocks": [],
                "first g groups, g=1..n_blocks": []}
        for v, k in MDAV_VK:
            y = mask("mdav", x, None, v=v, k=k)
            blocks = attribute_blocks(m, v)
            nb = len(blocks)
            scen = {"first j attributes, j=1..ceil(m/2)": known_scenarios(m, "first_j"),
                    "first g groups, g=2..n_blocks":
                        [block_columns(blocks, g) for g in known_block_scenarios(nb, first=min(2, nb))],
                    "first g groups, g=1..n_blocks":
                        [block_columns(blocks, g) for g in known_block_scenarios(nb, first=1)]}
            p = pub[(name, f"v={v};k={k}", "", "DLD")]
            for label, sc in scen.items():
                rows[label].append((float(np.mean([dbrl(x, y, known=c).percent_correct for c in sc])), p))
        for label, r in rows.items():
            summary(f"{name} DLD {label}", r, 0.005, 46)
            if cells:
                print("      (v,k) ours/pub: " + "  ".join(
                    f"{v},{k}:{o:.2f}/{pp:.2f}" for (v, k), (o, pp) in zip(MDAV_VK, r)))


# ---------------------------------------------------------------------------- 4. rank distance rounding
def check_rounding(data: dict, maskings: int) -> None:
    print("\n=== 4. rank-swap maximum rank distance P = n p / 100 under each rounding")
    print(f"  {'data':<7} {'n':>5} {'p %':>4} " + " ".join(f"{r:>6}" for r in ROUNDINGS) + "   exact")
    for name in ("census", "eia"):
        n = data[name].shape[0]
        for p in (1, 2, 5, 10, 25):
            print(f"  {name:<7} {n:>5} {p:>4} " + " ".join(f"{rank_distance(p, n, r):>6}" for r in ROUNDINGS)
                  + f"   {n * p / 100:g}")
    print(f"\n  Muralidhar & Domingo-Ferrer (2016) Table 2, rankswap variant='moore', RBRL-Max %, {maskings} maskings "
          "(masking i uses default_rng(i) under every rounding; published: mean over 100 maskings)")
    pub = published_cells("muralidhar2016_rank_rl", "T2")
    for name in ("census", "eia"):  # Census: floor == ceil for p = 5, 10 (n p / 100 integral)
        x = data[name]
        n = x.shape[0]
        for p in (1, 5, 10):
            line = f"    {name:<6} p={p:>2}%  published {pub[(name, f'p_pct={p}', 'all', 'RBRL-Max')]:5.1f}"
            for rounding in ("floor", "ceil"):
                vals = [rbrl(x, mask("rankswap", x, np.random.default_rng(i), p=p, rounding=rounding,
                                     variant="moore"), criterion="max").percent_correct for i in range(maskings)]
                line += (f"   {rounding} (P={rank_distance(p, n, rounding)}) "
                         f"{np.mean(vals):6.2f} sd {np.std(vals, ddof=1):5.2f}")
            print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=",".join(CHECKS),
                    help=f"comma-separated subset of {','.join(CHECKS)} (default: all)")
    ap.add_argument("--cells", action="store_true", help="also print every cell (ours / published)")
    ap.add_argument("--exhaustive", action="store_true",
                    help="scenarios: add all j-subsets (slow: 637 EIA / 5811 Census scenarios per k)")
    ap.add_argument("--per-size", type=int, default=4, help="scenarios: sampled j-subsets per j (default 4)")
    ap.add_argument("--no-pld", action="store_true", help="scenarios: skip PLD")
    ap.add_argument("--maskings", type=int, default=10, help="rounding: maskings per cell (default 10)")
    a = ap.parse_args()
    only = [s.strip() for s in a.only.split(",") if s.strip()]
    bad = [s for s in only if s not in CHECKS]
    if bad:
        ap.error(f"--only: unknown check(s) {bad}; choose from {list(CHECKS)}")
    data = {name: load(name) for name in ("census", "eia")}
    for check in only:
        t0 = time.perf_counter()
        if check == "t5":
            check_t5(data, a.cells)
        elif check == "scenarios":
            check_scenarios(data, a.cells, a.exhaustive, a.per_size, not a.no_pld)
        elif check == "mdav":
            check_mdav(data, a.cells)
        else:
            check_rounding(data, a.maskings)
        print(f"  ({check}: {time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
