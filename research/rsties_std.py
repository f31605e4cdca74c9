"""Standardisation of the linkage on rank-swapped data (Nin, Herranz & Torra (2007) T1-T4): L-RL counts and DLD
with each file standardised by its own mean/sd or raw values, and DLD with the Mahalanobis metric.
Usage: python research/rsties_std.py census|eia p,p,... [rule]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import mask, published_counts, published_scores
from research_lib import int_list, load
from sdcrisk.linkage.distance import dbrl
from sdcrisk.linkage.location import rsrl


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("ps", type=int_list, help="comma-separated p")
    ap.add_argument("rule", nargs="?", default="inclusive", help="partner rule (default inclusive)")
    a = ap.parse_args()
    ds = a.dataset
    x = load(ds)
    n, m = x.shape
    h = -(-m // 2)
    for p in a.ps:
        y = mask(x, p, a.rule, np.random.default_rng(p))
        print(ds, p, "published", " ".join(f"{v:.0f}" for v in published_counts(ds, p)),
              "DLD", published_scores(ds, p)["DLD"])
        for std in ["own", "none"]:
            c = [rsrl(x, y, known=np.arange(k), p=p, standardise=std).n_correct for k in range(1, m + 1)]
            d = np.mean([dbrl(x, y, known=np.arange(j), standardise=std).percent_correct for j in range(1, h + 1)])
            print(f"   {std:6s}", " ".join(map(str, c)), "DLD %.2f" % d, flush=True)
        d = np.mean([dbrl(x, y, known=np.arange(j), metric="mahalanobis").percent_correct for j in range(1, h + 1)])
        print("   mahal DLD %.2f" % d)


if __name__ == "__main__":
    main()
