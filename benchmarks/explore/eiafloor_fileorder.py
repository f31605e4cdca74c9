"""Probe: rank swapping whose positions are visited in FILE order (record-level process), partner
uniform among still-unswapped in window (fwd [r, r+P] inclusive, or two-sided), per attribute.
Usage: eiafloor_fileorder.py ds p,p fwd|two"""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa
import numpy as np
from numba import njit
import eiafloor_lib as F
import rsties_lib as L


@njit(cache=True)
def _kern(n, P, vis, two, rng):
    src = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    buf = np.empty(2 * P + 2, dtype=np.int64)
    for t in range(n):
        i = vis[t]
        if not avail[i]:
            continue
        avail[i] = False
        lo = max(0, i - P) if two else i + 1
        hi = min(n - 1, i + P)
        c = 0
        for k in range(lo, hi + 1):
            if avail[k]:
                buf[c] = k; c += 1
        r = rng.integers(0, c + 1)
        if r == c:
            continue
        l = buf[r]
        avail[l] = False
        src[i] = l; src[l] = i
    return src


ds = sys.argv[1]; ps = [int(v) for v in sys.argv[2].split(',')]; two = sys.argv[3] == 'two'
x = L.load(ds); n, m = x.shape


def file_order_partners(order, P, rng):
    """Visit the rank positions in record (file) order."""
    pos = np.empty(order.size, dtype=np.int64)
    pos[order] = np.arange(order.size)
    return _kern(order.size, P, pos, two, rng)


for p in ps:
    y = F.mask_sorted(x, p, file_order_partners, np.random.default_rng(p))
    F.evaluate(x, y, p, ds, label=f'{ds} fileorder {sys.argv[3]}')
