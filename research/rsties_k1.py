"""Where the k = 1 L-RL links of rank swapping come from (Nin, Herranz & Torra (2007) T1/T2): per p, the mean over 3
maskings of correct links (lowest index; ties counted correct), of the tie-correct records with a
zero, with a tied nonzero value, with a unique value, and of values kept in place (first attribute).
Usage: python research/rsties_k1.py census|eia rule [stable|random|desc]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T1, T2]}, {paper: nin2007_location_rl, tables: [T3, T4], measures: [LLD, Score2]}]
import argparse

import numpy as np

from rankswap_lib import lrl_tie_counts, mask
from research_lib import load
from sdcrisk.masking.swapping import rank_distance


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("rule", help="partner rule")
    ap.add_argument("order_mode", nargs="?", default="stable", help="tie order: stable random desc")
    a = ap.parse_args()
    x = load(a.dataset)
    n, m = x.shape
    for p in [2, 4, 6, 8, 10, 14, 20]:
        P = rank_distance(p, n)
        out = []
        for r in range(3):
            y = mask(x, p, a.rule, np.random.default_rng(100 * p + r), order_mode=a.order_mode)
            res = lrl_tie_counts(x, y, 1, P)
            tm = res["tm"]
            zero = x[:, 0] == 0
            u, inv, c = np.unique(x[:, 0], return_inverse=True, return_counts=True)
            tied = c[inv.ravel()] > 1
            out.append([res["index"], res["tiecorrect"], (tm & zero).sum(), (tm & tied & ~zero).sum(),
                        (tm & ~tied).sum(), (y[:, 0] == x[:, 0]).sum()])
        print(p, np.mean(out, axis=0).round(1))


if __name__ == "__main__":
    main()
