"""PRL-graded: Fellegi-Sunter record linkage with graded comparison levels, EM on pattern counts,
nearest-neighbour blocking on ranks and a one-to-one assignment.

This is the project's extension, not one of the papers' attacks (Nin, Herranz & Torra 2007, 2008;
Muralidhar & Domingo-Ferrer 2016). Their probabilistic linkage (:func:`.probabilistic.prl`) gives
each attribute a binary coincidence, which rank swapping defeats: with the "nearest value" rule
the true pair almost never coincides. Fellegi & Sunter (1969) allow any finite set of comparison
outcomes; here every known attribute is compared on a few graded *levels*.

Levels of a pair (original ``a``, masked ``b``) on attribute j, the first that holds:

* level 0, "exact": ``a_j == b_j``;
* levels 1..B, rank bands: ``|r_j(a) - r_j(b)| <= levels[l - 1] * n / 100``, with ``r_j`` the
  mid-rank of the value within its own file's column (original ranks in the original file,
  masked ranks in the masked file). Default bands 0.1 %, 1 %, 5 %, 20 % of n. Ranks make the
  levels invariant to each attribute's scale and skew and match how the maskings move values:
  rank swapping with parameter p keeps each value within p % of n in rank, microaggregation within
  its group, noise within a density-dependent rank distance;
* level B + 1, "else": every other pair.

A ``categorical`` attribute (integer codes) has two levels only: equal (level 0) or "else".

Model and EM. A two-class mixture (matches M, non-matches U, match share ``p``) with
conditionally independent attributes, each a multinomial over its levels (``m[j, l]``, ``u[j, l]``).
EM (:func:`em_graded`) runs on the counts of the distinct level patterns, never on pairs. What EM
sees: every *candidate pair* (below) with its full pattern, and every other pair of the comparison
space (all ``n x n'`` pairs, or the pairs within equal ``blocks`` codes) as a non-match through
its exact per-attribute level counts. Those counts are exact without visiting the pairs: for each
original and attribute, the masked records within each band are a range of the masked ranks
sorted once (binary searches; equal values likewise), and the candidates' own counts are
subtracted. Only the non-matches' ``u`` uses them (the M-step of ``u`` needs the per-attribute
margins only), so treating them as non-matches is the one approximation: a true pair the blocking
missed counts as a non-match. Start: ``m[j]`` = the level distribution of every original's
nearest candidate, ``u[j]`` = the level distribution over all pairs, ``p`` = the one-to-one share
``min(n, n') / N`` (also its upper bound). Converged when no parameter moves by ``tol`` or more in
an iteration; a fit that reaches ``max_iter`` first warns (:class:`ConvergenceWarning`) and is
flagged ``info["converged"] = False``. Probabilities are kept in ``[eps, 1 - eps]``.

Blocking (sub-quadratic). The candidate pairs are each original's ``neighbours`` nearest masked
records in *rank space* (every continuous attribute's rank divided by n, a categorical attribute's
code index, squared Euclidean distance), found by the package's k-d tree
(:meth:`.neighbours.KDTree.knn`, with scipy's ``eps`` stopping rule ``approx``, default 0.5: each
k-th neighbour within 1.5 times the true k-th distance; at 100,000 records it halved the search
for the same links): ``n x neighbours`` pairs. ``blocks`` codes enter as a coordinate
far larger than any within-block distance, and the few neighbours in another block (blocks with
fewer than ``neighbours`` masked records) are dropped: pairs are only ever compared within equal
codes.

Weights and assignment. A pattern's weight is ``sum_j log(m[j, l_j] / u[j, l_j])`` (fixed-order
scalar sums, rounded to 1e-6, as :mod:`.probabilistic` does, so the links are the same on every
CPU). The one-to-one assignment maximises the total gain ``w - w_else`` (``w_else``: the weight of
the all-"else" pattern, the background) over the candidate pairs with positive gain
(:func:`.assignment.assign_max_weight`: shortest augmenting paths from 20,000 originals, else a
minimum-cost flow); an original with no such candidate,
or whose candidates all went to others, stays unlinked (-1). Ties are broken at random: the masked
records are permuted by ``rng`` (None: a Generator seeded with 0) before the assignment.

Memory: the candidate pairs and the assignment are estimated before allocation and refused
above the limit (:func:`sdcrisk.resources.check_memory`).
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
from numba import njit

from ..resources import check_memory
from ..validation import check_int, check_real
from .assignment import assign_max_weight
from ..validation import prepare
from .base import LinkResult, index_type
from .neighbours import KDTree
from .ranks import rank_matrix
from .probabilistic import ConvergenceWarning, _in_threads, _threads

LEVELS = (0.1, 1.0, 5.0, 20.0)  # rank bands, percent of n
NEIGHBOURS = 10
APPROX = 0.5  # k-d tree search stops as scipy's cKDTree eps: each k-th neighbour within (1 + APPROX) of the true one
# Peak memory (resident-set peak of each step, measured at 10^6 x 10 with 10 neighbours, 928 MB
# above the loaded files): the pattern step, about 35 bytes per candidate pair (their records,
# codes and pattern numbers) on top of 30 per record and attribute still held (ranks), counted as
# 50 and 30; or the rank and neighbour steps, 65 per record and attribute (measured 37), where that
# is more. The assignment then holds 20 bytes per kept pair beside its own estimate
# (:func:`.assignment.assign_max_weight`).
_BYTES_PER_PAIR, _BYTES_PER_EDGE = 50, 20
_BYTES_PER_VALUE, _BYTES_PER_VALUE_SEARCH = 30, 65
_CHUNK = 1 << 22  # pairs looked up at a time


@njit(cache=True, nogil=True)
def _pair_codes(rows, cols, xv, yv, rx, ry, cat, thr, nlev, out):
    """Pattern code ``sum_j level_j * nlev^j`` of each candidate pair (``rows[k]``, ``cols[k]``)."""
    c = xv.shape[1]
    nb = thr.size
    for k in range(rows.size):
        i = rows[k]
        l = cols[k]
        code = 0
        mult = 1
        for j in range(c):
            if xv[i, j] == yv[l, j]:
                lev = 0
            elif cat[j]:
                lev = nlev - 1
            else:
                d = abs(rx[i, j] - ry[l, j])
                lev = nlev - 1
                for b in range(nb):
                    if d <= thr[b]:
                        lev = b + 1
                        break
            code += lev * mult
            mult *= nlev
        out[k] = code


@njit(cache=True)
def _em(g, f, out_margin, n_out, p, m, u, tol, max_iter, eps, p_hi):
    """EM of the two-class mixture of per-attribute multinomials on pattern frequencies ``f``
    (``g[k, j]`` the level of pattern k on attribute j), plus ``n_out`` pairs known to be
    non-matches whose per-attribute level counts are ``out_margin[j, l]``. Updates ``m``, ``u`` in
    place; returns (p, iterations, converged). Scalar loops in a fixed order."""
    K, c = g.shape
    nlev = m.shape[1]
    total = n_out
    for k in range(K):
        total += f[k]
    lm = np.empty((c, nlev))
    lu = np.empty((c, nlev))
    am = np.empty((c, nlev))
    au = np.empty((c, nlev))
    it = 0
    for it in range(1, max_iter + 1):
        for j in range(c):
            for v in range(nlev):
                lm[j, v] = math.log(m[j, v])
                lu[j, v] = math.log(u[j, v])
        lp, lq = math.log(p), math.log1p(-p)
        am[:, :] = 0.0
        au[:, :] = 0.0
        sm = 0.0
        su = n_out
        for k in range(K):
            a, b = lp, lq
            for j in range(c):
                a += lm[j, g[k, j]]
                b += lu[j, g[k, j]]
            tau = 1.0 / (1.0 + math.exp(min(max(b - a, -700.0), 700.0)))
            fm = f[k] * tau
            fu = f[k] - fm
            sm += fm
            su += fu
            for j in range(c):
                am[j, g[k, j]] += fm
                au[j, g[k, j]] += fu
        p_new = min(max(sm / total, eps), p_hi)
        delta = abs(p_new - p)
        for j in range(c):
            for v in range(nlev):
                mj = min(max(am[j, v] / max(sm, 1e-300), eps), 1.0 - eps)
                uj = min(max((au[j, v] + out_margin[j, v]) / max(su, 1e-300), eps), 1.0 - eps)
                delta = max(delta, abs(mj - m[j, v]), abs(uj - u[j, v]))
                m[j, v] = mj
                u[j, v] = uj
        p = p_new
        if delta < tol:
            return p, it, True
    return p, it, False


@njit(cache=True)
def _pattern_weights(g, m, u):
    """``sum_j log(m[j, g_kj]) - log(u[j, g_kj])`` per pattern row, in a fixed order."""
    c, nlev = m.shape
    w1 = np.empty((c, nlev))
    for j in range(c):
        for v in range(nlev):
            w1[j, v] = math.log(m[j, v]) - math.log(u[j, v])
    w = np.empty(g.shape[0])
    for k in range(g.shape[0]):
        s = 0.0
        for j in range(c):
            s += w1[j, g[k, j]]
        w[k] = s
    return w


def em_graded(g, f, out_margin, n_out, m0, u0, p0, p_max, *, tol=1e-8, max_iter=10_000, eps=1e-9):
    """EM of the graded Fellegi-Sunter model (module docstring); returns ``(m, u, p, iterations,
    converged)``."""
    m = np.clip(np.array(m0, dtype=np.float64), eps, 1 - eps)
    u = np.clip(np.array(u0, dtype=np.float64), eps, 1 - eps)
    p = min(max(float(p0), eps), float(p_max))
    p, it, conv = _em(np.ascontiguousarray(g, dtype=np.int64), np.asarray(f, dtype=np.float64),
                      np.ascontiguousarray(out_margin, dtype=np.float64), float(n_out), p, m, u, float(tol),
                      int(max_iter), float(eps), float(p_max))
    return m, u, float(p), int(it), bool(conv)


def _code_groups(c: int, nlev: int) -> list[np.ndarray]:
    """The known columns in groups whose level patterns fit one 64-bit code each (``nlev^q <
    2^62``): one group up to about 26 attributes with five levels, more groups beyond."""
    per = 1
    while per < c and nlev ** (per + 1) < 2**62:
        per += 1
    return [np.arange(s, min(s + per, c)) for s in range(0, c, per)]


def _dense(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct ``codes`` and each code's position among them (np.unique's inverse,
    without its argsort of the pairs: 8 bytes per pair)."""
    pats = np.unique(codes)
    inv = np.empty(codes.size, dtype=index_type(pats.size))
    for s in range(0, codes.size, _CHUNK):
        inv[s:s + _CHUNK] = np.searchsorted(pats, codes[s:s + _CHUNK])
    return pats, inv


