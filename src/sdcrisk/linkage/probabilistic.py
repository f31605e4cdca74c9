"""Probabilistic record linkage (PRL): Fellegi-Sunter weights estimated by EM, then a
one-to-one linear sum assignment.

Seed 000 Sec. 2.1.1 and seed 001 Sec. 2.2 (after Jaro 1989 and Torra & Domingo-Ferrer 2003):
for every pair (a, b) of an original record a and a masked record b a binary *coincidence
vector* ``c(a, b) = (c_1, ..., c_c)`` over the ``c`` known attributes is formed; a two-class
mixture of independent Bernoullis (matched pairs M with agreement probabilities ``m_j``,
unmatched pairs U with ``u_j``, match proportion ``p``) is fitted by EM; each pair gets the
weight ``sum_j log(m_j / u_j)`` (agreement) or ``log((1 - m_j) / (1 - u_j))`` (disagreement);
finally the linear sum assignment maximising the total weight links every original record to
one masked record.

The papers define ``c_j(a, b) = 1`` "if V_j(a) = V_j(b)"; for continuous masked values that
definition is open (exact equality links nothing on microaggregated data, CALIBRATION-NOTES 5),
so the rule is selectable (``coincidence=``):

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

Every rule is an interval ``lo_ij <= z_bj <= hi_ij`` on a per-column key ``z`` (the masked
value or its rank), so the coincidence pattern of a pair is a small integer (one bit per
attribute), computed one original record at a time in a numba kernel: a first pass counts the
pairs per pattern, a second keeps only the edge pairs below; the n^2 patterns are never stored.
EM runs on the at most 2^c pattern counts, never on the pairs. The assignment is solved
sparsely: only pairs whose weight exceeds the minimum pattern weight (normally the
all-disagree pattern) are edges, and a private dummy column per original record stands for
"only background weight left"; this is equivalent to the dense assignment (every non-edge has
the minimum weight), and such records are returned unlinked (``-1``) rather than tied
arbitrarily to a leftover masked record.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit
from scipy.sparse.csgraph import min_weight_full_bipartite_matching
from scipy.stats import rankdata

from ..validation import check_int, check_real
from .base import LinkResult, prepare

COINCIDENCE_RULES = ("exact", "rank", "value", "nearest")
_MAX_KNOWN = 20  # at most 2^20 patterns: the count table and the EM stay small


@dataclass
class FellegiSunter:
    """EM estimate of the Fellegi-Sunter model on pattern counts (Jaro 1989)."""

    m: np.ndarray  # P(c_j = 1 | matched)
    u: np.ndarray  # P(c_j = 1 | unmatched)
    p: float  # proportion of matched pairs
    iterations: int
    converged: bool

    def weights(self, patterns: np.ndarray) -> np.ndarray:
        """Log-likelihood ratio weight of each binary pattern (rows of ``patterns``)."""
        agree = np.log(self.m) - np.log(self.u)
        disagree = np.log1p(-self.m) - np.log1p(-self.u)
        g = np.asarray(patterns, dtype=np.float64)
        return g @ agree + (1.0 - g) @ disagree


def pattern_matrix(c: int) -> np.ndarray:
    """All 2^c binary patterns; row ``code`` has bit j of ``code`` in column j."""
    codes = np.arange(2**c, dtype=np.int64)
    return ((codes[:, None] >> np.arange(c)) & 1).astype(np.int8)


def em_fellegi_sunter(counts, c: int | None = None, *, p0: float | None = None, m0: float = 0.9,
                      tol: float = 1e-10, max_iter: int = 5000, eps: float = 1e-9) -> FellegiSunter:
    """Fit the two-class independent-Bernoulli mixture to ``counts[code]`` (pairs per pattern).

    ``counts`` has length 2^c. Start: ``m_j = m0``, ``u_j`` = the overall agreement rate of
    attribute j, ``p = p0`` (default 1 / sqrt(N), i.e. 1/n for N = n^2 pairs). Probabilities
    are kept in [eps, 1 - eps] so that every weight is finite.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if c is None:
        c = int(round(np.log2(counts.size)))
    if counts.ndim != 1 or counts.size != 2**c or (counts < 0).any() or counts.sum() <= 0:
        raise ValueError(f"counts must be 2^c = {2**c} non-negative pattern counts with a positive total")
    g = pattern_matrix(c).astype(np.float64)
    keep = counts > 0
    g, f = g[keep], counts[keep]
    total = f.sum()
    p = 1.0 / np.sqrt(total) if p0 is None else check_real("p0", p0, 0.0, 1.0, low_open=True, high_open=True)
    m = np.full(c, check_real("m0", m0, 0.0, 1.0, low_open=True, high_open=True))
    h = 1 - g
    hi = 1 - eps

    def clip(a):  # np.clip(a, eps, 1 - eps) without its per-call overhead (same values)
        return np.minimum(np.maximum(a, eps), hi)

    u = clip((f @ g) / total)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        log_m = g @ np.log(m) + h @ np.log1p(-m) + np.log(p)
        log_u = g @ np.log(u) + h @ np.log1p(-u) + np.log1p(-p)
        tau = 1.0 / (1.0 + np.exp(np.minimum(np.maximum(log_u - log_m, -700.0), 700.0)))  # P(M | pattern)
        fm, fu = f * tau, f * (1 - tau)
        sm, su = fm.sum(), fu.sum()
        p_new = min(max(float(sm / total), eps), hi)
        m_new = clip((fm @ g) / max(sm, 1e-300))
        u_new = clip((fu @ g) / max(su, 1e-300))
        delta = max(abs(p_new - p), np.abs(m_new - m).max(), np.abs(u_new - u).max())
        p, m, u = p_new, m_new, u_new
        if delta < tol:
            converged = True
            break
    return FellegiSunter(m=m, u=u, p=p, iterations=it, converged=converged)


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
        rx = rankdata(x, axis=0)
        ry = rankdata(y, axis=0)
        return ry, rx - half, rx + half
    ny = y.shape[0]
    neighbours = check_int("neighbours", neighbours, 1, ny)
    lo = np.empty_like(x)
    hi = np.empty_like(x)
    for j in range(c):
        ys = np.sort(y[:, j])
        pos = np.searchsorted(ys, x[:, j])
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
    # guard against rounding in x - d, x + d: a value at exactly distance dk must coincide
    spacing = np.spacing(np.maximum(np.abs(lo), np.abs(hi)))
    return y, lo - spacing, hi + spacing


