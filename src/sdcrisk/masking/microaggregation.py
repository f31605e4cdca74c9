"""Microaggregation: records are partitioned into groups of at least k and each value is replaced
by its group mean (Nin, Herranz & Torra (2008, multivariate microaggregation) §2.4, Nin, Herranz & Torra (2007) §2.2-2.3, Muralidhar & Domingo-Ferrer (2016) §4).

Registered methods (all deterministic):

* ``optimal_univariate_ma`` (k): per attribute, the optimal partition of the sorted values into
  contiguous groups of k .. 2k-1 values minimising the within-group SSE (Hansen & Mukherjee
  2003; Nin, Herranz & Torra (2008, multivariate microaggregation) §2.4.1 shortest path over the graph of sorted values, here the equivalent
  O(n k) dynamic program, :func:`optimal_univariate_groups`).
* ``individual_ranking_ma`` (k): per attribute, sorted values cut into consecutive groups of k,
  the n mod k remaining values joined to the last group (Muralidhar & Domingo-Ferrer (2016) §4; REPLICATION.md,
  :func:`fixed_size_groups`).
* ``mdav`` (v, k, scale): MDAV (Nin, Herranz & Torra (2008, multivariate microaggregation) Algorithm 1, Nin, Herranz & Torra (2007) §2.3) on each block of v
  attributes ("Mic{v}-{k}"), Euclidean distance on z-scores (sample sd; ``scale="z"``, the
  mu-ARGUS / sdcMicro convention) or on the raw values (``scale="none"``, Nin, Herranz & Torra (2008, multivariate microaggregation) Algorithm 1
  as written), :func:`mdav_groups`.
* ``pcp_ma`` / ``zscore_ma`` (v, k): projection microaggregation (Nin, Herranz & Torra (2008, multivariate microaggregation) §3, Algorithm 2):
  each block projected to one value (:func:`sdcrisk.masking.projection.project`), records sorted
  by it and grouped by the optimal univariate partition of the projected values.

Blocks (:func:`attribute_blocks`): floor(m / v) blocks of v consecutive attributes, the m mod v
leftover attributes joined to the last block (Nin, Herranz & Torra (2007) Table 9: Census m = 13 gives 6 / 4 / 3
groups for v = 2 / 3 / 4, EIA m = 10 gives 5 / 3 / 2).

Group means are taken in original units, so column sums (means) are preserved exactly up to
rounding. Ties: sorts are stable (equal values keep record-index order); MDAV distance ties go to
the lowest record index; among equal-SSE partitions the dynamic program keeps, at every end
point, the smallest admissible last group.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from ..threads import map_threads
from ..validation import check_int
from .mdav_tree import mdav_tree_kernel, memory_estimate, tree_applicable
from .projection import PROJECTIONS, project, standardise
from .radix import argsort_values
from .registry import Param, per_value, register

_K = Param("k", "int", low=2, doc="minimum group size k >= 2 (and k <= n)", at_most="n")
_V = Param("v", "int", low=1, doc="block size v >= 1 (and v <= m)", at_most="m")
THREADS_MIN = 100_000  # records from which _univariate treats the columns on numba's threads


# ----------------------------------------------------------------------------------------------
# univariate partitions of sorted values

@njit(cache=True, nogil=True)
def _optimal_groups_kernel(v, k):
    n = v.size
    best = np.full(n + 1, np.inf)
    last = np.zeros(n + 1, dtype=np.int64)
    best[0] = 0.0
    for j in range(k, n + 1):
        # Welford's running SSE of v[j-s .. j-1], s = 1 .. 2k-1 (numerically stable).
        mean = 0.0
        m2 = 0.0
        bj = np.inf
        bs = 0
        for s in range(1, min(2 * k - 1, j) + 1):
            x = v[j - s]
            d = x - mean
            mean += d / s
            m2 += d * (x - mean)
            if s >= k:
                c = best[j - s] + m2
                if c < bj:
                    bj = c
                    bs = s
        best[j] = bj
        last[j] = bs
    # backtrack: group sizes from the end, then labels left to right
    sizes = np.empty(n // k + 1, dtype=np.int64)
    g = 0
    j = n
    while j > 0:
        sizes[g] = last[j]
        j -= last[j]
        g += 1
    labels = np.empty(n, dtype=np.int64)
    pos = 0
    for t in range(g):
        s = sizes[g - 1 - t]
        for i in range(s):
            labels[pos + i] = t
        pos += s
    return labels, best[n]


def optimal_univariate_groups(sorted_values, k: int) -> np.ndarray:
    """Group label (0, 1, ... left to right) of each position of ``sorted_values`` in the optimal
    univariate k-partition: contiguous groups of k .. 2k-1 values with minimum total within-group
    SSE (Hansen & Mukherjee 2003; Nin, Herranz & Torra (2008, multivariate microaggregation) §2.4.1, Results 1-2). O(n k)."""
    v = np.ascontiguousarray(sorted_values, dtype=np.float64)
    if v.ndim != 1:
        raise ValueError(f"sorted_values must be a 1-D array, got shape {v.shape}")
    k = check_int("k", k, 2, v.size)
    if np.any(np.diff(v) < 0):
        raise ValueError("sorted_values must be sorted in increasing order")
    return _optimal_groups_kernel(v, k)[0]


def fixed_size_groups(n: int, k: int) -> np.ndarray:
    """Individual-ranking labels of n sorted positions: consecutive groups of k, the n mod k
    remaining positions joined to the last group (Muralidhar & Domingo-Ferrer (2016) §4)."""
    n = check_int("n", n, 2)
    k = check_int("k", k, 2, n)
    return np.minimum(np.arange(n) // k, n // k - 1)


def group_sse(values, labels) -> float:
    """Total within-group sum of squared deviations from the group means."""
    values = np.asarray(values, dtype=np.float64)
    labels = np.asarray(labels)
    counts = np.bincount(labels)
    means = np.bincount(labels, values) / np.where(counts > 0, counts, 1)
    return float(((values - means[labels]) ** 2).sum())


def group_means(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each row of ``x`` (n x p) replaced by the mean of its group (``labels``: n ints)."""
    counts = np.bincount(labels).astype(np.float64)
    out = np.empty_like(x, dtype=np.float64)
    for j in range(x.shape[1]):
        out[:, j] = (np.bincount(labels, x[:, j], minlength=counts.size) / counts)[labels]
    return out