def decode(codes: np.ndarray, c: int, nlev: int) -> np.ndarray:
    """Level matrix (rows: codes, columns: attributes) of mixed-radix pattern codes."""
    g = np.empty((codes.size, c), dtype=np.int64)
    rest = np.asarray(codes, dtype=np.int64).copy()
    for j in range(c):
        g[:, j] = rest % nlev
        rest //= nlev
    return g


def _block_codes(blocks, n: int, ny: int):
    """Dense block indices of both files from ``blocks`` ((bx, by) or a 2 x n array)."""
    if blocks is None:
        return np.zeros(n, dtype=np.int64), np.zeros(ny, dtype=np.int64)
    if isinstance(blocks, (tuple, list)) and len(blocks) == 2:
        bx, by = np.asarray(blocks[0]), np.asarray(blocks[1])
    else:
        arr = np.asarray(blocks)
        if arr.ndim != 2 or arr.shape[0] != 2:
            raise ValueError(f"blocks must be (bx, by) or an array of shape (2, n), got shape {arr.shape}")
        bx, by = arr[0], arr[1]
    if bx.shape != (n,) or by.shape != (ny,):
        raise ValueError(f"blocks: expected {n} original and {ny} masked block codes, got shapes {bx.shape}, {by.shape}")
    if not (np.issubdtype(bx.dtype, np.integer) and np.issubdtype(by.dtype, np.integer)):
        raise ValueError(f"blocks: expected integer codes, got {bx.dtype} and {by.dtype}")
    _, inv = np.unique(np.concatenate([bx, by]), return_inverse=True)
    inv = inv.astype(np.int64).ravel()
    return inv[:n], inv[n:]


