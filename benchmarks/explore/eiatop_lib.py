"""Exploration (Nin, Herranz & Torra (2007) T2 EIA L-RL floor, 'eiatop' series): helpers shared by eiatop_*.py.

mask(x, p, partner_fn, rng): per attribute, y[:, j] = partner_fn(x[:, j], P, rng) with
P = floor(n p / 100). report(label, masker, seeds): L-RL counts (k = 1..10) at p = 2, 10, 20
beside the published Table 2, mean absolute deviation over the 30 cells, values kept per column.
Published values are only printed, never used in a computation."""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa
import numpy as np
from numba import njit
from sdcrisk.data import read_table
from sdcrisk.masking.swapping import rank_distance, _rankswap_kernel
from sdcrisk.linkage.location import rsrl

ROOT = pathlib.Path(__file__).resolve().parents[2]
X = read_table(ROOT / 'data' / 'processed' / 'eia.parquet').to_numpy(float)
N, M = X.shape
PS = (2, 10, 20)
PUB = {  # Nin, Herranz & Torra (2007) Table 2 (printed only)
    2: [70.3, 378.4, 2174.8, 2827.1, 3402.9, 3582.9, 3699.8, 3778.6, 3810.1, 3831.5],
    10: [40.0, 135.7, 236.1, 310.2, 423.7, 400.3, 431.4, 572.8, 654.6, 741.5],
    20: [36.3, 132.3, 223.5, 294.9, 367.7, 371.3, 391.6, 401.3, 409.3, 411.8],
}


def apply_order(col, order, src):
    """Swap in the given sorted order: record order[q] receives col[order[src[q]]]."""
    out = np.empty_like(col)
    out[order] = col[order[src]]
    return out


def std_partner(col, P, rng, rule=1):
    order = np.argsort(col, kind='stable')
    return apply_order(col, order, _rankswap_kernel(col.size, P, rule, rng))


def mask(x, p, partner_fn, rng):
    n, m = x.shape
    P = rank_distance(p, n)
    y = np.empty_like(x)
    for j in range(m):
        y[:, j] = partner_fn(x[:, j], P, rng)
    return y


def counts(x, y, p):
    return np.array([rsrl(x, y, known=list(range(k)), p=p).n_correct for k in range(1, x.shape[1] + 1)])


def report(label, masker, seeds=(1, 2), x=X, quiet=False):
    """masker(x, p, rng) -> y. Mean over seeds. Returns (MAD, counts dict)."""
    res, kept = {}, {}
    for p in PS:
        cs, ks = [], []
        for s in seeds:
            y = masker(x, p, np.random.default_rng(1000 * p + s))
            cs.append(counts(x, y, p)); ks.append((y == x).sum(0))
        res[p] = np.mean(cs, 0); kept[p] = np.mean(ks, 0)
    mad = np.mean([abs(res[p][k] - PUB[p][k]) for p in PS for k in range(10)])
    if not quiet:
        print(f"== {label}   MAD(30 cells) = {mad:.1f}")
        for p in PS:
            print(f"  p={p:2d} ours {' '.join(f'{v:6.0f}' for v in res[p])}")
            print(f"       pub  {' '.join(f'{v:6.0f}' for v in PUB[p])}")
            print(f"       kept {' '.join(f'{v:6.0f}' for v in kept[p])}")
        sys.stdout.flush()
    return mad, res, kept