def _univariate(x: np.ndarray, grouping) -> np.ndarray:
    """Apply a sorted-values grouping to every column independently (stable sort); the columns
    on numba's threads from :data:`THREADS_MIN` records (the same values either way)."""
    out = np.empty_like(x)

    def column(j):
        order = argsort_values(x[:, j])
        col = x[order, j]
        out[order, j] = group_means(col[:, None], grouping(col))[:, 0]

    map_threads(column, range(x.shape[1]), x.shape[0] >= THREADS_MIN)
    return out


def _univariate_memory(n: int, m: int, params) -> float:
    """``memory=`` of :func:`_univariate`: the output (8 bytes a value, 10 counted) and, per column
    under way, its radix sort, gathered values and group means (70 bytes a record; 45-56 measured
    at 10^6, ``benchmarks/results/mask_memory.md``)."""
    columns = min(numba.get_num_threads(), m) if n >= THREADS_MIN else 1
    return float(n) * (10 * m + 70 * columns)


def _mdav_memory(n: int, m: int, params) -> float:
    """``memory=`` of :func:`mdav`: the tree kernel's arrays for one block
    (:func:`.mdav_tree.memory_estimate`) and 24 bytes a value for the z-scores, the block copies and
    the output."""
    return memory_estimate(n, min(params["v"], m)) + 24.0 * n * m


def _check_k(method: str, k: int, n: int) -> int:
    return check_int(f"{method}: parameter k", k, 2, n)


@register("optimal_univariate_ma", _K, family="microaggregation", randomised=False, memory=_univariate_memory)
def optimal_univariate_ma(x: np.ndarray, rng, *, k: int) -> np.ndarray:
    """Optimal univariate microaggregation per attribute (Nin, Herranz & Torra (2008, multivariate microaggregation) §2.4.1, Nin, Herranz & Torra (2007) §2.2)."""
    k = _check_k("optimal_univariate_ma", k, x.shape[0])
    return _univariate(x, lambda col: _optimal_groups_kernel(col, k)[0])


@register("individual_ranking_ma", _K, family="microaggregation", randomised=False, memory=_univariate_memory)
def individual_ranking_ma(x: np.ndarray, rng, *, k: int) -> np.ndarray:
    """Individual-ranking microaggregation: sorted groups of k, remainder to the last group
    (Muralidhar & Domingo-Ferrer (2016) §4, Table 5)."""
    n = x.shape[0]
    k = _check_k("individual_ranking_ma", k, n)
    labels = fixed_size_groups(n, k)
    return _univariate(x, lambda col: labels)


