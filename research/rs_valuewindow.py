"""Rank swapping with the window in value space instead of rank space (Nin, Herranz & Torra (2007) T1-T4 at large p,
where the published files are at once more distorted (IL) and more linkable (DLD, ID) than any
rank-window rule). Rules: 'range' (partner value within p % of the column range above), 'rel'
(within p % of the value above), 'sd' (within 3p % of the sd above), 'rank' (the package's rank
window, as a baseline). Partner uniform among the still unswapped sorted positions above i
inside the window (Moore). Usage: python research/rs_valuewindow.py [census|eia] [p,...] [reps]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np
from numba import njit

from rankswap_lib import mask as rank_mask
from rankswap_lib import versus_published
from research_lib import int_list, load


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
    if rule == "rank":
        return rank_mask(x, p, "inclusive", rng)
    n, m = x.shape
    out = np.empty_like(x)
    for j in range(m):
        order = np.argsort(x[:, j], kind="stable")
        v = x[order, j].astype(np.float64)
        if rule == "range":
            w = v + p / 100 * (v[-1] - v[0])
        elif rule == "rel":
            w = v + p / 100 * np.abs(v)
        elif rule == "sd":
            w = v + p / 100 * 3 * v.std(ddof=1)
        hi = np.searchsorted(v, w, side="right") - 1
        src = _value_partners(v, hi, rng.random(n))
        out[order, j] = v[src]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset", nargs="?", default="census")
    ap.add_argument("ps", nargs="?", type=int_list, default="2,6,10,14,20",
                    help="comma-separated p (default 2,6,10,14,20)")
    ap.add_argument("reps", nargs="?", type=int, default=1, help="maskings per cell (default 1)")
    a = ap.parse_args()
    ds = a.dataset
    x = load(ds)
    for rule in ["rank", "range", "rel", "sd"]:
        for p in a.ps:
            counts, ours, pubc, s = versus_published(x, ds, p, lambda rng: mask(x, p, rule, rng), a.reps)
            print(f"{ds} {rule:5} p={p:2}  " + "  ".join(f"{k} {ours[k]:5.1f}/{s[k]:5.1f}" for k in ours)
                  + f"   L-RL ours {' '.join(f'{v:.0f}' for v in counts)} | pub {' '.join(f'{v:.0f}' for v in pubc)}",
                  flush=True)


if __name__ == "__main__":
    main()
