"""Linkage of a sample release to its original: the released file holds a subset of the
original's records (a register or census), masked or not.

The intruder holds the whole original (the population file) and links each *released* record to
an original record: the direction of linkage goes from the smaller file to the larger, so every
released record gets a link and the share of released records linked to their own original record
is the risk (``truth[i]`` is the original row of released record ``i``). With as many released
records as original ones (a one-to-one release in another order) the direction is the one-to-one
attacks' (each original record linked to a released record) and the engines below give their
numbers exactly.

* :class:`OriginalSearch` (and :func:`nearest_originals`, one list from it): the search the attacks
  share. An exact k-d tree over the original (the larger file; building it is ``O(N log N)`` once,
  and the ``n`` released records are the queries, on numba's threads) with the block code as one
  more coordinate far above every distance inside a block (:func:`with_blocks`: the tree splits on
  the blocks first and prunes the others at once; a box query on keys the tree does not split on
  visits the whole original for every query: 88 s CPU at 10^6 / 10^5 x 10 with 50 blocks, against
  9 s), listing each released record's ``k`` nearest original records of its block. The lists are
  short, as long as the attack needs for every record: 8 for DBRL and GDBRL (GDBRL's first
  candidate graph, :data:`GDBRL_CANDIDATES`; DBRL needs the nearest two), 2 for RBRL-Sum and
  RBRL-Max (one tree over the rank coordinates for both); a record whose list is full of equally
  near records is listed again with :data:`NEAREST` and, if that one is full too, searched by a box
  query (:func:`_within`). With ten attributes a search inside a block reads a large share of the
  block's records around noisy queries (the cost per query grows almost as the block's size), so
  the length of the list matters: at 3 x 10^6 / 3 x 10^5 (50 blocks) the squared Euclidean search
  of 16 took 39 s CPU, of 8 about 32 s, of 2 22 s (L1 on ranks: 56 s for 16, 37 s for 2).
* :func:`sample_dbrl`: DBRL (Muralidhar & Domingo-Ferrer 2016, section 2) on coordinates already
  on the distance's scale (each file standardised by its own mean and sd, as the one-to-one
  attack does), from that list: the nearest original record inside the block of equal
  categorical keys, exact (numpy's distance over the listed records within the brute force's
  tolerance; a record with more equal records than the lists hold is searched again in full).
  Ties: credit ``1/t`` when the true record is among the ``t`` equally near ones
  (:func:`.base.uniform_credit`).
* :func:`ratio_of` / :func:`distance_ratio`: the attack's own confidence from the same list, the
  ratio of the nearest to the second nearest original distance within the block (Euclidean, in
  [0, 1]; 1 on a tie; near 0 when the nearest is much closer than any other). An intruder keeps
  the links whose ratio is at most a threshold (the nearest-neighbour distance ratio test of Lowe
  2004).
* :func:`ranks_in_original` with :func:`sample_rbrl`: RBRL-Sum / RBRL-Max (same paper, section
  3) on a sample: each released value takes the (doubled, average) rank it would have among the
  original's values of its block, the original values their own ranks, so both are on the
  original's rank scale and an unmasked released value gets its original's rank exactly; integer
  coordinates, so the L1 / L-infinity search and its tie counts stay exact. :func:`sample_ranks`
  is the one-to-one convention generalised through the empirical distribution (a released value
  of rank ``s`` among ``n`` at quantile ``(s - 1/2) / n``, an original one of rank ``r`` among
  ``N`` at ``(r - 1/2) / N``, compared as integers ``(2s - 1) N + n`` and ``n * 2r``): for
  ``n = N`` it gives ``N`` times the one-to-one attack's doubled ranks, and it is what a release
  of every original record in another order uses.
* :func:`sample_gdbrl`: GDBRL (Herranz, Nin, Rodriguez & Tassa 2015) as a rectangular one-to-one
  assignment: every released record to a distinct original record with the least total Euclidean
  distance, solved exactly on the candidate graph of each released record's ``k`` nearest original
  records of its block (LAPJVsp as ``scipy.sparse.csgraph.min_weight_full_bipartite_matching`` runs
  it, :func:`_lapjvsp`, per connected component of that graph: :func:`_matching`); ``k`` doubles
  until a matching of every released record exists. Its confidence: the link's distance over the
  nearest other original's.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numba
import numpy as np
from numba import njit

from ..measures.units import linkage_percent, precision_percent
from .base import uniform_credit
from .neighbours import REL_TOL, KDTree, exact_best

#: distance-ratio thresholds of the precision-recall table (:func:`precision_recall`)
RATIO_THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: candidates per released record of the rectangular assignment, first try and upper limit
GDBRL_CANDIDATES, GDBRL_CANDIDATES_MAX = 8, 128
#: nearest original records listed again for a released record whose first list is full of
#: equally near records (DBRL within the tolerance, RBRL at the minimum); beyond, a box query
NEAREST = 16
#: nearest rank-coordinate records listed first per released record by RBRL-Sum / RBRL-Max (the
#: link, the ratio, and whether the link ties)
RANK_NEAREST = 2
#: rows per leaf of :class:`OriginalSearch`'s tree: with ten attributes its searches read a large
#: share of a block's records, so longer leaves (fewer nodes, longer vectorised scans) pay: at
#: 3 x 10^6 / 3 x 10^5 (50 blocks) 128 rows took 8-17 % less CPU than the k-d tree's default 64
#: in each of the three searches, with the same lists (an exact search's result is the tree's)
SEARCH_LEAF = 128


@dataclass
class SampleLinks:
    """Per query record (a released record; an original one when the files are equally large):
    ``links`` the row linked to (-1: none), ``credit`` the expected correct link under uniform
    random tie-breaking, ``ratio`` the distance ratio where the attack has it (None otherwise)."""

    links: np.ndarray
    credit: np.ndarray
    ratio: np.ndarray | None = None
    info: dict = field(default_factory=dict)


def _box(blocks):
    """The tree's keys and the queries' box (lo, hi) for block codes ``(bx, by)``, or Nones."""
    if blocks is None:
        return None, None, None
    bx, by = (np.asarray(b, dtype=np.int64) for b in blocks)
    return bx[:, None], by[:, None], by[:, None] + 1


def with_blocks(xs: np.ndarray, ys: np.ndarray, blocks=None):
    """``(xa, ya, step)``: the rows with the block code as one more coordinate, ``code x step``,
    ``step`` an integer above the L1 diameter of both files together (so above the Euclidean and
    L-infinity ones, and ``step^2`` above the squared Euclidean one): a row of another block is
    farther than every row of one's own, and inside a block that coordinate adds exactly 0 to
    every kernel's distance (the same code times the same step). The tree then splits on the blocks
    first and prunes the other blocks at once. ``step`` is ``inf`` without blocks."""
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    if blocks is None:
        return xs, ys, np.inf
    both = np.vstack([xs.min(axis=0, initial=np.inf), xs.max(axis=0, initial=-np.inf),
                      ys.min(axis=0, initial=np.inf), ys.max(axis=0, initial=-np.inf)])
    step = float(np.ceil(2.0 * float(np.sum(both.max(axis=0) - both.min(axis=0))) + 1.0))
    bx, by = (np.asarray(b, dtype=np.float64) for b in blocks)
    return np.hstack([xs, (bx * step)[:, None]]), np.hstack([ys, (by * step)[:, None]]), step


class OriginalSearch:
    """One exact k-d tree over the original ``xs`` (the larger file) with the block code as one more
    coordinate (:func:`with_blocks`), queried by the released ``ys``: :meth:`knn` lists any number of
    nearest original records in any of the kernel's metrics for all released records or some, so
    that one tree serves a first short list for every record and a longer one for the few records
    whose short list is full of equally near records (DBRL's and RBRL's ties), and RBRL-Sum and
    RBRL-Max search the same rank coordinates in one tree."""

    def __init__(self, xs: np.ndarray, ys: np.ndarray, blocks=None):
        from ..resources import check_memory

        big, n, m = xs.shape[0], ys.shape[0], xs.shape[1] + (blocks is not None)
        check_memory(f"nearest original records of {n:,} released records among {big:,}",
                     search_bytes(big, n, m, NEAREST), "assess fewer known attributes or a smaller original")
        xa, self.ya, self.step = with_blocks(xs, ys, blocks)
        self.ya = np.ascontiguousarray(self.ya)
        self.big, self.blocked = big, blocks is not None
        self.tree = KDTree(xa, unique=False, leaf_size=SEARCH_LEAF)

    def knn(self, k: int, metric: str = "sqeuclidean", rows=None) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest original records of each released record (of the released rows ``rows``,
        all when None) in its block, as :func:`nearest_originals` lists them."""
        k = max(1, min(int(k), self.big))
        d, idx = self.tree.knn(self.ya if rows is None else self.ya[rows], k, metric=metric)
        if self.blocked:
            other = d >= (self.step * self.step if metric == "sqeuclidean" else self.step)
            d[other], idx[other] = np.inf, -1
        return d, idx


