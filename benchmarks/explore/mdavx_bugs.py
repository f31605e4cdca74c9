"""Plausible implementation slips in a 2007 MDAV: (1) xs = farthest from xr among ALL records
(incl. already clustered; cluster = its k nearest remaining); (2) xr and xs both among all
records (centroid of the remaining). File and alphabetical order. Usage: python mdavx_bugs.py [--cells]"""
import sys
from mdavx_lib import *  # noqa
from mdavx_order import pn
from mdavx_generic import mdav

if __name__ == "__main__":
    vb = "--cells" in sys.argv
    for bug in (1, 2):
        f = per_block(lambda z, k, bug=bug: mdav(z, k, pool=bug))
        run(f"file_bug{bug}", f, verbose=vb)
        run(f"name_bug{bug}", f, perm=pn, verbose=vb)
