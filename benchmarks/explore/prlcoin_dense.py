"""Dense linear_sum_assignment on the full weight matrix, masked records in file order (no shuffling)."""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import math
from scipy.optimize import linear_sum_assignment
from prlcoin_lib import *

def prl_dense(x, y, rule, par, shuffle_rng=None):
    n, c = x.shape
    z, lo, hi = rule_intervals(x, y, rule, par)
    perm = shuffle_rng.permutation(n) if shuffle_rng is not None else np.arange(n)
    z = z[perm]
    codes = _codes_block(z, lo, hi, slice(None), np.uint16)
    counts = np.bincount(codes.ravel(), minlength=2**c)
    w = em_fellegi_sunter(counts, c).weights(pattern_matrix(c))
    r, cc = linear_sum_assignment(w[codes], maximize=True)
    return 100 * np.mean(perm[cc] == r)

def pld_dense(x, y, rule, par, shuffle=False):
    m = x.shape[1]
    return np.mean([prl_dense(x[:, :j], y[:, :j], rule, par, np.random.default_rng(j) if shuffle else None)
                    for j in range(1, math.ceil(m / 2) + 1)])

for t, rule, par, cells in [("T7", "nearest", None, ["10", "30", "50"]), ("T3", "nearest", None, ["2", "6"]),
                             ("T3", "ewbin", 10, ["2", "6", "10"]), ("T3", "value", 0.1, ["2", "6", "10"]),
                             ("T7", "ewbin", 10, ["10", "50"])]:
    name, method, plist, lab = FAMILIES[t]
    pub = published(t)
    for params in plist:
        key = lab(params)
        if key not in cells: continue
        y = masked(name, method, 0, **params)
        print(t, rule, par, key, "dense index-order %.2f" % pld_dense(data(name), y, rule, par),
              "dense shuffled %.2f" % pld_dense(data(name), y, rule, par, True), "pub", pub[key], flush=True)
