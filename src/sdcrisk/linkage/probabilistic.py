"""Probabilistic record linkage (PRL): Fellegi-Sunter weights estimated by EM, then a
one-to-one linear sum assignment.

Nin, Herranz & Torra (2008, rank swapping) Sec. 2.1.1 and Nin, Herranz & Torra (2008,
multivariate microaggregation) Sec. 2.2, after Jaro (1989) and Torra & Domingo-Ferrer (2003):
for every pair (a, b) of an original record a and a masked record b a binary *coincidence
vector* ``c(a, b) = (c_1, ..., c_c)`` over the ``c`` known attributes is formed; a two-class
mixture of independent Bernoullis (matched pairs M with agreement probabilities ``m_j``,
unmatched pairs U with ``u_j``, match proportion ``p``) is fitted by EM; each pair gets the
weight ``sum_j log(m_j / u_j)`` (agreement) or ``log((1 - m_j) / (1 - u_j))`` (disagreement);
finally the linear sum assignment maximising the total weight links every original record to
one masked record.

The papers define ``c_j(a, b) = 1`` "if V_j(a) = V_j(b)"; for continuous masked values that
definition is open (exact equality links nothing on microaggregated data), so the rule is
selectable (``coincidence=``):

``"exact"``     ``a_j == b_j``.
``"rank"``      ``|rank(a_j) - rank(b_j)| <= window * n / 100``, ranks (mid-ranks for ties)
                taken within the original column and within the masked column respectively;
                ``window`` in percent of n, default 1 (the smallest interval-disclosure window).
``"value"``     ``|a_j - b_j| <= t * sd_j`` with ``sd_j`` the original column's sample
                standard deviation; default ``t = 0.05``.
``"nearest"``   ``b_j`` is among the ``neighbours`` masked values closest to ``a_j`` (ties
                included: every masked value at a distance not above the ``neighbours``-th
                smallest distance); default ``neighbours = 1``, the univariate analogue of
                distance-based record linkage. Parameter-free at its default.

Scaling (blocking on agreement). Every rule is an interval ``lo_ij <= z_bj <= hi_ij`` on a
per-column key ``z`` (the masked value or its rank), so the masked records agreeing with
original ``i`` on attribute ``j`` are one contiguous range of the masked column sorted once.
The *candidate pairs* are the pairs agreeing on at least one attribute: the union of those
ranges, walked record by record with their full pattern (numba kernels, :class:`CandidatePairs`).
Every other pair has the all-disagree pattern 0, so the pattern counts over all ``n * n'`` pairs
are exact without visiting them. The walk is streamed: a first pass counts patterns (nothing
stored), and only the edges of the assignment are stored, so memory is O(edges): about
``n * c * neighbours`` for the default rule on continuous data, a fixed share of ``n^2`` for
``"rank"`` and ``"value"``. The passes read the masked keys row by row (one record's keys in one
cache line: 19 s became 8 s for the 160 million pairs of 1,000,000 x 10) and run on numba's
threads over parts of the originals; per-column sorts and searches run on threads too.
EM runs on the at most ``2^c`` pattern counts, never on the pairs.

Tied values (the block network). Where masked keys tie, an original agrees on attribute j with
a whole group of masked records, and the pairs grow with the group size: 160.6 million at
1,000,000 x 10 with 2-decimal values, against 10 million records in the agreement ranges. The
ranges of attribute j, cut at every range end, fall into *blocks* (:func:`agreement_blocks`):
every original entering a block agrees on j with each of its members, so the assignment can
route "original -> block -> masked" at the single-attribute gain ``g_j`` with one arc per
original and one per member (:func:`assign_max_weight_blocks`), and a pair agreeing on several
attributes, whose gain exceeds every ``g_j`` of its own, gets a direct edge (12,349 of them at
10^6). This is the same optimum, exactly, whenever no block overstates a pair: every pattern
that occurs gains no less than its best single attribute (:func:`route_gains`), which holds
when every agreement raises the weight (``m_j > u_j``). :func:`prl` uses it when that holds and
it has fewer arcs than the edges above background (20.0 million against 160.6 million at 10^6),
else the edges; ``info["network"]`` says which. Edges or arcs that would exceed the memory limit
are refused with the estimate (:mod:`sdcrisk.resources`). ``max_candidates=K`` bounds what is
stored, the counts and the EM still seeing every pair: on the block network each original keeps
its K best direct edges (its single-attribute agreements stay whole, behind the block arcs, which
number at most about ``(n + n') * c`` on tied values), on the edges its K best candidates; the
capped edges are used where the capped block network is not exact, not smaller or would not fit.
At 1,000,000 x 10 (2-decimal values) the capped blocks are the exact network (no original has
more than 10 direct edges); the 10 best candidates of each original on pairs dropped nearly every
tied candidate and their flow took 285-350 s against the blocks' 90-110 s.

EM (:func:`em_fellegi_sunter`) starts at ``p = min(n, n') / (n n')`` (one true match per
record), ``m_j = 0.9`` and ``u_j`` = the overall agreement rate; ``p`` is bounded above by that
same one-to-one share and every probability is kept in ``[eps, 1 - eps]``; it stops when no
parameter moves by more than ``tol``. A fit that reaches ``max_iter`` first is flagged
(:class:`ConvergenceWarning`, and ``LinkResult.info["converged"]``). The EM and the weights
are computed in fixed-order scalar loops (numba), not with numpy's vectorised ``log``/``exp``,
whose last bits depend on the CPU's instruction set (AVX-512 and AVX2 builds differ), and the
weights are rounded to 1e-6 before the assignment, so that PRL gives the same links on every
machine.

The assignment is solved sparsely (:func:`assign_max_weight`: a minimum-cost flow, or from
20,000 originals shortest augmenting paths, exact as well): only
candidate pairs whose weight exceeds the all-disagree weight ``w_0`` are edges (gain
``w - w_0``), and every original record may instead take a zero-gain "no link" arc; records
that do are returned unlinked (``-1``). This equals the dense assignment over all pairs whenever
``w_0`` is the smallest weight (the usual case, every ``m_j > u_j``); a candidate weighted below
``w_0`` counts as background.
Ties among equal-weight assignments are broken at random: the masked records are permuted by
``rng`` (by default a Generator seeded with 0) before matching, so that record order, which
is the true-link order in the replication, cannot favour true links.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit

from .. import progress
from ..resources import MemoryLimitError, check_memory, check_work, park, size_text
from ..threads import map_threads
from ..validation import check_int, check_real
from .assignment import PATHS_MIN, assign_max_weight, assign_max_weight_blocks, single_blocks_as_edges
from ..validation import prepare
from .base import LinkResult, NotApplicable
from .ranks import rank_matrix
from .sorting import argsort_stable, searchsorted_sorted

COINCIDENCE_RULES = ("exact", "rank", "value", "nearest")
_BYTES_PER_EDGE = 100  # edge arrays, gains and the flow solver's arcs (measured about 80)
_MAX_KNOWN = 20  # at most 2^20 patterns: the count table and the EM stay small
# Agreement-range entries a pass walks (the sum over records and attributes of the agreement
# range sizes, known before any pair is visited) above which :func:`prl` refuses a file up front
# (``max_pairs``): ten times the 160.6 million pairs of 1,000,000 x 10 rank-swapped records (108 s
# in all), far above the replication's largest file (EIA, 4,092^2 = 16.7 million pairs). Tied values
# (rounded to one decimal) make an original agree with whole runs of equal masked values:
# 200,000 x 6 such records need billions. ``_PAIR_RATE``: entries walked per second, measured.
MAX_PAIRS = 1_600_000_000
_PAIR_RATE = 20e6
_PART_MIN = 4096  # fewest originals per thread in the streaming passes


class ConvergenceWarning(UserWarning):
    """The EM fit of probabilistic linkage stopped at ``max_iter`` before converging."""


@dataclass
class FellegiSunter:
    """EM estimate of the Fellegi-Sunter model on pattern counts (Jaro 1989)."""

    m: np.ndarray  # P(c_j = 1 | matched)
    u: np.ndarray  # P(c_j = 1 | unmatched)
    p: float  # proportion of matched pairs
    iterations: int
    converged: bool

    def weights(self, patterns: np.ndarray) -> np.ndarray:
        """Log-likelihood ratio weight of each binary pattern (rows of ``patterns``), summed
        attribute by attribute in a fixed order (the same bits on every CPU)."""
        g = np.ascontiguousarray(np.asarray(patterns) != 0)
        return _weights(g, np.asarray(self.m, dtype=np.float64), np.asarray(self.u, dtype=np.float64))


@njit(cache=True)
def _weights(g, m, u):
    agree = np.empty(m.size)
    disagree = np.empty(m.size)
    for j in range(m.size):
        agree[j] = math.log(m[j]) - math.log(u[j])
        disagree[j] = math.log1p(-m[j]) - math.log1p(-u[j])
    w = np.empty(g.shape[0])
    for k in range(g.shape[0]):
        s = 0.0
        for j in range(m.size):
            s += agree[j] if g[k, j] else disagree[j]
        w[k] = s
    return w


def pattern_matrix(c: int) -> np.ndarray:
    """All 2^c binary patterns; row ``code`` has bit j of ``code`` in column j."""
    codes = np.arange(2**c, dtype=np.int64)
    return ((codes[:, None] >> np.arange(c)) & 1).astype(np.int8)


@njit(cache=True)
def _em(g, f, p, m, u, tol, max_iter, eps, p_hi):
    """EM iterations of the two-class Bernoulli mixture on pattern frequencies ``f`` (rows of
    ``g`` the patterns); updates ``m``, ``u`` in place; returns (p, iterations, converged).
    Scalar loops in a fixed order: the result does not depend on SIMD width or threads."""
    K, c = g.shape
    total = 0.0
    for k in range(K):
        total += f[k]
    lm, l1m, lu, l1u = np.empty(c), np.empty(c), np.empty(c), np.empty(c)
    am, au = np.empty(c), np.empty(c)
    it = 0
    for it in range(1, max_iter + 1):
        for j in range(c):
            lm[j], l1m[j] = math.log(m[j]), math.log1p(-m[j])
            lu[j], l1u[j] = math.log(u[j]), math.log1p(-u[j])
        lp, lq = math.log(p), math.log1p(-p)
        am[:] = 0.0
        au[:] = 0.0
        sm = 0.0
        su = 0.0
        for k in range(K):
            a, b = lp, lq
            for j in range(c):
                if g[k, j]:
                    a += lm[j]
                    b += lu[j]
                else:
                    a += l1m[j]
                    b += l1u[j]
            tau = 1.0 / (1.0 + math.exp(min(max(b - a, -700.0), 700.0)))  # P(M | pattern)
            fm = f[k] * tau
            fu = f[k] * (1.0 - tau)
            sm += fm
            su += fu
            for j in range(c):
                if g[k, j]:
                    am[j] += fm
                    au[j] += fu
        p_new = min(max(sm / total, eps), p_hi)
        delta = abs(p_new - p)
        for j in range(c):
            mj = min(max(am[j] / max(sm, 1e-300), eps), 1.0 - eps)
            uj = min(max(au[j] / max(su, 1e-300), eps), 1.0 - eps)
            delta = max(delta, abs(mj - m[j]), abs(uj - u[j]))
            m[j] = mj
            u[j] = uj
        p = p_new
        if delta < tol:
            return p, it, True
    return p, it, False


def em_fellegi_sunter(counts, c: int | None = None, *, p0: float | None = None, m0: float = 0.9,
                      tol: float = 1e-10, max_iter: int = 100_000, eps: float = 1e-9,
                      p_max: float | None = None) -> FellegiSunter:
    """Fit the two-class independent-Bernoulli mixture to ``counts[code]`` (pairs per pattern).

    ``counts`` has length 2^c. Start: ``m_j = m0``, ``u_j`` = the overall agreement rate of
    attribute j, ``p = p0`` (default 1 / sqrt(N), i.e. 1/n for N = n^2 pairs). Probabilities
    are kept in [eps, 1 - eps] so that every weight is finite, and ``p`` at most ``p_max``
    (default 1 - eps). Converged when no parameter moves by ``tol`` or more in one iteration.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if c is None:
        c = int(round(np.log2(counts.size)))
    if counts.ndim != 1 or counts.size != 2**c or (counts < 0).any() or counts.sum() <= 0:
        raise ValueError(f"counts must be 2^c = {2**c} non-negative pattern counts with a positive total")
    check_int("max_iter", max_iter, 1)
    g = pattern_matrix(c) != 0
    keep = counts > 0
    g, f = np.ascontiguousarray(g[keep]), counts[keep]
    total = float(f.sum())
    hi = 1.0 - eps
    p_hi = hi if p_max is None else min(check_real("p_max", p_max, 0.0, 1.0, low_open=True), hi)
    p = 1.0 / np.sqrt(total) if p0 is None else check_real("p0", p0, 0.0, 1.0, low_open=True, high_open=True)
    p = min(max(p, eps), p_hi)
    m = np.full(c, check_real("m0", m0, 0.0, 1.0, low_open=True, high_open=True))
    agree = (f[:, None] * g).sum(axis=0)  # row by row (f @ g would go through a CPU-dependent BLAS)
    u = np.minimum(np.maximum(agree / total, eps), hi)
    p, it, converged = _em(g, f, float(p), m, u, float(tol), int(max_iter), float(eps), float(p_hi))
    return FellegiSunter(m=m, u=u, p=float(p), iterations=int(it), converged=bool(converged))


