"""Rank swapping (inclusive rule) with a fixed maximum rank distance P instead of p: L-RL counts for
k = 1..m known attributes and DLD / ID / IL (Nin, Herranz & Torra (2007) T1-T4 shape at large p).
Usage: python research/rsties_scanP.py census|eia P,P,..."""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T1, T2]}, {paper: nin2007_location_rl, tables: [T3, T4], measures: [IL, LLD, DLD, ID, Score1, Score2]}]
import argparse

import numpy as np

from rankswap_lib import dld, id_, il, mask
from research_lib import int_list, load
from sdcrisk.linkage.location import rsrl


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("Ps", type=int_list, help="comma-separated rank distances P")
    a = ap.parse_args()
    e = load(a.dataset)
    n, m = e.shape
    for P in a.Ps:
        y = mask(e, None, "inclusive", np.random.default_rng(P), Pfun=lambda p, n: P)
        c = [rsrl(e, y, known=np.arange(k), distance=P).n_correct for k in range(1, m + 1)]
        print(P, c, "DLD %.2f ID %.2f IL %.2f" % (dld(e, y), id_(e, y), il(e, y)), flush=True)


if __name__ == "__main__":
    main()