def nearest_originals(xs: np.ndarray, ys: np.ndarray, blocks=None, k: int = NEAREST,
                      metric: str = "sqeuclidean") -> tuple[np.ndarray, np.ndarray]:
    """The one search every sample attack starts from: per row of ``ys`` its ``k`` nearest rows of
    ``xs`` in its block (exact k-d tree over ``xs``, the larger file, queried by ``ys``; the kernel's
    sums: squared Euclidean, L1 or L-infinity), ``(distances, indices)`` (n x k) ascending by
    (distance, index); ``inf`` / -1 past the block's records (:class:`OriginalSearch`)."""
    return OriginalSearch(np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64), blocks).knn(k, metric)


def search_bytes(big: int, n: int, m: int, k: int) -> int:
    """Memory of :func:`nearest_originals` on ``big`` original and ``n`` released records of ``m``
    coordinates: the originals with the block coordinate, the tree's copy of them leaf by leaf and
    its per-row indices (about 6 int64 per row) and nodes, the queries, and the two n x k lists."""
    return int(8 * (2 * big * m + 8 * big + 2 * n * m + 2 * n * k))


def _full(d: np.ndarray, idx: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """The rows whose whole list lies within ``limit``: rows beyond the list may be too."""
    return (idx[:, -1] >= 0) & (d[:, -1] <= limit)


def _within(d: np.ndarray, idx: np.ndarray, limit: np.ndarray, big: int, search, metric: str):
    """The listed pairs ``(rows, cols)`` within ``limit`` of each row of the lists ``(d, idx)``, and
    the rows none of whose lists holds all of them (to be searched by a box query). A row whose
    list is full (:func:`_full`) is listed again with :data:`NEAREST` records by ``search`` (an
    :class:`OriginalSearch`; when given and the list is shorter): both lists are prefixes of the
    same order by (distance, index), so a row within ``limit`` of a list that is not full has the
    same pairs in either list, and the short first list changes no result."""
    n = d.shape[0]
    full = _full(d, idx, limit) if idx.shape[1] < big else np.zeros(n, dtype=bool)
    keep = (d <= limit[:, None]) & (idx >= 0) & ~full[:, None]
    rows, cols = np.nonzero(keep)
    cols = idx[rows, cols]
    again = np.flatnonzero(full)
    if again.size and search is not None and idx.shape[1] < min(NEAREST, big):
        d2, i2 = search.knn(NEAREST, metric, rows=again)
        full2 = _full(d2, i2, limit[again]) if i2.shape[1] < big else np.zeros(again.size, dtype=bool)
        keep2 = (d2 <= limit[again][:, None]) & (i2 >= 0) & ~full2[:, None]
        r2, c2 = np.nonzero(keep2)
        rows, cols = np.r_[rows, again[r2]], np.r_[cols, i2[r2, c2]]
        again = again[full2]
    return rows, cols, again


def sample_dbrl(xs: np.ndarray, ys: np.ndarray, truth: np.ndarray, blocks=None, near=None,
                search=None) -> SampleLinks:
    """DBRL from the query file ``ys`` (released records) to the reference file ``xs`` (original
    records): each row of ``ys`` to the nearest row of ``xs`` (squared Euclidean, exact; inside its
    block when ``blocks = (bx, by)`` gives block codes of ``xs`` and ``ys``). ``truth[i]``: the row
    of ``xs`` that row ``i`` of ``ys`` comes from. ``near``: :func:`nearest_originals` of the same
    files (at least two per row), computed once and shared with the other attacks; ``search``: the
    :class:`OriginalSearch` it came from, which lists more for the rows that need them.

    The link is :func:`sdcrisk.linkage.neighbours.exact_best` (numpy's distance, lowest index) over
    the listed rows within the brute force's tolerance of the kernel minimum (:data:`.neighbours.REL_TOL`);
    a row whose whole list lies within that tolerance (many equal records) gets a list of
    :data:`NEAREST` from ``search`` and, when that one is full too, is searched again by the box
    query of :class:`.neighbours.KDTree`, which lists them all (:func:`_within`). The ratio
    (:func:`distance_ratio`) comes from the first list."""
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.ascontiguousarray(ys, dtype=np.float64)
    truth = np.asarray(truth, dtype=np.int64)
    n = ys.shape[0]
    if near is None:
        search = OriginalSearch(xs, ys, blocks) if search is None else search
        near = search.knn(GDBRL_CANDIDATES)
    d, idx = near
    tol = REL_TOL * (np.einsum("ij,ij->i", ys, ys) + np.einsum("ij,ij->i", xs, xs).max(initial=0.0))
    limit = d[:, 0] + tol
    rows, cols, again = _within(d, idx, limit, xs.shape[0], search, "sqeuclidean")
    links, _, ties, hit = exact_best(ys, xs, rows, cols, n, (np.ones(xs.shape[0], np.int64), truth))
    if again.size:
        keys, lo, hi = _box(blocks)
        tree = KDTree(xs, keys)
        links[again], _, ties[again], hit[again] = tree.query(
            ys[again], "sqeuclidean", lo=None if lo is None else lo[again], hi=None if hi is None else hi[again],
            truth=truth[again])
    return SampleLinks(links, uniform_credit(ties, hit), ratio_of(d, True),
                       info={"tied_records": int((ties > 1).sum()), "searched_again": int(again.size)})


def ratio_of(d: np.ndarray, squared: bool) -> np.ndarray:
    """Nearest over second-nearest distance per row of a :func:`nearest_originals` list (``squared``:
    squared Euclidean distances, their square root), in [0, 1]: 1 when both are 0 (a tie at 0),
    0 when the row's block holds one original record (its keys alone single it out)."""
    n = d.shape[0]
    if d.shape[1] < 2:
        return np.zeros(n)
    d0, d1 = np.maximum(d[:, 0], 0.0), np.maximum(d[:, 1], 0.0)
    ratio = np.ones(n)
    pos = (d1 > 0) & np.isfinite(d1)
    ratio[pos] = d0[pos] / d1[pos]
    if squared:
        ratio[pos] = np.sqrt(ratio[pos])
    ratio[~np.isfinite(d1)] = 0.0
    return np.minimum(ratio, 1.0)


def distance_ratio(xs: np.ndarray, ys: np.ndarray, blocks=None) -> np.ndarray:
    """Per row of ``ys``: Euclidean distance to its nearest row of ``xs`` over the distance to the
    second nearest (within the block when ``blocks`` is given), in [0, 1]; 1 when both are 0. A
    row whose block holds one record of ``xs`` has ratio 0 (its keys alone single it out). The
    attacks take it from their one search (:attr:`SampleLinks.ratio`)."""
    return ratio_of(nearest_originals(xs, ys, blocks, 2)[0], True)


def precision_recall(credit: np.ndarray, confidence: np.ndarray, thresholds=RATIO_THRESHOLDS) -> list[dict]:
    """For each threshold ``t``: the links an intruder keeps when keeping those with
    ``confidence <= t`` (a distance ratio: smaller is surer), their number and share of all
    links, the expected correct links among them, their precision (% correct, with a Wilson
    interval over the kept links) and the recall (% of all records correctly linked and kept)."""
    from ..measures.uncertainty import wilson_interval

    credit = np.asarray(credit, dtype=np.float64)
    confidence = np.asarray(confidence, dtype=np.float64)
    n = credit.size
    out = []
    for t in thresholds:
        keep = confidence <= t
        k = int(keep.sum())
        correct = float(credit[keep].sum())
        low, high = wilson_interval(correct, k) if k else (float("nan"), float("nan"))
        out.append({"threshold": float(t), "kept": k,
                    "kept_percent": 100.0 * k / n,  # the share of the records kept
                    "correct": correct, "precision": precision_percent(correct, k) if k else float("nan"),
                    "precision_low": low, "precision_high": high, "recall": linkage_percent(correct, n)})
    return out


@njit(cache=True, nogil=True)
def _doubled_ranks(v, blocks, order, nblocks, out):
    """``out[i]``: twice the average rank of ``v[i]`` among the values of its block (``blocks[i]``
    in ``[0, nblocks)``), from ``order``, the rows by ascending value (stable): a counting sort by
    block keeps that order inside each block, and a run of equal values at 0-based places ``a`` to
    ``e - 1`` of its block has the average rank ``(a + 1 + e) / 2``, doubled ``a + e + 1`` (an
    integer, exact). Returns each block's first place in that order and the values in it (each
    block's values ascending in one segment)."""
    n = order.size
    first = np.zeros(nblocks + 1, dtype=np.int64)
    for i in range(n):
        first[blocks[i] + 1] += 1
    for c in range(nblocks):
        first[c + 1] += first[c]
    fill = first[:nblocks].copy()
    rows = np.empty(n, dtype=np.int64)
    for t in range(n):
        i = order[t]
        rows[fill[blocks[i]]] = i
        fill[blocks[i]] += 1
    sv = np.empty(n)
    for t in range(n):
        sv[t] = v[rows[t]]
    t = 0
    while t < n:
        b = blocks[rows[t]]
        e = t + 1
        while e < n and blocks[rows[e]] == b and sv[e] == sv[t]:
            e += 1
        r = (t - first[b]) + (e - first[b]) + 1
        for u in range(t, e):
            out[rows[u]] = r
        t = e
    return first, sv


def _columns_on_threads(one, m: int) -> None:
    """``one(j)`` for every column ``j < m``, on numba's threads (the kernels release the GIL)."""
    threads = min(numba.get_num_threads(), m)
    if threads <= 1:
        for j in range(m):
            one(j)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(one, range(m)))