# ----------------------------------------------------------------------------------------------
# blocks of attributes

def attribute_blocks(m: int, v: int) -> list[np.ndarray]:
    """Column indices of the blocks of v consecutive attributes: floor(m / v) blocks, the
    m mod v leftover attributes joined to the last block (Nin, Herranz & Torra (2007) Table 9)."""
    m = check_int("m", m, 1)
    v = check_int("v", v, 1, m)
    r = m // v
    return [np.arange(b * v, (b + 1) * v if b < r - 1 else m, dtype=np.int64) for b in range(r)]


def _blockwise(method: str, x: np.ndarray, v: int, k: int, labeller) -> np.ndarray:
    n, m = x.shape
    k = _check_k(method, k, n)
    v = check_int(f"{method}: parameter v", v, 1, m)
    out = np.empty_like(x)
    for cols in attribute_blocks(m, v):
        block = x[:, cols]
        out[:, cols] = group_means(block, labeller(block, k))
    return out


# ----------------------------------------------------------------------------------------------
# MDAV

@njit(cache=True)
def _sqdist(z, i, c):
    s = 0.0
    for t in range(z.shape[1]):
        d = z[i, t] - c[t]
        s += d * d
    return s


@njit(cache=True)
def _farthest(z, active, na, c):
    """Active record farthest from point c (ties: lowest index; ``active`` is increasing)."""
    best = -1.0
    arg = -1
    for a in range(na):
        d = _sqdist(z, active[a], c)
        if d > best:
            best = d
            arg = active[a]
    return arg


@njit(cache=True)
def _cluster_around(z, active, na, r, k, labels, g, dist):
    """Label r and its k-1 nearest active records (ties: lowest index) as group g; fills
    ``dist[a]`` with the squared distance of active[a] to r."""
    bd = np.full(k - 1, np.inf)
    bi = np.full(k - 1, -1, dtype=np.int64)
    c = z[r].copy()
    for a in range(na):
        i = active[a]
        d = _sqdist(z, i, c)
        dist[a] = d
        if i == r or d >= bd[k - 2]:
            continue
        p = k - 2  # insertion into the sorted buffer; strict < keeps lower indices first
        while p > 0 and d < bd[p - 1]:
            bd[p] = bd[p - 1]
            bi[p] = bi[p - 1]
            p -= 1
        bd[p] = d
        bi[p] = i
    labels[r] = g
    for t in range(k - 1):
        labels[bi[t]] = g


@njit(cache=True)
def _compact(active, na, labels, dist):
    w = 0
    for a in range(na):
        i = active[a]
        if labels[i] < 0:
            active[w] = i
            dist[w] = dist[a]
            w += 1
    return w


@njit(cache=True)
def _centroid(z, active, na):
    c = np.zeros(z.shape[1])
    for a in range(na):
        for t in range(z.shape[1]):
            c[t] += z[active[a], t]
    return c / na


@njit(cache=True)
def _mdav_kernel_brute(z, k):
    """Reference MDAV kernel: O(n^2 / k), about five passes over the active records per pair of
    clusters. :func:`sdcrisk.masking.mdav_tree.mdav_tree_kernel` gives the same labels."""
    n = z.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    active = np.arange(n)
    dist = np.empty(n)
    na = n
    g = np.int64(0)  # int64, not a numba literal: one compiled copy of _cluster_around
    while na >= 3 * k:
        xr = _farthest(z, active, na, _centroid(z, active, na))
        _cluster_around(z, active, na, xr, k, labels, g, dist)
        g += 1
        na = _compact(active, na, labels, dist)
        # xs: farthest remaining record from xr (distances already in dist; lowest index on ties)
        best = -1.0
        xs = np.int64(-1)
        for a in range(na):
            if dist[a] > best:
                best = dist[a]
                xs = active[a]
        _cluster_around(z, active, na, xs, k, labels, g, dist)
        g += 1
        na = _compact(active, na, labels, dist)
    if na >= 2 * k:
        xr = _farthest(z, active, na, _centroid(z, active, na))
        _cluster_around(z, active, na, xr, k, labels, g, dist)
        g += 1
        na = _compact(active, na, labels, dist)
    for a in range(na):
        labels[active[a]] = g
    return labels


MDAV_SCALES = ("z", "none")
MDAV_METHODS = ("tree", "brute")


