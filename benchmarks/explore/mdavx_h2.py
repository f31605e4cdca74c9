"""Hypotheses batch 2 (alphabetical Census order unless 'file' given): Mahalanobis distance per
block; fixed global centroid (not recomputed); distance on one attribute of the block only.
Usage: python mdavx_h2.py [name|file] [--cells]"""
import sys
from mdavx_lib import *  # noqa
from mdavx_order import pn
from mdavx_generic import mdav


def maha(b):
    c = b - b.mean(0)
    L = np.linalg.cholesky(np.linalg.inv(np.cov(c.T)))
    return c @ L


fixedc = per_block(lambda z, k: mdav(z, k, centroid=3))


def first_attr(x, v, k):
    return blockwise(x, v, k, dist_fn=lambda b: b[:, :1])


def last_attr(x, v, k):
    return blockwise(x, v, k, dist_fn=lambda b: b[:, -1:])


def maxsd_attr(x, v, k):
    return blockwise(x, v, k, dist_fn=lambda b: b[:, [np.argmax(b.std(0))]])


if __name__ == "__main__":
    perm = None if "file" in sys.argv else pn
    vb = "--cells" in sys.argv
    run("mahalanobis", lambda x, v, k: blockwise(x, v, k, dist_fn=maha), perm=perm, verbose=vb)
    run("fixed_centroid", fixedc, perm=perm, verbose=vb)
    run("first_attr_only", first_attr, perm=perm, verbose=vb)
    run("last_attr_only", last_attr, perm=perm, verbose=vb)
    run("maxsd_attr_only", maxsd_attr, perm=perm, verbose=vb)
