"""Hypotheses batch 2 for Nin, Herranz & Torra (2007) T10 MDAV (alphabetical Census order unless 'file' given):
Mahalanobis distance per block; fixed global centroid (not recomputed); distance on one
attribute of the block only. Usage: python research/mdavx_h2.py [name|file] [--cells]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

import numpy as np

from mdav_lib import blockwise, centroid_masker, name_order, run


def maha(b):
    c = b - b.mean(0)
    L = np.linalg.cholesky(np.linalg.inv(np.cov(c.T)))
    return c @ L


def one_attr(pick):
    """Masking function: MDAV per block on the one attribute ``pick(block)`` of the block."""
    return lambda x, v, k: blockwise(x, v, k, dist_fn=lambda b: b[:, pick(b)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("order", nargs="?", default="name", choices=("name", "file"), help="Census column order")
    ap.add_argument("--cells", action="store_true", help="print every cell")
    a = ap.parse_args()
    perm = None if a.order == "file" else name_order("census")
    vb = a.cells
    run("mahalanobis", lambda x, v, k: blockwise(x, v, k, dist_fn=maha), perm=perm, verbose=vb)
    run("fixed_centroid", centroid_masker(3), perm=perm, verbose=vb)
    run("first_attr_only", one_attr(lambda b: [0]), perm=perm, verbose=vb)
    run("last_attr_only", one_attr(lambda b: [-1]), perm=perm, verbose=vb)
    run("maxsd_attr_only", one_attr(lambda b: [np.argmax(b.std(0))]), perm=perm, verbose=vb)


if __name__ == "__main__":
    main()