def _block_ranks(z: np.ndarray, blocks) -> np.ndarray:
    """Doubled average ranks of every column of ``z`` within its block (int64; pandas'
    ``rank(method="average")`` times 2): per column numpy's stable argsort and
    :func:`_doubled_ranks`, the columns on numba's threads (at 10^7 x 10 with 50 blocks about a
    third of pandas' grouped rank). Values with NaN: pandas."""
    z = np.asarray(z, dtype=np.float64)
    n, m = z.shape
    if np.isnan(z).any():
        import pandas as pd
        from scipy.stats import rankdata

        ranks = rankdata(z, method="average", axis=0) if blocks is None else \
            pd.DataFrame(z).groupby(np.asarray(blocks)).rank(method="average").to_numpy()
        return np.rint(2.0 * ranks).astype(np.int64)
    codes = np.zeros(n, dtype=np.int64) if blocks is None else np.asarray(blocks, dtype=np.int64)
    nblocks = int(codes.max(initial=-1)) + 1
    out = np.empty((m, n), dtype=np.int64)

    def one(j):
        v = np.ascontiguousarray(z[:, j])
        _doubled_ranks(v, codes, np.argsort(v, kind="stable"), nblocks, out[j])

    _columns_on_threads(one, m)
    return out.T


def sample_ranks(x: np.ndarray, y: np.ndarray, blocks=None) -> tuple[np.ndarray, np.ndarray]:
    """The rank coordinates of the original ``x`` (N records) and the released ``y`` (n) on the
    original's rank scale, integers (module docstring): ``n_b * 2r`` and ``(2s - 1) N_b + n_b``
    with ``N_b``, ``n_b`` the records of the block in each file (the whole files without blocks)."""
    bx, by = (np.zeros(x.shape[0], np.int64), np.zeros(y.shape[0], np.int64)) if blocks is None else \
        (np.asarray(blocks[0], np.int64), np.asarray(blocks[1], np.int64))
    size = int(max(bx.max(initial=0), by.max(initial=0))) + 1
    big, small = np.bincount(bx, minlength=size), np.bincount(by, minlength=size)
    r, s = _block_ranks(x, None if blocks is None else bx), _block_ranks(y, None if blocks is None else by)
    xo = (small[bx][:, None] * r).astype(np.float64)
    yo = ((s - 1) * big[by][:, None] + small[by][:, None]).astype(np.float64)
    return xo, yo


