"""Exact nearest-neighbour search with a k-d tree, optionally inside per-query key boxes.

The linkage attacks link every original record ``a_i`` to the masked record ``b_l`` minimising a
distance, the *lowest* masked index on ties. A brute-force search costs ``n_a x n_b`` distances;
:class:`KDTree` answers the same question exactly in sub-quadratic time:

* DBRL (Muralidhar & Domingo-Ferrer 2016, section 2): squared Euclidean distance on the
  standardised files, ``metric="sqeuclidean"``;
* RBRL-Sum / RBRL-Max (same paper, section 3): ``metric="l1"`` / ``"linf"`` on the doubled
  integer ranks;
* RS-RL (Nin, Herranz & Torra 2008, section 3) and L-RL: DBRL restricted to the candidate set
  ``{l : lo[i, j] <= keys[l, j] < hi[i, j] for all j}``, with ``keys`` the positions of the masked
  records in the sorted masked columns (a box query).

Tree: median splits on the dimension of widest spread (of the values; of the keys when all values
of a node coincide), leaves of at most ``leaf_size`` rows (64: a leaf is scanned with vectorised
loops over one contiguous block holding its values attribute by attribute, so larger leaves than
the usual 16-32 pay off), and per node the bounding box of its values, the range of its keys per
dimension, its lowest original row index and its row count. The keys need not be monotone in the
values for correctness (a node's key range is that of its rows), only for the pruning to be
effective.
Identical rows of ``b`` (with identical keys) are stored once, under their lowest index: their
distances to any query are bit-identical, so only that index can win a tie, and the groups of
``k`` equal records of a microaggregated file cost one row.

Why the result equals the brute force:

* a node is pruned only when its lower bound exceeds the best distance found, or equals it and
  every row of the node has a larger index than the current link (a row of the node could at most
  tie, and loses the tie); a node whose key range misses the query box holds no allowed row;
* the lower bound is a true bound *in floating point*: the per-dimension gap from the query to the
  box is at most the rounded ``|q_j - b_lj|`` of every row inside (rounding is monotone), and the
  bound adds its terms in the same order and the same way as the distance of a row, so each partial
  sum is at most the row's; a leaf whose nearest allowed row is farther than the best is skipped;
* a row's distance is computed with the arithmetic of the brute-force kernels (``d = 0``, then
  ``d += (q_j - b_lj)^2`` for ``j = 0, 1, ...``; sums of absolute differences or their maximum on
  integer-valued data are exact), and equal distances go to the lower original index (for the box
  queries of RS-RL / L-RL, ``rescore=False``, this sum is the exact distance);
* ``metric="sqeuclidean"`` with ``rescore=True`` reproduces :func:`sdcrisk.linkage.distance.nearest`:
  the kernel minimum ``d_min``, then every row with kernel distance ``<= d_min + tol_i``
  (``tol_i = 1e-10 (|a_i|^2 + max_l |b_l|^2)``; nodes pruned only when their bound exceeds that
  threshold; kept in a small per-query buffer, listed by a range search when it overflows),
  re-scored with numpy's ``((a_i - b_l)**2).sum()`` by :func:`exact_best`, the lowest index among
  the exact minima.

Candidate-set sizes (:meth:`KDTree.count`) are exact orthogonal range counts in the same tree: a
node whose key ranges lie inside the box adds its row count without being descended.

Ties (``truth=``, the expected credit of uniform random tie-breaking, :mod:`.distance`): with
``rescore=True`` the equally best rows are the collected candidates whose numpy re-scored distance
equals the link's (:func:`exact_best`), each stored row counted with its multiplicity; otherwise
:meth:`KDTree.ties` counts the rows in the box at most the link's distance away, with the search's
arithmetic: a node is skipped when its lower bound exceeds that distance and counted whole (its
multiplicities summed) when its keys lie inside the box and an upper bound of its distance
(:func:`_far`, accumulated like :func:`_leaf`) does not; the true row's own distance is computed by
:func:`_target_hit` with the same arithmetic. Neither holds more than the tree and one count per query.

Queries run in parallel over blocks of independent rows of ``a`` (serial ``nogil`` kernels on a
pool of ``numba.get_num_threads()`` threads: a ``parallel=True`` kernel took four times as long to
compile, 9 s against 2 s, which a first ``sdcrisk assess`` paid), taken in the order of the
leaves the queries descend to, so that consecutive queries read the same parts of the tree from
the CPU's caches (2.4 times faster at 1,000,000 x 10); every query's result is a function of that
query alone, so it depends neither on the order nor on the number of threads.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from concurrent.futures import ThreadPoolExecutor

import numba
from numba import njit

from .. import progress
from .sorting import argsort_stable

LEAF_SIZE = 64
METRICS = {"sqeuclidean": 0, "l1": 1, "linf": 2}
# Relative tolerance (times |a_i|^2 + max_l |b_l|^2) under which kernel distances are re-scored with
# numpy: far above any summation-order rounding error (~ m * eps), far below real distance gaps.
REL_TOL = 1e-10
_PAIR_CHUNK = 1 << 18
_BLOCK = 256  # fewest queries per thread task
_NEAR = 16  # rows near the minimum kept per query during the search (more: a range search)
_BIG = np.iinfo(np.int64).max


def exact_best(a: np.ndarray, b: np.ndarray, rows: np.ndarray, cols: np.ndarray, nrows: int, ties=None):
    """Among pairs (rows[k], cols[k]), return per row the column of minimum exact squared distance
    ``((a[r] - b[c]) ** 2).sum()`` (numpy), lowest column on ties, and that distance (-1, inf for
    rows without a pair).

    ``ties = (weight, target)`` (``weight[c]``: how many records column ``c`` stands for;
    ``target[r]``: a column or -1) also returns, per row, the number of records at exactly that
    minimum (the pairs whose distance equals it, weighted) and whether ``target[r]`` is one of
    them: the equally best candidates of the link, decided by the same numbers."""
    best_c = np.full(nrows, -1, dtype=np.int64)
    best_d = np.full(nrows, np.inf)
    dall = np.empty(rows.size if ties is not None else 0)
    for s in range(0, rows.size, _PAIR_CHUNK):
        r, c = rows[s:s + _PAIR_CHUNK], cols[s:s + _PAIR_CHUNK]
        d = ((a[r] - b[c]) ** 2).sum(axis=1)
        if ties is not None:
            dall[s:s + d.size] = d
        # fold in the running best of each row, then take the lexicographic (row, d, col) minimum
        prev = np.flatnonzero(best_c >= 0)
        r = np.concatenate([r, prev])
        c = np.concatenate([c, best_c[prev]])
        d = np.concatenate([d, best_d[prev]])
        order = np.lexsort((c, d, r))
        first = order[np.r_[True, r[order][1:] != r[order][:-1]]]
        best_c[r[first]] = c[first]
        best_d[r[first]] = d[first]
    if ties is None:
        return best_c, best_d
    weight, target = ties
    tied = dall == best_d[rows]
    t = np.bincount(rows[tied], weights=np.asarray(weight)[cols[tied]], minlength=nrows).astype(np.int64)
    hit = np.zeros(nrows, dtype=np.bool_)
    hit[rows[tied & (cols == np.asarray(target)[rows])]] = True
    return best_c, best_d, t, hit


@dataclass
class NearestSearch:
    """One exact squared-Euclidean search of every original row ``a_i`` over every masked row
    (:meth:`KDTree.search`): what DBRL, RS-RL and L-RL share on one pair of standardised files.

    ``links``, ``dist``: the lowest index at the kernel's minimum and that minimum (the location
    attacks' unrestricted nearest, ``rescore=False``); ``counted``: the rows at exactly it
    (identical rows counted); ``rows``, ``cols``: the candidate pairs within the brute force's
    tolerance of it (``cols`` stored rows, ``weight`` their multiplicities), from which
    :meth:`rescored` gives DBRL's link; ``rep_of``: the stored row of each masked row. None of
    it depends on the tree's shape or keys, only on the two files (module docstring)."""

    links: np.ndarray
    dist: np.ndarray
    counted: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    weight: np.ndarray
    rep_of: np.ndarray

    FIELDS = ("links", "dist", "counted", "rows", "cols", "weight", "rep_of")

    def rescored(self, a: np.ndarray, b: np.ndarray, truth=None):
        """:meth:`KDTree.query`'s ``rescore=True`` result on the same files (``a``, ``b``: the
        searched and the stored rows): numpy's exact distances of the candidates decide."""
        n = a.shape[0]
        has = self.links >= 0
        if truth is None:
            c, d = exact_best(a, b, self.rows, self.cols, n)
            return np.where(has, c, -1), np.where(has, d, np.inf)
        weight = np.zeros(b.shape[0], dtype=np.int64)
        weight[self.cols] = self.weight
        c, d, ties, hit = exact_best(a, b, self.rows, self.cols, n, (weight, stored_rows(self.rep_of, truth, n)))
        return np.where(has, c, -1), np.where(has, d, np.inf), np.where(has, ties, 0), hit & has


