"""Distance-based record linkage (DBRL), Muralidhar & Domingo-Ferrer (2016) §2.

Each original record ``x_i`` is linked to the masked record ``y_l`` minimising

    d_il^2 = sum_j ((x_ij - mu_xj) / sigma_xj - (y_lj - mu_yj) / sigma_yj)^2

(Muralidhar & Domingo-Ferrer (2016) §2, the equation for d_il^2): every file is standardised by its own mean and sample
standard deviation (ddof = 1). ``standardise="original"`` scales both files with the original
file's mean and sd instead; ``"none"`` uses raw values. A masked column with zero sd (heavily
microaggregated) has standardised value 0 rather than NaN.

Ties: the link is the *first* argmin, i.e. among masked records at exactly the same distance the
lowest masked index wins. ``method="brute"``: a numba kernel accumulates the direct squared
differences of one original record against every masked record, attribute by attribute (contiguous
loops that vectorise; one vector of length n is held, never the n x n matrix), and keeps the
candidates within a small relative tolerance of the minimum. Those few are re-scored with numpy's
``sum_j (a_j - b_j)^2`` (the arithmetic of a brute-force
``scipy.spatial.distance.cdist(..., "sqeuclidean")``), whose summation order can differ from the
kernel's in the last bit, and the lowest index among the exact minima is chosen.

``method="tree"`` (the default; Muralidhar & Domingo-Ferrer 2016, section 2, in sub-quadratic
time) finds the same candidates with the exact k-d tree of :mod:`.neighbours`: the kernel's
arithmetic, subtrees pruned only when their lower bound exceeds the minimum plus the tolerance, and
the same numpy re-scoring, so links and scores are identical to the brute force's.

Expected credit under uniform random tie-breaking (``truth=``): the equally best masked records of
original record ``i`` are the ``t_i`` candidates whose re-scored distance equals the link's, the
very numbers that choose the link (identical records counted once each, in the tree by their
multiplicity). An attack that broke its ties uniformly at random would link ``i`` correctly with
probability ``1 / t_i`` if the true record is among them, else 0: ``credit[i]``. It does not
depend on the order of the masked records, unlike the lowest-index rule; for ``t_i = 1`` it is
``links[i] == truth[i]``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from ..validation import prepare
from .base import LinkResult, check_truth, with_ties
from .neighbours import REL_TOL as _REL_TOL, exact_best as _exact_best
from .shared import nearest_search

BLOCK = 512
METHODS = ("tree", "brute")

STANDARDISE = ("own", "original", "none")
_SINGULAR = 1e-10  # relative eigenvalue below which a covariance counts as singular
METRICS = ("euclidean", "mahalanobis")


def _scale(z: np.ndarray, mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    out = z - mean
    ok = sd > 0
    out[:, ok] /= sd[ok]
    out[:, ~ok] = 0.0  # zero-variance column: every record sits at the (standardised) mean
    return out


def standardise(x: np.ndarray, y: np.ndarray, mode: str = "own") -> tuple[np.ndarray, np.ndarray]:
    """Standardise the original ``x`` and masked ``y`` (Muralidhar & Domingo-Ferrer (2016) §2).

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
    distances become Mahalanobis distances ``(a - b)^T Sigma^-1 (a - b)``.

    The whitened coordinates decide the links, so none of this goes through BLAS or LAPACK, whose
    rounding depends on the CPU kernel (:mod:`sdcrisk.fixed_order`): the covariance from
    correctly rounded sums, the singularity test on Jacobi eigenvalues, a plain-float Cholesky
    factor and a forward substitution in a fixed order."""
    from ..fixed_order import cholesky, covariance, jacobi_eigh, solve_lower

    cov = covariance(xs)
    # Decide singularity on a relative eigenvalue threshold far above rounding (with LAPACK,
    # whether Cholesky failed on a numerically singular matrix depended on the BLAS kernel: on
    # Census, all 13 columns, it failed with OpenBLAS' AVX-512 kernel and succeeded with its AVX2 one).
    eig, _ = jacobi_eigh(cov)
    if eig[0] <= _SINGULAR * max(eig[-1], 0.0):
        raise ValueError("metric='mahalanobis': the covariance of the original known columns is singular "
                         f"(smallest/largest eigenvalue {eig[0]:.2e}/{eig[-1]:.2e}); some known columns are "
                         "linear combinations of others, drop one of them")
    chol = cholesky(cov)
    return solve_lower(chol, xs), solve_lower(chol, ys)


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


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")


def nearest(a: np.ndarray, b: np.ndarray, allowed: Callable[[int, int], np.ndarray] | None = None,
            block: int = BLOCK, method: str = "tree", truth: np.ndarray | None = None):
    """Index of the nearest row of ``b`` (squared Euclidean) for every row of ``a``, first argmin.

    ``allowed(start, stop)``, when given, returns a boolean ``(stop - start, len(b))`` mask of the
    rows of ``b`` eligible for rows ``start:stop`` of ``a`` (restricted linkage inside candidate
    sets); a row with no eligible candidate gets index -1 and distance inf. ``method="tree"``
    (:mod:`.neighbours`) or ``"brute"`` give identical results; with ``allowed`` the search is always
    brute force. Returns ``(index, squared distance)``; with ``truth`` (the true row of ``b`` per
    row of ``a``, -1 for none) also ``(ties, hit)``: the number of eligible rows at exactly the
    link's re-scored distance and whether ``truth[i]`` is one of them (0, False without a link).
    """
    _check_method(method)
    if allowed is None and method == "tree":  # the search RS-RL and L-RL begin with too (.shared)
        a = np.ascontiguousarray(a, dtype=np.float64)
        b = np.ascontiguousarray(b, dtype=np.float64)
        return nearest_search(a, b).rescored(a, b, truth)
    a = np.ascontiguousarray(a, dtype=np.float64)
    n = a.shape[0]
    links = np.full(n, -1, dtype=np.int64)
    dist = np.full(n, np.inf)
    ties = np.zeros(n, dtype=np.int64)
    hit = np.zeros(n, dtype=np.bool_)
    ones = np.ones(np.asarray(b).shape[0], dtype=np.int64)
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
        if truth is None:
            c, d = _exact_best(ab, b, rows[:k], cols[:k], stop - start)
        else:
            c, d, t, h = _exact_best(ab, b, rows[:k], cols[:k], stop - start, (ones, truth[start:stop]))
            ties[start:stop] = np.where(has, t, 0)
            hit[start:stop] = h & has
        links[start:stop] = np.where(has, c, -1)
        dist[start:stop] = np.where(has, d, np.inf)
    return (links, dist) if truth is None else (links, dist, ties, hit)


def dbrl(original, masked, known=None, metric: str = "euclidean", standardise: str = "own",
         block: int = BLOCK, method: str = "tree", truth=None) -> LinkResult:
    """Distance-based record linkage (Muralidhar & Domingo-Ferrer (2016) §2): link every original record to the masked record
    at minimum squared Euclidean distance over the ``known`` attributes, after standardisation.

    ``metric="mahalanobis"`` uses the inverse covariance of the (standardised) original known
    columns; with ``standardise="original"`` or ``"none"`` this is the plain Mahalanobis distance
    with the original file's covariance. ``score`` holds the squared distance of each link.
    ``method``: ``"tree"`` (k-d tree) or ``"brute"``, identical results (see :func:`nearest`).
    ``truth`` (the true masked record of each original record) adds ``credit``, the expected
    credit under uniform random tie-breaking (module docstring, "Ties").
    """
    _check_method(method)
    x, y = prepare(original, masked, known, allow_constant=standardise == "none" and metric == "euclidean")
    xs, ys = _prepared(x, y, metric, standardise)
    if truth is None:
        links, d2 = nearest(xs, ys, block=block, method=method)
        return LinkResult(links=links, score=d2)
    truth = check_truth(truth, x.shape[0], y.shape[0])
    links, d2, ties, hit = nearest(xs, ys, block=block, method=method, truth=truth)
    return with_ties(LinkResult(links=links, score=d2), ties, hit)


def _prepared(x, y, metric, mode):
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {list(METRICS)}, got {metric!r}")
    xs, ys = standardise(x, y, mode)
    if metric == "mahalanobis":
        xs, ys = _whiten(xs, ys)
    return xs, ys


def dbrl_restricted(original, masked, allowed: Callable[[int, int], np.ndarray], known=None,
                    metric: str = "euclidean", standardise: str = "own", block: int = BLOCK,
                    truth=None) -> LinkResult:
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

    if truth is None:
        links, d2 = nearest(xs, ys, allowed=counted, block=block)
        return LinkResult(links=links, candidates=sizes, score=d2)
    truth = check_truth(truth, x.shape[0], y.shape[0])
    links, d2, ties, hit = nearest(xs, ys, allowed=counted, block=block, truth=truth)
    return with_ties(LinkResult(links=links, candidates=sizes, score=d2), ties, hit)
