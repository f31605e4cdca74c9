"""EIA L-RL floor of Nin, Herranz & Torra (2007) T2 (eiatop H5): zero values kept in place, only the nonzero
values of each column rank-swapped (P from n, or from the number of nonzero values), L-RL counted
as usual and with ties counted correct (the true record in the candidate set at the minimum
distance). Usage: python research/eiatop_zeros.py [n|nonzero]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import PS, report, std_partner
from research_lib import load
from sdcrisk.linkage.distance import standardise
from sdcrisk.linkage.location import _sorted_masked, rank_swap_intervals, rsrl
from sdcrisk.masking.swapping import rank_distance


def zeros_kept(p_from):
    def masker(x, p, rng):
        y = x.copy()
        for j in range(x.shape[1]):
            nz = np.flatnonzero(x[:, j] != 0)
            P = rank_distance(p, x.shape[0] if p_from == "n" else nz.size)
            y[nz, j] = std_partner(x[nz, j], P, rng)
        return y
    return masker


def ties_correct(x, y, p):
    """Records whose true masked record is a candidate at the minimum DBRL distance."""
    out = []
    for k in range(1, x.shape[1] + 1):
        xk, yk = x[:, :k], y[:, :k]
        r = rsrl(xk, yk, p=p)
        xs, ys = standardise(xk, yk)
        d_true = ((xs - ys) ** 2).sum(1)
        a, b = rank_swap_intervals(xk, yk, rank_distance(p, x.shape[0]))
        pos = _sorted_masked(yk)[2]
        candidate = np.all((a <= pos) & (pos < b), axis=1)
        out.append(int((candidate & (d_true <= r.score * (1 + 1e-9) + 1e-12)).sum()))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("p_from", nargs="?", default="n", choices=("n", "nonzero"), help="P from n or the nonzero count")
    a = ap.parse_args()
    x = load("eia")
    masker = zeros_kept(a.p_from)
    report(f"zeros kept, P from {a.p_from}", masker, seeds=(1,), x=x)
    for p in PS:
        y = masker(x, p, np.random.default_rng(1000 * p + 1))
        print(f"  p={p:2d} ties counted correct {' '.join(f'{v:6d}' for v in ties_correct(x, y, p))}")


if __name__ == "__main__":
    main()
