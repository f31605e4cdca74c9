"""Distance-based record linkage (DBRL), seed 003 §2.

Each original record ``x_i`` is linked to the masked record ``y_l`` minimising

    d_il^2 = sum_j ((x_ij - mu_xj) / sigma_xj - (y_lj - mu_yj) / sigma_yj)^2

(seed 003 §2, the equation for d_il^2): every file is standardised by its own mean and sample
standard deviation (ddof = 1). ``standardise="original"`` scales both files with the original
file's mean and sd instead; ``"none"`` uses raw values. A masked column with zero sd (heavily
microaggregated) has standardised value 0 rather than NaN.

Ties: the link is the *first* argmin, i.e. among masked records at exactly the same distance the
lowest masked index wins. A numba kernel accumulates the direct squared differences of one
original record against every masked record, attribute by attribute (contiguous loops that
vectorise; one vector of length n is held, never the n x n matrix), and keeps the candidates
within a small relative tolerance of the minimum. Those few are re-scored with numpy's
``sum_j (a_j - b_j)^2`` (the arithmetic of a brute-force
``scipy.spatial.distance.cdist(..., "sqeuclidean")``), whose summation order can differ from the
kernel's in the last bit, and the lowest index among the exact minima is chosen.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from .base import LinkResult, prepare

BLOCK = 512
# Relative tolerance (times ||a||^2 + max ||b||^2) under which kernel distances are re-scored with
# numpy: far above any summation-order rounding error (~ m * eps), far below real distance gaps.
_REL_TOL = 1e-10
_PAIR_CHUNK = 1 << 18

STANDARDISE = ("own", "original", "none")
METRICS = ("euclidean", "mahalanobis")


def _scale(z: np.ndarray, mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    out = z - mean
    ok = sd > 0
    out[:, ok] /= sd[ok]
    out[:, ~ok] = 0.0  # zero-variance column: every record sits at the (standardised) mean
    return out


def standardise(x: np.ndarray, y: np.ndarray, mode: str = "own") -> tuple[np.ndarray, np.ndarray]:
    """Standardise the original ``x`` and masked ``y`` (seed 003 §2).

    ``mode="own"``: each file by its own mean and sample sd; ``"original"``: both by the original
    file's; ``"none"``: unchanged copies.
    """
    if mode not in STANDARDISE:
        raise ValueError(f"standardise must be one of {list(STANDARDISE)}, got {mode!r}")
    if mode == "none":
        return np.array(x, dtype=np.float64), np.array(y, dtype=np.float64)
    mx, sx = x.mean(axis=0), x.std(axis=0, ddof=1)
    if mode == "original":
        return _scale(x, mx, sx), _scale(y, mx, sx)
    return _scale(x, mx, sx), _scale(y, y.mean(axis=0), y.std(axis=0, ddof=1))


def _whiten(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Map both files by ``L^-1`` with ``L L^T`` the covariance of ``xs``, so that Euclidean
    distances become Mahalanobis distances ``(a - b)^T Sigma^-1 (a - b)``."""
    cov = np.atleast_2d(np.cov(xs, rowvar=False))
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError("metric='mahalanobis': the covariance of the original known columns is singular") from None
    from scipy.linalg import solve_triangular

    return (solve_triangular(chol, xs.T, lower=True).T.copy(),
            solve_triangular(chol, ys.T, lower=True).T.copy())


def _exact_best(a: np.ndarray, b: np.ndarray, rows: np.ndarray, cols: np.ndarray, nrows: int):
    """Among pairs (rows[k], cols[k]) (row-major, cols ascending within a row), return per row the
    column of minimum exact squared distance, lowest column on ties, and that distance."""
    best_c = np.full(nrows, -1, dtype=np.int64)
    best_d = np.full(nrows, np.inf)
    for s in range(0, rows.size, _PAIR_CHUNK):
        r, c = rows[s:s + _PAIR_CHUNK], cols[s:s + _PAIR_CHUNK]
        d = ((a[r] - b[c]) ** 2).sum(axis=1)
        # fold in the running best of each row, then take the lexicographic (row, d, col) minimum
        prev = np.flatnonzero(best_c >= 0)
        r = np.concatenate([r, prev])
        c = np.concatenate([c, best_c[prev]])
        d = np.concatenate([d, best_d[prev]])
        order = np.lexsort((c, d, r))
        first = order[np.r_[True, r[order][1:] != r[order][:-1]]]
        best_c[r[first]] = c[first]
        best_d[r[first]] = d[first]
    return best_c, best_d


@njit(cache=True)
def _sq_distances(a, i, bt, acc):
    """acc[l] = sum_j (a[i, j] - bt[j, l])^2 (attribute-outer loops over l vectorise)."""
    acc[:] = 0.0
    for j in range(bt.shape[0]):
        q = a[i, j]
        row = bt[j]
        for l in range(bt.shape[1]):
            v = q - row[l]
            acc[l] += v * v


