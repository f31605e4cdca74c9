"""Muralidhar & Domingo-Ferrer (2016) Table 3 (p-distribution, Census): records visited in a random order instead of rank
order, so a swap can go down as well as up among still-unswapped positions. Distance reading:
target i + m, m ~ N(P/2, P/2) rounded (sign ``normal``: downward when m < 0; ``random``: |m| with a
fair random sign), partner = nearest still-unswapped position at or beyond the target in that
direction, a draw without partner repeated (up to 1000). Prints DBRL / RBRL-Sum / RBRL-Max
against Table 3 (``rankswap_lib.table3_line``). Usage: python research/pdist_visit.py [reps]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: muralidhar2016_rank_rl, tables: [T3]}]
from __future__ import annotations

import argparse

import numpy as np
from numba import njit

from rankswap_lib import table3_line
from research_lib import load
from sdcrisk.masking.swapping import apply_partners, rank_distance, sorted_order


@njit(cache=True)
def _kernel(n, P, random_sign, rng):
    partner = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    free = n
    for i in rng.permutation(n):
        if not avail[i]:
            continue
        avail[i] = False
        free -= 1
        if free == 0:
            break
        for _ in range(1000):
            m = int(np.rint(rng.normal(0.5 * P, 0.5 * P)))
            if random_sign:
                m = abs(m) if rng.random() < 0.5 else -abs(m)
            if m == 0:
                continue
            step = 1 if m > 0 else -1
            l = min(max(i + m, 0), n - 1)
            while 0 <= l < n and not avail[l]:
                l += step
            if 0 <= l < n:
                avail[l] = False
                free -= 1
                partner[i] = l
                partner[l] = i
                break
        else:
            avail[i] = True
            free += 1
    return partner


def mask(x, p, random_sign, rng):
    n = x.shape[0]
    P = rank_distance(p, n)
    return np.column_stack([apply_partners(x[:, j], _kernel(n, P, random_sign, rng), sorted_order(x[:, j]))
                            for j in range(x.shape[1])])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("reps", nargs="?", type=int, default=5, help="maskings per p (default 5)")
    a = ap.parse_args()
    x = load("census")
    for name, rs in (("normal sign", False), ("random sign", True)):
        table3_line(f"{name:12s}", x, lambda x, p, rng: mask(x, p, rs, rng), a.reps,
                    np.random.default_rng(20261123), ps=(1, 5, 10, 25, 50))


if __name__ == "__main__":
    main()
