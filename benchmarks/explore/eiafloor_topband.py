"""Probe: top R ranks of each attribute only swapped locally (window w, inclusive rule), the rest
rank-swapped normally. Does a p-independent local band give the increasing EIA excess profile?
Usage: eiafloor_topband.py ds p,p R:w[;R:w] [bottom]"""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa
import numpy as np
import eiafloor_lib as F
import rsties_lib as L
ds = sys.argv[1]; ps = [int(v) for v in sys.argv[2].split(',')]
side = sys.argv[4] if len(sys.argv) > 4 else 'top'
x = L.load(ds); n, m = x.shape
for spec in sys.argv[3].split(';'):
    R, w = (int(v) for v in spec.split(':'))

    def band_partners(order, P, rng, R=R, w=w):
        n = order.size
        src = np.empty(n, dtype=np.int64)
        src[:n - R] = L.partners('inclusive', n - R, P, rng)
        src[n - R:] = n - R + L.partners('inclusive', R, w, rng)
        return src

    for p in ps:
        y = F.mask_sorted(x, p, band_partners, np.random.default_rng(p), descending=side == 'bottom')
        F.evaluate(x, y, p, ds, label=f'{ds} {side} R={R} w={w}')
