"""Spread of Census IL/DLD per cell over near-equivalent MDAV versions (textbook, xs_cent, argus,
single, fixed centroid, median/midrange centroid, Manhattan, greedy) in file and alphabetical order.
Usage: python mdavx_spread.py"""
from mdavx_lib import *  # noqa
from mdavx_order import pn
from mdavx_h1 import mk as mk1
from mdavx_h2 import fixedc
from mdavx_centdef import mk as mkc

V = {"textbook": mk1(), "manhattan": mk1(metric=1), "greedy": mk1(grow=1), "fixedc": fixedc,
     "median_c": mkc(1), "midrange_c": mkc(2)}
for r in ("xs_cent", "argus", "single"):
    V[r] = (lambda rr: (lambda x, v, k: blockwise(x, v, k, rule=rr)))(r)
for order, perm in (("file", None), ("name", pn)):
    tab = {}
    for nm, f in V.items():
        rows, _ = run(f"{order}_{nm}", f, perm=perm, verbose=False, do_id=False)
        for v, k, r in rows:
            tab.setdefault((v, k), []).append((r["IL"], r["DLD"]))
    for (v, k), l in tab.items():
        a = np.array(l)
        print(f"{order} v{v}k{k:<2} IL range [{a[:, 0].min():5.1f},{a[:, 0].max():5.1f}] pub {PUB[('census', v, k, 'IL')]:5.1f}"
              f" | DLD range [{a[:, 1].min():5.1f},{a[:, 1].max():5.1f}] pub {PUB[('census', v, k, 'DLD')]:5.1f}")
