"""Location record linkage: candidate sets from the masking method's locality, then DBRL inside.

* RS-RL for rank swapping (Nin et al. 2008, Nin, Herranz & Torra (2008, rank swapping) §3) = L-RL for rank swapping (Nin, Herranz & Torra (2007) §4):
  with maximum rank distance ``P``, the masked value of original value ``x_ij`` (rank ``r_ij`` in the
  sorted original column) is one of the sorted original values at ranks ``r_ij - P .. r_ij + P``.
  ``B(x_ij)`` is the set of masked records whose j-th value lies in the value interval
  ``[x_(r-P), x_(r+P)]`` (equal values share ranks: ``r`` runs over the whole tie run of ``x_ij``).
  The candidate set is ``B(x_i) = intersection_j B(x_ij)`` over the known attributes, and record
  ``i`` is linked by DBRL (Muralidhar & Domingo-Ferrer (2016) §2, :mod:`.distance`) inside it. With ``p`` unknown but bounded
  by ``p_max`` (Nin, Herranz & Torra (2008, rank swapping) §3, last paragraph) pass ``p=p_max``.
* Annotated union for p-distribution / p-buckets swapping (Nin, Herranz & Torra (2008, rank swapping) §6): count, for every masked
  record, in how many ``B(x_ij)`` it lies; DBRL among the records of maximum count.
* L-RL for univariate microaggregation (Nin, Herranz & Torra (2007) §4.1.2, Table 5) and MDAV (Nin, Herranz & Torra (2007) §4.1.3,
  Table 9): see :func:`microaggregation_intervals` and :func:`lrl_mdav`.

Representation: per attribute the masked records are sorted once; every ``B(x_ij)`` used here is a
contiguous range ``[a_ij, b_ij)`` of that order (whole runs of equal masked values), so membership
of masked record ``l`` is ``a_ij <= pos_lj < b_ij``. The numba kernels walk the shortest range of
each record and test the others, so no ``n x n`` matrix is formed. Distances inside the candidate
sets are computed directly (exact), lowest masked index on ties.

The intersection (RS-RL, Nin, Herranz & Torra 2008, section 3, and L-RL) runs by default
(``method="tree"``) as a box query of the exact k-d tree of :mod:`.neighbours`: the masked records
carry the key ``pos_lj`` (replaced by the first position of its run of equal values when every
range is made of whole runs, which changes no membership and lets equal records be stored once),
subtrees whose key ranges miss a range are pruned, and the rest of the search is exact (same
distance arithmetic, lowest index on ties), so links and scores equal the brute-force kernel's.
Candidate-set sizes are counted in the same tree (whole subtrees inside every range at once).

Ties (``truth=``, RS-RL and L-RL): the equally best masked records of original record ``i`` are the
``t_i`` candidates at exactly the link's distance (the kernel's sequential sum, which decides the
link here), counted in the same tree by a box-and-ball count (:meth:`.neighbours.KDTree.ties`:
subtrees inside both counted whole). Breaking ties uniformly at random, record ``i`` is linked
correctly with probability ``credit[i] = 1 / t_i`` when its true record is among them, else 0
(Nin, Herranz & Torra 2007 and 2008 leave the tie rule open); ``t_i = 1`` gives ``links[i] == truth[i]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..validation import prepare
from .base import LinkResult, check_truth, with_ties
from .distance import dbrl_restricted, standardise as _standardise
from .neighbours import KDTree
from . import shared
from ..validation import check_int

MA_RULES = ("group", "window")
METHODS = ("tree", "brute")


#: Why L-RL(MA) does not apply to a release (:func:`has_equal_values` false): the row's note in
#: ``sdcrisk assess``, after "not applicable: ".
LRL_NOT_APPLICABLE = ("the masked file has no two equal values in any known attribute, so no group of k >= 2 "
                      "equal records: it was not microaggregated, and L-RL(MA) locates records by such groups")


def has_equal_values(y: np.ndarray, columns=None) -> bool:
    """Whether some column of ``y`` (those of ``columns``, default all) holds a value twice.

    Univariate microaggregation with k >= 2 (and MDAV) leaves every attribute in groups of at
    least k equal values (Nin, Herranz & Torra (2007) §4.1.2-4.1.3), the groups L-RL(MA) maps onto
    the original ranks. A release with no repeated value in any known attribute was not
    microaggregated: L-RL(MA) does not apply to it (``sdcrisk assess`` reports it as not
    applicable instead of a percentage). Columns are sorted one at a time, stopping at the first
    repeat, so no copy of ``y`` is made."""
    y = np.asarray(y)
    if y.ndim == 1:
        y = y[:, None]
    for j in range(y.shape[1]) if columns is None else columns:
        col = np.sort(y[:, j])
        if col.size > 1 and bool(np.any(col[1:] == col[:-1])):
            return True
    return False


# ---------------------------------------------------------------- candidate intervals
def _sorted_masked(y: np.ndarray):
    """``(order, ysorted, pos)``: per column the stable sort order of the masked values, the sorted
    values and each record's sorted position. Computed once per attack (:func:`rsrl`,
    :func:`lrl_microaggregation`) and shared by the interval and linkage steps, and once for both
    attacks where they share a directory (:mod:`.shared`)."""
    def sort():
        order = np.argsort(y, axis=0, kind="stable")
        pos = np.empty_like(order)
        np.put_along_axis(pos, order, np.arange(y.shape[0])[:, None].repeat(y.shape[1], 1), axis=0)
        return {"order": order, "ysorted": np.take_along_axis(y, order, axis=0), "pos": pos}
    found = shared.kept("sorted", (y,), ("order", "ysorted", "pos"), sort)
    return found["order"], found["ysorted"], found["pos"]


def _tie_runs(v: np.ndarray):
    """``(o, vs, lo, hi)``: the stable sort order of ``v``, the sorted values, and per sorted
    position the first and last rank of its tie run. The interval functions work in this order,
    where the bounds are monotone, so every binary search runs over sorted queries and stays in
    the CPU's caches."""
    o = np.argsort(v, kind="stable")
    vs = v[o]
    new = np.r_[True, vs[1:] != vs[:-1]]
    starts = np.flatnonzero(new)
    run = np.cumsum(new) - 1
    return o, vs, starts[run], np.r_[starts[1:], vs.size][run] - 1


