"""Exact k-d tree MDAV: the labels of the brute-force kernel
(:func:`sdcrisk.masking.microaggregation._mdav_kernel_brute`; Domingo-Ferrer & Torra 2005;
Nin, Herranz & Torra 2008, Algorithm 1) bit for bit, ties included, with far fewer distance
evaluations (measured: 19 s against about 40 s at 100,000 x 10, k = 3; the farthest-point queries
dominate and still grow about as n^1.4, benchmarks/results/scaling.md).

* Records live in a k-d tree whose node boxes, ball radii and active counts are refitted on
  every deletion.
* Nearest / farthest queries prune a node only when a bound computed with the very floating-point
  operations of a record distance (``d = x_t - q_t; s += d * d`` in coordinate order) is strictly
  worse than the current k-1-th best / best. Rounding is monotone, so the bound is a true bound of
  every computed record distance in the box; equal bounds are never pruned, so ties are resolved
  exactly as by the brute kernel (lowest record index).
* The centroid of the brute kernel is the sequential float sum over the active records in index
  order, divided by their number. The kernel keeps a double-double sum of the active records
  (with a rounding-error bound) and a bound of the error of the sequential sum (Higham's
  gamma_{n-1} * sum |x|), which give a box that
  provably contains that centroid. The farthest record is accepted when every record whose
  distance could reach the best certified lower bound is a copy of the same row (then the lowest
  index wins whatever the centroid); otherwise the centroid is recomputed exactly (O(n m), rare).
"""

from __future__ import annotations

import numpy as np
from numba import njit

LEAF = 32
_U = 2.0 ** -53  # unit roundoff


