"""Centroid definition used to pick xr (the farthest record): mean (textbook), coordinate-wise
median, midrange; aggregation stays the mean. File and alphabetical order.
Usage: python mdavx_centdef.py"""
from mdavx_lib import *  # noqa
from mdavx_order import pn
from mdavx_generic import mdav


def mk(how):
    """Masking function f(x, v, k): MDAV per block, xr picked from centroid rule ``how``
    (1 median, 2 midrange)."""
    return per_block(lambda z, k: mdav(z, k, centroid=how))


if __name__ == "__main__":
    for how, nm in ((1, "median"), (2, "midrange")):
        f = mk(how)
        run("file_cent_" + nm, f, verbose=False)
        run("name_cent_" + nm, f, perm=pn, verbose=False)
