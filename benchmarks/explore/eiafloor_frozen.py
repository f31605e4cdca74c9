"""Which per-attribute frozen rank bands (bottom b / top t values kept) give the EIA excess?
Usage: eiafloor_frozen.py ds p,p mode:frac[;mode:frac]  (mode bottom|top|both)"""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa
import numpy as np
import eiafloor_lib as F
import rsties_lib as L
ds = sys.argv[1]; ps = [int(v) for v in sys.argv[2].split(',')]
x = L.load(ds); n, m = x.shape
for spec in sys.argv[3].split(';'):
    mode, frac = spec.split(':'); frac = float(frac)
    rk = np.argsort(np.argsort(x, axis=0, kind='stable'), axis=0, kind='stable')
    b = int(n * frac / 100)
    fr = np.zeros_like(x, dtype=bool)
    if mode in ('bottom', 'both'): fr |= rk < b
    if mode in ('top', 'both'): fr |= rk >= n - b
    for p in ps:
        y = F.mask_frozen(x, p, fr, np.random.default_rng(p))
        F.evaluate(x, y, p, ds, label=f'{ds} {spec}')
