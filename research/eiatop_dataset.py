"""EIA L-RL floor of Nin, Herranz & Torra (2007) T2 (eiatop H4): data features that could define a p-independent
linkable set. Prints, beside the published p = 20 floor, for k = 1..10: records with a zero (or
zero / negative) among the first k attributes; records whose first-k vector is unique; records
whose L-RL candidate set on the UNMASKED file (y = x) is the record alone at p = 10 / 20; and, for
the baseline masking (inclusive, p = 20, 2 seeds), how many correct links fall in the 'any zero' set.
Usage: python research/eiatop_dataset.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import mask_columns, published_counts, std_partner
from research_lib import load
from sdcrisk.linkage.location import rank_swap_intervals, rsrl
from sdcrisk.masking.swapping import rank_distance


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    x = load("eia")
    n = x.shape[0]
    z = x == 0
    print("pub p=20            ", published_counts("eia", 20).tolist())
    print("any zero first k    ", [int(z[:, :k].any(1).sum()) for k in range(1, 11)])
    print("zero/neg first k    ", [int((x[:, :k] <= 0).any(1).sum()) for k in range(1, 11)])
    print("unique first-k vec  ", [int((np.unique(x[:, :k], axis=0, return_counts=True)[1] == 1).sum())
                                   for k in range(1, 11)])
    for p in (10, 20):
        P = rank_distance(p, n)
        out = []
        for k in range(1, 11):
            a, b = rank_swap_intervals(x[:, :k], x[:, :k], P)
            # size of intersection is hard from ranges; count records whose narrowest range has size 1
            out.append(int(((b - a).min(1) == 1).sum()))
        print(f"window of 1 (p={p})  ", out)
    for s in (1, 2):
        y = mask_columns(x, 20, std_partner, np.random.default_rng(20000 + s))
        line = []
        for k in range(1, 11):
            ok = rsrl(x, y, known=list(range(k)), p=20).links == np.arange(n)
            line.append(f"{ok.sum()}/{(ok & z[:, :k].any(1)).sum()}")
        print(f"baseline p=20 seed {s}: correct/of which any-zero ", " ".join(line))


if __name__ == "__main__":
    main()
