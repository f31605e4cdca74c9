"""Ties in the L-RL and DBRL of rank swapping (Nin, Herranz & Torra (2007) T1-T4): correct links counted with the
lowest-index minimum, with ties counted correct, and the expectation of a random tie break, for
k = 1..m known attributes; DLD likewise. Usage: python research/rsties_ties.py census|eia rule p,p,... [stable|random|desc]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import dbrl_tie_counts, lrl_tie_counts, mask, published_counts, published_scores
from research_lib import int_list, load
from sdcrisk.masking.swapping import rank_distance


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("rule", help="partner rule")
    ap.add_argument("ps", type=int_list, help="comma-separated p")
    ap.add_argument("order_mode", nargs="?", default="stable", help="tie order: stable random desc")
    a = ap.parse_args()
    ds = a.dataset
    x = load(ds)
    n, m = x.shape
    for p in a.ps:
        P = rank_distance(p, n)
        y = mask(x, p, a.rule, np.random.default_rng(p), order_mode=a.order_mode)
        res = [lrl_tie_counts(x, y, k, P) for k in range(1, m + 1)]
        h = -(-m // 2)
        dl = [dbrl_tie_counts(x, y, j) for j in range(1, h + 1)]
        print(f"{ds} {a.rule} p={p} P={P}")
        for key in ["index", "tiecorrect", "random"]:
            print(f"  {key:10s}", " ".join(f"{r[key]:.0f}" for r in res))
        print("  published ", " ".join(f"{v:.0f}" for v in published_counts(ds, p)))
        print("  DLD index %.2f tiecorrect %.2f pub %.2f" % (
            100 * np.mean([d["index"] for d in dl]) / n, 100 * np.mean([d["tiecorrect"] for d in dl]) / n,
            published_scores(ds, p)["DLD"]))


if __name__ == "__main__":
    main()
