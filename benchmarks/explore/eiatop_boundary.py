"""Exploration (eiatop H1): boundary handling of the rank-swapping loop.
 a  initiators only i <= n-1-P (loop i = 0..n-P-1); partner uniform among unswapped in [i, i+P] (inclusive) / (i, i+P] (moore)
 c  loop stops once fewer than P positions are still unswapped (the rest keep their values)
 f  loop i = 0..n-1 but window [i, i+P] must lie inside the file: i + P > n-1 -> record skipped (== a)
 g  top P positions swapped as a block among themselves with window shrinking? no: top positions initiate with
    window [i, n-1] but only those never picked (already standard) -> baseline
Prints where the kept values sit (rank band)."""
import numpy as np
from numba import njit
import eiatop_lib as E
from sdcrisk.masking.swapping import _bit_init, _bit_add, _pick_available


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
        o = np.argsort(col, kind='stable')
        return E.apply_order(col, o, kern(col.size, P, incl, stop_mode, rng))
    return lambda x, p, r: E.mask(x, p, pf, r)


if __name__ == '__main__':
    # where are the kept values (p = 20, first column)?
    n = E.N
    for incl in (True, False):
        for sm in (0, 1):
            s = kern(n, E.rank_distance(20, n), incl, sm, np.random.default_rng(1))
            kept = np.flatnonzero(s == np.arange(n))
            print(f"incl={incl} stop={sm}: p=20 kept positions {kept.size}, in top P band {np.sum(kept > n-1-818)}; "
                  f"p=10 kept {np.sum(kern(n, E.rank_distance(10, n), incl, sm, np.random.default_rng(1)) == np.arange(n))}")
    for incl in (True, False):
        for sm, name in ((0, 'initiators i<=n-1-P'), (1, 'stop when unswapped < P')):
            E.report(f"{name}, {'inclusive' if incl else 'moore'}", make(incl, sm))
