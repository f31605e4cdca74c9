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
def _walk(J, OP, V, limit, X, ORD, SV, numrow, OFF, offbase, counts, rows):  # pragma: no cover - numba
    """For each conjunction ``b`` (terms ``J[b]``, ``-1``: none; ``OP[b]``; ``V[b]``): each term's
    slice of its attribute's sorted order ``ORD[j]`` (a category's from the offsets ``OFF``, a
    tail's by binary search in the sorted values ``SV[numrow[j]]``), the smallest one's candidates
    checked against the other terms on the rows of ``X``, up to ``limit`` satisfying; their
    count into ``counts[b]``, the records into ``rows[b]``. Returns the candidates checked."""
    scanned = 0
    n = X.shape[0]
    for b in range(J.shape[0]):
        best, d, lo, hi = n + 1, -1, 0, 0
        for t in range(J.shape[1]):
            j = J[b, t]
            if j < 0:
                continue
            if numrow[j] < 0:
                code = int(V[b, t])
                a, z = OFF[offbase[j] + code], OFF[offbase[j] + code + 1]
            elif OP[b, t] == 1:
                a, z = 0, np.searchsorted(SV[numrow[j]], V[b, t], side="right")
            else:
                a, z = np.searchsorted(SV[numrow[j]], V[b, t], side="left"), n
            if z - a < best:
                best, d, lo, hi = z - a, t, a, z
        c = 0
        if d >= 0:
            order = ORD[J[b, d]]
            for p in range(lo, hi):
                i = order[p]
                scanned += 1
                good = True
                for t in range(J.shape[1]):
                    j = J[b, t]
                    if j < 0 or t == d:
                        continue
                    x = X[i, j]
                    op = OP[b, t]
                    v = V[b, t]
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


def tables(attrs, side: str):
    """The arrays :func:`_walk` reads for one file, built once and kept on the first attribute:
    the key values record-major (``n x k`` float64; category codes are exact in float64), every
    attribute's sorted order (``k x n``; each attribute's own order becomes a view of it), the
    numeric attributes' sorted values, the categories' offsets in their sorted order."""
    cache = attrs[0].__dict__.setdefault("_tables", {})
    if side not in cache:
        k = len(attrs)
        n = (attrs[0].o if side == "o" else attrs[0].r).size
        X = np.empty((n, k), dtype=np.float64)
        ORD = None
        numeric = [j for j, a in enumerate(attrs) if a.numeric]
        SV = np.empty((max(len(numeric), 1), n if numeric else 0), dtype=np.float64)
        numrow = np.full(k, -1, dtype=np.int64)
        offbase = np.zeros(k, dtype=np.int64)
        offsets = []
        base = 0
        for j, a in enumerate(attrs):
            values = a.o if side == "o" else a.r
            X[:, j] = values
            order, s = a.index(side)
            if ORD is None:
                ORD = np.empty((k, n), dtype=order.dtype)
            ORD[j] = order
            if a.numeric:
                numrow[j] = numeric.index(j)
                SV[numrow[j]] = s
                a._index[side] = (ORD[j], SV[numrow[j]])
            else:
                a._index[side] = (ORD[j], s)
                off = np.zeros(len(a.labels) + 1, dtype=np.int64)
                np.cumsum(np.bincount(values, minlength=len(a.labels)), out=off[1:])
                offbase[j] = base
                base += off.size
                offsets.append(off)
        OFF = np.concatenate(offsets) if offsets else np.zeros(1, dtype=np.int64)
        cache[side] = (X, ORD, SV, numrow, OFF, offbase)
    return cache[side]


def count_many(attrs, J: np.ndarray, OP: np.ndarray, V: np.ndarray, side: str = "o", limit: int = 3):
    """Records of the originals (``side="o"``) or the release (``"r"``) satisfying each
    conjunction, up to ``limit``.

    ``attrs``: the attributes (:class:`.singling_out._Attribute`: ``index(side)`` gives the sorted
    order and values, ``o`` / ``r`` the values); ``J``, ``OP``, ``V``: the ``(B, K)`` terms.
    Returns ``(counts, rows, scanned)``: the counts capped at ``limit`` (``B``), the first records
    found per conjunction (``(B, limit)``, ``-1`` where fewer; all of them when the count is below
    ``limit``, in the order of the conjunction's smallest slice, the first smallest as
    ``singling_out._count`` takes it), and the number of candidates checked (the work done)."""
    J = np.ascontiguousarray(J, dtype=np.int64)
    B = J.shape[0]
    counts = np.zeros(B, dtype=np.int64)
    rows = np.full((B, limit), -1, dtype=np.int64)
    if B == 0:
        return counts, rows, 0
    scanned = _walk(J, np.ascontiguousarray(OP, dtype=np.int64), np.ascontiguousarray(V, dtype=np.float64),
                    limit, *tables(attrs, side), counts, rows)
    return counts, rows, int(scanned)


def terms_of(J_row, OP_row, V_row, attrs) -> tuple:
    """One conjunction of a batch as ``((attribute, operator, value), ...)``: the form of
    :func:`.singling_out._count` and ``_text`` (a category code as an int)."""
    out = []
    for j, op, v in zip(J_row.tolist(), OP_row.tolist(), V_row.tolist()):
        if j >= 0:
            out.append((j, op, float(v) if attrs[j].numeric else int(v)))
    return tuple(out)
