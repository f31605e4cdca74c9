"""Probe of the EIA L-RL floor (Nin, Herranz & Torra (2007) T2): does another attribute order of EIA explain it?
k=1 count per attribute as the first, and full profiles for a few orders (inclusive rule,
1 masking). Usage: python research/eiafloor_order.py p,p"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import lrl_counts, mask, print_counts
from research_lib import int_list, load

ORDERS = {"file": list(range(10)), "rev_then_sales": [0, 2, 4, 6, 8, 1, 3, 5, 7, 9],
          "reversed": list(range(9, -1, -1)), "tot_first": [8, 9, 0, 1, 2, 3, 4, 5, 6, 7]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ps", type=int_list, help="comma-separated p")
    a = ap.parse_args()
    x = load("eia")
    n, m = x.shape
    for p in a.ps:
        y = mask(x, p, "inclusive", np.random.default_rng(p))
        print(p, "k=1 per attribute:", [lrl_counts(x[:, [j]], y[:, [j]], p, [1])[1] for j in range(m)])
        for name, o in ORDERS.items():
            print_counts(x[:, o], y[:, o], p, "eia", full=False, label=name)


if __name__ == "__main__":
    main()
