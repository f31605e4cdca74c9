"""Many conjunctions counted at once, for the multivariate singling out of :mod:`.singling_out`.

A batch of ``B`` conjunctions of up to ``K`` terms is given as three ``(B, K)`` arrays: the
attribute of each term (``-1`` for no term), its operator (``==``, ``<=``, ``>=``) and its value
(a category code or a number). Each term is a contiguous slice of its attribute's sorted order,
found by binary search (``numpy.searchsorted``, every term of an attribute at once); each
conjunction takes its smallest slice as candidates and a compiled loop (:func:`_walk`, numba)
checks its other terms on them one candidate after the other, reading the candidate's row of a
record-major matrix of the key values (one cache line per candidate), and stops as soon as
``limit`` records satisfy it (singling out only needs to know whether the count is 0, 1, 2 or
more): a conjunction many records satisfy costs a few candidates, one satisfied by few records
is walked to the end of its slice. The counts are exact: the same as one boolean mask per
conjunction over the whole file, capped at ``limit``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EQ, LE, GE = 0, 1, 2


@njit(cache=True)
def _walk(order, start, end, X, cols, ops, vals, limit, counts, rows):  # pragma: no cover - numba
    """For each conjunction ``b``: the candidates ``order[start[b]:end[b]]`` checked against the
    terms ``cols[b]`` (``-1``: none), ``ops[b]``, ``vals[b]`` on the rows of ``X``, up to ``limit``
    satisfying; their count into ``counts[b]``, the records into ``rows[b]``. Returns the number
    of candidates checked."""
    scanned = 0
    for b in range(start.size):
        c = 0
        for p in range(start[b], end[b]):
            i = order[p]
            scanned += 1
            good = True
            for t in range(cols.shape[1]):
                j = cols[b, t]
                if j < 0:
                    continue
                x = X[i, j]
                op = ops[b, t]
                v = vals[b, t]
                if op == 0:
                    good = x == v
                elif op == 1:
                    good = x <= v
                else:
                    good = x >= v
                if not good:
                    break
            if good:
                rows[b, c] = i
                c += 1
                if c == limit:
                    break
        counts[b] = c
    return scanned


def matrix(attrs, side: str) -> np.ndarray:
    """The key values of one file, record-major (``n x k`` float64; category codes are exact in
    float64), built once per file and kept on the first attribute."""
    cache = attrs[0].__dict__.setdefault("_matrix", {})
    if side not in cache:
        n = (attrs[0].o if side == "o" else attrs[0].r).size
        X = np.empty((n, len(attrs)), dtype=np.float64)
        for j, a in enumerate(attrs):
            X[:, j] = a.o if side == "o" else a.r
        cache[side] = X
    return cache[side]


def count_many(attrs, J: np.ndarray, OP: np.ndarray, V: np.ndarray, side: str = "o", limit: int = 3):
    """Records of the originals (``side="o"``) or the release (``"r"``) satisfying each
    conjunction, up to ``limit``.

    ``attrs``: the attributes (:class:`.singling_out._Attribute`: ``index(side)`` gives the sorted
    order and values, ``o`` / ``r`` the values); ``J``, ``OP``, ``V``: the ``(B, K)`` terms.
    Returns ``(counts, rows, scanned)``: the counts capped at ``limit`` (``B``), the first records
    found per conjunction (``(B, limit)``, ``-1`` where fewer; all of them when the count is below
    ``limit``, in the order of the conjunction's smallest slice), and the number of candidates
    checked (the work done, a count independent of the machine)."""
    J = np.asarray(J, dtype=np.int64)
    B, K = J.shape
    counts = np.zeros(B, dtype=np.int64)
    rows = np.full((B, limit), -1, dtype=np.int64)
    if B == 0:
        return counts, rows, 0
    OP = np.ascontiguousarray(OP, dtype=np.int64)
    V = np.ascontiguousarray(V, dtype=np.float64)
    big = np.iinfo(np.int64).max
    lo = np.zeros((B, K), dtype=np.int64)
    hi = np.full((B, K), big, dtype=np.int64)
    for j, a in enumerate(attrs):
        mask = J == j
        if not mask.any():
            continue
        _, s = a.index(side)
        v = V[mask]
        if not a.numeric:
            v = v.astype(s.dtype)
        op = OP[mask]
        left = np.searchsorted(s, v, "left")
        right = np.searchsorted(s, v, "right")
        lo[mask] = np.where(op == LE, 0, left)
        hi[mask] = np.where(op == GE, s.size, right)
    every = np.arange(B)
    d = np.argmin(hi - lo, axis=1)  # the first smallest slice, as singling_out._count takes it
    start, end, drive = lo[every, d], hi[every, d], J[every, d]
    check = J.copy()
    check[every, d] = -1  # the driving term holds on its own slice
    X = matrix(attrs, side)
    scanned = 0
    for j in np.unique(drive).tolist():
        b = np.flatnonzero(drive == j)
        c = np.zeros(b.size, dtype=np.int64)
        r = np.full((b.size, limit), -1, dtype=np.int64)
        scanned += int(_walk(attrs[j].index(side)[0], start[b], end[b], X, np.ascontiguousarray(check[b]),
                             OP[b], V[b], limit, c, r))
        counts[b], rows[b] = c, r
    return counts, rows, scanned


def terms_of(J_row, OP_row, V_row, attrs) -> tuple:
    """One conjunction of a batch as ``((attribute, operator, value), ...)``: the form of
    :func:`.singling_out._count` and ``_text`` (a category code as an int)."""
    out = []
    for j, op, v in zip(J_row.tolist(), OP_row.tolist(), V_row.tolist()):
        if j >= 0:
            out.append((j, op, float(v) if attrs[j].numeric else int(v)))
    return tuple(out)