def coincidence_intervals(x: np.ndarray, y: np.ndarray, coincidence: str = "nearest", *,
                          window: float = 1.0, t: float = 0.05, neighbours: int = 1):
    """Per-attribute keys and intervals: ``c_j(a_i, b) = 1`` iff ``lo[i, j] <= z[b, j] <= hi[i, j]``.

    ``x``, ``y``: original and masked known columns (n x c). Returns ``(z, lo, hi)``.
    """
    if coincidence not in COINCIDENCE_RULES:
        raise ValueError(f"coincidence must be one of {list(COINCIDENCE_RULES)}, got {coincidence!r}")
    n, c = x.shape
    if coincidence == "exact":
        return y, x, x
    if coincidence == "value":
        t = check_real("t", t, 0.0, np.inf)
        half = t * x.std(axis=0, ddof=1)
        return y, x - half, x + half
    if coincidence == "rank":
        window = check_real("window", window, 0.0, 100.0)
        half = window * n / 100.0
        rx = rank_matrix(x) / 2.0  # mid-ranks (exact: twice them are integers)
        ry = rank_matrix(y) / 2.0
        return ry, rx - half, rx + half
    ny = y.shape[0]
    neighbours = check_int("neighbours", neighbours, 1, ny)
    lo = np.empty_like(x)
    hi = np.empty_like(x)

    def column(j):
        ys = np.sort(y[:, j])
        pos = searchsorted_sorted(ys, np.ascontiguousarray(x[:, j]))
        # the `neighbours` nearest masked values lie within `neighbours` places of pos
        offs = np.arange(-neighbours, neighbours)
        idx = pos[:, None] + offs[None, :]
        inside = (idx >= 0) & (idx < ny)
        d = np.where(inside, np.abs(ys[np.clip(idx, 0, ny - 1)] - x[:, j][:, None]), np.inf)
        if d.shape[1] > neighbours:
            d = np.partition(d, neighbours - 1, axis=1)
        dk = d[:, neighbours - 1]
        lo[:, j] = x[:, j] - dk
        hi[:, j] = x[:, j] + dk

    _threads(column, range(c), n)
    # guard against rounding in x - d, x + d: a value at exactly distance dk must coincide
    spacing = np.spacing(np.maximum(np.abs(lo), np.abs(hi)))
    return y, lo - spacing, hi + spacing


