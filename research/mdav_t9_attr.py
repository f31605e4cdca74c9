"""Nin, Herranz & Torra (2007) Table 9 (L-RL counts on MDAV) under per-attribute (univariate) L-RL rules.

``mdav_t9.py`` tried candidate sets per block (nearest centroid). Here the candidate set is built
per attribute of the known blocks, as the univariate L-RL of Nin, Herranz & Torra (2007) §4.1.2 would do it if applied
unchanged to MDAV output:
  near       masked records whose j-th value is the distinct masked value nearest to x_ij
  group      the package's univariate ``group`` rule (runs of equal masked values mapped onto the
             sorted original column) -- ``sdcrisk.linkage.location.microaggregation_intervals``
  window     the package's univariate ``window`` rule with the MDAV k (masked records within rank
             distance 2k - 1 of x_ij, extended to whole runs of equal values)
Both are intersected over the attributes; ``_fb`` variants fall back to plain DBRL on the known
attributes when the intersection is empty; ``_au`` variants take the annotated union instead
(Nin, Herranz & Torra (2008, rank swapping) §6: the records in the largest number of per-attribute sets), DBRL inside; ``_auu``
counts only records whose annotated union is the true record alone.
Usage: python research/mdav_t9_attr.py [--ds census eia] [--rule near group near_fb group_fb near_au group_au near_auu] [--sc raw z]
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T9]}, {paper: nin2007_location_rl, tables: [T10, T11], measures: [LLD, Score2]}]
from __future__ import annotations

import argparse

import numpy as np

from mdav_lib import dbrl_within, masked, t9_report, unique_hits
from research_lib import load
from sdcrisk.linkage.location import _sorted_masked, microaggregation_intervals


def attr_hits(x, y, rule, k=None):
    """Per column j of x / y: the n x n bool matrix of masked records in B(x_ij)."""
    n, m = x.shape
    if rule in ("group", "window"):
        a, b = microaggregation_intervals(x, y, rule, k)
        _, _, pos = _sorted_masked(y)
        for j in range(m):
            yield (pos[None, :, j] >= a[:, j, None]) & (pos[None, :, j] < b[:, j, None])
        return
    for j in range(m):
        vals = np.unique(y[:, j])
        i = np.clip(np.searchsorted(vals, x[:, j]), 1, len(vals) - 1) if len(vals) > 1 else np.zeros(n, int)
        lo, hi = vals[i - 1], vals[i]
        dlo, dhi = np.abs(x[:, j] - lo), np.abs(hi - x[:, j])
        near_lo = dlo <= dhi
        near_hi = dhi <= dlo
        yield (near_lo[:, None] & (y[None, :, j] == lo[:, None])) | (near_hi[:, None] & (y[None, :, j] == hi[:, None]))


def attr_sets(x, y, rule, k=None):
    """n x n bool candidate matrix: intersection over the columns of x / y, or with rule
    ``<base>_au`` the annotated union (records in the largest number of the per-column sets)."""
    base = rule.removesuffix("_auu").removesuffix("_au")
    cnt = np.zeros((x.shape[0], y.shape[0]), dtype=np.int16)
    for hit in attr_hits(x, y, base, k):
        cnt += hit
    if rule.endswith(("_au", "_auu")):
        return cnt == cnt.max(axis=1, keepdims=True)
    return cnt == x.shape[1]


def counts(x, y, bls, rule, k=None):
    base = rule.removesuffix("_fb")
    out = []
    for g in range(2, len(bls) + 1):
        cols = np.concatenate(bls[:g])
        cand = attr_sets(x[:, cols], y[:, cols], base, k)
        if rule.endswith("_auu"):  # only a single record at the top count links (the intruder is sure)
            out.append(unique_hits(cand))
            continue
        out.append(dbrl_within(x, y, cols, cand, fallback=rule.endswith("_fb")))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sc", nargs="+", default=["raw"], help="MDAV distance scale")
    ap.add_argument("--rule", nargs="+", default=["near", "group", "near_fb", "group_fb"],
                    help="near group window, with suffix _fb, _au or _auu")
    ap.add_argument("--ds", nargs="+", default=["census"])
    a = ap.parse_args()
    for ds in a.ds:
        x0 = load(ds)
        for sc in a.sc:
            cells = {(v, k): masked(x0, v, k, sc, "last") for v in (2, 3, 4) for k in (5, 15, 25)}
            k_of = {id(c[1]): k for (v, k), c in cells.items()}  # the MDAV k, for the window rule
            for rule in a.rule:
                t9_report(ds, f"sc={sc}", rule, cells, lambda x, y, bls: counts(x, y, bls, rule, k_of[id(y)]))


if __name__ == "__main__":
    main()