def _all_pair_margins(x, y, r2x, r2y, bx, by, cat, thr, nlev):
    """Exact number of pairs (within equal block codes) at each level of each attribute, by binary
    searches on the masked column sorted once per attribute; shape (c, nlev)."""
    n, c = x.shape
    ny = y.shape[0]
    stride = 8 * (n + ny) + 8  # block offsets far beyond any doubled rank +- band
    per_block_x = np.bincount(bx, minlength=max(int(bx.max(initial=-1)), int(by.max(initial=-1))) + 1)
    per_block_y = np.bincount(by, minlength=per_block_x.size)
    in_block = per_block_y[bx]  # masked records sharing each original's block
    out = np.zeros((c, nlev), dtype=np.int64)

    def attribute(j):
        _, vcode = np.unique(np.concatenate([x[:, j], y[:, j]]), return_inverse=True)
        vcode = vcode.astype(np.int64).ravel()
        vstride = int(vcode.max(initial=0)) + 1
        vy_sorted_idx = np.argsort(by * vstride + vcode[n:], kind="stable")
        ky = (by * vstride + vcode[n:])[vy_sorted_idx]
        kx = bx * vstride + vcode[:n]
        # the originals in ascending order of block and value (and so of block and rank): the
        # binary searches then take sorted keys, which numpy's searchsorted walks forward (4x
        # faster at 10^6 records than in record order); only sums over the originals are taken
        ox = np.argsort(kx, kind="stable")
        kx, bxo, r2xo = kx[ox], bx[ox], r2x[ox, j]
        lo = np.searchsorted(ky, kx, "left")
        eq = np.searchsorted(ky, kx, "right") - lo
        row = np.zeros(nlev, dtype=np.int64)
        row[0] = int(eq.sum())
        if cat[j]:
            row[nlev - 1] = int(in_block.sum()) - row[0]
            return row
        # the masked records' order by block and value is also their order by block and rank
        ry_sorted = by[vy_sorted_idx] * stride + r2y[vy_sorted_idx, j]
        # the doubled mid-rank of the masked records equal to x_ij (equal values share one rank)
        r_eq = np.zeros(n, dtype=np.int64)
        has = eq > 0
        if has.any():
            r_eq[has] = r2y[vy_sorted_idx[lo[has]], j]
        d_eq = np.abs(r_eq - r2xo)
        kx = bxo * stride + r2xo
        prev = 0
        for b, t in enumerate(thr):
            within = (np.searchsorted(ry_sorted, kx + t, "right") - np.searchsorted(ry_sorted, kx - t, "left")
                      - np.where(has & (d_eq <= t), eq, 0))
            s = int(within.sum())
            row[b + 1] = s - prev
            prev = s
        row[nlev - 1] = int(in_block.sum()) - row[0] - prev
        return row

    for j, row in enumerate(_threads(attribute, range(c), n)):
        out[j] = row
    return out, int((per_block_x * per_block_y).sum()), int(np.minimum(per_block_x, per_block_y).sum())


