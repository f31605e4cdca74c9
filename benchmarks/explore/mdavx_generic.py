"""Generic MDAV-generic kernel for the mdavx_* hypotheses (research only). Options:
metric 0 squared Euclidean, 1 Manhattan, 2 Chebyshev; grow 0 k nearest to the seed record, 1 greedy
(each next record nearest to the running centroid); endgame 0 textbook (k..2k-1 left: one group),
1 fewer than k left are spread to the nearest cluster centroid (clusters of exactly k);
centroid used to pick xr: 0 mean of the remaining records, 1 coordinate-wise median, 2 midrange,
3 fixed mean of the whole file (never recomputed); pool 0 textbook, 1 xs is the farthest from xr
among ALL records (already clustered ones too), 2 xr and xs both among all records (the cluster
is always the k nearest still-unclustered records)."""
from __future__ import annotations
import numpy as np
from numba import njit

from mdav_lib import _cent, _take


@njit(cache=True)
def _dist(z, idx, c, metric):
    out = np.empty(idx.size)
    for a in range(idx.size):
        s = 0.0
        for t in range(z.shape[1]):
            d = abs(z[idx[a], t] - c[t])
            if metric == 0:
                s += d * d
            elif metric == 1:
                s += d
            else:
                if d > s:
                    s = d
        out[a] = s
    return out


@njit(cache=True)
def _center(z, idx, how, fixed):
    if how == 0:
        return _cent(z, idx)
    if how == 3:
        return fixed
    c = np.empty(z.shape[1])
    for t in range(z.shape[1]):
        col = z[idx, t]
        c[t] = np.median(col) if how == 1 else 0.5 * (col.min() + col.max())
    return c


@njit(cache=True)
def _grow(z, active, seed, k, metric, grow):
    """positions (in active) of a k-cluster around record seed (see module doc, ``grow``)."""
    if grow == 0:
        d = _dist(z, active, z[seed], metric)
        return np.argsort(d, kind="mergesort")[:k]
    sel = np.empty(k, dtype=np.int64)
    used = np.zeros(active.size, dtype=np.bool_)
    c = z[seed].copy()
    for a in range(k):
        d = _dist(z, active, c, metric)
        best = -1
        bd = np.inf
        for p in range(active.size):
            if not used[p] and d[p] < bd:
                bd = d[p]
                best = p
        used[best] = True
        sel[a] = best
        c = _cent(z, active[sel[:a + 1]])
    return sel


@njit(cache=True)
def _cluster_around(z, active, seed, k, metric, grow, labels, g):
    """Label the k-cluster around ``seed`` with ``g``; returns the still-unclustered records."""
    p = _grow(z, active, seed, k, metric, grow)
    for a in range(k):
        labels[active[p[a]]] = g
    return _take(active, p)


@njit(cache=True)
def mdav(z, k, metric=0, grow=0, endgame=0, centroid=0, pool=0):
    """Cluster labels of the rows of ``z`` (options in the module doc)."""
    n = z.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    allr = np.arange(n)
    active = np.arange(n)
    fixed = _cent(z, allr)
    g = 0
    while active.size >= 3 * k:
        c = _center(z, active, centroid, fixed)
        pool_r = allr if pool == 2 else active
        xr = pool_r[np.argmax(_dist(z, pool_r, c, metric))]
        pool_s = allr if pool >= 1 else active
        xs = pool_s[np.argmax(_dist(z, pool_s, z[xr], metric))]
        active = _cluster_around(z, active, xr, k, metric, grow, labels, g)
        active = _cluster_around(z, active, xs, k, metric, grow, labels, g + 1)
        g += 2
    # 2k..3k-1 left: one more cluster; with endgame 1 also k..2k-1 left
    while active.size >= 2 * k or (endgame == 1 and active.size >= k):
        c = _center(z, active, centroid, fixed)
        xr = active[np.argmax(_dist(z, active, c, metric))]
        active = _cluster_around(z, active, xr, k, metric, grow, labels, g)
        g += 1
        if endgame == 0:
            break
    if endgame == 0:
        for a in range(active.size):
            labels[active[a]] = g
        return labels
    # endgame 1: spread the remaining (< k) records to the nearest cluster centroid
    cents = np.zeros((g, z.shape[1]))
    cnt = np.zeros(g)
    for i in range(n):
        if labels[i] >= 0:
            cents[labels[i]] += z[i]
            cnt[labels[i]] += 1
    for q in range(g):
        cents[q] /= cnt[q]
    for a in range(active.size):
        i = active[a]
        labels[i] = np.argmin(_dist(cents, np.arange(g), z[i], 0))
    return labels