@njit(cache=True)
def _build(z, leaf):
    """k-d tree: ``perm`` (records in tree order), per node [start, end), children, parent,
    box and leaf of each record. Split at the median of the widest coordinate."""
    n, m = z.shape
    perm = np.arange(n)
    cap = 2 * (n // leaf + 1) * 2 + 1
    start = np.empty(cap, np.int64)
    end = np.empty(cap, np.int64)
    left = np.full(cap, -1, np.int64)
    right = np.full(cap, -1, np.int64)
    parent = np.full(cap, -1, np.int64)
    start[0] = 0
    end[0] = n
    nn = 1
    stack = np.empty(cap, np.int64)
    sp = 0
    stack[sp] = 0
    sp += 1
    while sp > 0:
        sp -= 1
        node = stack[sp]
        s = start[node]
        e = end[node]
        if e - s <= leaf:
            continue
        best = -1.0
        dim = 0
        for t in range(m):
            lo = np.inf
            hi = -np.inf
            for p in range(s, e):
                v = z[perm[p], t]
                if v < lo:
                    lo = v
                if v > hi:
                    hi = v
            if hi - lo > best:
                best = hi - lo
                dim = t
        if best <= 0.0:
            continue  # all rows equal: one leaf
        seg = perm[s:e].copy()
        vals = np.empty(e - s)
        for p in range(e - s):
            vals[p] = z[seg[p], dim]
        o = np.argsort(vals, kind="mergesort")
        for p in range(e - s):
            perm[s + p] = seg[o[p]]
        mid = s + (e - s) // 2
        for c in range(2):
            child = nn
            nn += 1
            start[child] = s if c == 0 else mid
            end[child] = mid if c == 0 else e
            parent[child] = node
            if c == 0:
                left[node] = child
            else:
                right[node] = child
            stack[sp] = child
            sp += 1
    leaf_of = np.empty(n, np.int64)
    for node in range(nn):
        if left[node] < 0:
            for p in range(start[node], end[node]):
                leaf_of[perm[p]] = node
    return perm, start[:nn].copy(), end[:nn].copy(), left[:nn].copy(), right[:nn].copy(), \
        parent[:nn].copy(), leaf_of


@njit(cache=True)
def _fit_leaf(zp, alive_p, start, end, node, blo, bhi, cen, rad):
    m = zp.shape[1]
    r = 0.0
    for p in range(start[node], end[node]):
        if alive_p[p]:
            s = 0.0
            for t in range(m):
                d = zp[p, t] - cen[node, t]
                s += d * d
            if s > r:
                r = s
    rad[node] = np.sqrt(r) * (1.0 + 1e-13)
    changed = False
    for t in range(m):
        lo = np.inf
        hi = -np.inf
        for p in range(start[node], end[node]):
            if alive_p[p]:
                v = zp[p, t]
                if v < lo:
                    lo = v
                if v > hi:
                    hi = v
        if lo != blo[node, t] or hi != bhi[node, t]:
            changed = True
        blo[node, t] = lo
        bhi[node, t] = hi
    return changed


@njit(cache=True)
def _fit_inner(node, left, right, blo, bhi, cnt, cen, rad, dcc):
    m = blo.shape[1]
    a = left[node]
    b = right[node]
    r = 0.0
    if cnt[a] > 0:
        r = dcc[a] + rad[a]
    if cnt[b] > 0:
        r = max(r, dcc[b] + rad[b])
    changed = False
    for t in range(m):
        lo = min(blo[a, t], blo[b, t])
        hi = max(bhi[a, t], bhi[b, t])
        if lo != blo[node, t] or hi != bhi[node, t]:
            changed = True
        blo[node, t] = lo
        bhi[node, t] = hi
    s = 0.0  # farthest corner of the box from the centre
    for t in range(m):
        if blo[node, t] <= bhi[node, t]:
            d = max(abs(blo[node, t] - cen[node, t]), abs(bhi[node, t] - cen[node, t]))
            s += d * d
    rad[node] = min(r, np.sqrt(s)) * (1.0 + 1e-13)
    return changed


@njit(cache=True)
def _dist(zp, p, q):
    s = 0.0
    for t in range(zp.shape[1]):
        d = zp[p, t] - q[t]
        s += d * d
    return s


@njit(cache=True)
def _lower(blo, bhi, cen, rad, node, q):
    """Lower bound of the computed distance to q of any record in the node: box (same float
    operations as a record distance, rounding is monotone) or ball (with a relative margin)."""
    s = 0.0
    c = 0.0
    for t in range(blo.shape[1]):
        a = blo[node, t] - q[t]
        if a > 0.0:
            s += a * a
        else:
            b = bhi[node, t] - q[t]
            if b < 0.0:
                s += b * b
            else:
                s += 0.0
        e = cen[node, t] - q[t]
        c += e * e
    g = np.sqrt(c) * (1.0 - 1e-12) - rad[node]
    if g > 0.0:
        g = g * g * (1.0 - 1e-10) - 1e-290
        if g > s:
            return g
    return s


@njit(cache=True)
def _upper(blo, bhi, cen, rad, node, qlo, qhi, qc, h):
    """Upper bound of the computed distance of any record in the node to any point of the box
    [qlo, qhi] (centre qc, half-diagonal at most h): box or ball, as in :func:`_lower`."""
    s = 0.0
    c = 0.0
    for t in range(blo.shape[1]):
        a = blo[node, t] - qhi[t]
        b = bhi[node, t] - qlo[t]
        a = a * a
        b = b * b
        s += a if a > b else b
        e = cen[node, t] - qc[t]
        c += e * e
    g = np.sqrt(c) * (1.0 + 1e-12) + h + rad[node]
    g = g * g * (1.0 + 1e-10) + 1e-290
    return g if g < s else s


@njit(cache=True)
def _delete(i, pos, zp, alive, alive_p, leaf_of, cnt, start, end, left, right, parent, blo, bhi,
            cen, rad, dcc, hi_s, lo_s, err, abs_s):
    p = pos[i]
    alive[i] = False
    alive_p[p] = False
    node = leaf_of[i]
    _fit_leaf(zp, alive_p, start, end, node, blo, bhi, cen, rad)
    while node >= 0:
        cnt[node] -= 1
        par = parent[node]
        if par >= 0:
            _fit_inner(par, left, right, blo, bhi, cnt, cen, rad, dcc)
        node = par
    for t in range(zp.shape[1]):
        x = -zp[p, t]
        s = hi_s[t] + x  # TwoSum
        bp = s - hi_s[t]
        e = (hi_s[t] - (s - bp)) + (x - bp)
        hi_s[t] = s
        lo_s[t] += e
        err[t] += abs(lo_s[t]) * 2.2205e-16
        abs_s[t] -= abs(x)


@njit(cache=True)
def _knn(zp, perm, alive_p, cnt, start, end, left, right, blo, bhi, cen, rad, q, kk, stack, sbound):
    """The kk active records nearest q, by (computed distance, index)."""
    bd = np.full(kk, np.inf)
    bi = np.full(kk, np.iinfo(np.int64).max)
    sp = 0
    stack[0] = 0
    sbound[0] = _lower(blo, bhi, cen, rad, 0, q)
    sp = 1
    while sp > 0:
        sp -= 1
        node = stack[sp]
        if sbound[sp] > bd[kk - 1] or cnt[node] == 0:
            continue
        if left[node] < 0:
            for p in range(start[node], end[node]):
                if not alive_p[p]:
                    continue
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
        else:
            a = left[node]
            b = right[node]
            la = _lower(blo, bhi, cen, rad, a, q) if cnt[a] > 0 else np.inf
            lb = _lower(blo, bhi, cen, rad, b, q) if cnt[b] > 0 else np.inf
            if la <= lb:
                a, b = b, a
                la, lb = lb, la
            # push the farther (a) first, the nearer (b) on top
            if la <= bd[kk - 1]:
                stack[sp] = a
                sbound[sp] = la
                sp += 1
            if lb <= bd[kk - 1]:
                stack[sp] = b
                sbound[sp] = lb
                sp += 1
    return bi


@njit(cache=True)
def _farthest(zp, perm, alive_p, cnt, start, end, left, right, blo, bhi, cen, rad, q, stack,
              sbound):
    """Active record farthest from q, by (computed distance, -index)."""
    best = -1.0
    arg = np.iinfo(np.int64).max
    stack[0] = 0
    sbound[0] = _upper(blo, bhi, cen, rad, 0, q, q, q, 0.0)
    sp = 1
    while sp > 0:
        sp -= 1
        node = stack[sp]
        if sbound[sp] < best or cnt[node] == 0:
            continue
        if left[node] < 0:
            for p in range(start[node], end[node]):
                if not alive_p[p]:
                    continue
                d = _dist(zp, p, q)
                i = perm[p]
                if d > best or (d == best and i < arg):
                    best = d
                    arg = i
        else:
            a = left[node]
            b = right[node]
            ua = _upper(blo, bhi, cen, rad, a, q, q, q, 0.0) if cnt[a] > 0 else -np.inf
            ub = _upper(blo, bhi, cen, rad, b, q, q, q, 0.0) if cnt[b] > 0 else -np.inf
            if ua >= ub:
                a, b = b, a
                ua, ub = ub, ua
            if ua >= best:
                stack[sp] = a
                sbound[sp] = ua
                sp += 1
            if ub >= best:
                stack[sp] = b
                sbound[sp] = ub
                sp += 1
    return arg


@njit(cache=True)
def _same_row(zp, p, r):
    for t in range(zp.shape[1]):
        if zp[p, t] != zp[r, t]:
            return False
    return True


@njit(cache=True)
def _certify(zp, perm, pos, alive_p, cnt, start, end, left, right, blo, bhi, cen, rad, qlo, qhi,
             qc, h, cand, stack):
    """With the centroid known only to lie in [qlo, qhi]: the farthest active record if it is
    certain (every record that may be as far as ``cand`` is certainly far is a copy of ``cand``'s
    row: the lowest index among them), else -1."""
    m = zp.shape[1]
    r = pos[cand]
    low = 0.0  # certified lower bound of cand's computed distance
    for t in range(m):
        a = zp[r, t] - qhi[t]
        b = zp[r, t] - qlo[t]
        if a > 0.0:
            low += a * a
        elif b < 0.0:
            low += b * b
        else:
            low += 0.0
    arg = cand
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        node = stack[sp]
        if cnt[node] == 0 or _upper(blo, bhi, cen, rad, node, qlo, qhi, qc, h) < low:
            continue
        if left[node] < 0:
            for p in range(start[node], end[node]):
                if not alive_p[p]:
                    continue
                s = 0.0
                for t in range(m):
                    a = zp[p, t] - qhi[t]
                    b = zp[p, t] - qlo[t]
                    a = a * a
                    b = b * b
                    s += a if a > b else b
                if s < low:
                    continue
                if not _same_row(zp, p, r):
                    return -1
                if perm[p] < arg:
                    arg = perm[p]
        else:
            stack[sp] = left[node]
            sp += 1
            stack[sp] = right[node]
            sp += 1
    return arg


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


@njit(cache=True)
def _cluster(r, k, g, labels, z, zp, perm, pos, alive, alive_p, leaf_of, cnt, start, end, left,
             right, parent, blo, bhi, cen, rad, dcc, hi_s, lo_s, err, abs_s, stack, sbound):
    """Label r and its k-1 nearest active records as group g and delete them."""
    q = z[r].copy()
    _delete(r, pos, zp, alive, alive_p, leaf_of, cnt, start, end, left, right, parent, blo, bhi,
            cen, rad, dcc, hi_s, lo_s, err, abs_s)
    nb = _knn(zp, perm, alive_p, cnt, start, end, left, right, blo, bhi, cen, rad, q, k - 1, stack, sbound)
    labels[r] = g
    for j in range(k - 1):
        labels[nb[j]] = g
        _delete(nb[j], pos, zp, alive, alive_p, leaf_of, cnt, start, end, left, right, parent,
                blo, bhi, cen, rad, dcc, hi_s, lo_s, err, abs_s)


@njit(cache=True)
def _from_centroid(na, n, z, zp, perm, pos, alive, alive_p, cnt, start, end, left, right, blo,
                   bhi, cen, rad, dcc, hi_s, lo_s, err, abs_s, abs0, act, nact, stack, sbound,
                   stack2):
    """The brute kernel's record farthest from the centroid; (record, new nact, fallback used)."""
    m = z.shape[1]
    qlo = np.empty(m)
    qhi = np.empty(m)
    cmid = np.empty(m)
    gam = na * _U / (1.0 - na * _U)
    for t in range(m):
        mid = hi_s[t] + lo_s[t]
        bnd = gam * (abs_s[t] + n * 2.2205e-16 * abs0[t])
        w = 2.0 * (err[t] + bnd) + 8.0 * _U * (abs(hi_s[t]) + abs(lo_s[t])) + 1e-300
        qlo[t] = (mid - w) / na
        qhi[t] = (mid + w) / na
        cmid[t] = mid / na
    cand = _farthest(zp, perm, alive_p, cnt, start, end, left, right, blo, bhi, cen, rad, cmid, stack,
                     sbound)
    h = 0.0
    for t in range(m):
        e = max(qhi[t] - cmid[t], cmid[t] - qlo[t])
        h += e * e
    h = np.sqrt(h) * (1.0 + 1e-12)
    r = _certify(zp, perm, pos, alive_p, cnt, start, end, left, right, blo, bhi, cen, rad, qlo,
                 qhi, cmid, h, cand, stack2)
    if r >= 0:
        return r, nact, False
    c, nact = _centroid_exact(z, alive, act, nact)
    r = _farthest(zp, perm, alive_p, cnt, start, end, left, right, blo, bhi, cen, rad, c, stack, sbound)
    return r, nact, True


@njit(cache=True)
def _mdav_tree_kernel(z, k):
    """Labels of the brute-force MDAV kernel and the number of exact centroid recomputations."""
    n, m = z.shape
    perm, start, end, left, right, parent, leaf_of = _build(z, LEAF)
    nn = start.shape[0]
    pos = np.empty(n, np.int64)
    for p in range(n):
        pos[perm[p]] = p
    zp = np.empty((n, m))
    for p in range(n):
        for t in range(m):
            zp[p, t] = z[perm[p], t]
    alive = np.ones(n, np.bool_)
    alive_p = np.ones(n, np.bool_)
    cnt = end - start
    blo = np.empty((nn, m))
    bhi = np.empty((nn, m))
    cen = np.zeros((nn, m))  # fixed ball centres: mean of the node's records
    rad = np.zeros(nn)
    dcc = np.zeros(nn)  # distance from the parent's centre (with a margin)
    for node in range(nn):
        for p in range(start[node], end[node]):
            for t in range(m):
                cen[node, t] += zp[p, t]
        for t in range(m):
            cen[node, t] /= end[node] - start[node]
        if parent[node] >= 0:
            s = 0.0
            for t in range(m):
                d = cen[node, t] - cen[parent[node], t]
                s += d * d
            dcc[node] = np.sqrt(s) * (1.0 + 1e-12)
    for node in range(nn - 1, -1, -1):  # children have larger ids than their parent
        if left[node] < 0:
            _fit_leaf(zp, alive_p, start, end, node, blo, bhi, cen, rad)
        else:
            _fit_inner(node, left, right, blo, bhi, cnt, cen, rad, dcc)
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
    abs0 = abs_s.copy()
    act = np.arange(n)
    nact = n
    stack = np.empty(256, np.int64)
    sbound = np.empty(256)
    stack2 = np.empty(nn + 1, np.int64)
    labels = np.full(n, -1, np.int64)
    na = n
    g = 0
    nfb = 0
    while na >= 3 * k:
        xr, nact, fb = _from_centroid(na, n, z, zp, perm, pos, alive, alive_p, cnt, start, end,
                                      left, right, blo, bhi, cen, rad, dcc, hi_s, lo_s, err, abs_s, abs0, act,
                                      nact, stack, sbound, stack2)
        nfb += fb
        _cluster(xr, k, g, labels, z, zp, perm, pos, alive, alive_p, leaf_of, cnt, start, end,
                 left, right, parent, blo, bhi, cen, rad, dcc, hi_s, lo_s, err, abs_s, stack, sbound)
        g += 1
        na -= k
        xs = _farthest(zp, perm, alive_p, cnt, start, end, left, right, blo, bhi, cen, rad, z[xr].copy(),
                       stack, sbound)
        _cluster(xs, k, g, labels, z, zp, perm, pos, alive, alive_p, leaf_of, cnt, start, end,
                 left, right, parent, blo, bhi, cen, rad, dcc, hi_s, lo_s, err, abs_s, stack, sbound)
        g += 1
        na -= k
    if na >= 2 * k:
        xr, nact, fb = _from_centroid(na, n, z, zp, perm, pos, alive, alive_p, cnt, start, end,
                                      left, right, blo, bhi, cen, rad, dcc, hi_s, lo_s, err, abs_s, abs0, act,
                                      nact, stack, sbound, stack2)
        nfb += fb
        _cluster(xr, k, g, labels, z, zp, perm, pos, alive, alive_p, leaf_of, cnt, start, end,
                 left, right, parent, blo, bhi, cen, rad, dcc, hi_s, lo_s, err, abs_s, stack, sbound)
        g += 1
        na -= k
    for i in range(n):
        if alive[i]:
            labels[i] = g
    return labels, nfb


def tree_applicable(z: np.ndarray) -> bool:
    """The tree kernel's bounds assume finite values whose squared distances cannot overflow;
    other inputs go to the brute-force kernel."""
    return bool(z.size == 0 or (np.isfinite(z).all() and np.abs(z).max() <= 1e150))


def mdav_tree_kernel(z: np.ndarray, k: int) -> np.ndarray:
    """MDAV labels of the float64 C-contiguous n x m array z (k >= 2, n >= k), identical to the
    brute-force kernel's."""
    return _mdav_tree_kernel(z, k)[0]