def rank_swap_intervals(x: np.ndarray, y: np.ndarray, P: int, *, ysorted: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """``B(x_ij)`` of RS-RL as masked-sorted-position ranges ``[a_ij, b_ij)`` (Nin, Herranz & Torra (2008, rank swapping) §3).

    ``x``, ``y``: known columns of the original and masked files; ``P`` the maximum rank distance.
    Computed in the sorted order of each original column, where the tie run of ``x_ij`` and the
    value bounds are monotone, so every binary search runs over sorted queries (about 5 times
    faster than random ones at 200,000 records: the searches stay in cache). ``ysorted``: the
    masked columns already sorted (:func:`_sorted_masked`), else sorted here.
    """
    n, m = x.shape
    ys = np.sort(y, axis=0) if ysorted is None else ysorted
    a = np.empty((n, m), dtype=np.int64)
    b = np.empty((n, m), dtype=np.int64)
    for j in range(m):
        o, xs, lo, hi = _tie_runs(x[:, j])
        col = np.ascontiguousarray(ys[:, j])
        a[o, j] = np.searchsorted(col, xs[np.maximum(lo - P, 0)], "left")
        b[o, j] = np.searchsorted(col, xs[np.minimum(hi + P, n - 1)], "right")
    return a, b


def microaggregation_intervals(x: np.ndarray, y: np.ndarray, rule: str = "group",
                               k: int | None = None, *, ysorted: np.ndarray | None = None
                               ) -> tuple[np.ndarray, np.ndarray]:
    """``B(x_ij)`` of L-RL for univariate microaggregation as masked-sorted-position ranges.

    A masked group is a run of equal masked values; univariate microaggregation groups contiguous
    sorted values, so the groups in masked order occupy consecutive positions of the sorted
    original column.

    * ``rule="group"``: the intruder maps every masked group onto the sorted original values it
      must cover (same sizes, same order) and takes the groups whose value span contains ``x_ij``
      (several only when ``x_ij`` is tied across a group boundary). Needs no ``k``.
    * ``rule="window"``: the masked records whose (group of) sorted position lies within rank
      distance ``2k - 1`` of ``x_ij``'s rank, extended to whole groups (the bound of Nin, Herranz & Torra (2007) §4:
      groups have at most ``2k - 1`` members).

    ``ysorted``: the masked columns already sorted (:func:`_sorted_masked`), else sorted here.
    """
    if rule not in MA_RULES:
        raise ValueError(f"rule must be one of {list(MA_RULES)}, got {rule!r}")
    n, m = x.shape
    ys = np.sort(y, axis=0) if ysorted is None else ysorted
    a = np.empty((n, m), dtype=np.int64)
    b = np.empty((n, m), dtype=np.int64)
    if rule == "window":
        k = check_int("k", k, 1, n)
        w = 2 * k - 1
    for j in range(m):
        o, xs, lo, hi = _tie_runs(x[:, j])  # lo, hi: the ranks of x_ij's tie run, in sorted order
        col = ys[:, j]
        starts = np.flatnonzero(np.r_[True, col[1:] != col[:-1]])  # first position of each group
        ends = np.r_[starts[1:], n] - 1
        if rule == "group":
            g1 = np.searchsorted(xs[ends], xs, "left")       # first group whose span reaches x
            g2 = np.searchsorted(xs[starts], xs, "right") - 1  # last group starting at or below x
        else:
            g1 = np.searchsorted(starts, np.maximum(lo - w, 0), "right") - 1
            g2 = np.searchsorted(starts, np.minimum(hi + w, n - 1), "right") - 1
        a[o, j] = starts[g1]
        b[o, j] = ends[g2] + 1
    return a, b


# ---------------------------------------------------------------- linkage kernels
@njit(cache=True)
def _sqdist(xs, i, ys, l):
    """Squared Euclidean distance between original row i and masked row l."""
    d = 0.0
    for t in range(xs.shape[1]):
        v = xs[i, t] - ys[l, t]
        d += v * v
    return d


@njit(cache=True)
def _intersection_link(a, b, pos, order, xs, ys):
    """Per original record: the masked records inside every ``[a_ij, b_ij)``, listed in the sorted
    order of the narrowest attribute and filtered one attribute at a time (``pos`` / ``order``
    transposed: each filter reads one contiguous column); DBRL among them, lowest index on ties."""
    n, c = a.shape
    links = np.full(n, -1, dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    score = np.full(n, np.inf)
    cand = np.empty(order.shape[1], dtype=np.int64)
    for i in range(n):
        js = 0
        for j in range(1, c):
            if b[i, j] - a[i, j] < b[i, js] - a[i, js]:
                js = j
        cnt = 0
        for k in range(a[i, js], b[i, js]):
            cand[cnt] = order[js, k]
            cnt += 1
        for j in range(c):
            if j == js:
                continue
            lo, hi, col = a[i, j], b[i, j], pos[j]
            kept = 0
            for t in range(cnt):
                l = cand[t]
                if col[l] >= lo and col[l] < hi:
                    cand[kept] = l
                    kept += 1
            cnt = kept
            if cnt == 0:
                break
        best = np.inf
        arg = -1
        for t in range(cnt):
            l = cand[t]
            d = _sqdist(xs, i, ys, l)
            if d < best or (d == best and l < arg):
                best = d
                arg = l
        links[i] = arg
        sizes[i] = cnt
        score[i] = best
    return links, sizes, score


@njit(cache=True)
def _intersection_ties(a, b, pos, xs, ys, score, truth):
    """Per original record with a link: the number of masked records inside every
    ``[a_ij, b_ij)`` at exactly the link's distance ``score[i]`` (:func:`_sqdist`, the arithmetic
    of :func:`_intersection_link`), and whether ``truth[i]`` is one of them."""
    n, c = a.shape
    ties = np.zeros(n, dtype=np.int64)
    hit = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if score[i] == np.inf:
            continue
        t = 0
        for l in range(ys.shape[0]):
            inside = True
            for j in range(c):
                if pos[j, l] < a[i, j] or pos[j, l] >= b[i, j]:
                    inside = False
                    break
            if inside and _sqdist(xs, i, ys, l) == score[i]:
                t += 1
                if l == truth[i]:
                    hit[i] = True
        ties[i] = t
    return ties, hit


@njit(cache=True)
def _annotated_union_link(a, b, order, xs, ys):
    """Per original record: the masked records in the largest number of the ``[a_ij, b_ij)``
    (``order`` transposed, as for :func:`_intersection_link`); DBRL among them."""
    n, c = a.shape
    links = np.full(n, -1, dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    score = np.full(n, np.inf)
    count = np.zeros(ys.shape[0], dtype=np.int64)
    for i in range(n):
        top = 0
        for j in range(c):
            for k in range(a[i, j], b[i, j]):
                l = order[j, k]
                count[l] += 1
                if count[l] > top:
                    top = count[l]
        best = np.inf
        arg = -1
        cnt = 0
        for j in range(c):
            for k in range(a[i, j], b[i, j]):
                l = order[j, k]
                if count[l] == top:
                    cnt += 1
                    d = _sqdist(xs, i, ys, l)
                    if d < best or (d == best and l < arg):
                        best = d
                        arg = l
                count[l] = 0  # visited: reset (and never counted twice)
        links[i] = arg
        sizes[i] = cnt
        score[i] = best
    return links, sizes, score


def _run_keys(ysorted: np.ndarray, pos: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Keys of the masked records for the box query ``a <= key < b``: the first sorted position of
    the run of equal values holding ``pos`` when every bound is a run boundary (then
    ``a <= pos < b`` iff ``a <= run start < b``, and equal records get equal keys), else ``pos``."""
    n = ysorted.shape[0]
    new_run = np.ones(ysorted.shape, dtype=bool)
    new_run[1:] = ysorted[1:] != ysorted[:-1]
    boundary = np.vstack([new_run, np.ones((1, ysorted.shape[1]), dtype=bool)])  # positions 0..n
    ok = all(((a[:, j] >= 0) & (a[:, j] <= n) & (b[:, j] >= 0) & (b[:, j] <= n)).all()
             and boundary[a[:, j], j].all() and boundary[b[:, j], j].all() for j in range(a.shape[1]))
    if not ok:
        return pos
    runstart = np.maximum.accumulate(np.where(new_run, np.arange(n)[:, None], 0), axis=0)
    return np.take_along_axis(runstart, pos, axis=0)


def _nearest_in_box(tree: KDTree, keys: np.ndarray, xs: np.ndarray, a: np.ndarray, b: np.ndarray,
                    count: bool = False):
    """Per original record the nearest masked record inside its box ``a <= keys < b`` (lowest index
    on ties): first the nearest over all records (no key tests, about twice as fast), then the box
    query for the records whose nearest lies outside their box. Same result as the box query
    alone: when the overall nearest (lowest index among the minima, same kernel arithmetic) is
    allowed, it is also the lowest allowed index at the allowed minimum.

    ``count=True`` also returns the ties the searches counted in the box (-1 where unsure, for
    :meth:`KDTree.counted_ties`): a record linked by the first search with no other record at its
    distance anywhere has exactly one in its box; one with several is recounted in its box."""
    if shared.active(xs.shape[0]):  # DBRL's search too (.shared): run once for the three attacks
        found = shared.nearest_search(xs, tree.b, tree)
        links, score, counted = np.array(found.links), np.array(found.dist), np.array(found.counted)
    elif count:  # alone: the search without DBRL's candidates (12 % faster at 10^6)
        links, score, counted = tree.query(xs, "sqeuclidean", rescore=False, count=True)
    else:
        links, score = tree.query(xs, "sqeuclidean", rescore=False)
    k = keys[np.maximum(links, 0)]
    redo = np.flatnonzero((links < 0) | ((k < a) | (k >= b)).any(axis=1))
    if redo.size and count:
        links[redo], score[redo], counted[redo] = tree.query(xs[redo], "sqeuclidean", lo=a[redo], hi=b[redo],
                                                             rescore=False, count=True)
    elif redo.size:
        links[redo], score[redo] = tree.query(xs[redo], "sqeuclidean", lo=a[redo], hi=b[redo], rescore=False)
    if not count:
        return links, score
    first = np.ones(links.size, dtype=bool)
    first[redo] = False
    counted[first & (counted != 1)] = -1  # ties counted over all records, not only the box's
    return links, score, counted


def link_in_intervals(x: np.ndarray, y: np.ndarray, a: np.ndarray, b: np.ndarray,
                      combine: str = "intersection", standardise: str = "own",
                      method: str = "tree", count: bool = True, sorted_masked=None, truth=None) -> LinkResult:
    """DBRL (Muralidhar & Domingo-Ferrer (2016) §2) restricted to candidate sets given as masked-sorted-position ranges.

    ``combine="intersection"``: candidates in every ``B(x_ij)`` (Nin, Herranz & Torra (2008, rank swapping) §3);
    ``"annotated_union"``: candidates in the largest number of ``B(x_ij)`` (Nin, Herranz & Torra (2008, rank swapping) §6).
    ``candidates`` is the size of the set searched (-1 link when empty). ``method``: ``"tree"``
    (k-d tree box query, intersection only; the annotated union is always brute force) or
    ``"brute"``, identical results. ``count=False`` skips the candidate-set sizes of the tree
    (``candidates`` None; the links do not depend on them): an orthogonal range count costs about
    n^(1 - 1/d) node visits per record when the ranges are wide, as for RS-RL with p unknown and
    bounded by 20 % (1,000,000 x 10: over 9 minutes counting, against seconds linking).
    ``sorted_masked``: :func:`_sorted_masked` of ``y`` when the caller has it already; a list is
    handed over (emptied here), so that its arrays are freed once the tree no longer needs them.
    ``truth`` (the true masked record of each original record; intersection only) adds ``credit``
    (module docstring, "Ties"); the brute-force tie count is quadratic (a reference for tests).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    order, ysorted, pos = _sorted_masked(y) if sorted_masked is None else sorted_masked
    if isinstance(sorted_masked, list):
        sorted_masked.clear()
    xs, ys = _standardise(x, y, standardise)
    if truth is not None:
        truth = check_truth(truth, x.shape[0], y.shape[0])
    if combine == "intersection" and method == "tree":
        a = np.ascontiguousarray(a, dtype=np.int64)
        b = np.ascontiguousarray(b, dtype=np.int64)
        del order
        keys = _run_keys(ysorted, pos, a, b)
        del ysorted, pos  # 3 x 8 bytes per value less during the searches
        tree = shared.tree(ys, keys)  # the same for RS-RL and L-RL on continuous files (.shared)
        links, score, *counted = _nearest_in_box(tree, keys, xs, a, b, count=truth is not None)
        res = LinkResult(links=links, candidates=tree.count(a, b) if count else None, score=score)
        if truth is None:
            return res
        ties, hit = tree.counted_ties(xs, score, counted[0], truth, "sqeuclidean", lo=a, hi=b)
        return with_ties(res, np.where(links >= 0, ties, 0), hit & (links >= 0))
    if truth is not None and combine != "intersection":
        raise ValueError("truth: the expected credit is implemented for combine='intersection' only")
    order, pos = np.ascontiguousarray(order.T), np.ascontiguousarray(pos.T)  # one row per attribute
    if combine == "intersection":
        links, sizes, score = _intersection_link(a, b, pos, order, xs, ys)
        if truth is not None:
            ties, hit = _intersection_ties(a, b, pos, xs, ys, score, truth)
            return with_ties(LinkResult(links=links, candidates=sizes, score=score), ties, hit)
    elif combine == "annotated_union":
        links, sizes, score = _annotated_union_link(a, b, order, xs, ys)
    else:
        raise ValueError(f"combine must be 'intersection' or 'annotated_union', got {combine!r}")
    return LinkResult(links=links, candidates=sizes, score=score)


# ---------------------------------------------------------------- attacks
def _max_rank_distance(p, n: int, rounding: str) -> int:
    from ..masking.swapping import rank_distance

    return int(rank_distance(p, n, rounding=rounding))


def rsrl(original, masked, known=None, *, p=None, distance: int | None = None, rounding: str = "floor",
         standardise: str = "own", method: str = "tree", count: bool = True, truth=None) -> LinkResult:
    """Rank-swapping record linkage (RS-RL, Nin, Herranz & Torra (2008, rank swapping) §3; L-RL of Nin, Herranz & Torra (2007) §4.1.1).

    Give either ``p`` (percent of n; the maximum rank distance is
    ``sdcrisk.masking.swapping.rank_distance(p, n, rounding)``) or ``distance`` (the maximum rank
    distance ``P`` itself). For unknown ``p`` bounded by ``p_max``, pass ``p=p_max``.
    A record whose candidate set has one element is linked to it. ``method``: ``"tree"`` or
    ``"brute"`` (:func:`link_in_intervals`), identical results; ``count=False``: no candidate-set
    sizes (:func:`link_in_intervals`); ``truth``: adds ``credit`` (module docstring, "Ties").
    """
    x, y = prepare(original, masked, known)
    truth = None if truth is None else check_truth(truth, x.shape[0], y.shape[0])
    P = _rank_distance_arg(p, distance, rounding, x.shape[0])
    sm = list(_sorted_masked(y))
    a, b = rank_swap_intervals(x, y, P, ysorted=sm[1])
    return link_in_intervals(x, y, a, b, "intersection", standardise, method, count, sm, truth)


def _rank_distance_arg(p, distance, rounding, n):
    if (p is None) == (distance is None):
        raise ValueError("give exactly one of p (percent of n, in [0, 100]) or distance (max rank distance)")
    if distance is not None:
        return check_int("distance", distance, 0, n - 1)
    return _max_rank_distance(p, n, rounding)


def rsrl_annotated_union(original, masked, known=None, *, p=None, distance: int | None = None,
                         half: bool = False, rounding: str = "floor", standardise: str = "own") -> LinkResult:
    """Annotated-union RS-RL for p-distribution / p-buckets swapping (Nin, Herranz & Torra (2008, rank swapping) §6, Table 7).

    ``B(x_ij)`` uses rank intervals ``[r - P, r + P]`` (``half=True``: ``[r - P/2, r + P/2]``,
    ``P // 2``); the masked records lying in the largest number of them are compared by DBRL.
    """
    x, y = prepare(original, masked, known)
    P = _rank_distance_arg(p, distance, rounding, x.shape[0])
    if half:
        P //= 2
    sm = _sorted_masked(y)
    a, b = rank_swap_intervals(x, y, P, ysorted=sm[1])
    return link_in_intervals(x, y, a, b, "annotated_union", standardise, sorted_masked=sm)


def lrl_microaggregation(original, masked, known=None, *, rule: str = "group", k: int | None = None,
                         standardise: str = "own", method: str = "tree", count: bool = True,
                         truth=None) -> LinkResult:
    """L-RL for univariate microaggregation (Nin, Herranz & Torra (2007) §4.1.2, Table 5): intersection of the
    :func:`microaggregation_intervals` candidate sets over the known attributes, then DBRL
    (``method``: ``"tree"`` or ``"brute"``, identical results; ``count``, ``truth``:
    :func:`link_in_intervals`)."""
    x, y = prepare(original, masked, known)
    truth = None if truth is None else check_truth(truth, x.shape[0], y.shape[0])
    sm = list(_sorted_masked(y))
    a, b = microaggregation_intervals(x, y, rule, k, ysorted=sm[1])
    return link_in_intervals(x, y, a, b, "intersection", standardise, method, count, sm, truth)


def lrl_mdav(original, masked, blocks, known_blocks=None, *, n_nearest: int = 1,
             standardise: str = "own") -> LinkResult:
    """L-RL for MDAV over blocks of variables (Nin, Herranz & Torra (2007) §4.1.3, Table 9).

    ``blocks``: list of column-index lists (the blocks microaggregated together); ``known_blocks``:
    indices into ``blocks`` known by the intruder (default all). For a known block the distinct
    masked block vectors are the centroids; ``B`` is the set of masked records whose centroid is
    among the ``n_nearest`` centroids nearest (Euclidean, both files scaled by the original's mean
    and sd, since centroids live on the original scale) to the original record's block values.
    Candidate sets are intersected over the known blocks; DBRL over the known blocks' attributes.
    """
    x_all = np.asarray(original, dtype=np.float64)
    blocks = [np.asarray(bl, dtype=np.int64) for bl in blocks]
    if not blocks:
        raise ValueError("blocks must be a non-empty list of column-index lists")
    m = x_all.shape[1] if x_all.ndim == 2 else 0
    for bl in blocks:
        if bl.ndim != 1 or bl.size == 0 or bl.min() < 0 or bl.max() >= m:
            raise ValueError(f"blocks must list column indices in [0, {m - 1}], got {bl.tolist()}")
    kb = np.arange(len(blocks)) if known_blocks is None else np.asarray(list(known_blocks), dtype=np.int64)
    if kb.size == 0 or kb.min() < 0 or kb.max() >= len(blocks) or len(set(kb.tolist())) != kb.size:
        raise ValueError(f"known_blocks must be distinct block indices in [0, {len(blocks) - 1}], got {kb.tolist()}")
    cols = np.concatenate([blocks[t] for t in kb])
    x, y = prepare(original, masked, cols)  # shape / finiteness checks
    n_nearest = check_int("n_nearest", n_nearest, 1, x.shape[0])
    xs, ys = _standardise(x, y, "original")
    cid, near = [], []
    offset = 0
    for t in kb:
        w = blocks[t].size
        xb, yb = xs[:, offset:offset + w], ys[:, offset:offset + w]
        offset += w
        cent, inv = np.unique(yb, axis=0, return_inverse=True)
        d = ((xb[:, None, :] - cent[None, :, :]) ** 2).sum(axis=2) if cent.shape[0] * x.shape[0] < 2**24 \
            else None
        if d is None:
            raise ValueError("lrl_mdav: too many distinct centroids for the nearest-centroid search")
        q = min(n_nearest, cent.shape[0])
        nn = np.argsort(d, axis=1, kind="stable")[:, :q]
        cid.append(inv.ravel())
        near.append(nn)

    def allowed(start, stop):
        mask = np.ones((stop - start, x.shape[0]), dtype=bool)
        for c, nn in zip(cid, near):
            mask &= (c[None, :, None] == nn[start:stop, None, :]).any(axis=2)
        return mask

    return dbrl_restricted(x, y, allowed, standardise=standardise)
