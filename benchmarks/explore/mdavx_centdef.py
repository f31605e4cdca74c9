"""Centroid definition used to pick xr (the farthest record): mean (textbook), coordinate-wise
median, midrange; aggregation stays the mean. File and alphabetical order.
Usage: python mdavx_centdef.py"""
from mdavx_lib import *  # noqa
from mdavx_order import pn
from mdavx_generic import mdav

if __name__ == "__main__":
    for how, nm in ((1, "median"), (2, "midrange")):
        f = per_block(lambda z, k, how=how: mdav(z, k, centroid=how))
        run("file_cent_" + nm, f, verbose=False)
        run("name_cent_" + nm, f, perm=pn, verbose=False)
