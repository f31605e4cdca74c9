"""Rank swapping with the window in value space instead of rank space (Nin, Herranz & Torra (2007) T1-T4 at large p,
where the published files are at once more distorted (IL) and more linkable (DLD, ID) than any
rank-window rule). Rules: 'range' (partner value within p % of the column range above), 'rel'
(within p % of the value above), 'rank' (the package's rank window, as a baseline). Partner
uniform among the still unswapped sorted positions above i inside the window (Moore).
Usage: python rs_valuewindow.py [census|eia] [p,...] [reps]"""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import numpy as np
from numba import njit
import rsties_lib as L


@njit(cache=True)
def _value_partners(v, hi, rng_u):
    n = v.size
    src = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    cand = np.empty(n, dtype=np.int64)
    t = 0
    for i in range(n):
        if not avail[i]:
            continue
        avail[i] = False
        c = 0
        for l in range(i + 1, hi[i] + 1):
            if avail[l]:
                cand[c] = l
                c += 1
        if c > 0:
            l = cand[int(rng_u[t] * c)]
            t += 1
            avail[l] = False
            src[i] = l
            src[l] = i
    return src


def mask(x, p, rule, rng):
    if rule == 'rank':
        return L.mask(x, p, 'inclusive', rng)
    n, m = x.shape
    out = np.empty_like(x)
    for j in range(m):
        order = np.argsort(x[:, j], kind='stable')
        v = x[order, j].astype(np.float64)
        if rule == 'range':
            w = v + p / 100 * (v[-1] - v[0])
        elif rule == 'rel':
            w = v + p / 100 * np.abs(v)
        elif rule == 'sd':
            w = v + p / 100 * 3 * v.std(ddof=1)
        hi = np.searchsorted(v, w, side='right') - 1
        src = _value_partners(v, hi, rng.random(n))
        out[order, j] = v[src]
    return out


if __name__ == "__main__":
    ds = sys.argv[1] if len(sys.argv) > 1 else 'census'
    ps = [int(s) for s in sys.argv[2].split(',')] if len(sys.argv) > 2 else [2, 6, 10, 14, 20]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    x = L.load(ds)
    for rule in ['rank', 'range', 'rel', 'sd']:
        for p in ps:
            counts, ours, pubc, s = L.versus_published(x, ds, p, lambda rng: mask(x, p, rule, rng), reps)
            print(f"{ds} {rule:5} p={p:2}  " + "  ".join(f"{k} {ours[k]:5.1f}/{s[k]:5.1f}" for k in ours)
                  + f"   L-RL ours {' '.join(f'{v:.0f}' for v in counts)} | pub {' '.join(f'{v:.0f}' for v in pubc)}",
                  flush=True)
