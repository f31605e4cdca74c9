"""Block layouts (mdav_lib.blocks: last, first, own, rr) in the alphabetical Census order.
Usage: python mdavx_name_layout.py"""
from mdavx_lib import *  # noqa
from mdavx_order import pn

for bl in ("last", "first", "own", "rr"):
    run("name_bl_" + bl, lambda x, v, k, bl=bl: blockwise(x, v, k, bl=bl), perm=pn, verbose=False)
