"""Hypotheses batch 1 for Nin, Herranz & Torra (2007) T10 MDAV (Census): metrics, greedy growth, end game spread,
rounding, whole-record partition, the partition of the neighbouring block, column orders.
Usage: python research/mdavx_h1.py [names...]  (default: all)"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

import numpy as np

from mdav_lib import generic_masker, name_order, run
from research_lib import load

H = {
    "base": dict(),
    "manhattan": dict(metric=1),
    "chebyshev": dict(metric=2),
    "greedy_cent": dict(grow=1),
    "spread": dict(endgame=1),
    "round": dict(rnd=True),
    "whole_part": dict(whole=True),
    "offbyone": dict(shift=1),
}
PERMS = ("p_name", "p_var_asc", "p_var_desc", "p_rev", "p_mean_asc")


def perm(name, x0):
    return {"p_name": lambda: name_order("census"), "p_var_asc": lambda: np.argsort(x0.var(0)),
            "p_var_desc": lambda: np.argsort(-x0.var(0)), "p_rev": lambda: np.arange(13)[::-1],
            "p_mean_asc": lambda: np.argsort(x0.mean(0))}[name]()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", metavar="name",
                    help=f"masking variants {list(H)} (file order) or column orders {list(PERMS)} (base MDAV)")
    a = ap.parse_args()
    unknown = [h for h in a.names if h not in H and h not in PERMS]
    if unknown:
        ap.error(f"unknown name(s) {unknown}")
    x0 = load("census")
    for h in a.names or list(H) + list(PERMS):
        if h in H:
            run(h, generic_masker(**H[h]))
        else:
            run(h, generic_masker(), perm=perm(h, x0))


if __name__ == "__main__":
    main()