def mdav_groups(block: np.ndarray, k: int, scale: str = "z", method: str = "tree") -> np.ndarray:
    """MDAV cluster label of each record of ``block`` (n x v), Nin, Herranz & Torra (2008, multivariate microaggregation) Algorithm 1 /
    Domingo-Ferrer & Torra (2005), on the z-scores of the block (sample sd; ``scale="z"``) or on
    its raw values (``scale="none"``):

    while at least 3k records remain: xr = record farthest from the centroid of the remaining
    records, a cluster of xr and its k-1 nearest records; xs = remaining record farthest from xr,
    a cluster of xs and its k-1 nearest; then if 2k .. 3k-1 remain, one cluster of k around the
    record farthest from their centroid and the rest as the last cluster, else all remaining
    records form one cluster. Squared Euclidean distance; ties go to the lowest record index.
    (xs is sought among the records left after xr's cluster is removed, which equals the
    textbook "farthest from xr" except in exact distance ties.)

    ``method="tree"`` (default) runs the exact k-d tree kernel (:mod:`sdcrisk.masking.mdav_tree`),
    ``"brute"`` the O(n^2 / k) reference kernel; both return identical labels."""
    if scale not in MDAV_SCALES:
        raise ValueError(f"scale must be one of {list(MDAV_SCALES)}, got {scale!r}")
    if method not in MDAV_METHODS:
        raise ValueError(f"method must be one of {list(MDAV_METHODS)}, got {method!r}")
    z = np.ascontiguousarray(standardise(block) if scale == "z" else block, dtype=np.float64)
    k = check_int("k", k, 2, z.shape[0])
    if method == "tree" and tree_applicable(z):
        return mdav_tree_kernel(z, k)
    return _mdav_kernel_brute(z, k)


@register("mdav", _V, _K,
          Param("scale", "choice", choices=MDAV_SCALES, default="z",
                doc="distances on z-scores (mu-ARGUS) or on raw values (Nin, Herranz & Torra (2008, multivariate microaggregation) Algorithm 1)"),
          family="microaggregation", randomised=False, memory=_mdav_memory)
def mdav(x: np.ndarray, rng, *, v: int, k: int, scale: str = "z") -> np.ndarray:
    """MDAV on blocks of v attributes, "Mic{v}-{k}" (Nin, Herranz & Torra (2008, multivariate microaggregation) Algorithm 1, Nin, Herranz & Torra (2007) §2.3);
    ``scale`` as in :func:`mdav_groups`."""
    return _blockwise("mdav", x, v, k, lambda block, k: mdav_groups(block, k, scale))


# ----------------------------------------------------------------------------------------------
# projection microaggregation

def projection_groups(block: np.ndarray, k: int, method: str) -> np.ndarray:
    """Group label of each record of ``block`` under projection microaggregation (Nin, Herranz & Torra (2008, multivariate microaggregation)
    Algorithm 2): project (``method`` in {"pcp", "zscore"}), stable-sort by the projected value,
    optimal univariate k-partition of the sorted projected values."""
    p = project(block, method)
    k = check_int("k", k, 2, p.size)
    order = np.argsort(p, kind="stable")
    labels = np.empty(p.size, dtype=np.int64)
    labels[order] = _optimal_groups_kernel(np.ascontiguousarray(p[order]), k)[0]
    return labels


@register("pcp_ma", _V, _K, family="microaggregation", randomised=False, memory=per_value(27, 48))
def pcp_ma(x: np.ndarray, rng, *, v: int, k: int) -> np.ndarray:
    """PCP-microaggregation on blocks of v attributes (Nin, Herranz & Torra (2008, multivariate microaggregation) §3, Algorithm 2)."""
    return _blockwise("pcp_ma", x, v, k, lambda b, k: projection_groups(b, k, "pcp"))


@register("zscore_ma", _V, _K, family="microaggregation", randomised=False, memory=per_value(27, 48))
def zscore_ma(x: np.ndarray, rng, *, v: int, k: int) -> np.ndarray:
    """Zscore-microaggregation on blocks of v attributes (Nin, Herranz & Torra (2008, multivariate microaggregation) §3, Algorithm 2)."""
    return _blockwise("zscore_ma", x, v, k, lambda b, k: projection_groups(b, k, "zscore"))


__all__ = [
    "PROJECTIONS", "project", "optimal_univariate_groups", "fixed_size_groups", "group_sse",
    "group_means", "attribute_blocks", "mdav_groups", "projection_groups",
    "optimal_univariate_ma", "individual_ranking_ma", "mdav", "pcp_ma", "zscore_ma",
]
