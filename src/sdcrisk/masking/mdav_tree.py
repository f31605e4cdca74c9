"""Exact k-d tree MDAV: the labels of the brute-force kernel
(:func:`sdcrisk.masking.microaggregation._mdav_kernel_brute`; Domingo-Ferrer & Torra 2005;
Nin, Herranz & Torra 2008, Algorithm 1) bit for bit, ties included, with far fewer distance
evaluations (benchmarks/results/mdav.md, 2 cores, k = 3, 1,000,000 x 10: 94-107 s, against
175-177 s for a kernel that walks the tree, in alternating runs).

* The records are partitioned by a k-d tree built on the principal-component coordinates of
  the active records (a rotation of the centred data: distances unchanged), so that its cells
  follow the shape of the data, into leaves of at most LEAF records (more only where all rows are
  equal); it is rebuilt from the active records whenever half of them have been removed since
  the last build.
* The searches do not walk the tree. After MDAV's first steps have peeled the outermost records,
  the active set's far side is a wide front of records at nearly the answer's distance, and a
  depth-first farthest search expanded some 4,000 inner nodes per query (two bounds each, read
  from scattered memory) to reach a few hundred leaves (benchmarks/results/mdav.md). The leaves
  are instead laid out in tree order in a table, G to a group (:func:`_make_tree`), whose bound
  data (largest squared norm and box, float32 rounded outwards) are refitted on every deletion. A
  query computes every group's bound in one vectorised sweep, then the leaf bounds of the groups
  that reach the best record found so far, then, in the leaves that reach it, a float32 filter
  per record (NF rotated coordinates and the norm of the rest, widened by its rounding) before the
  exact distance. The farthest search visits the groups by decreasing bound (bucketed), the
  nearest search the group of the query's own leaf first.
* Record distances are always computed as the brute kernel computes them, in the original
  coordinates (``d = x_t - q_t; s += d * d`` in coordinate order). Bounds are computed in the
  rotated coordinates: farthest queries take the "norm + linear" bound
  (``max |y|^2 + |q|^2 - 2 min_box y.q``, :func:`_bounds`; the box bound beside it cost more
  than it pruned), nearest queries the box bound (:func:`_lower_bounds`), each widened by a
  margin (relative 1e-10 plus 2e-10 times the squared norms involved) far larger than the
  rounding errors of the rotation and of the distances. A leaf or group is passed over only when
  its widened bound is strictly worse than the current best (or k-1-th best), so records at an
  equal computed distance are never passed over and ties are resolved exactly as by the brute
  kernel (lowest record index).
* The centroid of the brute kernel is the sequential float sum over the active records in index
  order, divided by their number. The kernel keeps a double-double sum of the active records
  (with a rounding-error bound) and a bound of the error of the sequential sum (Higham's
  gamma_{n-1} * sum |x|), which give a box that provably contains that centroid. One pass
  collects every record whose largest possible computed distance over that box (original
  coordinates, rounding-monotone formula) reaches the best smallest possible one; if these are
  copies of one row, the lowest index wins whatever the centroid, otherwise the centroid is
  recomputed exactly (O(n m), rare) and the collected records compared with it. The pass reads
  the active records in decreasing distance from a reference point (the centroid when that order
  was made) and stops at the first whose distance plus the reference's distance from the box
  cannot reach the best smallest one: the centroid moves little from step to step, so it reads
  about 63 records per step (100,000 x 10). The order is made again with each new tree and whenever more
  records have been read since it was made than remain (54 times at 100,000 records).
* While at least PAR_MIN records remain, the farthest search runs in numba's threads, which claim the
  groups CHUNK at a time from a shared counter (two threads may search the same chunk, none is
  skipped, no thread searches one twice); each prunes with the best record any thread has found
  so far (a valid bound whatever the timing), and the best of the threads, ties by lowest index,
  is the serial search's answer, so the labels do not depend on the number of threads. The search
  for the record farthest from x_r starts as soon as x_r is deleted, while the first thread finds
  the k-1 records nearest x_r: their group can hold the farthest record only where distances tie,
  and if it does the search runs again once the group is deleted.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from ..resources import check_memory

LEAF = 16  # records per leaf at most (4 took 5.0-5.1 s at 100,000 x 10 against 4.1-4.2 s, 1.8x the peak memory)
REBUILD = 0.5  # rebuild once the active records fall below this fraction of the last build
_U = 2.0 ** -53  # unit roundoff
_REL = 1e-10  # relative margin of the rotated-coordinate bounds
_NRM = 2e-10  # margin per unit of squared norm
PAR_MIN = 50_000  # two threads search while at least this many records remain (mdav_tree_kernel)
G = 16  # leaves per group
NF = 3  # rotated coordinates kept per record for the filter
_F32 = 4e-6  # margin of the float32 filter per unit of squared norm (2^-22 covers its rounding)
PAD = 8  # one value per cache line
NB = 64  # buckets of the farthest search's group order
CHUNK = 8  # groups a thread claims at a time


@njit(cache=True)
def _select(vals, perm, s, e, k):
    """Reorder ``vals[s:e]``, and ``perm[s:e]`` alongside, so that no value before position k is
    larger than ``vals[k]`` and none after it smaller (Hoare's selection, median-of-three pivots)."""
    lo = s
    hi = e - 1
    while hi > lo:
        a = vals[lo]
        b = vals[(lo + hi) // 2]
        c = vals[hi]
        pivot = max(min(a, b), min(max(a, b), c))
        i = lo
        j = hi
        while i <= j:
            while vals[i] < pivot:
                i += 1
            while vals[j] > pivot:
                j -= 1
            if i <= j:
                vals[i], vals[j] = vals[j], vals[i]
                perm[i], perm[j] = perm[j], perm[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return


@njit(cache=True)
def _build(y, leaf):
    """k-d partition of the rows of y: ``perm`` (rows in tree order) and the ``[start, end)`` of
    each leaf, in tree order. Each cell of more than ``leaf`` rows is split at the median of its
    widest coordinate (found by selection, :func:`_select`); its halves hold at least leaf / 2
    rows."""
    n, m = y.shape
    perm = np.arange(n)
    vals = np.empty(n)
    lo = np.empty(m)
    hi = np.empty(m)
    cap = n // max(1, leaf // 2) + 2
    starts = np.empty(cap, np.int64)
    ends = np.empty(cap, np.int64)
    stack = np.empty((130, 2), np.int64)  # depth first, left half on top: at most one entry per level
    stack[0, 0] = 0
    stack[0, 1] = n
    sp = 1
    nl = 0
    while sp > 0:
        sp -= 1
        s = stack[sp, 0]
        e = stack[sp, 1]
        dim = -1
        if e - s > leaf:
            lo[:] = np.inf
            hi[:] = -np.inf
            for p in range(s, e):
                r = perm[p]
                for t in range(m):
                    v = y[r, t]
                    lo[t] = min(lo[t], v)
                    hi[t] = max(hi[t], v)
            best = 0.0
            for t in range(m):
                if hi[t] - lo[t] > best:
                    best = hi[t] - lo[t]
                    dim = t
        if dim < 0:  # small enough, or all rows equal: a leaf
            starts[nl] = s
            ends[nl] = e
            nl += 1
            continue
        for p in range(s, e):
            vals[p] = y[perm[p], dim]
        mid = s + (e - s) // 2
        _select(vals, perm, s, e, mid)
        stack[sp, 0] = mid
        stack[sp, 1] = e
        stack[sp + 1, 0] = s
        stack[sp + 1, 1] = mid
        sp += 2
    return perm, starts[:nl].copy(), ends[:nl].copy()


# y are the principal-component coordinates times a power of two (``sc``) that brings the largest
# |y| near 1, so that float32 neither overflows nor underflows; bounds are scaled back exactly.


@njit(cache=True)
def _down(x):
    f = np.float32(x)
    return f if f <= x else np.nextafter(f, np.float32(-np.inf))


@njit(cache=True)
def _up(x):
    f = np.float32(x)
    return f if f >= x else np.nextafter(f, np.float32(np.inf))


@njit(cache=True, inline="always")
def _dist(zp, p, q):
    s = 0.0
    for t in range(zp.shape[1]):
        d = zp[p, t] - q[t]
        s += d * d
    return s


@njit(cache=True)
def _rotate(q, g, V, qy):
    """qy = (q - g) V (V holds the scale); returns |qy|^2."""
    m = q.shape[0]
    qn = 0.0
    for t in range(m):
        s = 0.0
        for u in range(m):
            s += (q[u] - g[u]) * V[u, t]
        qy[t] = s
        qn += s * s
    return qn


@njit(cache=True, inline="always")
def _widen(u, big, qn, isc2):
    """A bound u of a squared distance in the scaled rotated coordinates (squared norms up to big
    and qn) widened by the margins of the rotation's rounding errors and scaled back."""
    return (u * (1.0 + _REL) + _NRM * (big + qn)) * isc2 + 1e-300


@njit(cache=True)
def _pca(z, ids):
    """Mean and principal axes (columns, decreasing variance) of the rows ``ids`` of z."""
    nb = ids.size
    m = z.shape[1]
    g = np.zeros(m)
    for a in range(nb):
        for t in range(m):
            g[t] += z[ids[a], t]
    for t in range(m):
        g[t] /= nb
    C = np.zeros((m, m))
    d = np.empty(m)
    for a in range(nb):
        for t in range(m):
            d[t] = z[ids[a], t] - g[t]
        for t in range(m):
            for u in range(t, m):
                C[t, u] += d[t] * d[u]
    for t in range(m):
        for u in range(t):
            C[t, u] = C[u, t]
    w, V = np.linalg.eigh(C)
    return g, np.ascontiguousarray(V[:, ::-1])


@njit(cache=True)
def _make_tree(z, ids, leaf, pos, leaf_of):
    """The k-d partition of the records ``ids`` (increasing) and its leaf table: ``(tree, flat)``,
    ``tree = (perm, zp, yp, nr, alive_p, g, V, isc2)`` (records in tree order, their original and
    scaled rotated coordinates, squared norms and activity; the rotation's mean, axes and inverse
    squared scale), ``flat`` as in the comment below :func:`_make_tree`. Fills ``pos`` (a
    record's position in tree order) and ``leaf_of`` (its leaf) for these records."""
    nb = ids.size
    m = z.shape[1]
    g, V = _pca(z, ids)
    big = 0.0
    for a in range(nb):
        for t in range(m):
            big = max(big, abs(z[ids[a], t] - g[t]))
    e = 0
    if big > 0.0:
        e = min(500, max(-500, int(np.floor(np.log2(big * np.sqrt(m))))))
    sc = 2.0 ** (-e)  # exact power of two: bounds scale back exactly
    for t in range(m):
        for u in range(m):
            V[t, u] *= sc
    y = np.empty((nb, m))
    q = np.empty(m)
    for a in range(nb):
        for t in range(m):
            q[t] = z[ids[a], t]
        _rotate(q, g, V, y[a])
    lperm, start, end = _build(y, leaf)
    perm = np.empty(nb, np.int64)
    zp = np.empty((nb, m))
    yp = np.empty((nb, m))
    nr = np.empty(nb)
    for p in range(nb):
        perm[p] = ids[lperm[p]]
        s = 0.0
        for t in range(m):
            zp[p, t] = z[perm[p], t]
            yp[p, t] = y[lperm[p], t]
            s += yp[p, t] * yp[p, t]
        nr[p] = s
        pos[perm[p]] = p
    alive_p = np.ones(nb, np.bool_)
    tree = (perm, zp, yp, nr, alive_p, g, V, 1.0 / (sc * sc))
    nl = start.size
    ng = (nl + G - 1) // G
    lrange = np.zeros((ng * G, 2), np.int64)  # padding leaves: empty
    for a in range(nl):
        lrange[a, 0] = start[a]
        lrange[a, 1] = end[a]
        for p in range(start[a], end[a]):
            leaf_of[perm[p]] = a
    nf = min(NF, m)
    yc = np.empty((nb, nf + 1), np.float32)
    for p in range(nb):
        r = 0.0
        for t in range(nf, m):
            r += yp[p, t] * yp[p, t]
        for t in range(nf):
            yc[p, t] = yp[p, t]
        yc[p, nf] = np.sqrt(r)
    flat = (lrange, end - start, np.zeros((ng, 2 * m + 1, G), np.float32),
            np.empty((2 * m + 1, ng), np.float32), yc)
    flat[2][:, 0, :] = -np.inf
    for a in range(nl):
        _fit_leaf(tree, flat, a)
    return tree, flat


# The leaf table (``flat``), made with each tree: the leaves in tree order, G to a group.
# ``lrange[a]``: leaf a's record positions; ``lcnt[a]``: its active records; ``ltab[grp]``: the
# bound data of the group's leaves in one block (rows: the largest squared norm, -inf for an
# empty leaf, the box's m lows and m highs, all float32 rounded outwards; one column per leaf), so
# that a group's leaf bounds are read in sequence; ``gtab``: the same data of the groups, one
# column per group, swept whole by every query; ``yc``: per record, in tree order, the first
# nf = min(NF, m) rotated coordinates and the norm of the others in float32 (-1: deleted), a
# filter before the exact distance.
#   flat = (lrange, lcnt, ltab, gtab, yc)


@njit(cache=True)
def _fit_leaf(tree, flat, a):
    """Refit leaf a's bound data to its active records, then its group's."""
    yp, nr, alive_p = tree[2], tree[3], tree[4]
    lrange, lcnt, ltab, gtab, yc = flat
    m = yp.shape[1]
    grp, u = divmod(a, G)
    lt = ltab[grp]
    big = -np.inf
    for p in range(lrange[a, 0], lrange[a, 1]):
        if alive_p[p]:
            big = max(big, nr[p])
    for t in range(m):
        lo = np.inf
        hi = -np.inf
        for p in range(lrange[a, 0], lrange[a, 1]):
            if alive_p[p]:
                v = yp[p, t]
                lo = min(lo, v)
                hi = max(hi, v)
        lt[1 + t, u] = _down(lo)
        lt[1 + m + t, u] = _up(hi)
    lt[0, u] = _up(big) if lcnt[a] > 0 else -np.inf
    gtab[0, grp] = -np.inf
    for c in range(1, m + 1):
        gtab[c, grp] = np.inf
        gtab[m + c, grp] = -np.inf
    for b in range(G):
        if lt[0, b] > -np.inf:
            gtab[0, grp] = max(gtab[0, grp], lt[0, b])
            for c in range(1, m + 1):
                gtab[c, grp] = min(gtab[c, grp], lt[c, b])
                gtab[m + c, grp] = max(gtab[m + c, grp], lt[m + c, b])


@njit(cache=True)
def _delete(i, tree, flat, pos, leaf_of, alive, sums):
    zp, alive_p = tree[1], tree[4]
    hi_s, lo_s, err, abs_s = sums
    m = zp.shape[1]
    p = pos[i]
    alive[i] = False
    alive_p[p] = False
    flat[4][p, -1] = -1.0
    flat[1][leaf_of[i]] -= 1
    _fit_leaf(tree, flat, leaf_of[i])
    for t in range(m):
        x = -zp[p, t]
        s = hi_s[t] + x  # TwoSum
        bp = s - hi_s[t]
        e = (hi_s[t] - (s - bp)) + (x - bp)
        hi_s[t] = s
        lo_s[t] += e
        err[t] += abs(lo_s[t]) * 2.2205e-16
        abs_s[t] -= abs(x)


@njit(cache=True, inline="always")
def _shared(own, parts):
    """The largest of ``own`` and the parts' values (the bound every part may prune with)."""
    lim = own
    for u in range(parts.shape[0]):  # the other parts' values, read while they run
        lim = max(lim, parts[u, 0])
    return lim


@njit(cache=True, inline="always")
def _bounds(tab, qy, qn, isc2, out):
    """Upper bounds of the computed distance of the active records of each column of a bound
    table (a group's leaves or the groups, :func:`_make_tree`) to the point whose (scaled) rotated
    coordinates are qy (|qy|^2 = qn), into ``out``: the "norm + linear" bound
    max |y|^2 + |q|^2 - 2 min_box y.q, widened (:func:`_widen`); -inf for an empty entry. On the
    outer records, where farthest queries end, it is nearly always tighter than the box and ball
    bounds, and cheaper. Computed column by column over the entries (vectorised), each sum in
    coordinate order."""
    m = qy.shape[0]
    k = tab.shape[1]
    for j in range(k):
        out[j] = 0.0
    for t in range(m):
        q = qy[t]
        row = tab[1 + t] if q >= 0.0 else tab[1 + m + t]
        for j in range(k):
            out[j] += row[j] * q
    for j in range(k):
        bg = np.float64(tab[0, j])
        out[j] = _widen(bg + qn - 2.0 * out[j], bg, qn, isc2) if bg > -np.inf else -np.inf


@njit(cache=True, inline="always")
def _filter(yc, p, qy, rest):
    """The float32 filter of record p (:func:`_make_tree`): the squared differences of its first
    nf rotated coordinates from qy's, plus ``rest`` squared. With ``rest`` the sum of the norms of
    the other coordinates it overstates the rotated squared distance, with their difference it
    understates it (triangle inequality), each up to the float32 rounding."""
    f = 0.0
    for c in range(yc.shape[1] - 1):
        e = np.float64(yc[p, c]) - qy[c]
        f += e * e
    return f + rest * rest


@njit(cache=True, inline="always")
def _filter_limit(lim, big, qn, isc2):
    """The value below which the float32 filter of a record (squared norm at most ``big``) proves
    its computed distance below ``lim``: the filter overstates the rotated squared distance, up to
    its float32 rounding (under 4e-7 (big + qn)), and the rotation's margins (:func:`_widen`) relate
    that distance to the computed one."""
    return (lim / isc2) * (1.0 - _F32) - _F32 * (big + qn) - 1e-300


@njit(cache=True, inline="always")
def _claim(claim, last):
    """The next chunk for a part whose last chunk was ``last``: read and advance the shared
    counter. Two parts may take the same chunk, none is skipped (each write follows the read of the
    value it advances, so every value below the counter has been read, its first reader searching
    it), and a part never takes a chunk twice (a value at or below its last one, written late by the
    other part, is read past)."""
    j = claim[0]
    claim[0] = j + 1
    while j <= last:
        j = claim[0]
        claim[0] = j + 1
    return j


@njit(cache=True)
def _group_order(flat, qy, qn, isc2, gub, order, counts):
    """Every group's bound (:func:`_bounds`, into ``gub``) and the order of the search
    (``order``): the non-empty groups by decreasing bound, bucketed (NB buckets of equal width
    between the largest and the smallest bound, by index within a bucket: a counting sort, where a
    full sort cost more than it saved), so that the records nearest the answer come early and
    raise the best found; returns how many."""
    ng = flat[3].shape[1]
    _bounds(flat[3], qy, qn, isc2, gub[:ng])
    hi = -np.inf
    lo = np.inf
    for j in range(ng):
        if gub[j] > -np.inf:
            hi = max(hi, gub[j])
            lo = min(lo, gub[j])
    if not hi > -np.inf:
        return 0
    scale = NB / (hi - lo) if hi > lo else 0.0
    counts[:] = 0
    for j in range(ng):
        if gub[j] > -np.inf:
            counts[min(NB - 1, int((hi - gub[j]) * scale))] += 1
    w = 0
    for c in range(NB):  # bucket starts
        w, counts[c] = w + counts[c], w
    for j in range(ng):
        if gub[j] > -np.inf:
            c = min(NB - 1, int((hi - gub[j]) * scale))
            order[counts[c]] = j
            counts[c] += 1
    return w


@njit(cache=True)
def _far_part(tree, flat, q, qy, qn, qr, gub, order, nord, t, claim, best2, arg2):
    """Part t of the farthest-record search: the groups ``order[:nord]``, CHUNK at a time as it
    claims them (:func:`_claim`); in a group whose bound reaches the best record any part has found,
    the leaves whose bound reaches it, and in those the active records whose float32 filter
    (:func:`_filter_limit`) reaches it. The part's best (computed distance, then lowest index) goes
    to ``best2[t, 0]``, ``arg2[t, 0]``; nothing is pruned below a record some part has found, so the
    best of the parts is the answer."""
    perm, zp, isc2 = tree[0], tree[1], tree[7]
    lrange, lcnt, ltab, gtab, yc = flat
    nf = yc.shape[1] - 1
    lub = np.empty(G)
    best = best2[t, 0]
    arg = arg2[t, 0]
    j = -1
    while True:
        j = _claim(claim, j)
        if j * CHUNK >= nord:
            break
        for jj in range(j * CHUNK, min(nord, j * CHUNK + CHUNK)):
            grp = order[jj]
            if gub[grp] < _shared(best, best2):
                continue
            _bounds(ltab[grp], qy, qn, isc2, lub)
            for u in range(G):
                lim = _shared(best, best2)
                if lub[u] < lim:
                    continue
                a = grp * G + u
                big = np.float64(ltab[grp, 0, u])
                flim = _filter_limit(lim, big, qn, isc2)
                for p in range(lrange[a, 0], lrange[a, 1]):
                    r = yc[p, nf]
                    if r < 0.0 or _filter(yc, p, qy, np.float64(r) + qr) < flim:
                        continue  # deleted, or proved below the best
                    d = _dist(zp, p, q)
                    if d >= best:
                        i = perm[p]
                        if d > best or i < arg:
                            best = d
                            arg = i
                            best2[t, 0] = best
                            arg2[t, 0] = arg
                            flim = max(flim, _filter_limit(best, big, qn, isc2))


@njit(cache=True, inline="always")
def _lower_bounds(tab, qy, qn, isc2, out):
    """Lower bounds of the computed distance of the active records of each column of a bound table
    (:func:`_make_tree`) to qy: the box bound sum_t max(0, lo_t - q_t, q_t - hi_t)^2, widened by the
    rotation's margins (as :func:`_widen`, downwards); inf for an empty column."""
    m = qy.shape[0]
    k = tab.shape[1]
    for j in range(k):
        out[j] = 0.0
    for t in range(m):
        q = qy[t]
        lo = tab[1 + t]
        hi = tab[1 + m + t]
        for j in range(k):
            v = max(lo[j] - q, q - hi[j], 0.0)
            out[j] += v * v
    for j in range(k):
        bg = np.float64(tab[0, j])
        out[j] = (out[j] * (1.0 - _REL) - _NRM * (bg + qn)) * isc2 - 1e-300 if bg > -np.inf else np.inf


@njit(cache=True, inline="always")
def _knn_group(tree, flat, grp, q, qy, qn, qr, lb, bd, bi):
    """The records of group ``grp`` into the kk nearest ``(bd, bi)`` (:func:`_knn_flat`)."""
    perm, zp, isc2 = tree[0], tree[1], tree[7]
    lrange, lcnt, ltab, gtab, yc = flat
    nf = yc.shape[1] - 1
    kk = bd.shape[0]
    _lower_bounds(ltab[grp], qy, qn, isc2, lb)
    for u in range(G):
        if lb[u] == np.inf or lb[u] > bd[kk - 1]:
            continue
        a = grp * G + u
        big = np.float64(ltab[grp, 0, u])
        for p in range(lrange[a, 0], lrange[a, 1]):
            r = yc[p, nf]
            if r < 0.0:
                continue  # deleted
            if _filter(yc, p, qy, np.float64(r) - qr) > (bd[kk - 1] / isc2) * (1.0 + _F32) + _F32 * (big + qn) + 1e-300:
                continue  # the filter understates the rotated squared distance, up to its rounding
            d = _dist(zp, p, q)
            i = perm[p]
            w = kk - 1
            if d > bd[w] or (d == bd[w] and i > bi[w]) or d == np.inf:
                continue
            while w > 0 and (d < bd[w - 1] or (d == bd[w - 1] and i < bi[w - 1])):
                bd[w] = bd[w - 1]
                bi[w] = bi[w - 1]
                w -= 1
            bd[w] = d
            bi[w] = i


@njit(cache=True)
def _knn_flat(tree, flat, q, kk, home, glb):
    """The kk active records nearest q, by (computed distance, index) (:func:`_knn`'s answer), from
    the leaf table: group ``home`` first (the group of q's own leaf, which gives a near kk-th
    distance), then every group whose lower bound (one vectorised sweep, into ``glb``) reaches it."""
    qy, qn, qr = _query(tree, q)
    gtab = flat[3]
    ng = gtab.shape[1]
    bd = np.full(kk, np.inf)
    bi = np.full(kk, np.iinfo(np.int64).max)
    lb = np.empty(G)
    _lower_bounds(gtab, qy, qn, tree[7], glb[:ng])
    for step in range(-1, ng):  # one inlined copy of _knn_group: group home, then the others
        grp = home if step < 0 else step
        if step < 0 or (grp != home and glb[grp] <= bd[kk - 1]):
            _knn_group(tree, flat, grp, q, qy, qn, qr, lb, bd, bi)
    return bi


@njit(cache=True)
def _best_part(best2, arg2):
    t = 0
    for u in range(1, best2.shape[0]):
        if best2[u, 0] > best2[t, 0] or (best2[u, 0] == best2[t, 0] and arg2[u, 0] < arg2[t, 0]):
            t = u
    return arg2[t, 0]


@njit(cache=True)
def _query(tree, q):
    """q's (scaled) rotated coordinates, |qy|^2 and the norm of its coordinates from
    min(NF, m) on (the float32 filter's, :func:`_make_tree`)."""
    m = q.shape[0]
    qy = np.empty(m)
    qn = _rotate(q, tree[5], tree[6], qy)
    qr = 0.0
    for t in range(min(NF, m), m):
        qr += qy[t] * qy[t]
    return qy, qn, np.sqrt(qr)


@njit(cache=True)
def _farthest(tree, flat, q, gub, order):
    """Active record farthest from q, by (computed distance, -index)."""
    qy, qn, qr = _query(tree, q)
    nord = _group_order(flat, qy, qn, tree[7], gub, order, np.empty(NB, np.int64))
    best2 = np.full((1, PAD), -1.0)
    arg2 = np.full((1, PAD), np.iinfo(np.int64).max)
    # np.int64(0), not 0: numba would compile a copy of _far_part for the literal (sdcrisk compile's time)
    _far_part(tree, flat, q, qy, qn, qr, gub, order, nord, np.int64(0), np.zeros(1, np.int64), best2, arg2)
    return arg2[0, 0]


@njit(parallel=True, cache=True)
def _farthest_par(tree, flat, q, kk, home, nbout, nt, gub, order, glb):
    """:func:`_farthest` in threads, which claim the groups CHUNK at a time (:func:`_claim`), each
    pruning with the others' best (same answer). With kk > 0 the first thread first finds the kk
    records nearest q (:func:`_knn_flat`, from group ``home``, into ``nbout``) and then joins the
    search."""
    qy, qn, qr = _query(tree, q)
    nord = _group_order(flat, qy, qn, tree[7], gub, order, np.empty(NB, np.int64))
    best2 = np.full((nt, PAD), -1.0)
    arg2 = np.full((nt, PAD), np.iinfo(np.int64).max)
    claim = np.zeros(PAD, np.int64)
    for t in prange(nt):
        if t == 0 and kk > 0:
            nb = _knn_flat(tree, flat, q, kk, home, glb)
            for j in range(kk):
                nbout[j] = nb[j]
        _far_part(tree, flat, q, qy, qn, qr, gub, order, nord, np.int64(t), claim, best2, arg2)
    return _best_part(best2, arg2)


@njit(cache=True, inline="always")
def _same_row(zp, p, r):
    for t in range(zp.shape[1]):
        if zp[p, t] != zp[r, t]:
            return False
    return True


@njit(cache=True)
def _centroid_exact(z, alive, act, nact):
    """The brute kernel's centroid (sequential sum in index order / count); compacts ``act``."""
    m = z.shape[1]
    w = 0
    for a in range(nact):
        if alive[act[a]]:
            act[w] = act[a]
            w += 1
    c = np.zeros(m)
    for a in range(w):
        i = act[a]
        for t in range(m):
            c[t] += z[i, t]
    return c / w, w


@njit(cache=True, inline="always")
def _home(flat, leaf_of, r):
    """The group of record r's leaf (r deleted or not)."""
    return leaf_of[r] // G


@njit(cache=True)
def _cluster(r, k, gid, labels, z, tree, flat, pos, leaf_of, alive, sums, glb):
    """Label r and its k-1 nearest active records as group gid and delete them."""
    q = z[r].copy()
    _delete(r, tree, flat, pos, leaf_of, alive, sums)
    nb = _knn_flat(tree, flat, q, k - 1, _home(flat, leaf_of, r), glb)
    labels[r] = gid
    for j in range(k - 1):
        labels[nb[j]] = gid
        _delete(nb[j], tree, flat, pos, leaf_of, alive, sums)


@njit(cache=True)
def _centroid_box(na, n, tree, sums, abs0, qlo, qhi, qy):
    """The box [qlo, qhi] that provably holds the brute kernel's centroid of the na active
    records (module docstring), its centre's rotated coordinates qy; returns (h, |qy|^2), h the
    largest distance of the box from its centre (widened)."""
    hi_s, lo_s, err, abs_s = sums
    m = qlo.shape[0]
    cmid = np.empty(m)
    gam = na * _U / (1.0 - na * _U)
    h = 0.0
    for t in range(m):
        mid = hi_s[t] + lo_s[t]
        bnd = gam * (abs_s[t] + n * 2.2205e-16 * abs0[t])
        w = 2.0 * (err[t] + bnd) + 8.0 * _U * (abs(hi_s[t]) + abs(lo_s[t])) + 1e-300
        qlo[t] = (mid - w) / na
        qhi[t] = (mid + w) / na
        cmid[t] = mid / na
        e = max(qhi[t] - cmid[t], cmid[t] - qlo[t])
        h += e * e
    h = np.sqrt(h) * (1.0 + 1e-9)
    return h, _rotate(cmid, tree[5], tree[6], qy)


@njit(cache=True, inline="always")
def _box_dists(zp, p, qlo, qhi):
    """Smallest and largest computed squared distance of record p to a point of the box
    [qlo, qhi] (original coordinates, rounding-monotone)."""
    lo = 0.0
    up = 0.0
    for c in range(zp.shape[1]):
        u = zp[p, c] - qhi[c]
        v = zp[p, c] - qlo[c]
        if u > 0.0:
            lo += u * u
        elif v < 0.0:
            lo += v * v
        else:
            lo += 0.0
        u = u * u
        v = v * v
        up += u if u > v else v
    return lo, up


@njit(cache=True)
def _far_order(tree, cref, fo, frho, fnum):
    """The active records' positions by decreasing distance from ``cref`` (rotated coordinates):
    ``fo``, the distances ``frho``; ``fnum[0]``: their largest squared norm. Returns their count."""
    yp, nr, alive_p = tree[2], tree[3], tree[4]
    m = yp.shape[1]
    w = 0
    big = 0.0
    for p in range(alive_p.size):
        if alive_p[p]:
            s = 0.0
            for t in range(m):
                d = yp[p, t] - cref[t]
                s += d * d
            frho[w] = -np.sqrt(s)
            fo[w] = p
            big = max(big, nr[p])
            w += 1
    o = np.argsort(frho[:w], kind="mergesort")
    fo[:w] = fo[:w][o]
    frho[:w] = -frho[:w][o]
    fnum[0] = big
    return w


@njit(cache=True)
def _fc_pass(tree, qlo, qhi, qy, qn, h, fo, frho, cref, fst, fnum, bufp, bufu, bufl):
    """Every active record whose largest computed distance over the box [qlo, qhi] reaches the
    largest smallest one (maxlow): into ``bufp[:nb]`` (with ``bufu``, ``bufl``); returns (nb,
    maxlow). The records are read in decreasing distance from ``cref`` (:func:`_far_order`;
    ``fst``: their count, the first that may be active, the records read since the order was
    made) up to the first whose bound, that distance plus |qy - cref| widened by :func:`_widen`
    and then by h, is below maxlow: no record after it can reach maxlow."""
    perm, zp, yp, nr, alive_p, g, V, isc2 = tree
    m = zp.shape[1]
    dl = 0.0
    for t in range(m):
        e = qy[t] - cref[t]
        dl += e * e
    dl = np.sqrt(dl)
    nfo = fst[0]
    head = fst[1]
    while head < nfo and not alive_p[fo[head]]:
        head += 1
    fst[1] = head
    maxlow = -1.0
    nb = 0
    j = head
    while j < nfo:
        r = (frho[j] + dl) * (1.0 + 1e-12)
        u = np.sqrt(_widen(r * r, fnum[0], qn, isc2)) + h
        if u * u * (1.0 + 1e-12) + 1e-300 < maxlow:
            break
        p = fo[j]
        j += 1
        if not alive_p[p]:
            continue
        lo, up = _box_dists(zp, p, qlo, qhi)
        if up < maxlow:
            continue
        bufp[nb] = p
        bufu[nb] = up
        bufl[nb] = lo
        nb += 1
        if lo > maxlow:
            maxlow = lo
    fst[2] += j - head
    return nb, maxlow


@njit(cache=True)
def _from_centroid(na, n, z, tree, alive, sums, abs0, act, nact, fo, frho, cref, fst, fnum, bufp, bufu, bufl):
    """The brute kernel's record farthest from the centroid; (record, new nact, fallback used).
    The candidates of :func:`_fc_pass` decide: the record of the largest lower bound if every
    other candidate is a copy of its row (lowest index), else the exact centroid. The order of
    :func:`_far_order` is made again, from the centroid, when ``fst[0]`` is 0 (a new tree) or
    once more records have been read than remain active."""
    m = z.shape[1]
    qlo = np.empty(m)
    qhi = np.empty(m)
    qy = np.empty(m)
    h, qn = _centroid_box(na, n, tree, sums, abs0, qlo, qhi, qy)
    if fst[0] == 0 or fst[2] > na:
        cref[:] = qy
        fst[0] = _far_order(tree, cref, fo, frho, fnum)
        fst[1] = 0
        fst[2] = 0
    nb, maxlow = _fc_pass(tree, qlo, qhi, qy, qn, h, fo, frho, cref, fst, fnum, bufp, bufu, bufl)
    perm, zp = tree[0], tree[1]
    r = -1
    w = 0
    for j in range(nb):
        if bufu[j] >= maxlow:
            bufp[w] = bufp[j]
            w += 1
            if r < 0 and bufl[j] == maxlow:
                r = bufp[j]
    same = True
    arg = np.iinfo(np.int64).max
    for j in range(w):
        p = bufp[j]
        if not _same_row(zp, p, r):
            same = False
            break
        if perm[p] < arg:
            arg = perm[p]
    if same:
        return arg, nact, False
    c, nact = _centroid_exact(z, alive, act, nact)
    best = -1.0
    arg = np.iinfo(np.int64).max
    for j in range(w):
        p = bufp[j]
        d = _dist(zp, p, c)
        i = perm[p]
        if d > best or (d == best and i < arg):
            best = d
            arg = i
    return arg, nact, True


@njit(cache=True)
def _active_ids(alive):
    nb = 0
    for i in range(alive.size):
        nb += alive[i]
    ids = np.empty(nb, np.int64)
    w = 0
    for i in range(alive.size):
        if alive[i]:
            ids[w] = i
            w += 1
    return ids


@njit(cache=True)
def _mdav_tree_kernel(z, k, nt=1, par_min=PAR_MIN):
    """Labels of the brute-force MDAV kernel and the number of exact centroid recomputations;
    ``nt`` > 1: the search for the record farthest from x_r in nt threads while at least
    ``par_min`` records remain."""
    n, m = z.shape
    pos = np.empty(n, np.int64)
    leaf_of = np.empty(n, np.int64)
    alive = np.ones(n, np.bool_)
    tree, flat = _make_tree(z, np.arange(n), LEAF, pos, leaf_of)
    built = n
    # per coordinate: double-double sum (hi_s + lo_s, error <= err) and sum of |x|
    hi_s = np.zeros(m)
    lo_s = np.zeros(m)
    err = np.zeros(m)
    abs_s = np.zeros(m)
    for i in range(n):
        for t in range(m):
            x = z[i, t]
            s = hi_s[t] + x
            bp = s - hi_s[t]
            e = (hi_s[t] - (s - bp)) + (x - bp)
            hi_s[t] = s
            lo_s[t] += e
            err[t] += abs(lo_s[t]) * 2.2205e-16
            abs_s[t] += abs(x)
    sums = (hi_s, lo_s, err, abs_s)
    abs0 = abs_s.copy()
    act = np.arange(n)
    nact = n
    bufp = np.empty(n, np.int64)
    bufu = np.empty(n)
    bufl = np.empty(n)
    gub = np.empty(flat[3].shape[1])  # the groups' bounds and search order (_group_order); later
    order = np.empty(flat[3].shape[1], np.int64)  # trees, on fewer records, have fewer groups
    glb = np.empty(flat[3].shape[1])  # the groups' lower bounds (_knn_flat)
    labels = np.full(n, -1, np.int64)
    fo = np.empty(n, np.int64)  # the order of _far_order and its state
    frho = np.empty(n)
    cref = np.empty(m)
    fst = np.zeros(3, np.int64)
    fnum = np.zeros(1)
    nbout = np.empty(max(k - 1, 1), np.int64)
    na = n
    gid = np.int64(0)  # int64 constants (np.int64(0)), not literals: one compiled copy of each callee
    nfb = 0
    while na >= 3 * k:
        if na < REBUILD * built and na >= 4 * LEAF:
            tree, flat = _make_tree(z, _active_ids(alive), LEAF, pos, leaf_of)
            built = na
            fst[0] = 0
        xr, nact, fb = _from_centroid(na, n, z, tree, alive, sums, abs0, act, nact, fo, frho, cref, fst, fnum,
                                      bufp, bufu, bufl)
        nfb += fb
        if nt > 1 and na >= par_min:
            _delete(xr, tree, flat, pos, leaf_of, alive, sums)
            xs = _farthest_par(tree, flat, z[xr].copy(), k - 1, _home(flat, leaf_of, xr), nbout, nt, gub,
                               order, glb)
            labels[xr] = gid
            for j in range(k - 1):
                labels[nbout[j]] = gid
                _delete(nbout[j], tree, flat, pos, leaf_of, alive, sums)
            if not alive[xs]:  # the farthest record is one of the group's: search again
                xs = _farthest_par(tree, flat, z[xr].copy(), np.int64(0), np.int64(0), nbout, nt, gub, order, glb)
            gid += 1
            na -= k
        else:
            _cluster(xr, k, gid, labels, z, tree, flat, pos, leaf_of, alive, sums, glb)
            gid += 1
            na -= k
            xs = _farthest(tree, flat, z[xr].copy(), gub, order)
        _cluster(xs, k, gid, labels, z, tree, flat, pos, leaf_of, alive, sums, glb)
        gid += 1
        na -= k
    if na >= 2 * k:
        xr, nact, fb = _from_centroid(na, n, z, tree, alive, sums, abs0, act, nact, fo, frho, cref, fst, fnum,
                                      bufp, bufu, bufl)
        nfb += fb
        _cluster(xr, k, gid, labels, z, tree, flat, pos, leaf_of, alive, sums, glb)
        gid += 1
        na -= k
    for i in range(n):
        if alive[i]:
            labels[i] = gid
    return labels, nfb


def tree_applicable(z: np.ndarray) -> bool:
    """The tree kernel's bounds assume finite values whose squared distances cannot overflow;
    other inputs go to the brute-force kernel."""
    return bool(z.size == 0 or (np.isfinite(z).all() and np.abs(z).max() <= 1e150))


def memory_estimate(n: int, m: int) -> float:
    """Bytes of the tree kernel's own arrays for an n x m input (an upper estimate; the input and
    its z-scores come on top)."""
    nodes = 4 * (n // LEAF + 1)
    leaves = n // (LEAF // 2) + G  # leaves hold at least LEAF / 2 records
    flat = 4.0 * (NF + 1) * n + leaves * (8 * m + 28.0)  # the leaf table (_make_tree)
    return 8.0 * (4 * n * m + 14 * n + nodes * (2 * m + 9)) + flat


def mdav_tree_kernel(z: np.ndarray, k: int) -> np.ndarray:
    """MDAV labels of the float64 C-contiguous n x m array z (k >= 2, n >= k), identical to the
    brute-force kernel's."""
    nt = min(4, numba.get_num_threads()) if z.shape[0] >= PAR_MIN else 1
    check_memory("MDAV (k-d tree)", memory_estimate(*z.shape))
    return _mdav_tree_kernel(z, k, nt)[0]
