"""Muralidhar & Domingo-Ferrer (2016) Table 1 (independent additive noise) under the two readings of
its noise level a: e_ij ~ N(0, (a sigma_j)^2) (``sd``: a scales the standard deviation, the
reading ``sdcrisk.masking.noise.additive_noise`` implements) or e_ij ~ N(0, a sigma_j^2)
(``variance``: a scales the variance, so the standard deviation is sqrt(a) sigma_j). The paper
(Sec. 4) writes the noise as N(0, a sigma) without saying which. Census and EIA, every a of
Table 1, ``reps`` maskings per cell (the paper: 100); DBRL / RBRL-Sum / RBRL-Max with every
attribute known, as the check computes them. Prints ours / published per cell, then per reading
the mean absolute deviation, the largest |deviation| and the cells within 1 point.
Usage: python research/noise_scale.py [--reps 20] [--datasets census eia] [--readings sd variance]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: muralidhar2016_rank_rl, tables: [T1]}]
from __future__ import annotations

import argparse

import numpy as np

from research_lib import load, published
from sdcrisk.linkage.distance import dbrl
from sdcrisk.linkage.rank import rbrl

MEASURES = ("DBRL", "RBRL-Sum", "RBRL-Max")
READINGS = {"sd": lambda a: a, "variance": lambda a: np.sqrt(a)}  # noise sd as a multiple of sigma_j


def table1() -> dict:
    """Muralidhar & Domingo-Ferrer (2016) Table 1: {(dataset, a, measure): value}."""
    return {(r["dataset"], float(r["param"].split("=")[1]), r["measure"]): float(r["value"])
            for r in published(paper="muralidhar2016_rank_rl", table="T1")}


def rates(x: np.ndarray, scale: float, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Mean % correct links of DBRL, RBRL-Sum, RBRL-Max over ``reps`` maskings with noise sd ``scale`` sigma_j."""
    sigma = x.std(axis=0, ddof=1)
    out = np.zeros((reps, 3))
    for t in range(reps):
        y = x + rng.standard_normal(x.shape) * (scale * sigma)
        out[t] = [dbrl(x, y).percent_correct, rbrl(x, y, criterion="sum").percent_correct,
                  rbrl(x, y, criterion="max").percent_correct]
    return out.mean(axis=0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20, help="maskings per cell (default 20; the paper: 100)")
    ap.add_argument("--datasets", nargs="+", default=["census", "eia"], choices=["census", "eia"])
    ap.add_argument("--readings", nargs="+", default=list(READINGS), choices=list(READINGS))
    ap.add_argument("--seed", type=int, default=20160401, help="root seed (one generator per reading and data set)")
    a = ap.parse_args(argv)
    pub = table1()
    levels = sorted({lvl for (_, lvl, _) in pub})
    dev = {r: [] for r in a.readings}
    for ds in a.datasets:
        x = load(ds)
        for i, reading in enumerate(a.readings):
            rng = np.random.default_rng([a.seed, i, a.datasets.index(ds)])
            for lvl in levels:
                ours = rates(x, READINGS[reading](lvl), a.reps, rng)
                pv = [pub[(ds, lvl, m)] for m in MEASURES]
                dev[reading] += list(ours - pv)
                print(f"{ds:6s} {reading:8s} a={lvl:<4g} " + "  ".join(
                    f"{m} {o:5.1f}/{q:5.1f}" for m, o, q in zip(MEASURES, ours, pv)), flush=True)
    print(f"\nours/published above; {a.reps} maskings per cell. Per reading over "
          f"{len(next(iter(dev.values())))} cells:")
    for reading, d in dev.items():
        d = np.abs(d)
        print(f"  {reading:8s} MAD {d.mean():6.2f}  max |d| {d.max():6.2f}  within 1 point {int((d <= 1).sum())}/{len(d)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
