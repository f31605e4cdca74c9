"""Nin, Herranz & Torra (2007) Table 9 (L-RL counts on MDAV) under candidate L-RL rules and MDAV maskings.

Rules (candidate set per known block = masked records whose block centroid is the nearest
centroid to the original record's block values; metric ``cm`` = "z" (original mean/sd) or "raw"):
  inter      intersection over the first g blocks, DBRL inside, no link when empty (package rule)
  inter_fb   as inter, but an empty intersection falls back to plain DBRL on the known attributes
  annot      annotated union (Nin, Herranz & Torra (2008, rank swapping) §6): records in the largest number of the g sets, DBRL inside
  union      records in any of the g sets, DBRL inside
  unique     only singleton intersections (the intruder "can be sure"), counted when correct
Usage: python research/mdav_t9.py --sc raw z --cm z raw --rule inter inter_fb annot unique [--ds census eia]
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T9]}, {paper: nin2007_location_rl, tables: [T10, T11], measures: [LLD, Score2]}]
from __future__ import annotations

import argparse

import numpy as np

from mdav_lib import centroid_sets, dbrl_within, masked, t9_report, unique_hits
from research_lib import load


def counts(x, y, bls, cm, rule):
    n = x.shape[0]
    memb = [centroid_sets(x, y, b, cm) for b in bls]  # per block: row i = allowed masked records for original i
    out = []
    for g in range(2, len(bls) + 1):
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
            out.append(unique_hits(cand))
            continue
        out.append(dbrl_within(x, y, np.concatenate(bls[:g]), cand, fallback=rule == "inter_fb"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sc", nargs="+", default=["raw", "z"], help="MDAV distance scale")
    ap.add_argument("--cm", nargs="+", default=["z", "raw"], help="nearest-centroid metric")
    ap.add_argument("--rule", nargs="+", default=["inter", "inter_fb", "annot", "unique"],
                    help="inter inter_fb annot union unique")
    ap.add_argument("--ds", nargs="+", default=["census"])
    ap.add_argument("--mrule", default="textbook", help="MDAV variant (mdav_lib.RULES)")
    ap.add_argument("--quiet", action="store_true", help="only the summaries")
    a = ap.parse_args()
    for ds in a.ds:
        x0 = load(ds)
        for sc in a.sc:
            cells = {(v, k): masked(x0, v, k, sc, "last", a.mrule) for v in (2, 3, 4) for k in (5, 15, 25)}
            for cm in a.cm:
                for rule in a.rule:
                    t9_report(ds, f"sc={sc} cm={cm}", rule, cells,
                              lambda x, y, bls: counts(x, y, bls, cm, rule), a.quiet)


if __name__ == "__main__":
    main()
