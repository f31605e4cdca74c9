"""Probe of the EIA L-RL floor (Nin, Herranz & Torra (2007) T2/T4): rank swapping whose positions are visited in
FILE order (record-level process), partner uniform among still-unswapped in window (fwd [r, r+P]
inclusive, or two-sided), per attribute. Usage: python research/eiafloor_fileorder.py ds p,p fwd|two"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np
from numba import njit

from rankswap_lib import mask_sorted, print_counts
from research_lib import int_list, load


@njit(cache=True)
def _kern(n, P, vis, two, rng):
    src = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    buf = np.empty(2 * P + 2, dtype=np.int64)
    for t in range(n):
        i = vis[t]
        if not avail[i]:
            continue
        avail[i] = False
        lo = max(0, i - P) if two else i + 1
        hi = min(n - 1, i + P)
        c = 0
        for k in range(lo, hi + 1):
            if avail[k]:
                buf[c] = k
                c += 1
        r = rng.integers(0, c + 1)
        if r == c:
            continue
        l = buf[r]
        avail[l] = False
        src[i] = l
        src[l] = i
    return src


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("ps", type=int_list, help="comma-separated p")
    ap.add_argument("window", choices=("fwd", "two"))
    a = ap.parse_args()
    two = a.window == "two"
    x = load(a.dataset)

    def file_order_partners(order, P, rng):
        """Visit the rank positions in record (file) order."""
        pos = np.empty(order.size, dtype=np.int64)
        pos[order] = np.arange(order.size)
        return _kern(order.size, P, pos, two, rng)

    for p in a.ps:
        y = mask_sorted(x, p, file_order_partners, np.random.default_rng(p))
        print_counts(x, y, p, a.dataset, label=f"{a.dataset} fileorder {a.window}")


if __name__ == "__main__":
    main()
