"""Nin, Herranz & Torra (2007) Table 9 (L-RL counts on MDAV) under candidate L-RL rules and MDAV maskings.

Rules (candidate set per known block = masked records whose block centroid is the nearest
centroid to the original record's block values; metric ``cm`` = "z" (original mean/sd) or "raw"):
  inter      intersection over the first g blocks, DBRL inside, no link when empty (package rule)
  inter_fb   as inter, but an empty intersection falls back to plain DBRL on the known attributes
  annot      annotated union (Nin, Herranz & Torra (2008, rank swapping) §6): records in the largest number of the g sets, DBRL inside
  union      records in any of the g sets, DBRL inside
  unique     only singleton intersections (the intruder "can be sure"), counted when correct
Usage: python mdav_t9.py --sc raw z --cm z raw --rule inter inter_fb annot unique [--ds census eia]
"""
from __future__ import annotations
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702

import argparse
import csv
import sys

import numpy as np

from common import ROOT, load  # noqa: E402

from mdav_lib import masked  # noqa: E402

T9 = {}
for r in csv.DictReader(open(ROOT / "published" / "published_values.csv")):
    if r["paper"] == "nin2007_location_rl" and r["method"] == "mdav" and r["table"] == "T9":
        v, k = (int(p.split("=")[1]) for p in r["param"].split(";"))
        T9[(r["dataset"], v, k, int(r["known"]))] = float(r["value"])


def zs(a):
    sd = a.std(0, ddof=1)
    return (a - a.mean(0)) / np.where(sd > 0, sd, 1)


def counts(x, y, bls, cm, rule):
    n = x.shape[0]
    mu, sd = x.mean(0), x.std(0, ddof=1)
    memb = []  # per block: n x n bool candidate matrix row i = allowed masked records for original i
    for b in bls:
        xb, yb = x[:, b], y[:, b]
        if cm == "z":
            xb, yb = (xb - mu[b]) / sd[b], (yb - mu[b]) / sd[b]
        cent, inv = np.unique(yb, axis=0, return_inverse=True)
        nn = np.empty(n, dtype=np.int64)
        for s in range(0, n, 512):
            nn[s:s + 512] = ((xb[s:s + 512, None, :] - cent[None]) ** 2).sum(2).argmin(1)
        memb.append(inv.ravel()[None, :] == nn[:, None])
    out = []
    for g in range(2, len(bls) + 1):
        cols = np.concatenate(bls[:g])
        xs, ys = zs(x[:, cols]), zs(y[:, cols])
        if rule == "annot":
            cnt = np.zeros((n, n), dtype=np.int16)
            for t in range(g):
                cnt += memb[t]
            cand = cnt == cnt.max(1, keepdims=True)
        elif rule == "union":
            cand = np.zeros((n, n), dtype=bool)
            for t in range(g):
                cand |= memb[t]
        else:
            cand = np.ones((n, n), dtype=bool)
            for t in range(g):
                cand &= memb[t]
        if rule == "unique":
            out.append(int(((cand.sum(1) == 1) & cand[np.arange(n), np.arange(n)]).sum()))
            continue
        hits = 0
        for s in range(0, n, 512):
            e = min(s + 512, n)
            d = ((xs[s:e, None, :] - ys[None]) ** 2).sum(2)
            c = cand[s:e]
            empty = ~c.any(1)
            if rule == "inter_fb":
                c = c.copy()
                c[empty] = True
            d[~c] = np.inf
            best = d.argmin(1)
            ok = np.isfinite(d.min(1))
            hits += int((ok & (best == np.arange(s, e))).sum())
        out.append(hits)
    return out


def report(ds, tag, rule, cells, count_fn, quiet=False):
    """Print ours vs published Table 9 per MDAV cell and the MAD / trend summary of one rule."""
    dev, sh = [], []
    for (v, k), (x, y, bls) in cells.items():
        ours = count_fn(x, y, bls)
        pub = [T9[(ds, v, k, g)] for g in range(2, len(bls) + 1)]
        dev += [o - p for o, p in zip(ours, pub)]
        if len(pub) > 1:  # shape: sign of the change with more groups
            sh += [np.sign(ours[-1] - ours[0]) == np.sign(pub[-1] - pub[0])]
        if not quiet:
            print(f"   {ds} {tag} {rule:8} Mic{v}-{k:02d} ours {ours} pub {[int(p) for p in pub]}")
    dev = np.array(dev)
    print(f"{ds} {tag} rule={rule}: MAD {np.abs(dev).mean():.1f} signed {dev.mean():+.1f} "
          f"max {np.abs(dev).max():.0f}; trend sign agrees {sum(sh)}/{len(sh)}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sc", nargs="+", default=["raw", "z"])
    ap.add_argument("--cm", nargs="+", default=["z", "raw"])
    ap.add_argument("--rule", nargs="+", default=["inter", "inter_fb", "annot", "unique"])
    ap.add_argument("--ds", nargs="+", default=["census"])
    ap.add_argument("--mrule", default="textbook")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    for ds in a.ds:
        x0 = load(ds)
        for sc in a.sc:
            cells = {(v, k): masked(x0, v, k, sc, "last", a.mrule) for v in (2, 3, 4) for k in (5, 15, 25)}
            for cm in a.cm:
                for rule in a.rule:
                    report(ds, f"sc={sc} cm={cm}", rule, cells, lambda x, y, bls: counts(x, y, bls, cm, rule),
                           a.quiet)


if __name__ == "__main__":
    main()
