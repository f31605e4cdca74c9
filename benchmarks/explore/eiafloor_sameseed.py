"""Probe: the same random stream for every attribute (generator re-seeded per column), so the
partner permutation in rank space is identical across attributes. Usage: eiafloor_sameseed.py ds p,p"""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa
import numpy as np
import eiafloor_lib as F
import rsties_lib as L
from sdcrisk.masking.swapping import rank_distance
ds = sys.argv[1]; ps = [int(v) for v in sys.argv[2].split(',')]
x = L.load(ds); n, m = x.shape
for p in ps:
    P = rank_distance(p, n)
    y = np.empty_like(x)
    for j in range(m):
        col = x[:, j]; order = np.argsort(col, kind='stable')
        src = L.partners('inclusive', n, P, np.random.default_rng(p))
        y[order, j] = col[order[src]]
    F.evaluate(x, y, p, ds, label=f'{ds} sameseed')