def prl_graded(original, masked, known=None, *, levels=LEVELS, blocks=None, categorical=None,
               neighbours: int = NEIGHBOURS, approx: float = APPROX, rng: np.random.Generator | None = None, max_iter: int = 10_000,
               tol: float = 1e-8) -> LinkResult:
    """PRL-graded: Fellegi & Sunter (1969) linkage with graded comparison levels (module docstring;
    the project's extension, not an attack of the papers).

    ``levels``: increasing rank bands in percent of n (levels 1..B between "exact" and "else").
    ``blocks``: integer block codes of both files, ``(bx, by)`` or a 2 x n array: pairs are compared
    only within equal codes. ``categorical``: boolean mask over the known columns marking
    integer-coded categorical attributes (equal / not equal). ``neighbours``: candidate masked
    records per original (nearest in rank space; at most the masked records, so that a file of
    fewer records than ``neighbours`` compares every pair). ``rng``: tie breaks of the assignment.
    ``approx``: the k-d tree's early stop (0: exact neighbours). ``max_iter``, ``tol``: the EM.

    ``score`` is each link's weight (the all-"else" weight for unlinked records), ``candidates``
    each original's number of candidate pairs; ``info`` holds ``converged``, ``iterations``, ``p``,
    ``pairs`` (candidate pairs), ``patterns`` (distinct level patterns among them),
    ``comparison_pairs`` (all pairs EM accounts for), ``edges`` (candidates with positive gain),
    ``m`` and ``u`` (c x levels), ``levels`` (the level names), ``seconds`` (wall time per stage).
    """
    x, y = prepare(original, masked, known)
    n, c = x.shape
    ny = y.shape[0]
    if rng is None:
        rng = np.random.Generator(np.random.PCG64(0))
    elif not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator or None, got {type(rng).__name__}")
    bands = np.asarray([check_real("levels", b, 0.0, 100.0) for b in np.atleast_1d(levels)], dtype=np.float64)
    if bands.size and np.any(np.diff(bands) <= 0):
        raise ValueError(f"levels must be increasing rank bands in percent of n, got {list(levels)!r}")
    nlev = bands.size + 2
    groups = _code_groups(c, nlev)
    # at most every masked record: a file smaller than the default's 10 neighbours (2 to 10
    # records) compares every pair
    neighbours = min(check_int("neighbours", neighbours, 1), ny)
    approx = check_real("approx", approx, 0.0, np.inf)
    check_int("max_iter", max_iter, 1)
    tol = check_real("tol", tol, 0.0, 1.0, low_open=True)
    if categorical is None:
        cat = np.zeros(c, dtype=np.bool_)
    else:
        cat = np.asarray(categorical)
        if cat.shape != (c,) or cat.dtype != np.bool_:
            raise ValueError(f"categorical must be a boolean mask over the {c} known columns, got {cat.dtype} {cat.shape}")
        bad = [j for j in np.flatnonzero(cat) if not (np.all(x[:, j] == np.round(x[:, j]))
                                                       and np.all(y[:, j] == np.round(y[:, j])))]
        if bad:
            raise ValueError(f"categorical: known column {bad[0]} is not integer-coded")
    bx, by = _block_codes(blocks, n, ny)
    clock = [time.perf_counter()]
    seconds = {}

    def lap(stage):
        now = time.perf_counter()
        seconds[stage] = round(now - clock[0], 3)
        clock[0] = now

    values = (n + ny) * c
    check_memory(f"PRL-graded: {n:,} x {neighbours} candidate pairs",
                 max(_BYTES_PER_PAIR * n * neighbours + _BYTES_PER_VALUE * values, _BYTES_PER_VALUE_SEARCH * values),
                 "pass fewer neighbours")
    # doubled mid-ranks (integers), each file in its own column
    r2x, r2y = rank_matrix(x), rank_matrix(y)
    if ny != n:  # on the original's scale
        r2y = np.rint(r2y * (n / ny)).astype(np.int64)
    thr = np.floor(2 * bands * n / 100.0).astype(np.int64)

    # candidates: nearest masked records in rank space (blocks as a far coordinate)
    zx, zy = np.empty((n, c + 1)), np.empty((ny, c + 1))
    zx[:, :c], zy[:, :c] = r2x / (2.0 * n), r2y / (2.0 * n)
    for j in np.flatnonzero(cat):  # code index / number of codes: within [0, 1) like the ranks
        codes_j, inv_j = np.unique(np.concatenate([x[:, j], y[:, j]]), return_inverse=True)
        inv_j = inv_j.ravel() / codes_j.size
        zx[:, j], zy[:, j] = inv_j[:n], inv_j[n:]
    zx[:, c], zy[:, c] = bx * float(c + 2), by * float(c + 2)  # within a block: squared distance <= c
    perm = rng.permutation(ny)
    tree = KDTree(zy[perm], unique=False)
    _, nb = tree.knn(zx, neighbours, approx=approx)
    del tree, zx, zy
    lap("neighbours")
    index = index_type(max(n, ny))
    rows = np.repeat(np.arange(n, dtype=index), neighbours)
    cols = nb.astype(index).ravel()  # in permuted numbering
    del nb
    same = bx[rows] == by[perm[cols]]
    if not same.all():
        rows, cols = rows[same], cols[same]
    ncand = np.bincount(rows, minlength=n).astype(np.int64)
    yp = np.ascontiguousarray(y[perm])
    r2yp = np.ascontiguousarray(r2y[perm])
    xa, ra = np.ascontiguousarray(x), np.ascontiguousarray(r2x)
    g, inv = None, None
    for grp in groups:  # one group (one 64-bit code per pair) up to nlev^c < 2^62 patterns
        whole = grp.size == c
        xg, yg = (xa, yp) if whole else (np.ascontiguousarray(xa[:, grp]), np.ascontiguousarray(yp[:, grp]))
        rg, r2g = (ra, r2yp) if whole else (np.ascontiguousarray(ra[:, grp]), np.ascontiguousarray(r2yp[:, grp]))
        codes = np.empty(rows.size, dtype=np.int64)

        def code_part(idx, xg=xg, yg=yg, rg=rg, r2g=r2g, catg=np.ascontiguousarray(cat[grp]), codes=codes,
                      rows=rows, cols=cols):
            out = np.empty(idx.size, dtype=np.int64)
            _pair_codes(rows[idx], cols[idx], xg, yg, rg, r2g, catg, thr, nlev, out)
            codes[idx] = out
        _in_threads(code_part, np.arange(rows.size))
        del xg, yg, rg, r2g
        pats, part = _dense(codes)
        del codes
        levels = decode(pats, grp.size, nlev)
        if g is None:
            g, inv = levels, part
        else:  # the pattern so far and this group's, as one dense number
            both, inv = _dense(inv.astype(np.int64) * pats.size + part)
            g = np.hstack([g[both // pats.size], levels[both % pats.size]])
    del yp, r2yp, xa, ra  # each array is freed once no later step needs it

    # EM on the distinct patterns of the candidates + exact margins of the other pairs
    freq = np.bincount(inv, minlength=g.shape[0])
    cand_margin = np.zeros((c, nlev))
    for j in range(c):
        cand_margin[j] = np.bincount(g[:, j], weights=freq, minlength=nlev)
    lap("patterns")
    all_margin, n_all, n_one_to_one = _all_pair_margins(x, y, r2x, r2y, bx, by, cat, thr, nlev)
    n_pairs = int(rows.size)
    del r2x, r2y
    lap("margins")
    out_margin = np.maximum(all_margin - cand_margin, 0.0)
    n_out = float(n_all - n_pairs)
    first = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]]) if rows.size else np.zeros(0, dtype=np.int64)
    m0 = np.zeros((c, nlev))
    gf = g[inv[first]]
    for j in range(c):
        m0[j] = np.bincount(gf[:, j], minlength=nlev)
    m0 = (m0 + 1.0) / (m0.sum(axis=1, keepdims=True) + nlev)
    u0 = all_margin / max(n_all, 1)
    one_to_one = max(n_one_to_one, 1) / max(n_all, 1)  # at most one true match per record
    m, u, p, iterations, converged = em_graded(g, freq, out_margin, n_out, m0, u0, one_to_one, one_to_one,
                                               tol=tol, max_iter=max_iter)
    if not converged:
        warnings.warn(f"prl_graded: EM did not converge in {iterations} iterations (tol {tol:g}); "
                      "the weights may be unreliable", ConvergenceWarning, stacklevel=2)
    lap("em")
    w_pat = np.round(_pattern_weights(g, m, u), 6)
    w_else = float(np.round(_pattern_weights(np.full((1, c), nlev - 1, dtype=np.int64), m, u)[0], 6))
    gain_pat = w_pat - w_else
    keep = gain_pat[inv] > 0
    erows, ecols, epat = (rows, cols, inv) if keep.all() else (a[keep] for a in (rows, cols, inv))
    del rows, cols, inv, keep
    check_memory(f"PRL-graded: assignment on {erows.size:,} candidate pairs",
                 _BYTES_PER_EDGE * erows.size + _BYTES_PER_VALUE * values)
    links_perm = (assign_max_weight(erows, ecols, gain_pat, n, classes=epat) if erows.size
                  else np.full(n, -1, dtype=np.int64))
    lap("assignment")
    links = np.where(links_perm >= 0, perm[np.maximum(links_perm, 0)], -1)
    score = np.full(n, w_else)
    # each linked pair is a kept edge: its weight from the edge list
    hit = ecols == links_perm[erows]
    score[erows[hit]] = w_pat[epat[hit]]
    names = ["exact"] + [f"<={b:g}%" for b in bands] + ["else"]
    info = {"converged": converged, "iterations": iterations, "p": p, "pairs": n_pairs, "patterns": int(g.shape[0]),
            "comparison_pairs": n_all, "edges": int(erows.size), "m": m, "u": u, "levels": names,
            "neighbours": neighbours, "seconds": seconds}
    return LinkResult(links=links, candidates=ncand, score=score, info=info)
