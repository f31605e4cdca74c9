"""Rank-based record linkage (RBRL), Muralidhar & Domingo-Ferrer 2016 (Muralidhar & Domingo-Ferrer (2016) §3).

With ``R = (r_ij)`` and ``S = (s_lj)`` the column-wise rank matrices of the original and masked
files, original record ``i`` is linked to the masked record ``l`` minimising

    d_il = Criterion_j |r_ij - s_lj|,   Criterion = Sum (RBRL-Sum) or Max (RBRL-Max),

first argmin (lowest masked index on ties). Ranks are ``scipy.stats.rankdata`` ranks, by default
``method="average"`` (REPLICATION.md: average ranks reproduce Muralidhar & Domingo-Ferrer (2016) Table 5). Ranks are
doubled so that average ranks are integers and all arithmetic is exact. By default
(``method="tree"``) the search is the exact k-d tree of :mod:`.neighbours` with the L1 (Sum) or
L-infinity (Max) metric on the doubled ranks (Muralidhar & Domingo-Ferrer 2016, section 3, in
sub-quadratic time): on integer-valued data every distance and bound is exact, a subtree is pruned
only when it cannot hold a better row or an equally good one of lower index, so links and scores
equal the brute force's. ``method="brute"`` searches all masked records, one original record at a
time: the criterion of every candidate is accumulated attribute by attribute into one vector
(contiguous, 32-bit when it cannot overflow, so the loops vectorise), and only that vector of
length n is held, never the ``n x n`` matrix.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.stats import rankdata

from .base import LinkResult, prepare
from .neighbours import nearest

CRITERIA = ("sum", "max")
RANK_METHODS = ("average", "min", "max", "dense", "ordinal")
METHODS = ("tree", "brute")


def rank_matrix(z: np.ndarray, method: str = "average") -> np.ndarray:
    """Twice the column-wise ranks of ``z`` (``scipy.stats.rankdata``) as int64."""
    if method not in RANK_METHODS:
        raise ValueError(f"ranks must be one of {list(RANK_METHODS)}, got {method!r}")
    return np.rint(2.0 * rankdata(z, method=method, axis=0)).astype(np.int64)


@njit(cache=True)
def _rbrl_kernel(r, st, use_max):
    """First argmin over l of Criterion_j |r[i, j] - st[j, l]| for every i (``st``: masked ranks, transposed)."""
    n, m = r.shape
    nl = st.shape[1]
    acc = np.empty(nl, dtype=st.dtype)
    links = np.empty(n, dtype=np.int64)
    score = np.empty(n, dtype=np.int64)
    for i in range(n):
        q = r[i, 0]
        row = st[0]
        for l in range(nl):
            acc[l] = abs(q - row[l])
        for j in range(1, m):
            q = r[i, j]
            row = st[j]
            if use_max:
                for l in range(nl):
                    acc[l] = max(acc[l], abs(q - row[l]))
            else:
                for l in range(nl):
                    acc[l] += abs(q - row[l])
        arg = 0
        for l in range(1, nl):
            if acc[l] < acc[arg]:
                arg = l
        links[i] = arg
        score[i] = acc[arg]
    return links, score


def rbrl(original, masked, known=None, criterion: str = "sum", ranks: str = "average",
         method: str = "tree") -> LinkResult:
    """Rank-based record linkage (Muralidhar & Domingo-Ferrer (2016) §3) over the ``known`` attributes.

    ``criterion`` is ``"sum"`` (RBRL-Sum) or ``"max"`` (RBRL-Max); ``ranks`` the tie method of
    ``scipy.stats.rankdata``. ``score`` holds the criterion value of each link in rank units.
    ``method``: ``"tree"`` (k-d tree) or ``"brute"``, identical results.
    """
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {list(CRITERIA)}, got {criterion!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    x, y = prepare(original, masked, known)
    r, s = rank_matrix(x, ranks), rank_matrix(y, ranks)
    if method == "tree":  # doubled ranks <= 2n: float64 sums of them are exact
        metric = "l1" if criterion == "sum" else "linf"
        links, score = nearest(r.astype(np.float64), s.astype(np.float64), metric)
        return LinkResult(links=links, score=score / 2.0)
    # doubled ranks are <= 2n, so a sum over m attributes fits 32 bits while 2 n m < 2**31
    dtype = np.int32 if 2 * max(r.shape[0], s.shape[0]) * max(r.shape[1], 1) < 2**31 else np.int64
    links, score = _rbrl_kernel(r.astype(dtype), np.ascontiguousarray(s.T, dtype=dtype), criterion == "max")
    return LinkResult(links=links, score=score / 2.0)
