"""Probe of the EIA L-RL floor (Nin, Herranz & Torra (2007) T2/T4): top R ranks of each attribute only swapped
locally (window w, inclusive rule), the rest rank-swapped normally. Does a p-independent local
band give the increasing EIA excess profile? ``bottom``: the band at the bottom instead.
Usage: python research/eiafloor_topband.py ds p,p R:w[;R:w] [top|bottom]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import mask_sorted, partners, print_counts
from research_lib import int_list, load


def band_partners(R, w):
    def f(order, P, rng):
        n = order.size
        src = np.empty(n, dtype=np.int64)
        src[:n - R] = partners("inclusive", n - R, P, rng)
        src[n - R:] = n - R + partners("inclusive", R, w, rng)
        return src
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("ps", type=int_list, help="comma-separated p")
    ap.add_argument("specs", help="R:w[;R:w...]: band of R ranks swapped with window w")
    ap.add_argument("side", nargs="?", default="top", choices=("top", "bottom"))
    a = ap.parse_args()
    x = load(a.dataset)
    for spec in a.specs.split(";"):
        R, w = (int(v) for v in spec.split(":"))
        for p in a.ps:
            y = mask_sorted(x, p, band_partners(R, w), np.random.default_rng(p), descending=a.side == "bottom")
            print_counts(x, y, p, a.dataset, label=f"{a.dataset} {a.side} R={R} w={w}")


if __name__ == "__main__":
    main()
