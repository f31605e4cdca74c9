"""EIA L-RL floor of Nin, Herranz & Torra (2007) T2 (eiatop H1): boundary handling of the rank-swapping loop.
 a  initiators only i <= n-1-P (loop i = 0..n-P-1); partner uniform among unswapped in [i, i+P]
    (inclusive) / (i, i+P] (moore)
 c  loop stops once fewer than P positions are still unswapped (the rest keep their values)
Prints where the kept values sit (rank band), then the L-RL counts at p = 2, 10, 20 against T2.
Usage: python research/eiatop_boundary.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np
from numba import njit

from rankswap_lib import mask_columns, report, swap_in_order
from research_lib import load
from sdcrisk.masking.swapping import _bit_add, _bit_init, _pick_available, rank_distance


@njit(cache=True)
def kern(n, P, incl, stop_mode, rng):
    partner = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    tree, top = _bit_init(n)
    left = n
    for i in range(n):
        if stop_mode == 0 and i > n - 1 - P:
            break
        if stop_mode == 1 and left < P:
            break
        if not avail[i]:
            continue
        hi = min(i + P, n - 1)
        if incl:
            l = _pick_available(tree, top, i, hi, rng)
        avail[i] = False
        _bit_add(tree, i, -1)
        left -= 1
        if not incl:
            l = _pick_available(tree, top, i + 1, hi, rng)
        if l > i:
            avail[l] = False
            _bit_add(tree, l, -1)
            left -= 1
            partner[i] = l
            partner[l] = i
    return partner


def make(incl, stop_mode):
    def pf(col, P, rng):
        o = np.argsort(col, kind="stable")
        return swap_in_order(col, o, kern(col.size, P, incl, stop_mode, rng))
    return lambda x, p, r: mask_columns(x, p, pf, r)


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    n = load("eia").shape[0]  # where are the kept values (p = 20, first column)?
    for incl in (True, False):
        for sm in (0, 1):
            s = kern(n, rank_distance(20, n), incl, sm, np.random.default_rng(1))
            kept = np.flatnonzero(s == np.arange(n))
            print(f"incl={incl} stop={sm}: p=20 kept positions {kept.size}, in top P band {np.sum(kept > n-1-818)}; "
                  f"p=10 kept {np.sum(kern(n, rank_distance(10, n), incl, sm, np.random.default_rng(1)) == np.arange(n))}")
    for incl in (True, False):
        for sm, name in ((0, "initiators i<=n-1-P"), (1, "stop when unswapped < P")):
            report(f"{name}, {'inclusive' if incl else 'moore'}", make(incl, sm))


if __name__ == "__main__":
    main()
