"""Alphabetical Census order (hypothesis from mdavx_order.py) combined with MDAV variants and
scalings. Usage: python mdavx_name_variants.py"""
from mdavx_lib import *  # noqa
from mdavx_h1 import mk
from mdav_lib import scale, mdav_variant, RULES
from mdavx_order import pn

for nm, f in [("name_manhattan", mk(metric=1)), ("name_chebyshev", mk(metric=2)),
              ("name_greedy", mk(grow=1))]:
    run(nm, f, perm=pn, verbose=False)


def scaled(sc, rule="textbook"):
    def f(x, v, k):
        return blockwise(x, v, k, dist_fn=lambda b: scale(b, sc), rule=rule)
    return f


for sc in ("z", "minmax", "log", "rank"):
    run("name_" + sc, scaled(sc), perm=pn, verbose=False)
for rule in ("xs_cent", "argus", "single"):
    run("name_" + rule, scaled("raw", rule), perm=pn, verbose=False)
