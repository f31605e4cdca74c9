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
Usage: python mdav_t9_attr.py [--ds census eia] [--rule near group near_fb group_fb near_au group_au] [--sc raw z]
"""
from __future__ import annotations
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702

import argparse

import numpy as np

from common import load  # noqa: E402
from mdav_lib import masked  # noqa: E402
from mdav_t9 import report, zs  # noqa: E402
from sdcrisk.linkage.location import microaggregation_intervals, _sorted_masked  # noqa: E402


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
    n = x.shape[0]
    base = rule.removesuffix("_fb")
    out = []
    for g in range(2, len(bls) + 1):
        cols = np.concatenate(bls[:g])
        cand = attr_sets(x[:, cols], y[:, cols], base, k)
        if rule.endswith("_auu"):  # only a single record at the top count links (the intruder is sure)
            out.append(int(((cand.sum(1) == 1) & cand[np.arange(n), np.arange(n)]).sum()))
            continue
        xs, ys = zs(x[:, cols]), zs(y[:, cols])
        hits = 0
        for s in range(0, n, 512):
            e = min(s + 512, n)
            d = ((xs[s:e, None, :] - ys[None]) ** 2).sum(2)
            c = cand[s:e].copy()
            if rule.endswith("_fb"):
                c[~c.any(1)] = True
            d[~c] = np.inf
            ok = np.isfinite(d.min(1))
            hits += int((ok & (d.argmin(1) == np.arange(s, e))).sum())
        out.append(hits)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sc", nargs="+", default=["raw"])
    ap.add_argument("--rule", nargs="+", default=["near", "group", "near_fb", "group_fb"])
    ap.add_argument("--ds", nargs="+", default=["census"])
    a = ap.parse_args()
    for ds in a.ds:
        x0 = load(ds)
        for sc in a.sc:
            cells = {(v, k): masked(x0, v, k, sc, "last") for v in (2, 3, 4) for k in (5, 15, 25)}
            k_of = {id(c[1]): k for (v, k), c in cells.items()}  # the MDAV k, for the window rule
            for rule in a.rule:
                report(ds, f"sc={sc}", rule, cells, lambda x, y, bls: counts(x, y, bls, rule, k_of[id(y)]))

if __name__ == "__main__":
    main()
