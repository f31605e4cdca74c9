"""Probe: does another attribute order of EIA explain T2? k=1 count per attribute as the first,
and full profiles for a few orders (inclusive rule, 1 masking). Usage: eiafloor_order.py p,p"""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa
import numpy as np
import eiafloor_lib as F
import rsties_lib as L
ps = [int(v) for v in sys.argv[1].split(',')]
x = L.load('eia'); n, m = x.shape
orders = {'file': list(range(10)), 'rev_then_sales': [0, 2, 4, 6, 8, 1, 3, 5, 7, 9],
          'reversed': list(range(9, -1, -1)), 'tot_first': [8, 9, 0, 1, 2, 3, 4, 5, 6, 7]}
for p in ps:
    y = L.mask(x, p, 'inclusive', np.random.default_rng(p))
    print(p, 'k=1 per attribute:', [L.lrl_counts(x[:, [j]], y[:, [j]], p, [1])[1] for j in range(m)])
    for name, o in orders.items():
        F.evaluate(x[:, o], y[:, o], p, 'eia', full=False, label=name)
