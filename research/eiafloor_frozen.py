"""Which per-attribute frozen rank bands (bottom b / top t % of the values kept, the rest
rank-swapped among themselves) give the EIA excess of Nin, Herranz & Torra (2007) T2/T4?
Usage: python research/eiafloor_frozen.py ds p,p mode:frac[;mode:frac]  (mode bottom|top|both)"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import mask_frozen, print_counts
from research_lib import int_list, load


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("ps", type=int_list, help="comma-separated p")
    ap.add_argument("specs", help="mode:percent[;mode:percent...], mode bottom|top|both")
    a = ap.parse_args()
    x = load(a.dataset)
    n, m = x.shape
    for spec in a.specs.split(";"):
        mode, frac = spec.split(":")
        frac = float(frac)
        rk = np.argsort(np.argsort(x, axis=0, kind="stable"), axis=0, kind="stable")
        b = int(n * frac / 100)
        fr = np.zeros_like(x, dtype=bool)
        if mode in ("bottom", "both"):
            fr |= rk < b
        if mode in ("top", "both"):
            fr |= rk >= n - b
        for p in a.ps:
            y = mask_frozen(x, p, fr, np.random.default_rng(p))
            print_counts(x, y, p, a.dataset, label=f"{a.dataset} {spec}")


if __name__ == "__main__":
    main()