def agreement_ranges(z: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """Sort each masked key column once; ``[s_ij, e_ij)`` is the range of sorted positions whose
    key lies in ``[lo_ij, hi_ij]`` (the masked records agreeing with original i on attribute j).
    Returns ``(order, s, e)`` with ``order`` transposed (one row per attribute)."""
    order = np.empty((z.shape[1], z.shape[0]), dtype=np.int64)
    s = np.empty(lo.shape, dtype=np.int64)
    e = np.empty(lo.shape, dtype=np.int64)

    def column(j):
        zj = np.ascontiguousarray(z[:, j])
        order[j] = np.argsort(zj, kind="stable")
        zs = zj[order[j]]
        lo_j = np.ascontiguousarray(lo[:, j])
        by_lo = np.argsort(lo_j, kind="stable")  # the ranges' ends too, nearly: one sort for both
        s[:, j] = searchsorted_sorted(zs, lo_j, "left", by_lo)
        e[:, j] = searchsorted_sorted(zs, np.ascontiguousarray(hi[:, j]), "right", by_lo)

    _threads(column, range(z.shape[1]), z.shape[0])
    return order, s, e


@njit(cache=True, nogil=True)
def _row_candidates(order, s, e, z, lo, hi, i, stamp, cols, codes):
    """The distinct masked records agreeing with original ``i`` on at least one attribute, with
    their full pattern codes, into ``cols``/``codes``; returns their number."""
    k = 0
    for j in range(s.shape[1]):
        for t in range(s[i, j], e[i, j]):
            col = order[j, t]
            if stamp[col] == i:
                continue
            stamp[col] = i
            code = 0
            for jj in range(s.shape[1]):  # bit jj: lo[i, jj] <= z[col, jj] <= hi[i, jj]
                v = z[col, jj]
                if v >= lo[i, jj] and v <= hi[i, jj]:
                    code |= 1 << jj
            cols[k] = col
            codes[k] = code
            k += 1
    return k


@njit(cache=True, nogil=True)
def _blocked_counts(order, s, e, z, lo, hi, walk, ncodes, rowmax, multi_rows, multi_cols, multi_codes):
    """Pattern counts over the candidate pairs, streamed, originals in the order ``walk``; the
    pairs agreeing on two or more attributes are kept in ``multi_*`` while they fit. Returns the
    counts and the number of such pairs (more than ``multi_rows.size``: not all kept)."""
    counts = np.zeros(ncodes, dtype=np.int64)
    stamp = np.full(order.shape[1], -1, dtype=np.int64)
    cols = np.empty(rowmax, dtype=np.int64)
    codes = np.empty(rowmax, dtype=np.int64)
    k = 0
    for i in walk:
        for t in range(_row_candidates(order, s, e, z, lo, hi, i, stamp, cols, codes)):
            code = codes[t]
            counts[code] += 1
            if code & (code - 1):
                if k < multi_rows.size:
                    multi_rows[k] = i
                    multi_cols[k] = cols[t]
                    multi_codes[k] = code
                k += 1
    return counts, k


@njit(cache=True, nogil=True)
def _row_edges(order, s, e, z, lo, hi, i, stamp, cols, codes, gain_of, cap):
    """Original ``i``'s candidates with positive gain, the ``cap`` best (gain descending, then
    column ascending) when there are more, in column order; returns their number and the number
    before that cap. (Explicit loops, no fancy indexing: compiles in a fraction of the time.)"""
    k = _row_candidates(order, s, e, z, lo, hi, i, stamp, cols, codes)
    w = 0
    for t in range(k):
        if gain_of[codes[t]] > 0:
            cols[w] = cols[t]
            codes[w] = codes[t]
            w += 1
    if w <= 1:
        return w, w
    o = argsort_stable(cols[:w])
    keep = np.ones(w, dtype=np.bool_)
    if w > cap:  # keep the cap best by gain; stable: lower column first on ties
        key = np.empty(w)
        for t in range(w):
            key[t] = -gain_of[codes[o[t]]]
        best = argsort_stable(key)
        keep[:] = False
        for t in range(cap):
            keep[best[t]] = True
    sc = np.empty(w, dtype=np.int64)
    sk = np.empty(w, dtype=np.int64)
    r = 0
    for t in range(w):  # column order
        if keep[t]:
            sc[r] = cols[o[t]]
            sk[r] = codes[o[t]]
            r += 1
    for t in range(r):
        cols[t] = sc[t]
        codes[t] = sk[t]
    return r, w


@njit(cache=True)
def _edge_counts(order, s, e, z, lo, hi, walk, gain_of, cap, rowmax):
    n = s.shape[0]
    out = np.zeros(n, dtype=np.int64)
    stamp = np.full(order.shape[1], -1, dtype=np.int64)
    cols = np.empty(rowmax, dtype=np.int64)
    codes = np.empty(rowmax, dtype=np.int64)
    for i in walk:
        out[i] = _row_edges(order, s, e, z, lo, hi, i, stamp, cols, codes, gain_of, cap)[0]
    return out


@njit(cache=True)
def _edges(order, s, e, z, lo, hi, walk, gain_of, cap, rowmax, indptr, out_cols, out_codes, full):
    """Row ``i``'s edges into ``out_*[indptr[i]:]`` and its count before the cap into ``full[i]``,
    originals in the order ``walk``."""
    stamp = np.full(order.shape[1], -1, dtype=np.int64)
    cols = np.empty(rowmax, dtype=np.int64)
    codes = np.empty(rowmax, dtype=np.int64)
    for i in walk:
        r, w = _row_edges(order, s, e, z, lo, hi, i, stamp, cols, codes, gain_of, cap)
        for t in range(r):
            out_cols[indptr[i] + t] = cols[t]
            out_codes[indptr[i] + t] = codes[t]
        full[i] = w


def _threads(f, items, n: int) -> list:
    """``[f(item) for item in items]`` (:func:`sdcrisk.threads.map_threads`), on numba's threads
    when the file has at least ``_PART_MIN`` records."""
    return map_threads(f, items, n >= _PART_MIN)


def _in_threads(kernel, walk: np.ndarray) -> list:
    """``kernel(part)`` on consecutive parts of ``walk``, one per thread; the results in the order
    of the parts, so that merging them does not depend on the number of threads when the merge
    is order-free (sums) or sorts."""
    parts = 1 if walk.size < 2 * _PART_MIN else min(numba.get_num_threads(), walk.size // _PART_MIN)
    return _threads(kernel, np.array_split(walk, parts), walk.size)


class CandidatePairs:
    """The pairs of :func:`prl` agreeing on at least one attribute, streamed from sorted ranges
    (:func:`agreement_ranges`) without being stored: exact pattern counts, then the edges."""

    def __init__(self, z, lo, hi):
        self.order, self.s, self.e = agreement_ranges(z, lo, hi)
        # originals walked in the order of their first attribute's range: consecutive records
        # read neighbouring masked records, which stay in the CPU's caches (any order gives the
        # same counts and edges)
        walk = np.argsort(self.s[:, 0], kind="stable") if lo.shape[0] else np.zeros(0, dtype=np.int64)
        self.args = (self.order, self.s, self.e, np.ascontiguousarray(z), np.ascontiguousarray(lo),
                     np.ascontiguousarray(hi), walk)
        per_row = (self.e - self.s).sum(axis=1)
        self.rowmax = max(int(per_row.max(initial=0)), 1)  # a row's bound: once per agreeing attribute
        self.c = lo.shape[1]

    def counts(self) -> np.ndarray:
        """Number of candidate pairs per pattern code (code 0 never occurs among them). The pass
        also keeps the pairs agreeing on several attributes (:attr:`multi`) when there are at
        most ``c`` per original."""
        counts, self._multi = self._pass(lambda part: self.c * part.size)
        return counts

    @property
    def kept_multi(self) -> bool:
        """Whether the counting pass kept the pairs agreeing on several attributes."""
        return self._multi is not None

    @property
    def multi(self):
        """``(rows, cols, codes)`` of the pairs agreeing on two or more attributes, sorted by row
        and column (a second pass when the first kept too many to keep; its memory is checked)."""
        if self._multi is None:
            total = int(self._multi_total)
            check_memory(f"probabilistic linkage: {total:,} pairs agreeing on several attributes", 24 * total)
            self._multi = self._pass(lambda part: total)[1]
        return self._multi

    def _pass(self, capacity):
        """The counting pass on threads; the pairs agreeing on several attributes too where each
        part holds at most ``capacity(part)`` of them (np.empty: pages never written cost no
        memory), else None."""
        *head, walk = self.args

        def part(w):
            keep = tuple(np.empty(capacity(w), dtype=np.int64) for _ in range(3))
            counts, k = _blocked_counts(*head, w, 2**self.c, self.rowmax, *keep)
            return counts, k, (tuple(a[:k] for a in keep) if k <= keep[0].size else None)

        parts = _in_threads(part, walk)
        self._multi_total = sum(k for _, k, _ in parts)
        multi = None
        if all(m is not None for _, _, m in parts):
            rows, cols, codes = (np.concatenate(a) for a in zip(*[m for _, _, m in parts]))
            o = np.lexsort((cols, rows))  # the same order on any number of threads
            multi = rows[o], cols[o], codes[o]
        return sum(c for c, _, _ in parts), multi

    def edges(self, gain_of: np.ndarray, cap: int | None = None):
        """``(rows, cols, codes, truncated)``: the candidates with positive ``gain_of[code]``,
        row-major with columns ascending, at most ``cap`` per row (the best ones), and the number
        of rows that had more. Refuses, with the estimate, when they would not fit the memory
        limit (:func:`sdcrisk.resources.check_memory`)."""
        n = self.s.shape[0]
        gain_of = np.ascontiguousarray(gain_of, dtype=np.float64)
        full = np.zeros(n, dtype=np.int64)
        hint = "pass max_candidates=K (the K best candidates of each record) or a narrower rule"
        if cap is not None and cap < self.rowmax:  # one pass into n x cap slots, then compacted
            check_memory(f"probabilistic linkage: up to {n:,} x {cap} candidate pairs", _BYTES_PER_EDGE * n * cap,
                         hint)
            cols = np.empty(n * cap, dtype=np.int64)
            codes = np.empty(n * cap, dtype=np.int64)
            slots = np.arange(n + 1, dtype=np.int64) * cap  # row i writes from i * cap
            _edges(*self.args, gain_of, cap, self.rowmax, slots, cols, codes, full)
            per_row = np.minimum(full, cap)
            used = (np.arange(cap)[None, :] < per_row[:, None]).ravel()
            cols, codes = cols[used], codes[used]
        else:  # count, check the memory, then fill
            cap = self.rowmax
            per_row = _edge_counts(*self.args, gain_of, cap, self.rowmax)
            total = int(per_row.sum())
            check_memory(f"probabilistic linkage: {total:,} candidate pairs above the background weight",
                         _BYTES_PER_EDGE * total, hint)
            indptr = np.concatenate([[0], np.cumsum(per_row)])
            cols = np.empty(total, dtype=np.int64)
            codes = np.empty(total, dtype=np.int64)
            _edges(*self.args, gain_of, cap, self.rowmax, indptr, cols, codes, full)
        return np.repeat(np.arange(n, dtype=np.int64), per_row), cols, codes, int((full > cap).sum())


def agreement_blocks(order, s, e, attrs):
    """The *blocks* of :func:`prl`'s block network: on attribute j, the sorted positions of the
    masked key column are cut at every range end ``s_ij``, ``e_ij``, so that each original's
    agreement range is a run of consecutive pieces; the pieces some range covers are the blocks.
    Every pair (original, member of a block it enters) agrees on j. Returns ``(rows, blocks,
    attr)`` (original ``rows[k]`` enters block ``blocks[k]``, of attribute ``attr[k]``) and
    ``(member_blocks, member_cols)``. On tied values (the "nearest" rule's tie groups) this is
    about ``n`` arcs per attribute each way where the pairs are ``n`` times the tie group size."""
    n, ny = s.shape[0], order.shape[1]

    def attribute(j):
        # the distinct range ends, ascending: positions 0..ny marked (np.unique's hash took
        # 0.8 s per attribute at 10^6, the marks 5 ms)
        ends = np.zeros(ny + 1, dtype=np.bool_)
        ends[s[:, j]] = True
        ends[e[:, j]] = True
        cuts = np.flatnonzero(ends)
        place = np.cumsum(ends) - 1  # place[p]: the index of cut p in cuts
        a, b = place[s[:, j]], place[e[:, j]]
        k = b - a
        piece = np.repeat(a - np.cumsum(k) + k, k) + np.arange(int(k.sum()))  # a_i, a_i + 1, ..., b_i - 1
        used = np.zeros(cuts.size, dtype=bool)
        used[piece] = True
        u = np.flatnonzero(used)
        size = cuts[u + 1] - cuts[u]
        pos = np.repeat(cuts[u] - np.cumsum(size) + size, size) + np.arange(int(size.sum()))
        return (np.repeat(np.arange(n, dtype=np.int32), k), (np.cumsum(used) - 1)[piece].astype(np.int32),
                np.repeat(np.arange(u.size, dtype=np.int32), size), order[j][pos].astype(np.int32))

    per = _threads(attribute, attrs, n)
    first = np.cumsum([0] + [int(p[2][-1]) + 1 if p[2].size else 0 for p in per])  # block numbers per attribute
    cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)  # noqa: E731
    enter = (cat([p[0] for p in per]), cat([p[1] + f for p, f in zip(per, first)]),
             cat([np.full(p[0].size, j, dtype=np.int8) for p, j in zip(per, attrs)]))
    return enter, (cat([p[2] + f for p, f in zip(per, first)]), cat([p[3] for p in per]))


def route_gains(gain_of: np.ndarray, c: int) -> np.ndarray:
    """``route[code]``: what the block network can give a pair of pattern ``code`` through blocks,
    the largest positive single-attribute gain among its agreeing attributes (0 if none)."""
    single = np.maximum(gain_of[1 << np.arange(c)], 0.0)
    bits = (np.arange(2**c)[:, None] >> np.arange(c)) & 1
    return (bits * single).max(axis=1)


def block_network(pairs: "CandidatePairs", counts: np.ndarray, gain_of: np.ndarray, cap: int | None = None):
    """The arguments of :func:`assign_max_weight_blocks` for :func:`prl`'s assignment, with
    ``(best_count, arcs, back, truncated)``, or None where the block network is not exact or not
    smaller than the network of pairs, or (with ``cap``) would not fit the memory limit.

    Exact when no pair is overstated: every pattern that occurs gets no more through a block than
    its own gain (``route <= max(gain, 0)``; true when every attribute's agreement raises the
    weight, ``m_j > u_j``). Pairs whose gain exceeds their best block route (several agreements)
    are direct edges; ``cap`` keeps each original's ``cap`` best of them (:func:`direct_edges`)
    and ``truncated`` counts the originals that had more. Records are renumbered in the sorted
    order of the attribute with the largest gain (``back`` maps the solver's numbers back), which
    keeps the solver's memory reads local: about 5 % faster at 10^6. From
    :data:`.assignment.PATHS_MIN` originals the blocks with one original or one member become direct
    edges (:func:`.assignment.single_blocks_as_edges`; the flow at 10^6 about 7 % faster)."""
    c = pairs.c
    route = route_gains(gain_of, c)
    seen = counts > 0
    seen[0] = False
    if np.any(route[seen] > np.maximum(gain_of[seen], 0.0)):
        return None
    singles = gain_of[1 << np.arange(c)]
    attrs = [j for j in range(c) if singles[j] > 0]
    if not attrs:
        return None
    enter, members = agreement_blocks(pairs.order, pairs.s, pairs.e, attrs)
    n, ny = pairs.s.shape[0], pairs.order.shape[1]
    n_direct = int(counts[seen & (gain_of > route)].sum())
    arcs = enter[0].size + members[0].size + (n_direct if cap is None else min(n_direct, n * cap))
    if arcs >= int(counts[gain_of > 0].sum()):
        return None
    try:
        check_memory(f"probabilistic linkage: block network of {arcs:,} arcs", _BYTES_PER_EDGE * (arcs + 3 * n + ny),
                     "pass max_candidates=K (the K best candidates of each record) or a narrower rule")
    except MemoryLimitError:
        if cap is None:
            raise
        return None  # the capped pairs instead
    (rows, cols, codes), (mrows, mcodes), truncated = direct_edges(pairs, gain_of, route, cap)
    nbest = _best_counts(pairs, gain_of, singles, mrows, mcodes)
    del mrows, mcodes
    top = int(np.argmax(singles))
    row_no = np.empty(n, dtype=np.int32)
    row_no[np.argsort(pairs.s[:, top], kind="stable")] = np.arange(n)
    col_no = np.empty(ny, dtype=np.int32)
    col_no[pairs.order[top]] = np.arange(ny)
    direct = (row_no[rows], col_no[cols], gain_of[codes])
    enter = (row_no[enter[0]], enter[1], singles[enter[2]])
    members = (members[0], col_no[members[1]])
    del rows, cols, codes
    if n >= PATHS_MIN:  # the replication's files (at most 4,092 records) keep the flow's links on blocks
        direct, enter, members = single_blocks_as_edges(direct, enter, members)
        arcs = direct[0].size + enter[0].size + members[0].size
    return (n, ny, direct, enter, members), (nbest, arcs, (row_no, pairs.order[top].copy()), truncated)


def direct_edges(pairs: "CandidatePairs", gain_of: np.ndarray, route: np.ndarray, cap: int | None = None):
    """The block network's direct edges ``(rows, cols, codes)``: the pairs whose gain exceeds
    their best block route, at most ``cap`` per original (the best by gain, then the lower
    column: :meth:`CandidatePairs.edges`' rule), sorted by row and column; with ``(rows, codes)``
    of the pairs agreeing on several attributes for :func:`_best_counts` and the number of
    originals that had more than ``cap``. With a cap and the counting pass's pairs not kept
    (more than ``c`` per original), one capped pass finds the edges instead of storing every
    such pair; the best-weight counts then see only the kept ones."""
    if cap is None or pairs.kept_multi:
        rows, cols, codes = pairs.multi
        extra = gain_of[codes] > route[codes]
        direct = rows[extra], cols[extra], codes[extra]
        truncated = 0
        if cap is not None:
            r, c, k = direct
            o = np.lexsort((c, -gain_of[k], r))
            first = np.searchsorted(r, r)  # r is sorted: each row's first position
            keep = np.sort(o[np.arange(o.size) - first[o] < cap])
            truncated = int((np.bincount(r, minlength=1) > cap).sum())
            direct = r[keep], c[keep], k[keep]
        return direct, (rows, codes), truncated
    rows, cols, codes, truncated = pairs.edges(np.where(gain_of > route, gain_of, 0.0), cap)
    return (rows, cols, codes), (rows, codes), truncated


def _best_counts(pairs: "CandidatePairs", gain_of, singles, rows, codes) -> np.ndarray:
    """For each original, how many masked records share its best positive gain (all masked
    records when it has none), from its agreement ranges and its pairs agreeing on several
    attributes (``rows``, ``codes``), without another pass over the pairs. Gains never fall
    when an agreement is added (the block network's condition), so the records agreeing on an
    attribute j with ``g_j`` at the best are all at the best: the sum of those ranges' lengths
    counts each such record once per such attribute it agrees on, and the pairs agreeing on
    several attributes correct that, and add the ones at the best through no such j."""
    n, ny = pairs.s.shape[0], pairs.order.shape[1]
    tol = 1e-12
    pos = np.maximum(singles, 0.0)
    has = pairs.e > pairs.s
    best = (has * pos).max(axis=1) if n else np.zeros(0)
    gain = gain_of[codes]
    np.maximum.at(best, rows, gain)
    at = has & (pos > 0) & (pos >= best[:, None] - tol)  # attributes whose agreement is at the best
    count = ((pairs.e - pairs.s) * at).sum(axis=1)
    mask = (at.astype(np.int64) << np.arange(at.shape[1])).sum(axis=1)
    shared = pattern_matrix(at.shape[1]).sum(axis=1, dtype=np.int64)[codes & mask[rows]]  # bits in common
    np.subtract.at(count, rows, np.maximum(shared - 1, 0))
    np.add.at(count, rows, ((shared == 0) & (gain > 0) & (gain >= best[rows] - tol)).astype(np.int64))
    return np.where(best > 0, count, ny)


def candidate_pairs(z, lo, hi):
    """Every candidate pair of :func:`prl` with its code, ``(rows, cols, codes)`` (tests, small files)."""
    c = lo.shape[1]
    every = np.ones(2**c)
    every[0] = 0.0
    return CandidatePairs(z, lo, hi).edges(every)[:3]


def coincidence_codes(x, y, coincidence: str = "nearest", **rule_params) -> np.ndarray:
    """The n x n matrix of pattern codes (bit j = c_j(a, b)): the candidate pairs' codes, 0
    elsewhere. For tests and small files; :func:`prl` never forms it."""
    z, lo, hi = coincidence_intervals(np.asarray(x, float), np.asarray(y, float), coincidence, **rule_params)
    out = np.zeros((lo.shape[0], z.shape[0]), dtype=np.int64)
    rows, cols, codes = candidate_pairs(np.ascontiguousarray(z), lo, hi)
    out[rows, cols] = codes
    return out


def prl_memory(original, masked, known=None) -> float:
    """Bytes :func:`prl` (default rule) may hold for its edges on these files: about
    ``_BYTES_PER_EDGE`` per agreement-range entry, the pairs its passes walk. Untied values give
    about one entry per original and attribute; tied masked values give a whole run of equal
    values each, so the memory follows the data, not only n (the attack workers' schedule,
    :mod:`sdcrisk.assess.workers`). Files whose entries exceed :data:`MAX_PAIRS` are refused by
    :func:`prl` before any allocation: their estimate is 0."""
    x, y = prepare(original, masked, known)
    entries = 0.0
    for j in range(x.shape[1]):
        ys = np.sort(y[:, j])
        if ys.size < 2 or np.all(ys[1:] != ys[:-1]):  # untied: one entry per original
            entries += x.shape[0]
            continue
        _, lo, hi = coincidence_intervals(x[:, [j]], y[:, [j]])  # the ranges prl walks, as it computes them
        entries += float((np.searchsorted(ys, hi[:, 0], "right") - np.searchsorted(ys, lo[:, 0], "left")).sum())
    return 0.0 if entries > MAX_PAIRS else _BYTES_PER_EDGE * entries


def prl_bound(original, masked, truth, known=None, coincidence: str = "nearest", *, window: float = 1.0,
              t: float = 0.05, neighbours: int = 1) -> np.ndarray:
    """An upper bound on :func:`prl`'s correct links, without its EM or its assignment.

    PRL links an original record only to a masked record it agrees with on at least one known
    attribute: every other pair has the all-disagree pattern, the background weight, and neither
    the edges nor the block network hold it (module docstring). So original ``i`` can be linked to
    its own masked record ``truth[i]`` only if the two agree on some attribute under the
    coincidence rule, whatever the weights, the tie draw or ``max_candidates``. Returns, per
    original record, 1.0 where they agree and 0.0 where PRL cannot link it correctly; the sum
    bounds PRL's correct links. Costs the coincidence intervals (a sort per attribute).
    """
    x, y = prepare(original, masked, known)
    truth = np.asarray(truth, dtype=np.int64)
    if truth.shape != (x.shape[0],):
        raise ValueError(f"truth must hold one masked record per original record ({x.shape[0]}), got shape {truth.shape}")
    z, lo, hi = coincidence_intervals(x, y, coincidence, window=window, t=t, neighbours=neighbours)
    agree = np.zeros(x.shape[0], dtype=bool)
    own = truth >= 0
    zt = z[truth[own]]
    agree[own] = ((zt >= lo[own]) & (zt <= hi[own])).any(axis=1)
    return agree.astype(np.float64)


def prl(original, masked, known=None, coincidence: str = "nearest", *, window: float = 1.0,
        t: float = 0.05, neighbours: int = 1, rng: np.random.Generator | None = None,
        max_iter: int = 100_000, tol: float = 1e-10, max_candidates: int | None = None,
        max_pairs: float = MAX_PAIRS) -> LinkResult:
    """Probabilistic record linkage (Nin, Herranz & Torra 2008, rank swapping, Sec. 2.1.1;
    2008, multivariate microaggregation, Sec. 2.2).

    ``coincidence`` selects the coincidence rule (module docstring), with its parameter
    ``window`` ("rank", percent of n), ``t`` ("value", multiples of sd) or ``neighbours``
    ("nearest"). Ties among equal-weight assignments are broken at random: the masked records
    are permuted by ``rng`` before matching (None: a Generator seeded with 0). ``max_iter`` and
    ``tol`` bound the EM (:func:`em_fellegi_sunter`); a fit that does not converge warns with
    :class:`ConvergenceWarning`. ``max_candidates=K`` bounds the stored network for files whose
    candidates do not fit in memory: on the block network each original record keeps its K best
    direct edges (pairs agreeing on several attributes), elsewhere its K best candidates (weight,
    then the random order; module docstring); the pattern counts and the EM still use every
    pair. The default (None) keeps every candidate, the papers' assignment;
    ``info["truncated"]`` counts the records that lost candidates or direct edges. A file
    whose passes would walk more than ``max_pairs`` agreement-range entries (counted from the
    ranges before any pair is visited; at least the candidate pairs) is refused up front with
    :class:`sdcrisk.resources.WorkLimitError`.
    ``score`` is each link's weight, ``candidates`` the number of masked records sharing the
    best weight of that original; ``info`` holds ``converged``, ``iterations``, ``p``, ``pairs``
    (candidate pairs), ``edges`` (pairs above background kept), ``truncated``, ``network``
    ("pairs", or "blocks" where tied agreement made the block network smaller; module docstring)
    and ``arcs`` (the assignment network's arcs between records and blocks).
    """
    x, y = prepare(original, masked, known)
    n, c = x.shape
    ny = y.shape[0]
    if c > _MAX_KNOWN:
        raise NotApplicable(f"known: at most {_MAX_KNOWN} attributes for PRL (2^{_MAX_KNOWN} agreement patterns), "
                            f"got {c}; PRL-graded compares any number")
    if rng is None:
        rng = np.random.Generator(np.random.PCG64(0))
    elif not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator or None, got {type(rng).__name__}")
    if max_candidates is not None:
        max_candidates = check_int("max_candidates", max_candidates, 1)
    z, lo, hi = coincidence_intervals(x, y, coincidence, window=window, t=t, neighbours=neighbours)
    perm = rng.permutation(ny)
    pairs = CandidatePairs(np.ascontiguousarray(z[perm]), lo, hi)
    per_attribute = (pairs.e - pairs.s).sum(axis=0, dtype=np.float64)
    if per_attribute.size:
        j = int(np.argmax(per_attribute))
        check_work(f"probabilistic linkage: agreement-range entries to walk (attribute #{j} alone "
                   f"{per_attribute[j]:,.0f}: tied values agree with whole runs of equal masked values)",
                   float(per_attribute.sum()), max_pairs, _PAIR_RATE, "PRL-graded compares tied files in n log n")
        entries = float(per_attribute.sum())
        if entries > 4 * n * c:  # tied values: the command's estimates (untied data) do not hold; say why
            progress.report(f"probabilistic linkage: {entries:,.0f} agreement-range entries to walk ({entries / n:,.0f} "
                            "per record: tied values), the edges up to "
                            f"{size_text(_BYTES_PER_EDGE * entries)}", force=True)
    counts = pairs.counts()
    n_pairs = int(counts.sum())
    counts[0] += n * ny - n_pairs  # every pair outside the candidates disagrees everywhere
    one_to_one = min(n, ny) / (n * ny)
    model = em_fellegi_sunter(counts, c, p0=one_to_one, p_max=one_to_one, max_iter=max_iter, tol=tol)
    if not model.converged:
        warnings.warn(f"prl: EM did not converge in {model.iterations} iterations (tol {tol:g}); "
                      "the weights may be unreliable", ConvergenceWarning, stacklevel=2)
    w = np.round(model.weights(pattern_matrix(c)), 6)  # identical on every CPU, see module docstring
    gain_of = w - w[0]
    n_edges = int(counts[gain_of > 0].sum())  # pairs above background
    blocked = block_network(pairs, counts, gain_of, max_candidates)
    if blocked is not None:
        del pairs  # the candidate ranges, before the solver's memory peak
        (_, _, *network), (ncand, arcs, (row_no, col_of), truncated) = blocked
        del blocked
        keys = park(z, lo, hi)  # on disk during the solve (240 MB at 10^6 x 10)
        del z, lo, hi
        links_no = assign_max_weight_blocks(n, ny, network)
        z, lo, hi = keys.load()
        links_perm = links_no[row_no]
        links_perm[links_perm >= 0] = col_of[links_perm[links_perm >= 0]]
        network = "blocks"
    else:
        rows, cols, codes, truncated = pairs.edges(gain_of, max_candidates)
        gain = gain_of[codes]
        links_perm = assign_max_weight(rows, cols, gain, n) if gain.size else np.full(n, -1, dtype=np.int64)
        # diagnostics: best weight per original and how many masked records share it
        best = np.zeros(n)
        np.maximum.at(best, rows, gain)
        at_best = gain >= best[rows] - 1e-12
        ncand = np.bincount(rows[at_best & (best[rows] > 0)], minlength=n)
        ncand = np.where(best > 0, ncand, ny - np.bincount(rows, minlength=n))
        network, arcs, n_edges = "pairs", int(rows.size), int(rows.size)
    links = np.where(links_perm >= 0, perm[np.maximum(links_perm, 0)], -1)
    linked = np.flatnonzero(links_perm >= 0)
    zl = z[links[linked]]  # the linked masked records' keys (z before the permutation)
    code = (((zl >= lo[linked]) & (zl <= hi[linked])) << np.arange(c)).sum(axis=1)
    score = np.full(n, w[0])
    score[linked] = w[code]
    info = {"converged": model.converged, "iterations": model.iterations, "p": model.p,
            "pairs": n_pairs, "edges": n_edges, "truncated": truncated, "network": network, "arcs": arcs}
    return LinkResult(links=links, candidates=ncand, score=score, info=info)