@njit(cache=True, nogil=True)
def _ranks_among(v, blocks, order, nblocks, out, w, wblocks, wout):
    """:func:`_doubled_ranks` of ``v`` into ``out``, and for each value ``w[i]`` of block
    ``wblocks[i]`` the doubled average rank it would take among the values of ``v`` of its block,
    ``below + at_or_below + 1``, into ``wout``: each block's values lie ascending in one segment
    of the sorted values, where two binary searches count the values below ``w[i]`` and at or
    below it (float comparisons, so equal values count as equal)."""
    first, sv = _doubled_ranks(v, blocks, order, nblocks, out)
    for i in range(w.size):
        b = wblocks[i]
        s0, e0 = first[b], first[b + 1]
        x = w[i]
        lo, hi = s0, e0  # first place with sv >= x
        while lo < hi:
            mid = (lo + hi) >> 1
            if sv[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        below = lo - s0
        hi = e0  # first place with sv > x
        while lo < hi:
            mid = (lo + hi) >> 1
            if sv[mid] <= x:
                lo = mid + 1
            else:
                hi = mid
        wout[i] = below + (lo - s0) + 1


def ranks_in_original(x: np.ndarray, y: np.ndarray, blocks=None) -> tuple[np.ndarray, np.ndarray]:
    """The rank coordinates of a sample release on the original's own ranks, integers: the
    original ``x``'s doubled average ranks within its block, ``2r``, and for each released value
    the doubled average rank it would take among the original's values of its block,
    ``below + at_or_below + 1`` (the number of original values below it and at or below it). A
    released value equal to an original value gets that value's rank exactly, so an unmasked
    sample links every record; :func:`sample_ranks` places it by its quantile within the sample
    instead, which is off by the sampling error of that quantile (about ``sqrt(q(1 - q) / n)``
    times ``N``: an unmasked 10 % sample of 10^5 records with two attributes linked 4.7 % of its
    records by RBRL-Sum that way).

    Per column one stable argsort of the original's values and :func:`_ranks_among` (the columns
    on numba's threads): the released values are placed by binary search in their block's sorted
    values rather than by integer keys over the sorted union of both files, whose searches
    through the whole original in file order miss the CPU's caches. Values with NaN:
    :func:`_ranks_by_keys`."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if np.isnan(x).any() or np.isnan(y).any():
        return _ranks_by_keys(x, y, blocks)
    bx, by = (np.zeros(x.shape[0], np.int64), np.zeros(y.shape[0], np.int64)) if blocks is None else \
        (np.asarray(blocks[0], np.int64), np.asarray(blocks[1], np.int64))
    nblocks = int(max(bx.max(initial=0), by.max(initial=0))) + 1
    m = x.shape[1]
    xo = np.empty((m, x.shape[0]), dtype=np.int64)
    yo = np.empty((m, y.shape[0]), dtype=np.int64)

    def one(j):
        v = np.ascontiguousarray(x[:, j])
        _ranks_among(v, bx, np.argsort(v, kind="stable"), nblocks, xo[j], np.ascontiguousarray(y[:, j]), by, yo[j])

    _columns_on_threads(one, m)
    return xo.T.astype(np.float64), yo.T.astype(np.float64)


def _ranks_by_keys(x: np.ndarray, y: np.ndarray, blocks=None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ranks_in_original` through integer keys: each value's index in the sorted union of
    both files' values, searched in the original's sorted (block, index) keys (values with NaN)."""
    bx, by = (np.zeros(x.shape[0], np.int64), np.zeros(y.shape[0], np.int64)) if blocks is None else \
        (np.asarray(blocks[0], np.int64), np.asarray(blocks[1], np.int64))
    xo = _block_ranks(x, None if blocks is None else bx).astype(np.float64)
    yo = np.empty(y.shape, dtype=np.float64)
    size = int(max(bx.max(initial=0), by.max(initial=0))) + 1
    start = np.concatenate([[0], np.cumsum(np.bincount(bx, minlength=size))])
    for j in range(x.shape[1]):
        values = np.unique(np.concatenate([x[:, j], y[:, j]]))  # each value's index: exact integer keys
        width = np.int64(values.size)
        keys = np.sort(bx * width + np.searchsorted(values, x[:, j]))
        query = by * width + np.searchsorted(values, y[:, j])
        below = np.searchsorted(keys, query, "left") - start[by]
        at_or_below = np.searchsorted(keys, query, "right") - start[by]
        yo[:, j] = below + at_or_below + 1
    return xo, yo


def sample_rbrl(xo: np.ndarray, yo: np.ndarray, truth: np.ndarray, criterion: str = "sum",
                blocks=None, near=None, search=None) -> SampleLinks:
    """RBRL-Sum (``criterion="sum"``, L1) or RBRL-Max (``"max"``, L-infinity) from the query
    coordinates ``yo`` to the reference ``xo`` (:func:`sample_ranks`), exact, within blocks, from
    one search in that metric (``near``, or :data:`RANK_NEAREST` records of each from ``search``, an
    :class:`OriginalSearch` of the rank coordinates that RBRL-Sum and RBRL-Max share, or made here):
    on integer coordinates the kernel's sums are exact, so the link is the list's first row (the
    lowest index at the minimum) and its ties the listed rows at that distance; a row whose whole
    list ties gets :data:`NEAREST` from ``search`` and, when those tie too, is searched again by the
    box query of :class:`.neighbours.KDTree` with its tie count (:func:`_within`). The confidence is
    the nearest over the second-nearest rank distance (:func:`ratio_of`)."""
    metric = "l1" if criterion == "sum" else "linf"
    truth = np.asarray(truth, dtype=np.int64)
    if near is None:
        search = OriginalSearch(np.asarray(xo, dtype=np.float64), np.asarray(yo, dtype=np.float64), blocks) \
            if search is None else search
        near = search.knn(RANK_NEAREST, metric)
    d, idx = near
    n = yo.shape[0]
    links = idx[:, 0].copy()
    rows, cols, again = _within(d, idx, d[:, 0], xo.shape[0], search, metric)
    ties = np.bincount(rows, minlength=n).astype(np.int64)
    hit = np.zeros(n, dtype=bool)
    hit[rows[cols == truth[rows]]] = True
    if again.size:
        keys, lo, hi = _box(blocks)
        tree = KDTree(xo, keys)
        links[again], _, ties[again], hit[again] = tree.query(
            np.ascontiguousarray(yo[again]), metric, lo=None if lo is None else lo[again],
            hi=None if hi is None else hi[again], truth=truth[again])
    return SampleLinks(links, uniform_credit(ties, hit), ratio_of(d, False),
                       info={"tied_records": int((ties > 1).sum()), "searched_again": int(again.size)})


def sample_gdbrl(xs: np.ndarray, ys: np.ndarray, truth: np.ndarray, blocks=None,
                 candidates: int = GDBRL_CANDIDATES, near=None, order=None, search=None) -> SampleLinks:
    """GDBRL as a rectangular assignment (module docstring): each row of ``ys`` to a distinct row
    of ``xs`` with the least total Euclidean distance over the candidate graph of its ``k``
    nearest rows of ``xs`` in its block (from ``near``, :func:`nearest_originals`, while it lists
    enough; ``search``: its :class:`OriginalSearch`, for longer lists). ``order``: a permutation of the rows of ``xs`` in which the solver sees them (its tie
    rule then cannot favour the file's own order). Raises ``ValueError`` when no matching of every
    row of ``ys`` exists with :data:`GDBRL_CANDIDATES_MAX` candidates.

    Confidence (``ratio``): the Euclidean distance of the link over that of the nearest other
    original record of the block, at most 1 (1 when the link is not the nearest; 0 when the block
    holds one original record)."""
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    n, big = ys.shape[0], xs.shape[0]
    position = np.arange(big) if order is None else np.argsort(order)  # each row's place in the solver's order
    k = min(candidates, big)
    d, idx = near if near is not None else (None, None)
    while True:
        if d is None or d.shape[1] < k:
            search = OriginalSearch(xs, ys, blocks) if search is None else search
            d, idx = search.knn(k)
        ok = idx[:, :k] >= 0
        rows = np.repeat(np.arange(n), k)[ok.ravel()]
        # + 1: every matching has n edges, so a constant leaves the optimum alone and no cost is 0
        cost = np.sqrt(np.maximum(d[:, :k][ok], 0.0)) + 1.0
        try:
            r, c = _matching(rows, position[idx[:, :k][ok]], cost, n, big)
            break
        except ValueError:
            if k >= min(GDBRL_CANDIDATES_MAX, big):
                raise ValueError(f"no one-to-one assignment of the released records among their {k} nearest "
                                 "original records") from None
            k = min(2 * k, GDBRL_CANDIDATES_MAX, big)
    links = np.full(n, -1, dtype=np.int64)
    links[r] = c if order is None else np.asarray(order)[c]
    credit = (links == np.asarray(truth)).astype(np.float64)
    is_link = idx == links[:, None]
    own = np.where(is_link, d, np.inf).min(axis=1)
    other = np.where(~is_link & (idx >= 0), d, np.inf).min(axis=1)
    ratio = np.zeros(n)
    has = np.isfinite(other)
    both0 = has & (other <= 0)
    ratio[both0] = 1.0
    pos = has & (other > 0)
    ratio[pos] = np.minimum(np.sqrt(np.maximum(own[pos], 0.0) / other[pos]), 1.0)
    return SampleLinks(links, credit, ratio, info={"candidates": k})



#: released records per solve of :func:`_matching` (whole components of the candidate graph)
MATCHING_BATCH = 4096


def _matching(rows, cols, cost, n: int, big: int) -> tuple[np.ndarray, np.ndarray]:
    """Minimum-cost matching of every row (``n``) to a distinct column (``big``) over the edges
    ``(rows, cols, cost)``, ``(r, c)`` as ``min_weight_full_bipartite_matching`` returns them;
    ``ValueError`` when none exists. The graph falls apart into connected components (blocks, and
    within a block the records far apart): the optimum is each component's optimum, so the
    components are solved apart, several small ones together up to :data:`MATCHING_BATCH` rows,
    each on its own columns only (:func:`_full_matching`). At 10^5 released x 10^6 original records
    (50 blocks, 8 candidates) a component is about a block, and one solve over every column costs
    62 s CPU against about 2 s by components with scipy's solver; scipy's solver still costs rows x
    columns per component, which :func:`_lapjvsp` does not."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    used, local = np.unique(cols, return_inverse=True)
    nu = used.size
    graph = csr_matrix((np.ones(rows.size), (rows, n + local)), shape=(n + nu, n + nu))
    _, label = connected_components(graph, directed=False)
    comp = label[:n]
    by_comp = np.argsort(comp, kind="stable")
    sizes = np.bincount(comp)
    # batches of whole components, in component order
    edges_of = np.argsort(comp[rows], kind="stable")
    edge_start = np.r_[0, np.cumsum(np.bincount(comp[rows], minlength=sizes.size))]
    row_start = np.r_[0, np.cumsum(sizes)]
    out_r, out_c = [], []
    rpos = np.empty(n, dtype=np.int64)  # each row's place in its batch
    first = 0
    comps = np.flatnonzero(sizes > 0)
    while first < comps.size:
        last = first
        total = sizes[comps[first]]
        while last + 1 < comps.size and total + sizes[comps[last + 1]] <= MATCHING_BATCH:
            last += 1
            total += sizes[comps[last]]
        lo_c, hi_c = comps[first], comps[last]
        sel_rows = by_comp[row_start[lo_c]:row_start[hi_c + 1]]
        e = edges_of[edge_start[lo_c]:edge_start[hi_c + 1]]
        rpos[sel_rows] = np.arange(sel_rows.size)
        ucols, cpos = np.unique(local[e], return_inverse=True)
        sub = csr_matrix((cost[e], (rpos[rows[e]], cpos)), shape=(sel_rows.size, ucols.size))
        r, c = _full_matching(sub)
        out_r.append(sel_rows[r])
        out_c.append(used[ucols[c]])
        first = last + 1
    return np.concatenate(out_r), np.concatenate(out_c)


def _full_matching(sub) -> tuple[np.ndarray, np.ndarray]:
    """``scipy.sparse.csgraph.min_weight_full_bipartite_matching(sub)`` for a CSR graph of fewer rows
    than columns by :func:`_lapjvsp`, the same algorithm step for step on the same arrays (so the
    same matching); square graphs (scipy's initial reduction) and graphs of more rows than columns
    (no full matching) by scipy itself. ``ValueError`` when no full matching exists, checked first
    as scipy does (Hopcroft-Karp, ``maximum_bipartite_matching``)."""
    from scipy.sparse.csgraph import maximum_bipartite_matching, min_weight_full_bipartite_matching

    nr, nc = sub.shape
    data = np.asarray(sub.data, dtype=np.float64)
    if nr == 0 or nr >= nc or not np.all(data != 0.0) or not np.all(np.isfinite(data)) or not sub.has_canonical_format:
        return min_weight_full_bipartite_matching(sub)
    if int(np.sum(maximum_bipartite_matching(sub, perm_type="column") != -1)) != nr:
        raise ValueError("no full matching exists")
    x = _lapjvsp(np.asarray(sub.indptr, dtype=np.int64), np.asarray(sub.indices, dtype=np.int64), data, nr, nc)
    return np.arange(nr), x


@njit(cache=True, nogil=True)
def _lapjvsp(first, kk, cc, nr, nc):
    """Volgenant's LAPJVsp (Jonker & Volgenant 1987, the sparse shortest augmenting path) for ``nr <
    nc``, as scipy's ``_lapjvsp`` runs it (each row in turn from an empty assignment, the same
    comparisons and float operations in the same order), with one change of cost alone: scipy
    resets its per-column labels over all ``nc`` columns for every row and scans all of them for
    the next minimum, ``O(nr x nc)`` in all, while here only the columns the row's search has
    reached are reset and scanned (the others hold infinity, which those scans pass over), and the
    columns at the new minimum are taken in ascending order as scipy's scan takes them. The
    column matched to each row."""
    x = np.full(nr, -1, dtype=np.int64)
    y = np.full(nc, -1, dtype=np.int64)
    v = np.zeros(nc)
    d = np.full(nc, np.inf)
    ok = np.zeros(nc, dtype=np.bool_)
    todo = np.full(nc, -1, dtype=np.int64)
    lab = np.zeros(nc, dtype=np.int64)
    seen = np.empty(nc, dtype=np.int64)  # the columns whose label this row's search set
    stamp = np.zeros(nc, dtype=np.int64)
    buf = np.empty(nc, dtype=np.int64)
    ns = 0
    td1 = -1
    for i0 in range(nr):
        for t in range(ns):
            d[seen[t]] = np.inf
            ok[seen[t]] = False
        ns = 0
        min_diff = np.inf
        for t in range(first[i0], first[i0 + 1]):
            j = kk[t]
            dj = cc[t] - v[j]
            ns = _reach(stamp, seen, ns, j, i0)
            d[j] = dj
            lab[j] = i0
            if dj <= min_diff:
                if dj < min_diff:
                    td1 = -1
                    min_diff = dj
                td1 += 1
                todo[td1] = j
        done = False
        for hp in range(td1 + 1):
            j = todo[hp]
            if y[j] == -1:
                _assign(lab, y, x, j, i0)
                done = True
                break
            ok[j] = True
        if done:
            continue
        td2 = nc - 1
        last = nc
        while not done:
            if td1 < 0:
                raise ValueError("no full matching exists")
            j0 = todo[td1]
            td1 -= 1
            i = y[j0]
            todo[td2] = j0
            td2 -= 1
            tp = first[i]
            while kk[tp] != j0:
                tp += 1
            h = cc[tp] - v[j0] - min_diff
            for t in range(first[i], first[i + 1]):
                j = kk[t]
                if not ok[j]:
                    vj = cc[t] - v[j] - h
                    if vj < d[j]:
                        ns = _reach(stamp, seen, ns, j, i0)
                        d[j] = vj
                        lab[j] = i
                        if vj == min_diff:
                            if y[j] == -1:
                                _augment(todo, last, nc, v, d, min_diff, lab, y, x, j, i0)
                                done = True
                                break
                            td1 += 1
                            todo[td1] = j
                            ok[j] = True
            if done:
                break
            if td1 == -1:
                min_diff = np.inf
                last = td2 + 1
                for t in range(ns):
                    jp = seen[t]
                    if d[jp] != np.inf and d[jp] <= min_diff and not ok[jp]:
                        min_diff = d[jp]
                cnt = 0
                for t in range(ns):
                    jp = seen[t]
                    if d[jp] != np.inf and d[jp] == min_diff and not ok[jp]:
                        buf[cnt] = jp
                        cnt += 1
                at = np.sort(buf[:cnt])  # scipy's scan meets them in ascending order
                for t in range(cnt):
                    todo[t] = at[t]
                td1 = cnt - 1
                for hp in range(td1 + 1):
                    j = todo[hp]
                    if y[j] == -1:
                        _augment(todo, last, nc, v, d, min_diff, lab, y, x, j, i0)
                        done = True
                        break
                    ok[j] = True
    return x


@njit(cache=True, nogil=True, inline="always")
def _reach(stamp, seen, ns, j, i0):
    """Column ``j`` reached by row ``i0``'s search: listed in ``seen`` once per row (its label is
    reset before the next row). The new length of the list."""
    if stamp[j] != i0 + 1:
        stamp[j] = i0 + 1
        seen[ns] = j
        ns += 1
    return ns


@njit(cache=True, nogil=True, inline="always")
def _augment(todo, last, nc, v, d, min_diff, lab, y, x, j, i0):
    """A free column ``j`` reached: the dual update of the columns scanned before this minimum
    (``todo[last:]``), then the assignments along the path (:func:`_assign`)."""
    for k in range(last, nc):
        jj = todo[k]
        v[jj] += d[jj] - min_diff
    _assign(lab, y, x, j, i0)


@njit(cache=True, nogil=True, inline="always")
def _assign(lab, y, x, j, i0):
    """The augmenting path's assignments back from column ``j`` to the free row ``i0``."""
    while True:
        i = lab[j]
        y[j] = i
        k = j
        j = x[i]
        x[i] = k
        if i == i0:
            return


__all__ = ["SampleLinks", "sample_dbrl", "distance_ratio", "nearest_originals", "with_blocks", "ratio_of", "search_bytes", "NEAREST", "RANK_NEAREST", "OriginalSearch", "precision_recall", "sample_ranks", "sample_rbrl",
           "sample_gdbrl", "RATIO_THRESHOLDS"]
