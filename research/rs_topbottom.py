"""Moore (1996) rank swapping as in the OECD/IHSN code read in sdcMicro (src/RankSwapping.h) on
Nin, Herranz & Torra (2007) T1-T4: descending sort, the top T % and bottom B % of each column replaced by their
mean and not swapped, partner uniform among unswapped in j+1 .. j + N*P - 1 (N = the values left to
swap). Prints T1/T2 counts and DLD/ID/IL against the published values.

Usage: python research/rs_topbottom.py 'T,B[;T,B...]' p,p,... reps census,eia
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np
from numba import njit

from rankswap_lib import versus_published
from research_lib import int_list, load


@njit(cache=True)
def _moore_window(nfree, W, rng):
    """Partner of each of the nfree positions (sorted order): uniform among unswapped in j+1..r-1,
    r = min(nfree, j + W); none free: the value stays."""
    src = np.arange(nfree)
    sw = np.zeros(nfree, dtype=np.bool_)
    buf = np.empty(nfree, dtype=np.int64)
    for j in range(nfree):
        if sw[j]:
            continue
        r = min(nfree, j + W)
        c = 0
        for k in range(j + 1, r):
            if not sw[k]:
                buf[c] = k
                c += 1
        if c > 0:
            l = buf[rng.integers(0, c)]
            src[j] = l
            src[l] = j
            sw[j] = True
            sw[l] = True
    return src


def mask_col(col, p, top, bottom, rng):
    n = col.size
    order = np.argsort(-col, kind="stable")  # descending
    v = col[order].copy()
    T = int(n * top / 100.0)
    B = int(np.floor(n * bottom / 100.0))
    if T:
        v[:T] = v[:T].mean()
    if B:
        v[n - B:] = v[n - B:].mean()
    free = np.arange(T, n - B)
    nfree = free.size
    W = int(nfree * p / 100.0)  # the code's (int)(j + N * P) window end, exclusive
    src = _moore_window(nfree, W, rng)
    vf = v[free][src]
    v[free] = vf
    out = np.empty_like(col)
    out[order] = v
    return out


def mask(x, p, top, bottom, rng):
    return np.column_stack([mask_col(x[:, j], p, top, bottom, rng) for j in range(x.shape[1])])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", help="top,bottom percentages, ';'-separated pairs (e.g. '0,0;5,5')")
    ap.add_argument("ps", type=int_list, help="comma-separated p")
    ap.add_argument("reps", type=int, help="maskings per cell")
    ap.add_argument("datasets", help="comma-separated: census,eia")
    a = ap.parse_args()
    sets = [tuple(float(t) for t in s.split(",")) for s in a.sets.split(";")]
    for ds in a.datasets.split(","):
        x = load(ds)
        for top, bottom in sets:
            for p in a.ps:
                counts, ours, pubc, s = versus_published(x, ds, p, lambda rng: mask(x, p, top, bottom, rng), a.reps)
                print(f"{ds} T={top} B={bottom} p={p} " + " ".join(f"{k} {ours[k]:.2f}/{s[k]}" for k in ours))
                print("   ours", " ".join(f"{v:.0f}" for v in counts))
                print("   pub ", " ".join(f"{v:.0f}" for v in pubc), flush=True)


if __name__ == "__main__":
    main()
