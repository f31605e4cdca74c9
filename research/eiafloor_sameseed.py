"""Probe of the EIA L-RL floor (Nin, Herranz & Torra (2007) T2/T4): the same random stream for every attribute
(generator re-seeded per column), so the partner permutation in rank space is identical across
attributes. Usage: python research/eiafloor_sameseed.py ds p,p"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import mask_sorted, partners, print_counts
from research_lib import int_list, load


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("ps", type=int_list, help="comma-separated p")
    a = ap.parse_args()
    x = load(a.dataset)
    for p in a.ps:
        y = mask_sorted(x, p, lambda order, P, rng: partners("inclusive", order.size, P, np.random.default_rng(p)),
                        None)
        print_counts(x, y, p, a.dataset, label=f"{a.dataset} sameseed")


if __name__ == "__main__":
    main()