@njit(cache=True)
def _row_codes(zt, lo, hi, i, code):
    """code[l] = pattern of (original i, masked l): bit j set iff lo[i, j] <= zt[j, l] <= hi[i, j]."""
    code[:] = 0
    for j in range(zt.shape[0]):
        a, b, bit, row = lo[i, j], hi[i, j], np.int64(1) << j, zt[j]
        for l in range(zt.shape[1]):
            code[l] |= bit * ((row[l] >= a) & (row[l] <= b))


@njit(cache=True)
def _pattern_counts(zt, lo, hi, ncodes):
    """Number of (original, masked) pairs per pattern code, row by row (no n x n matrix)."""
    counts = np.zeros(ncodes, dtype=np.int64)
    code = np.empty(zt.shape[1], dtype=np.int64)
    for i in range(lo.shape[0]):
        _row_codes(zt, lo, hi, i, code)
        for l in range(code.size):
            counts[code[l]] += 1
    return counts


@njit(cache=True)
def _edge_pairs(zt, lo, hi, is_edge, rows, cols, codes):
    """The pairs whose pattern is an edge pattern, row-major, into the buffers (sized from the
    pattern counts); their count, or -1 if the buffers are too small."""
    code = np.empty(zt.shape[1], dtype=np.int64)
    k = 0
    for i in range(lo.shape[0]):
        _row_codes(zt, lo, hi, i, code)
        for l in range(code.size):
            if is_edge[code[l]]:
                if k == rows.size:
                    return -1
                rows[k] = i
                cols[k] = l
                codes[k] = code[l]
                k += 1
    return k


def coincidence_codes(x, y, coincidence: str = "nearest", **rule_params) -> np.ndarray:
    """The n x n matrix of pattern codes (bit j = c_j(a, b)). For tests and small files;
    :func:`prl` never forms it."""
    z, lo, hi = coincidence_intervals(np.asarray(x, float), np.asarray(y, float), coincidence, **rule_params)
    zt = np.ascontiguousarray(z.T)
    out = np.empty((lo.shape[0], z.shape[0]), dtype=np.int64)
    for i in range(lo.shape[0]):
        _row_codes(zt, lo, hi, i, out[i])
    return out


