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

Ties (``truth=``): the equally best masked records of original record ``i`` are the ``t_i`` at
exactly the link's criterion value (exact integers; counted in the tree by the orthogonal ball
count of :meth:`.neighbours.KDTree.ties`, whole subtrees at once). Breaking ties uniformly at random
(Nin, Herranz & Torra 2007 and 2008 leave the rule open) the attack links ``i`` correctly with
probability ``credit[i] = 1 / t_i`` when the true record is among them, else 0; for ``t_i = 1`` this
is ``links[i] == truth[i]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..validation import prepare
from .base import LinkResult, check_truth, index_type, with_ties
from . import shared
from .ranks import rank_matrix

CRITERIA = ("sum", "max")
METHODS = ("tree", "brute")


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


@njit(cache=True)
def _rbrl_ties(r, st, use_max, score, truth):
    """Per original record ``i``: how many masked records reach the criterion ``score[i]`` (the
    minimum :func:`_rbrl_kernel` found, same integer arithmetic) and whether ``truth[i]`` is one."""
    n, m = r.shape
    nl = st.shape[1]
    acc = np.empty(nl, dtype=st.dtype)
    ties = np.zeros(n, dtype=np.int64)
    hit = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        for l in range(nl):
            acc[l] = 0
        for j in range(m):
            q = r[i, j]
            row = st[j]
            for l in range(nl):
                g = abs(q - row[l])
                acc[l] = max(acc[l], g) if use_max else acc[l] + g
        t = 0
        for l in range(nl):
            if acc[l] == score[i]:
                t += 1
        ties[i] = t
        hit[i] = truth[i] >= 0 and acc[truth[i]] == score[i]
    return ties, hit


def rbrl(original, masked, known=None, criterion: str = "sum", ranks: str = "average",
         method: str = "tree", truth=None) -> LinkResult:
    """Rank-based record linkage (Muralidhar & Domingo-Ferrer (2016) §3) over the ``known`` attributes.

    ``criterion`` is ``"sum"`` (RBRL-Sum) or ``"max"`` (RBRL-Max); ``ranks`` the tie method of
    ``scipy.stats.rankdata``. ``score`` holds the criterion value of each link in rank units.
    ``method``: ``"tree"`` (k-d tree) or ``"brute"``, identical results. ``truth`` (the true masked
    record of each original record) adds ``credit`` (module docstring, "Ties").
    """
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {list(CRITERIA)}, got {criterion!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    x, y = prepare(original, masked, known)
    r, s = rank_matrix(x, ranks), rank_matrix(y, ranks)
    if truth is not None:
        truth = check_truth(truth, x.shape[0], y.shape[0])
    if method == "tree":  # doubled ranks <= 2n: float64 sums of them are exact
        metric = "l1" if criterion == "sum" else "linf"
        tree = shared.tree(s.astype(np.float64))  # one tree for RBRL-Sum and RBRL-Max (.shared)
        if truth is None:
            links, score = tree.query(r.astype(np.float64), metric)
            return LinkResult(links=links, score=score / 2.0)
        links, score, ties, hit = tree.query(r.astype(np.float64), metric, truth=truth)
        return with_ties(LinkResult(links=links, score=score / 2.0), ties, hit)
    # doubled ranks are <= 2n, so a sum over m attributes fits 32 bits while 2 n m < 2**31
    dtype = index_type(2 * max(r.shape[0], s.shape[0]) * max(r.shape[1], 1))
    rt, st = r.astype(dtype), np.ascontiguousarray(s.T, dtype=dtype)
    links, score = _rbrl_kernel(rt, st, criterion == "max")
    if truth is None:
        return LinkResult(links=links, score=score / 2.0)
    ties, hit = _rbrl_ties(rt, st, criterion == "max", score, truth)
    return with_ties(LinkResult(links=links, score=score / 2.0), ties, hit)