def stored_rows(rep_of: np.ndarray, truth, n: int) -> np.ndarray:
    """The index each ``truth[i]`` (a row of ``b``, or -1) is stored under in a tree whose rows
    are stored as ``rep_of``; -1 stays -1."""
    truth = np.asarray(truth)
    nb = rep_of.shape[0]
    if truth.shape != (n,) or truth.dtype.kind not in "iu" or truth.size and (truth.min() < -1 or truth.max() >= nb):
        raise ValueError(f"truth must hold one row index of b in [-1, {nb}) per query row")
    return np.where(truth >= 0, rep_of[np.maximum(truth, 0)], -1)


# ---------------------------------------------------------------- construction
@njit(cache=True)
def _build(pts, keys, idx, mult, leaf):
    """k-d tree over the rows of ``pts`` (keys, original indices and multiplicities alongside).

    Returns the row permutation, the node arrays (their first ``nn`` entries used), ``nn`` and the
    depth; node ``v`` holds rows ``start[v]:end[v]`` of the permuted arrays, children
    ``left[v]``/``right[v]`` (-1: leaf)."""
    n, m = pts.shape
    c = keys.shape[1]
    half = max((leaf + 1) // 2, 1)  # every non-root node has at least this many rows
    cap = 2 * (n // half + 1) + 1
    start = np.zeros(cap, dtype=np.int64)
    end = np.zeros(cap, dtype=np.int64)
    left = np.empty(cap, dtype=np.int64)
    right = np.empty(cap, dtype=np.int64)
    for v in range(cap):
        left[v] = -1
        right[v] = -1
    depth = np.zeros(cap, dtype=np.int64)
    blo = np.empty((cap, m))
    bhi = np.empty((cap, m))
    klo = np.empty((cap, c), dtype=np.int64)
    khi = np.empty((cap, c), dtype=np.int64)
    minidx = np.empty(cap, dtype=np.int64)
    count = np.empty(cap, dtype=np.int64)
    perm = np.arange(n)
    tmp = np.empty(n)
    seg = np.empty(n, dtype=np.int64)
    todo = np.empty(cap, dtype=np.int64)
    end[0] = n
    todo[0] = 0
    top = 1
    nn = 1
    maxdepth = 0
    while top > 0:
        top -= 1
        v = todo[top]
        s, e = start[v], end[v]
        maxdepth = max(maxdepth, depth[v])
        for j in range(m):
            blo[v, j] = np.inf
            bhi[v, j] = -np.inf
        for j in range(c):
            klo[v, j] = _BIG
            khi[v, j] = -_BIG
        mi = _BIG
        cnt = 0
        for p in range(s, e):
            r = perm[p]
            for j in range(m):
                x = pts[r, j]
                if x < blo[v, j]:
                    blo[v, j] = x
                if x > bhi[v, j]:
                    bhi[v, j] = x
            for j in range(c):
                k = keys[r, j]
                if k < klo[v, j]:
                    klo[v, j] = k
                if k > khi[v, j]:
                    khi[v, j] = k
            if idx[r] < mi:
                mi = idx[r]
            cnt += mult[r]
        minidx[v] = mi
        count[v] = cnt
        if e - s <= leaf:
            continue
        d = -1
        on_key = False
        wmax = 0.0
        for j in range(m):
            w = bhi[v, j] - blo[v, j]
            if w > wmax:
                wmax = w
                d = j
        if d < 0:  # all values equal: split on the keys, if they differ
            kmax = 0
            for j in range(c):
                w = khi[v, j] - klo[v, j]
                if w > kmax:
                    kmax = w
                    d = j
            if d < 0:
                continue
            on_key = True
        w = e - s
        for p in range(s, e):
            tmp[p - s] = keys[perm[p], d] if on_key else pts[perm[p], d]
        o = argsort_stable(tmp[:w])
        for t in range(w):
            seg[t] = perm[s + o[t]]
        for t in range(w):
            perm[s + t] = seg[t]
        mid = s + w // 2
        for child, cs, ce in ((nn, s, mid), (nn + 1, mid, e)):
            start[child] = cs
            end[child] = ce
            depth[child] = depth[v] + 1
            todo[top] = child
            top += 1
        left[v] = nn
        right[v] = nn + 1
        nn += 2
    return perm, start, end, left, right, blo, bhi, klo, khi, minidx, count, nn, maxdepth


@njit(cache=True)
def _leaf_major(pts, perm, start, end, left):
    """The rows ``pts[perm]`` leaf by leaf, each leaf's block attribute-major: the leaf of rows
    ``s:e`` holds attribute ``j`` at ``out[s * m + j * (e - s):][:e - s]``, so that a leaf scan
    reads one contiguous block. At 1,000,000 x 10 (one thread, 150,000 queries, six alternating
    rounds) the ten nearest search took 6.5-7.9 s against 8.5-10.7 s with the attributes as rows
    of an m x n array, where a leaf's values lay in m blocks n * 8 bytes apart."""
    n, m = pts.shape
    out = np.empty(n * m)
    for v in range(start.size):
        if left[v] >= 0:
            continue
        s, e = start[v], end[v]
        w = e - s
        for j in range(m):
            for u in range(w):
                out[s * m + j * w + u] = pts[perm[s + u], j]
    return out


# ---------------------------------------------------------------- search kernels
@njit(cache=True, inline="always")
def _bound(q, i, blo, bhi, v, metric):
    """Lower bound of the distance from query row ``q[i]`` to any row inside the box of node ``v``,
    accumulated like :func:`_leaf` (so it never exceeds a row's rounded distance). Branch-free: at
    most one of the two gaps is positive, and adding a zero gap changes nothing."""
    d = 0.0
    for j in range(q.shape[1]):
        x = q[i, j]
        g1 = blo[v, j] - x
        g2 = x - bhi[v, j]
        g = (g1 if g1 > 0.0 else 0.0) + (g2 if g2 > 0.0 else 0.0)
        if metric == 0:
            d += g * g
        elif metric == 1:
            d += g
        else:
            d = g if g > d else d
    return d


@njit(cache=True, inline="always")
def _leaf(q, i, pts, keysT, s, e, metric, lo, hi, check, acc, ok, limit=np.inf):
    """``acc[u]``: distance from ``q[i]`` to row ``s + u`` of the leaf holding rows ``s:e`` (``pts``:
    the tree's values leaf by leaf, :func:`_leaf_major`), with the brute-force kernels' arithmetic
    (``d = 0``, then ``d += (q_j - b_j)^2``, or ``+= |q_j - b_j|``, or ``max``, for ``j = 0, 1, ...``;
    the loops over rows vectorise); ``ok[u]``: the row's keys lie in the box ``[lo[i], hi[i])``
    (only when ``check``). Returns the minimum over the allowed rows.

    Early exit: when every row's partial distance after half (and after seven tenths) of the
    attributes already exceeds ``limit``, returns ``inf`` with ``acc`` and ``ok`` unset. Exact: the
    partial sums of non-negative terms (or maxima) never exceed the full ones in floating point,
    so no row of the leaf would be within ``limit``. At 1,000,000 x 10 (one thread, 250,000
    queries, interleaved runs) about half of the leaves the exact nearest search reads end after
    half of the attributes: the search 8.3-8.5 s instead of 8.8-9.7 s, L1 on ranks (RBRL-Sum)
    11.2-11.6 s instead of 13.2-15.0 s. Not used by the k nearest search (:func:`_knn`): with ten
    candidates and ``approx=0.5`` only 8 % of its leaves could end there, and it ran no faster."""
    w = e - s
    for u in range(w):
        acc[u] = 0.0
    mn = np.inf
    m = q.shape[1]
    base = s * m
    half, late = (m + 1) // 2, (7 * m + 9) // 10
    for j in range(m):
        if (j == half or j == late) and j >= 3 and limit < np.inf:
            low = np.inf
            for u in range(w):
                low = acc[u] if acc[u] < low else low
            if low > limit:
                return np.inf
        x = q[i, j]
        col = pts[base + j * w:base + (j + 1) * w]
        if metric == 0:
            for u in range(w):
                v = x - col[u]
                acc[u] += v * v
        elif metric == 1:
            for u in range(w):
                acc[u] += abs(x - col[u])
        else:
            for u in range(w):
                g = abs(x - col[u])
                acc[u] = g if g > acc[u] else acc[u]
    if check:
        for u in range(w):
            ok[u] = True
        for j in range(keysT.shape[0]):
            a = lo[i, j]
            b = hi[i, j]
            kc = keysT[j, s:e]
            for u in range(w):
                ok[u] = ok[u] and kc[u] >= a and kc[u] < b
        for u in range(w):
            if ok[u] and acc[u] < mn:
                mn = acc[u]
    else:
        for u in range(w):
            g = acc[u]
            mn = g if g < mn else mn
    return mn


@njit(cache=True, inline="always")
def _key_state(lo, hi, i, klo, khi, v):
    """0: the keys of node ``v`` miss the box ``[lo[i], hi[i])``; 2: all inside; 1: partly."""
    inside = True
    for j in range(klo.shape[1]):
        a = lo[i, j]
        b = hi[i, j]
        if khi[v, j] < a or klo[v, j] >= b:
            return 0
        if klo[v, j] < a or khi[v, j] >= b:
            inside = False
    return 2 if inside else 1


@njit(cache=True, inline="always")
def _in_box(lo, hi, i, keys, p):
    for j in range(keys.shape[1]):
        k = keys[p, j]
        if k < lo[i, j] or k >= hi[i, j]:
            return False
    return True


@njit(cache=True, inline="always")
def _root_state(use_box, lo, hi, i, klo, khi):
    """:func:`_key_state` of the root for query ``i`` (2, all inside, without a box)."""
    return _key_state(lo, hi, i, klo, khi, 0) if use_box else 2


@njit(cache=True, nogil=True)
def _descend(i0, i1, out, q, blo, bhi, left, right, start, metric):
    """For query rows ``i0:i1``: the first sorted position of the leaf reached by descending to
    the nearer child (smaller :func:`_bound`, left on equality) at every node, into ``out``."""
    for i in range(i0, i1):
        v = 0
        while left[v] >= 0:
            c1 = left[v]
            c2 = right[v]
            v = c2 if _bound(q, i, blo, bhi, c2, metric) < _bound(q, i, blo, bhi, c1, metric) else c1
        out[i] = start[v]


@njit(cache=True, nogil=True)
def _query(i0, i1, order, links, dist, found, q, pts, keysT, idx, start, end, left, right, blo, bhi, klo, khi,
           minidx, maxdepth, maxleaf, metric, lo, hi, use_box, tol, near, mult, tcount):
    """Per query row: the minimum distance over the allowed rows and the lowest original index
    attaining it (-1, inf when no row is allowed or every distance is infinite).

    With a non-empty ``near`` (n x K), also the original indices of the rows within
    ``best + tol[i]`` of the final minimum ``best``, written to ``near[i, :count]``; the returned
    count is -1 when more than K rows qualify. With a non-empty ``tcount``, also the number of
    allowed rows (multiplicities ``mult`` summed) at exactly the minimum, counted on the way, or
    -1 where the search skipped a subtree that may hold more of them (the one it skips for a
    lower index at an equal bound; never while collecting, which visits every row within the
    tolerance): :meth:`KDTree.ties` decides those. Query rows ``order[i0:i1]`` only, into
    ``links``, ``dist``, ``found``, ``tcount``."""
    collect = near.shape[0] > 0
    counting = tcount.shape[0] > 0
    K = near.shape[1]
    cap = 2 * maxdepth + 4
    node = np.empty(cap, dtype=np.int64)
    bnd = np.empty(cap)
    full = np.empty(cap, dtype=np.bool_)
    cidx = np.empty(K, dtype=np.int64)
    cd = np.empty(K)
    acc = np.empty(maxleaf)
    ok = np.empty(maxleaf, dtype=np.bool_)
    for r in range(i0, i1):
        i = order[r]
        best = np.inf
        lim = np.inf  # prune above: best, or best + tol[i] while collecting
        t = tol[i] if collect else 0.0
        arg = -1
        nc = 0
        over = False
        cnt = 0
        unsure = False
        top = 0
        st = _root_state(use_box, lo, hi, i, klo, khi)
        if st > 0:
            node[0] = 0
            bnd[0] = _bound(q, i, blo, bhi, 0, metric)
            full[0] = st == 2
            top = 1
        while top > 0:
            top -= 1
            v = node[top]
            bv = bnd[top]
            if bv > lim:
                continue
            if not collect and bv == best and minidx[v] > arg:
                unsure = True  # rows at the minimum may lie in there
                continue
            inside = full[top]
            if left[v] < 0:
                s0 = start[v]
                if _leaf(q, i, pts, keysT, s0, end[v], metric, lo, hi, not inside, acc, ok, lim) > lim:
                    continue  # no row of the leaf is near enough
                for u in range(end[v] - s0):
                    if not inside and not ok[u]:
                        continue
                    d = acc[u]
                    p = s0 + u
                    if collect and d <= lim and not over:
                        if nc == K:  # drop rows no longer within tolerance of the best
                            kept = 0
                            for w in range(nc):
                                if cd[w] <= lim:
                                    cidx[kept] = cidx[w]
                                    cd[kept] = cd[w]
                                    kept += 1
                            nc = kept
                        if nc == K:
                            over = True
                        else:
                            cidx[nc] = idx[p]
                            cd[nc] = d
                            nc += 1
                    if counting and d <= best:
                        if d < best:
                            cnt = mult[p]
                            unsure = False  # a skipped subtree's bound was the old minimum: above this one
                        else:
                            cnt += mult[p]
                    if d < best or (d == best and idx[p] < arg):
                        best = d
                        arg = idx[p]
                        lim = best + t
                continue
            c1 = left[v]
            c2 = right[v]
            s1 = 2
            s2 = 2
            if not inside:
                s1 = _key_state(lo, hi, i, klo, khi, c1)
                s2 = _key_state(lo, hi, i, klo, khi, c2)
            b1 = _bound(q, i, blo, bhi, c1, metric)
            b2 = _bound(q, i, blo, bhi, c2, metric)
            if b1 > b2:  # push the farther child first, visit the nearer one next
                c1, c2, b1, b2, s1, s2 = c2, c1, b2, b1, s2, s1
            if s2 > 0 and b2 <= lim:
                node[top] = c2
                bnd[top] = b2
                full[top] = s2 == 2
                top += 1
            if s1 > 0 and b1 <= lim:
                node[top] = c1
                bnd[top] = b1
                full[top] = s1 == 2
                top += 1
        links[i] = arg
        dist[i] = best
        if counting:
            tcount[i] = -1 if unsure else cnt
        if collect:
            if over:
                found[i] = -1
            else:
                thr = best + t  # the brute force's threshold
                k = 0
                for w in range(nc):
                    if cd[w] <= thr:
                        near[i, k] = cidx[w]
                        k += 1
                found[i] = k


@njit(cache=True, nogil=True)
def _ball(i0, i1, order, found, q, thr, offset, out, pts, keysT, idx, start, end, left, right, blo, bhi, klo,
          khi, maxdepth, maxleaf, metric, lo, hi, use_box):
    """Rows within distance ``thr[i]`` of query ``i`` (and in its box): their number per query into
    ``found``, and, when ``out`` is non-empty, their original indices written to
    ``out[offset[i]:]``. Query rows ``order[i0:i1]`` only."""
    write = out.size > 0
    cap = 2 * maxdepth + 4
    node = np.empty(cap, dtype=np.int64)
    full = np.empty(cap, dtype=np.bool_)
    acc = np.empty(maxleaf)
    ok = np.empty(maxleaf, dtype=np.bool_)
    for r in range(i0, i1):
        i = order[r]
        t = thr[i]
        k = 0
        top = 0
        st = _root_state(use_box, lo, hi, i, klo, khi)
        if st > 0:
            node[0] = 0
            full[0] = st == 2
            top = 1
        while top > 0:
            top -= 1
            v = node[top]
            if _bound(q, i, blo, bhi, v, metric) > t:
                continue
            inside = full[top]
            if left[v] < 0:
                s0 = start[v]
                if _leaf(q, i, pts, keysT, s0, end[v], metric, lo, hi, not inside, acc, ok, t) > t:
                    continue
                for u in range(end[v] - s0):
                    if (inside or ok[u]) and acc[u] <= t:
                        if write:
                            out[offset[i] + k] = idx[s0 + u]
                        k += 1
                continue
            for c in (left[v], right[v]):
                s = 2 if inside else _key_state(lo, hi, i, klo, khi, c)
                if s > 0:
                    node[top] = c
                    full[top] = s == 2
                    top += 1
        found[i] = k


@njit(cache=True, nogil=True)
def _knn(i0, i1, order, kd, ki, q, pts, idx, start, end, left, right, blo, bhi, maxdepth, maxleaf, shrink,
         metric=0):
    """The ``k = kd.shape[1]`` nearest rows (``metric``: :data:`METRICS`, :func:`_leaf`'s sums) of each query
    row ``order[i0:i1]``, ascending by (distance, original index), into ``kd[i]``, ``ki[i]``. A node
    is skipped when its bound exceeds ``shrink`` times the current k-th distance (``shrink = 1``:
    exact; ``1 / (1 + eps)^2``: each returned k-th distance is within ``(1 + eps)^2`` of the true
    one, scipy's ``eps``)."""
    k = kd.shape[1]
    cap = 2 * maxdepth + 4
    node = np.empty(cap, dtype=np.int64)
    bnd = np.empty(cap)
    acc = np.empty(maxleaf)
    ok = np.empty(0, dtype=np.bool_)
    nokeys = np.empty((0, 0), dtype=np.int64)
    for r in range(i0, i1):
        i = order[r]
        bd = kd[i]
        bi = ki[i]
        for t in range(k):
            bd[t] = np.inf
            bi[t] = -1
        node[0] = 0
        bnd[0] = _bound(q, i, blo, bhi, 0, metric)
        top = 1
        while top > 0:
            top -= 1
            v = node[top]
            if bnd[top] > shrink * bd[k - 1]:
                continue
            if left[v] < 0:
                s0 = start[v]
                _leaf(q, i, pts, nokeys, s0, end[v], metric, nokeys, nokeys, False, acc, ok)
                for u in range(end[v] - s0):
                    d = acc[u]
                    l = idx[s0 + u]
                    if d > bd[k - 1] or (d == bd[k - 1] and (bi[k - 1] >= 0 and l > bi[k - 1])):
                        continue
                    t = k - 1  # insertion into the sorted list of the k best
                    while t > 0 and (bd[t - 1] > d or (bd[t - 1] == d and bi[t - 1] > l)):
                        bd[t] = bd[t - 1]
                        bi[t] = bi[t - 1]
                        t -= 1
                    bd[t] = d
                    bi[t] = l
                continue
            c1 = left[v]
            c2 = right[v]
            b1 = _bound(q, i, blo, bhi, c1, metric)
            b2 = _bound(q, i, blo, bhi, c2, metric)
            if b1 > b2:  # push the farther child first, visit the nearer one next
                c1, c2, b1, b2 = c2, c1, b2, b1
            lim = shrink * bd[k - 1]
            if b2 <= lim:
                node[top] = c2
                bnd[top] = b2
                top += 1
            if b1 <= lim:
                node[top] = c1
                bnd[top] = b1
                top += 1


@njit(cache=True, nogil=True)
def _count(i0, i1, total, lo, hi, keys, mult, start, end, left, right, klo, khi, count, maxdepth):
    """Number of original rows (multiplicities summed) with ``lo[i] <= keys < hi[i]``, per i of
    ``i0:i1``, into ``total``."""
    cap = 2 * maxdepth + 4
    node = np.empty(cap, dtype=np.int64)
    for i in range(i0, i1):
        k = 0
        node[0] = 0
        top = 1
        while top > 0:
            top -= 1
            v = node[top]
            s = _key_state(lo, hi, i, klo, khi, v)
            if s == 0:
                continue
            if s == 2:
                k += count[v]
            elif left[v] < 0:
                for p in range(start[v], end[v]):
                    if _in_box(lo, hi, i, keys, p):
                        k += mult[p]
            else:
                node[top] = left[v]
                node[top + 1] = right[v]
                top += 2
        total[i] = k


@njit(cache=True, inline="always")
def _far(q, i, blo, bhi, v, metric):
    """Upper bound of the distance from query row ``q[i]`` to any row inside the box of node ``v``,
    accumulated like :func:`_leaf`: per dimension the larger of ``q_j - lo_j`` and ``hi_j - q_j``
    is at least the rounded ``|q_j - b_lj|`` of every row inside (rounding is monotone), so each
    partial sum is at least the row's."""
    d = 0.0
    for j in range(q.shape[1]):
        x = q[i, j]
        g1 = x - blo[v, j]
        g2 = bhi[v, j] - x
        g = g1 if g1 > g2 else g2
        if metric == 0:
            d += g * g
        elif metric == 1:
            d += g
        else:
            d = g if g > d else d
    return d


@njit(cache=True, inline="always")
def _target_hit(q, i, b, r, keysT, p, metric, lo, hi, use_box, t):
    """Whether row ``b[r]``, stored at sorted position ``p``, is in the box of query ``i`` (when
    ``use_box``) and at distance ``<= t`` from ``q[i]``, its distance summed as :func:`_leaf` sums
    it (the same terms in the same order, so the same rounding)."""
    if use_box:
        for j in range(keysT.shape[0]):
            k = keysT[j, p]
            if k < lo[i, j] or k >= hi[i, j]:
                return False
    d = 0.0
    for j in range(q.shape[1]):
        g = q[i, j] - b[r, j]
        if metric == 0:
            d += g * g
        elif metric == 1:
            d += abs(g)
        else:
            g = abs(g)
            d = g if g > d else d
    return d <= t


@njit(cache=True, nogil=True)
def _ties(i0, i1, order, total, hit, q, thr, target, pts, b, idx, keysT, mult, start, end, left, right, blo, bhi, klo,
          khi, count, maxdepth, maxleaf, metric, lo, hi, use_box):
    """Per query row ``i``: the number of rows (multiplicities summed) at distance ``<= thr[i]``
    (with :func:`_leaf`'s arithmetic) and in the box, into ``total``: a subtree inside the box whose
    :func:`_far` bound is within ``thr[i]`` adds its row count without being descended; and whether
    the row at sorted position ``target[i]`` (-1: none) is one of them, into ``hit``. Query rows
    ``order[i0:i1]`` only."""
    cap = 2 * maxdepth + 4
    node = np.empty(cap, dtype=np.int64)
    full = np.empty(cap, dtype=np.bool_)
    acc = np.empty(maxleaf)
    ok = np.empty(maxleaf, dtype=np.bool_)
    for r in range(i0, i1):
        i = order[r]
        t = thr[i]
        k = 0
        top = 0
        st = _root_state(use_box, lo, hi, i, klo, khi)
        if st > 0:
            node[0] = 0
            full[0] = st == 2
            top = 1
        while top > 0:
            top -= 1
            v = node[top]
            if _bound(q, i, blo, bhi, v, metric) > t:
                continue
            inside = full[top]
            if inside and _far(q, i, blo, bhi, v, metric) <= t:
                k += count[v]
                continue
            if left[v] < 0:
                s0 = start[v]
                _leaf(q, i, pts, keysT, s0, end[v], metric, lo, hi, not inside, acc, ok)
                for u in range(end[v] - s0):
                    if (inside or ok[u]) and acc[u] <= t:
                        k += mult[s0 + u]
                continue
            for c in (left[v], right[v]):
                s = 2 if inside else _key_state(lo, hi, i, klo, khi, c)
                if s > 0:
                    node[top] = c
                    full[top] = s == 2
                    top += 1
        total[i] = k
        p = target[i]
        if p >= 0:
            hit[i] = _target_hit(q, i, b, idx[p], keysT, p, metric, lo, hi, use_box, t)


@njit(cache=True, nogil=True)
def _hits(hit, q, thr, target, b, idx, keysT, metric, lo, hi, use_box):
    """Per query row ``i``: whether the row at sorted position ``target[i]`` (-1: none) is in the
    box and at distance ``<= thr[i]`` (:func:`_leaf`'s arithmetic), as :func:`_ties` decides it."""
    for i in range(q.shape[0]):
        p = target[i]
        if p >= 0:
            hit[i] = _target_hit(q, i, b, idx[p], keysT, p, metric, lo, hi, use_box, thr[i])


_STEPS = {"_descend": "search order", "_query": "nearest-record search", "_ties": "tie count", "_knn": "nearest-candidates search",
          "_count": "candidate count", "_ball": "range search"}


def _in_threads(kernel, n: int, *args) -> None:
    """``kernel(i0, i1, *args)`` over blocks of ``range(n)`` on numba's number of threads (the
    kernels release the GIL and write disjoint rows of their outputs). The records done go to
    :func:`sdcrisk.progress.report` as blocks finish."""
    threads = numba.get_num_threads()
    block = max(_BLOCK, -(-n // (8 * threads)))
    if progress.active():  # smaller blocks: a progress line every few seconds even at 10^7 records
        block = max(_BLOCK, min(block, 65_536))
    spans = [(i, min(n, i + block)) for i in range(0, n, block)]
    step = _STEPS.get(getattr(kernel, "__name__", ""), "search")
    done = 0
    if threads == 1 or len(spans) == 1:
        for i0, i1 in spans:
            kernel(i0, i1, *args)
            done += i1 - i0
            progress.report(f"{step}: {done:,} of {n:,} records")
        return
    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(kernel, i0, i1, *args) for i0, i1 in spans]
        for (i0, i1), f in zip(spans, futures):
            f.result()
            done += i1 - i0
            progress.report(f"{step}: {done:,} of {n:,} records")


def _run_query(order: np.ndarray, *args, mult=None):
    """:func:`_query` on every row; ``mult`` (the stored rows' multiplicities) also counts the
    ties on the way (its ``tcount``, the fourth result; else an empty array)."""
    n = order.size
    links = np.full(n, -1, dtype=np.int64)
    dist = np.full(n, np.inf)
    found = np.zeros(n, dtype=np.int64)
    tcount = np.zeros(n if mult is not None else 0, dtype=np.int64)
    mult = np.zeros(0, dtype=np.int64) if mult is None else mult
    _in_threads(_query, n, order, links, dist, found, *args, mult, tcount)
    return links, dist, found, tcount


def _run_ball(order: np.ndarray, q, *args):
    found = np.zeros(q.shape[0], dtype=np.int64)
    _in_threads(_ball, q.shape[0], order, found, q, *args)
    return found


# ---------------------------------------------------------------- public API
@njit(cache=True, inline="always")
def _mix(z):
    """splitmix64's finaliser (Steele, Lea & Flood 2014): every input bit moves every output bit."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def _row_hashes(bits, keys):
    """A 64-bit hash of each row's bits and keys (equal rows, equal hashes)."""
    n = bits.shape[0]
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        h = np.uint64(0x9E3779B97F4A7C15)
        for j in range(bits.shape[1]):
            h = _mix(h ^ np.uint64(bits[i, j]))
        for j in range(keys.shape[1]):
            h = _mix(h ^ np.uint64(keys[i, j]))
        out[i] = h
    return out


@njit(cache=True, nogil=True)
def _group_rows(bits, keys, h, order):
    """For each row, the lowest index of the rows equal to it: rows of equal hash in ``order``
    (ascending index within each hash) are compared in full, so that a collision never merges
    two different rows."""
    n = order.size
    of = np.empty(n, dtype=np.int64)
    s = 0
    while s < n:
        e = s + 1
        while e < n and h[order[e]] == h[order[s]]:
            e += 1
        for t in range(s, e):
            i = order[t]
            of[i] = i
            for u in range(s, t):
                r = order[u]
                if of[r] != r:
                    continue
                same = True
                for j in range(bits.shape[1]):
                    if bits[i, j] != bits[r, j]:
                        same = False
                        break
                if same:
                    for j in range(keys.shape[1]):
                        if keys[i, j] != keys[r, j]:
                            same = False
                            break
                if same:
                    of[i] = r
                    break
        s = e
    return of


def _dedup(b: np.ndarray, keys: np.ndarray):
    """Unique rows of ``(b, keys)`` (bitwise), each under its lowest original index, their counts,
    and for every row the index it is stored under. Rows are grouped by a 64-bit hash and compared
    in full within a hash: 32 bytes per row beside the input, where ``np.unique(axis=0)`` on the
    rows' bits took about 630 at 10^6 x 20 (and 3.9 s instead of 0.3)."""
    n = b.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    if b.shape[1] + keys.shape[1] == 0:
        return np.zeros(1, dtype=np.int64), np.array([n], dtype=np.int64), np.zeros(n, dtype=np.int64)
    bits = np.ascontiguousarray(b).view(np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    h = _row_hashes(bits, keys)
    of = _group_rows(bits, keys, h, np.argsort(h, kind="stable"))
    del h
    rep = np.flatnonzero(of == np.arange(n))
    return rep, np.bincount(of, minlength=n)[rep], of


class KDTree:
    """Exact k-d tree over the rows of ``b`` (n_b x m), optionally with integer ``keys`` (n_b x c)
    for box queries ``lo[i, j] <= keys[l, j] < hi[i, j]``. See the module docstring."""

    def __init__(self, b, keys=None, leaf_size: int = LEAF_SIZE, unique: bool = True):
        self.b = np.asarray(b, dtype=np.float64)
        if self.b.ndim != 2:
            raise ValueError(f"b must be a 2-d array, got shape {self.b.shape}")
        n = self.b.shape[0]
        self.has_keys = keys is not None
        keys = np.zeros((n, 0), dtype=np.int64) if keys is None else np.asarray(keys)
        if keys.ndim != 2 or keys.shape[0] != n or not np.issubdtype(keys.dtype, np.integer):
            raise ValueError(f"keys must be an integer array with {n} rows, got {keys.dtype} {keys.shape}")
        keys = keys.astype(np.int64, copy=False)
        bc = np.ascontiguousarray(self.b)
        self.unique = bool(unique)
        if unique:
            rep, mult, self.rep_of = _dedup(bc, keys)
        else:  # every row stored (k nearest: identical rows are distinct neighbours)
            rep, mult = np.arange(n, dtype=np.int64), np.ones(n, dtype=np.int64)
            self.rep_of = rep
        pts, k = bc[rep], np.ascontiguousarray(keys[rep])
        *nodes, nn, self.maxdepth = _build(pts, k, rep, mult, max(int(leaf_size), 1))
        perm = nodes[0]
        (self.start, self.end, self.left, self.right, self.blo, self.bhi, self.klo, self.khi, self.minidx,
         self.node_count) = (np.ascontiguousarray(a[:nn]) for a in nodes[1:])  # the nodes used
        self.pts = _leaf_major(pts, perm, self.start, self.end, self.left)
        self.keys = np.ascontiguousarray(k[perm])
        self.keysT = np.ascontiguousarray(self.keys.T)
        self.maxleaf = int(np.max(self.end - self.start, where=self.left < 0, initial=1))
        self.idx = rep[perm]
        self.mult = mult[perm]
        self.n_unique = rep.size
        self.where = np.full(n, -1, dtype=np.int64)  # sorted position of each stored row
        self.where[self.idx] = np.arange(rep.size)

    ARRAYS = ("b", "rep_of", "start", "end", "left", "right", "blo", "bhi", "klo", "khi", "minidx", "node_count",
              "pts", "keys", "keysT", "idx", "mult", "where")
    _SCALARS = ("has_keys", "unique", "maxdepth", "maxleaf", "n_unique")

    def state(self) -> dict:
        """The tree as named arrays (:data:`ARRAYS`, and ``scalars``), for :meth:`from_state`."""
        out = {f: getattr(self, f) for f in self.ARRAYS}
        out["scalars"] = np.array([int(getattr(self, f)) for f in self._SCALARS], dtype=np.int64)
        return out

    @classmethod
    def from_state(cls, state) -> "KDTree":
        """The tree :meth:`state` described (its arrays used as they are, not copied)."""
        tree = cls.__new__(cls)
        for f in cls.ARRAYS:
            setattr(tree, f, state[f])
        has_keys, unique, tree.maxdepth, tree.maxleaf, tree.n_unique = (int(v) for v in state["scalars"])
        tree.has_keys, tree.unique = bool(has_keys), bool(unique)
        return tree

    def _b(self) -> np.ndarray:
        """The rows as given, C-contiguous (a stored row's own distance is computed from them)."""
        return np.ascontiguousarray(self.b)

    def _order(self, a: np.ndarray, code: int) -> np.ndarray:
        """The query rows of ``a`` in the order of the leaves they descend to (:func:`_descend`):
        consecutive queries then visit the same nodes and leaves, which stay in the CPU's caches
        (1,000,000 x 10: 53 s in row order, 22 s in this order). Each query's result does not
        depend on the order."""
        pos = np.empty(a.shape[0], dtype=np.int64)
        _in_threads(_descend, a.shape[0], pos, a, self.blo, self.bhi, self.left, self.right, self.start, code)
        return np.argsort(pos, kind="stable")

    def _box(self, n, lo, hi):
        if (lo is None) != (hi is None):
            raise ValueError("give both lo and hi, or neither")
        if lo is None:
            return np.zeros((n, 0), dtype=np.int64), np.zeros((n, 0), dtype=np.int64), False
        if not self.has_keys:
            raise ValueError("a box query (lo, hi) needs a tree built with keys")
        shape = (n, self.keys.shape[1])
        lo, hi = np.asarray(lo), np.asarray(hi)
        if lo.shape != shape or hi.shape != shape:
            raise ValueError(f"lo and hi must have shape {shape}, got {lo.shape} and {hi.shape}")
        return (np.ascontiguousarray(lo, dtype=np.int64), np.ascontiguousarray(hi, dtype=np.int64), True)

    def query(self, a, metric: str = "sqeuclidean", *, lo=None, hi=None, rescore: bool = True, truth=None,
              count: bool = False):
        """Nearest allowed row of the tree for every row of ``a``: ``(index int64, distance float64)``,
        lowest index on ties, (-1, inf) when no row is allowed.

        ``metric="sqeuclidean"`` with ``rescore=True`` returns numpy's exact squared distance and the
        link of :func:`sdcrisk.linkage.distance.nearest`'s brute force; ``rescore=False`` takes the
        kernel's sequential sum as exact (the arithmetic of the location-linkage kernels).
        ``"l1"`` and ``"linf"`` are exact on integer-valued data.

        ``truth`` (a row index of ``b`` per row of ``a``, -1 for none) also returns the ties of each
        link, ``(index, distance, ties, hit)``: ``ties[i]`` the number of allowed rows of ``b``
        (identical rows counted) at exactly the link's distance, as the link decides it (numpy's
        re-scored distances when ``rescore``, else the kernel's), 0 without a link; ``hit[i]``
        whether ``truth[i]`` is one of them (:meth:`ties`).

        ``count=True`` (the kernel's arithmetic: ``rescore=False`` or another metric) returns
        ``(index, distance, counted)``: the ties the search counted on its way, -1 where it is
        unsure (:func:`_query`); :meth:`counted_ties` completes them.
        """
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {list(METRICS)}, got {metric!r}")
        a = np.ascontiguousarray(a, dtype=np.float64)
        if a.ndim != 2 or a.shape[1] != self.b.shape[1]:
            raise ValueError(f"a must have shape (n, {self.b.shape[1]}), got {a.shape}")
        n = a.shape[0]
        lo, hi, use_box = self._box(n, lo, hi)
        code = METRICS[metric]
        args = (self.pts, self.keysT, self.idx, self.start, self.end, self.left, self.right,
                self.blo, self.bhi, self.klo, self.khi)
        tree = (self.minidx, self.maxdepth, self.maxleaf, code, lo, hi, use_box)
        if code != 0 or not rescore:
            links, dist, _, counted = _run_query(self._order(a, code), a, *args, *tree, np.zeros(0),
                                                 np.zeros((0, 1), dtype=np.int64),
                                                 mult=None if truth is None and not count else self.mult)
            if count:
                return links, dist, counted
            if truth is None:
                return links, dist
            ties, hit = self.counted_ties(a, dist, counted, truth, metric, lo=lo if use_box else None,
                                          hi=hi if use_box else None)
            return links, dist, np.where(links >= 0, ties, 0), hit & (links >= 0)
        if count:
            raise ValueError("count=True needs the kernel's arithmetic (rescore=False, or metric 'l1' / 'linf')")
        return self._searched(a, lo, hi, use_box).rescored(a, self.b, truth)

    def _searched(self, a, lo, hi, use_box: bool) -> "NearestSearch":
        """:meth:`_near_minimum` as a :class:`NearestSearch` (the candidates' multiplicities)."""
        links, dist, counted, rows, cols = self._near_minimum(a, lo, hi, use_box)
        weight = np.zeros(self.b.shape[0], dtype=np.int64)  # the rows stored: their multiplicities
        weight[self.idx] = self.mult
        return NearestSearch(links, dist, counted, rows, cols, weight[cols], self.rep_of)

    def _near_minimum(self, a, lo, hi, use_box: bool):
        """One squared-Euclidean search of every row of ``a`` (contiguous): the kernel minimum
        ``dist``, the lowest index at it ``links``, the rows at exactly it ``counted`` (identical
        rows counted; exact: the search visits every row within the tolerance), and the candidate
        pairs ``(rows, cols)`` of :func:`sdcrisk.linkage.distance.nearest`'s brute force: every
        stored row within ``tol_i`` of the minimum (module docstring)."""
        n = a.shape[0]
        code = METRICS["sqeuclidean"]
        args = (self.pts, self.keysT, self.idx, self.start, self.end, self.left, self.right,
                self.blo, self.bhi, self.klo, self.khi)
        tree = (self.minidx, self.maxdepth, self.maxleaf, code, lo, hi, use_box)
        bmax = np.einsum("ij,ij->i", self.b, self.b).max(initial=0.0)
        tol = REL_TOL * (np.einsum("ij,ij->i", a, a) + bmax)
        near = np.empty((n, _NEAR), dtype=np.int64)
        links, dist, found, counted = _run_query(self._order(a, code), a, *args, *tree, tol, near, mult=self.mult)
        over = np.flatnonzero(found < 0)
        found[over] = 0
        rows = np.repeat(np.arange(n, dtype=np.int64), found)
        cols = near[np.arange(_NEAR)[None, :] < found[:, None]]
        if over.size:  # more than _NEAR rows near the minimum: list them in a range search
            qo = np.ascontiguousarray(a[over])
            thr = dist[over] + tol[over]
            lo_o, hi_o = np.ascontiguousarray(lo[over]), np.ascontiguousarray(hi[over])
            ball = (self.maxdepth, self.maxleaf, code, lo_o, hi_o, use_box)
            no_out = np.zeros(0, dtype=np.int64)
            order = self._order(qo, code)
            cnt = _run_ball(order, qo, thr, no_out, no_out, *args, *ball)
            extra = np.empty(int(cnt.sum()), dtype=np.int64)
            _run_ball(order, qo, thr, np.r_[0, np.cumsum(cnt)[:-1]].astype(np.int64), extra, *args, *ball)
            rows = np.concatenate([rows, np.repeat(over, cnt)])
            cols = np.concatenate([cols, extra])
        return links, dist, counted, rows, cols

    def search(self, a) -> "NearestSearch":
        """The one squared-Euclidean search over every row that DBRL, RS-RL and L-RL each begin
        with (:class:`NearestSearch`; :mod:`.shared` keeps it for the attacks that follow)."""
        a = np.ascontiguousarray(a, dtype=np.float64)
        if a.ndim != 2 or a.shape[1] != self.b.shape[1]:
            raise ValueError(f"a must have shape (n, {self.b.shape[1]}), got {a.shape}")
        return self._searched(a, *self._box(a.shape[0], None, None))

    def _stored(self, truth, n: int) -> np.ndarray:
        """The index each ``truth[i]`` is stored under (-1 stays -1)."""
        return stored_rows(self.rep_of, truth, n)

    def ties(self, a, dist, truth, metric: str = "sqeuclidean", *, lo=None, hi=None):
        """Per row ``a_i``: the number of rows of ``b`` (identical rows counted) at distance at most
        ``dist[i]`` (the kernel's arithmetic, :func:`_leaf`) and in the box ``lo[i] <= keys < hi[i]``,
        and whether ``truth[i]`` is one of them. With ``dist`` the minimum that
        :meth:`query` found (``rescore=False``), these are the equally best rows and whether the
        true one is among them. Subtrees inside the box and inside the distance (an upper bound,
        :func:`_far`) are counted whole, so equal or crowded records cost no more than the search."""
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {list(METRICS)}, got {metric!r}")
        a = np.ascontiguousarray(a, dtype=np.float64)
        n = a.shape[0]
        lo, hi, use_box = self._box(n, lo, hi)
        stored = self._stored(truth, n)
        target = np.where(stored >= 0, self.where[np.maximum(stored, 0)], -1)
        code = METRICS[metric]
        total = np.zeros(n, dtype=np.int64)
        hit = np.zeros(n, dtype=np.bool_)
        _in_threads(_ties, n, self._order(a, code), total, hit, a, np.ascontiguousarray(dist, dtype=np.float64),
                    target, self.pts, self._b(), self.idx, self.keysT, self.mult, self.start, self.end, self.left, self.right,
                    self.blo, self.bhi, self.klo, self.khi, self.node_count, self.maxdepth, self.maxleaf, code,
                    lo, hi, use_box)
        return total, hit

    def counted_ties(self, a, dist, counted, truth, metric: str = "sqeuclidean", *, lo=None, hi=None):
        """:meth:`ties` from the counts the query made on its way (``counted``, -1 where it is
        unsure: :func:`_query`); the tree is searched again only for those rows. ``hit`` is the
        true row's own distance test (:func:`_hits`)."""
        a = np.ascontiguousarray(a, dtype=np.float64)
        n = a.shape[0]
        lo, hi, use_box = self._box(n, lo, hi)
        stored = self._stored(truth, n)
        target = np.where(stored >= 0, self.where[np.maximum(stored, 0)], -1)
        dist = np.ascontiguousarray(dist, dtype=np.float64)
        total = np.asarray(counted, dtype=np.int64).copy()
        hit = np.zeros(n, dtype=np.bool_)
        _hits(hit, a, dist, target, self._b(), self.idx, self.keysT, METRICS[metric], lo, hi, use_box)
        redo = np.flatnonzero(total < 0)
        if redo.size:
            total[redo], hit[redo] = self.ties(a[redo], dist[redo], np.asarray(truth)[redo], metric,
                                               lo=lo[redo] if use_box else None, hi=hi[redo] if use_box else None)
        return total, hit

    def knn(self, a, k: int, approx: float = 0.0, metric: str = "sqeuclidean") -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest rows of ``b`` to every row of ``a`` (``metric`` as in :meth:`query`, the
        kernel's sums), ``(distances, indices)`` of shape (n_a, k), ascending by (distance, index). With
        ``approx = eps > 0`` the search stops early as scipy's ``cKDTree.query(eps=eps)`` does
        (each returned k-th neighbour within ``(1 + eps)`` times the true k-th distance). Needs a
        tree built with ``unique=False`` (identical rows are distinct neighbours)."""
        if self.unique:
            raise ValueError("knn needs a tree built with unique=False")
        a = np.ascontiguousarray(a, dtype=np.float64)
        if a.ndim != 2 or a.shape[1] != self.b.shape[1]:
            raise ValueError(f"a must have shape (n, {self.b.shape[1]}), got {a.shape}")
        if not 1 <= k <= self.b.shape[0]:
            raise ValueError(f"k must be in [1, {self.b.shape[0]}], got {k}")
        n = a.shape[0]
        kd = np.empty((n, k))
        ki = np.empty((n, k), dtype=np.int64)
        shrink = 1.0 / (1.0 + float(approx)) ** 2
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {list(METRICS)}, got {metric!r}")
        code = METRICS[metric]
        _in_threads(_knn, n, self._order(a, code), kd, ki, a, self.pts, self.idx, self.start, self.end, self.left,
                    self.right, self.blo, self.bhi, self.maxdepth, self.maxleaf, shrink, code)
        return kd, ki

    def count(self, lo, hi) -> np.ndarray:
        """Number of rows of ``b`` (duplicates included) with ``lo[i] <= keys < hi[i]``, per i."""
        n = np.asarray(lo).shape[0]
        lo, hi, _ = self._box(n, lo, hi)
        total = np.zeros(n, dtype=np.int64)
        _in_threads(_count, n, total, lo, hi, self.keys, self.mult, self.start, self.end, self.left,
                    self.right, self.klo, self.khi, self.node_count, self.maxdepth)
        return total


def nearest(a, b, metric: str = "sqeuclidean", *, keys=None, lo=None, hi=None, rescore: bool = True,
            leaf_size: int = LEAF_SIZE, truth=None):
    """For every row ``a_i``: among the rows ``b_l`` allowed (all, or with ``keys`` the box
    ``lo[i, j] <= keys[l, j] < hi[i, j]`` for every j), the minimum distance and the lowest index
    ``l`` attaining it; ``(-1, inf)`` when none is allowed. Returns ``(index int64, dist float64)``,
    with ``truth`` also the ties and hits of :meth:`KDTree.query`.
    See :meth:`KDTree.query` for ``metric`` and ``rescore``."""
    return KDTree(b, keys, leaf_size).query(a, metric, lo=lo, hi=hi, rescore=rescore, truth=truth)