@njit(cache=True)
def _near_pairs(a, bt, mask, use_mask, tol, rows, cols, has):
    """Per row i of ``a``: the columns l with ``sum_j (a[i, j] - bt[j, l])^2 <= min + tol[i]`` over
    the allowed l (``mask[i]`` when ``use_mask``), written in order into ``rows``/``cols``;
    ``has[i]``: row i had an allowed column. Returns the pair count, or -1 if the buffers are full."""
    nl = bt.shape[1]
    acc = np.empty(nl)
    k = 0
    for i in range(a.shape[0]):
        _sq_distances(a, i, bt, acc)
        dmin = np.inf
        for l in range(nl):
            if (not use_mask or mask[i, l]) and acc[l] < dmin:
                dmin = acc[l]
        has[i] = dmin < np.inf
        thr = dmin + tol[i]
        for l in range(nl):
            if acc[l] <= thr and (not use_mask or mask[i, l]):
                if k == rows.size:
                    return -1
                rows[k] = i
                cols[k] = l
                k += 1
    return k


def nearest(a: np.ndarray, b: np.ndarray, allowed: Callable[[int, int], np.ndarray] | None = None,
            block: int = BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """Index of the nearest row of ``b`` (squared Euclidean) for every row of ``a``, first argmin.

    ``allowed(start, stop)``, when given, returns a boolean ``(stop - start, len(b))`` mask of the
    rows of ``b`` eligible for rows ``start:stop`` of ``a`` (restricted linkage inside candidate
    sets); a row with no eligible candidate gets index -1 and distance inf.
    Returns ``(index, squared distance)``.
    """
    a = np.ascontiguousarray(a, dtype=np.float64)
    n = a.shape[0]
    links = np.full(n, -1, dtype=np.int64)
    dist = np.full(n, np.inf)
    bt = np.ascontiguousarray(np.asarray(b, dtype=np.float64).T)
    bmax = np.einsum("ij,ij->i", b, b).max(initial=0.0)
    no_mask = np.ones((1, 1), dtype=np.bool_)
    # near-ties are rare: room for 4 pairs per row, doubled (and the block redone) when full
    rows = np.empty(4 * min(block, n) + 16, dtype=np.int64)
    cols = np.empty_like(rows)
    for start in range(0, n, block):
        stop = min(start + block, n)
        ab = a[start:stop]
        tol = _REL_TOL * (np.einsum("ij,ij->i", ab, ab) + bmax)
        mask = no_mask if allowed is None else np.ascontiguousarray(allowed(start, stop), dtype=np.bool_)
        has = np.zeros(stop - start, dtype=np.bool_)
        while (k := _near_pairs(ab, bt, mask, allowed is not None, tol, rows, cols, has)) < 0:
            rows = np.empty(2 * rows.size, dtype=np.int64)
            cols = np.empty_like(rows)
        c, d = _exact_best(ab, b, rows[:k], cols[:k], stop - start)
        links[start:stop] = np.where(has, c, -1)
        dist[start:stop] = np.where(has, d, np.inf)
    return links, dist


def dbrl(original, masked, known=None, metric: str = "euclidean", standardise: str = "own",
         block: int = BLOCK) -> LinkResult:
    """Distance-based record linkage (seed 003 §2): link every original record to the masked record
    at minimum squared Euclidean distance over the ``known`` attributes, after standardisation.

    ``metric="mahalanobis"`` uses the inverse covariance of the (standardised) original known
    columns; with ``standardise="original"`` or ``"none"`` this is the plain Mahalanobis distance
    with the original file's covariance. ``score`` holds the squared distance of each link.
    """
    x, y = prepare(original, masked, known)
    xs, ys = _prepared(x, y, metric, standardise)
    links, d2 = nearest(xs, ys, block=block)
    return LinkResult(links=links, score=d2)


def _prepared(x, y, metric, mode):
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {list(METRICS)}, got {metric!r}")
    xs, ys = standardise(x, y, mode)
    if metric == "mahalanobis":
        xs, ys = _whiten(xs, ys)
    return xs, ys


def dbrl_restricted(original, masked, allowed: Callable[[int, int], np.ndarray], known=None,
                    metric: str = "euclidean", standardise: str = "own", block: int = BLOCK) -> LinkResult:
    """DBRL inside candidate sets: like :func:`dbrl`, but original record ``i`` may only link to the
    masked records ``l`` with ``allowed(start, stop)[i - start, l]`` true (-1 when none is allowed).
    ``candidates`` holds the size of each record's candidate set."""
    x, y = prepare(original, masked, known)
    xs, ys = _prepared(x, y, metric, standardise)
    sizes = np.zeros(x.shape[0], dtype=np.int64)

    def counted(start, stop):
        mask = np.asarray(allowed(start, stop), dtype=bool)
        if mask.shape != (stop - start, ys.shape[0]):
            raise ValueError(f"allowed({start}, {stop}) must return a boolean array of shape "
                             f"{(stop - start, ys.shape[0])}, got {mask.shape}")
        sizes[start:stop] = mask.sum(axis=1)
        return mask

    links, d2 = nearest(xs, ys, allowed=counted, block=block)
    return LinkResult(links=links, candidates=sizes, score=d2)