def assign_max_weight(rows: np.ndarray, cols: np.ndarray, gain: np.ndarray, n: int) -> np.ndarray:
    """One-to-one assignment of n originals to n masked records maximising the total ``gain``.

    Edges ``(rows, cols)`` carry ``gain > 0``; every other pair has gain 0. Solved as a sparse
    minimum-weight full matching with one private dummy column per original record (cost of the
    "no edge" option); originals left on their dummy are returned as -1.
    """
    big = float(gain.max()) + 1.0 if gain.size else 1.0
    cost = np.concatenate([big - gain, np.full(n, big)])
    r = np.concatenate([rows, np.arange(n)])
    cc = np.concatenate([cols, n + np.arange(n)])
    graph = sp.csr_matrix((cost, (r, cc)), shape=(n, 2 * n))
    r_ind, c_ind = min_weight_full_bipartite_matching(graph)
    links = np.full(n, -1, dtype=np.int64)
    links[r_ind] = np.where(c_ind < n, c_ind, -1)
    return links


def prl(original, masked, known=None, coincidence: str = "nearest", *, window: float = 1.0,
        t: float = 0.05, neighbours: int = 1, rng: np.random.Generator | None = None) -> LinkResult:
    """Probabilistic record linkage (seed 000 Sec. 2.1.1, seed 001 Sec. 2.2).

    ``coincidence`` selects the coincidence rule (module docstring), with its parameter
    ``window`` ("rank", percent of n), ``t`` ("value", multiples of sd) or ``neighbours``
    ("nearest"). Ties among equal-weight assignments are broken by the matching algorithm in
    record order; pass ``rng`` to randomise the order of the masked records before matching
    (removes any index-order bias among tied candidates). ``score`` is each link's weight,
    ``candidates`` the number of masked records sharing the best weight of that original.
    """
    x, y = prepare(original, masked, known)
    n, c = x.shape
    if c > _MAX_KNOWN:
        raise ValueError(f"known: at most {_MAX_KNOWN} attributes for PRL, got {c}")
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator or None, got {type(rng).__name__}")
    z, lo, hi = coincidence_intervals(x, y, coincidence, window=window, t=t, neighbours=neighbours)
    perm = rng.permutation(n) if rng is not None else np.arange(n)
    zt = np.ascontiguousarray(z[perm].T)
    lo, hi = np.ascontiguousarray(lo), np.ascontiguousarray(hi)
    counts = _pattern_counts(zt, lo, hi, 2**c)
    model = em_fellegi_sunter(counts, c)
    w = model.weights(pattern_matrix(c))
    observed = counts > 0
    wmin = w[observed].min()
    gain_of = np.where(observed, w - wmin, 0.0)
    edge_pattern = gain_of > 1e-12 * max(1.0, np.abs(w[observed]).max())
    size = int(counts[edge_pattern].sum())
    rows, cols, codes = (np.empty(size, dtype=np.int64) for _ in range(3))
    if _edge_pairs(zt, lo, hi, edge_pattern, rows, cols, codes) != size:
        raise RuntimeError("prl: edge count differs between the two passes")
    gain = gain_of[codes]
    links_perm = assign_max_weight(rows, cols, gain, n)
    links = np.where(links_perm >= 0, perm[np.maximum(links_perm, 0)], -1)
    # diagnostics: best weight per original and how many masked records share it
    best = np.zeros(n)
    np.maximum.at(best, rows, gain)
    at_best = gain >= best[rows] - 1e-12
    ncand = np.bincount(rows[at_best & (best[rows] > 0)], minlength=n)
    ncand = np.where(best > 0, ncand, n - np.bincount(rows, minlength=n))
    score = np.full(n, wmin)
    ok = links_perm >= 0
    linked = np.flatnonzero(ok)
    at = np.searchsorted(rows * n + cols, linked * n + links_perm[ok])  # links are edges
    score[ok] = w[codes[at]]
    return LinkResult(links=links, candidates=ncand, score=score)
