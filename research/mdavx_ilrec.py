"""Which (record, attribute) entries carry IL1 in the Census MDAV cells (Nin, Herranz & Torra (2007) T10), and
how much IL one tiny value can add: IL points of entry (i, j) = 20 * |x-x'|/|x| / (n*m).
Usage: python research/mdavx_ilrec.py [file|name]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}]
import argparse

import numpy as np

from mdav_lib import CELLS, generic_masker, name_order, published_t1011
from research_lib import columns, load
from sdcrisk.measures.information_loss import information_loss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("order", nargs="?", default="name", choices=("name", "file"), help="Census column order")
    a = ap.parse_args()
    pub = published_t1011()
    x = load("census")
    p = name_order("census") if a.order == "name" else np.arange(13)
    x = np.ascontiguousarray(x[:, p])
    nm = [columns("census")[i] for i in p]
    n, m = x.shape
    f = generic_masker()
    for v, k in CELLS:
        y = f(x, v, k)
        pts = np.abs(x - y) / np.abs(x) * 100 * 0.2 / (n * m)
        top = np.argsort(pts.ravel())[::-1][:4]
        desc = ", ".join(f"r{t // m}:{nm[t % m]} {x.ravel()[t]:.0f}->{y.ravel()[t]:.0f} ({pts.ravel()[t]:.2f})"
                         for t in top)
        print(f"v{v}k{k:<2} IL {information_loss(x, y):5.1f} pub {pub[('census', v, k, 'IL')]:5.1f}  "
              f"IL1pts {pts.sum():5.1f} top: {desc}")


if __name__ == "__main__":
    main()
