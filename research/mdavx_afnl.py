"""AFNLWGT has '2 implied decimal places' (sdcMicro doc): if the paper's file held AFNLWGT/100,
raw-distance MDAV partitions change (IL ratios and standardised DLD themselves are scale-free).
Census MDAV cells of Nin, Herranz & Torra (2007) T10, file and alphabetical order.
Usage: python research/mdavx_afnl.py [--cells]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

import numpy as np

from mdav_lib import generic_masker, name_order, run


def scaled_cols(fac, base):
    """fac: per-column factor applied before MDAV partition (values then scaled back: IL, DLD
    are invariant to a column's unit, so we mask the rescaled file and undo the unit)."""
    def f(x, v, k):
        return base(x * fac, v, k) / fac
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", action="store_true", help="print every cell")
    a = ap.parse_args()
    base = generic_masker()
    pn = name_order("census")
    fac = np.ones(13)
    fac[0] = 0.01
    run("file_afnl/100", scaled_cols(fac, base), verbose=a.cells)
    run("name_afnl/100", scaled_cols(fac[pn], base), perm=pn, verbose=a.cells)


if __name__ == "__main__":
    main()
