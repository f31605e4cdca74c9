"""EIA L-RL floor of Nin, Herranz & Torra (2007) T2 (eiatop H3): the column sorted as text (lexicographic order of
the printed numbers, as a text-file tool or a string comparator would), partner rule inclusive;
variants: "%d" strings, "%.1f" strings, and "%d" zero-padded (== numeric order for nonnegatives,
control). Usage: python research/eiatop_lexsort.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import mask_columns, report, swap_in_order
from sdcrisk.masking.swapping import _rankswap_kernel


def strkey(fmt):
    def pf(col, P, rng):
        s = np.array([fmt % v for v in col])
        o = np.argsort(s, kind="stable")
        return swap_in_order(col, o, _rankswap_kernel(col.size, P, 1, rng))
    return lambda x, p, r: mask_columns(x, p, pf, r)


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    report('lexicographic "%d"', strkey("%d"), seeds=(1,))
    report('lexicographic "%.1f"', strkey("%.1f"), seeds=(1,))
    report('zero-padded "%012d" (control)', strkey("%012d"), seeds=(1,))


if __name__ == "__main__":
    main()
