"""The exact k-d tree (:mod:`sdcrisk.linkage.neighbours`) gives the brute-force links, bit for bit.

DBRL, RBRL-Sum/Max, RS-RL and L-RL for microaggregation run with ``method="tree"`` and
``method="brute"`` on the reference files under several maskings and known-attribute subsets, on
integer-valued files full of ties and duplicate records, and with empty candidate sets; the tree's
own box queries are checked against a numpy brute force.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from sdcrisk.linkage import neighbours
from sdcrisk.linkage.distance import dbrl, nearest
from sdcrisk.linkage.location import (
    _sorted_masked,
    link_in_intervals,
    lrl_microaggregation,
    microaggregation_intervals,
    rank_swap_intervals,
    rsrl,
)
from sdcrisk.linkage.neighbours import KDTree
from sdcrisk.linkage.rank import rbrl
from sdcrisk.masking import mask


def assert_same(tree, brute):
    """Identical links, scores (bitwise, inf included) and candidate-set sizes."""
    assert tree.links.dtype == brute.links.dtype
    np.testing.assert_array_equal(tree.links, brute.links)
    assert tree.score.dtype == brute.score.dtype
    np.testing.assert_array_equal(tree.score.view(np.int64), brute.score.view(np.int64))
    if brute.candidates is not None:
        np.testing.assert_array_equal(tree.candidates, brute.candidates)


def all_attacks(x, y, known, P, k):
    """(name, callable(method)) for every attack wired to the tree."""
    return [
        ("dbrl", lambda meth: dbrl(x, y, known, method=meth)),
        ("dbrl_none", lambda meth: dbrl(x, y, known, standardise="none", method=meth)),
        ("rbrl_sum", lambda meth: rbrl(x, y, known, criterion="sum", method=meth)),
        ("rbrl_max", lambda meth: rbrl(x, y, known, criterion="max", method=meth)),
        ("rsrl", lambda meth: rsrl(x, y, known, distance=P, method=meth)),
        ("lrl_group", lambda meth: lrl_microaggregation(x, y, known, rule="group", method=meth)),
        ("lrl_window", lambda meth: lrl_microaggregation(x, y, known, rule="window", k=k, method=meth)),
    ]


def check_all(x, y, known, P=3, k=3):
    for name, run in all_attacks(x, y, known, P, k):
        tree, brute = run("tree"), run("brute")
        try:
            assert_same(tree, brute)
        except AssertionError as err:
            raise AssertionError(f"{name}, known={known}: tree differs from brute force") from err


# ---------------------------------------------------------------- the reference files
MASKINGS = {
    "rankswap": ("rankswap", {"p": 5}),
    "noise": ("additive_noise", {"a": 0.5}),
    "univariate_ma": ("optimal_univariate_ma", {"k": 10}),   # runs of 10+ equal values per column
    "mdav": ("mdav", {"v": 2, "k": 5}),                        # groups of 5+ equal pairs
}


@pytest.mark.parametrize("masking", list(MASKINGS))
@pytest.mark.parametrize("file", ["census", "eia"])
def test_reference_files_tree_equals_brute(request, file, masking):
    x = request.getfixturevalue(file)
    method, params = MASKINGS[masking]
    y = mask(method, x, np.random.default_rng(2016), **params)
    m = x.shape[1]
    n = x.shape[0]
    for known in ([0], [1, 2], list(range(0, m, 2)), list(range(m))):
        check_all(x, y, known, P=n * 5 // 100, k=10)


def test_reference_file_scores_and_counts_are_meaningful(census):
    """What is compared is not trivial: duplicate masked records and multi-record candidate sets."""
    y = mask("optimal_univariate_ma", census, np.random.default_rng(2016), k=10)
    assert np.unique(y[:, :3], axis=0).shape[0] < census.shape[0]  # duplicate masked records
    r = lrl_microaggregation(census, y, [0, 1, 2], rule="group")
    assert (r.candidates > 1).any() and (r.links >= 0).all()


# ---------------------------------------------------------------- integer files with many ties
@st.composite
def tied_files(draw):
    n = draw(st.integers(2, 120))
    m = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(["independent", "duplicates", "perturbed"]))
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, (n, m)).astype(float)
    x[:2] = [[0.0] * m, [5.0] * m]  # no constant column
    if kind == "independent":
        y = rng.integers(0, 6, (n, m)).astype(float)
    elif kind == "duplicates":  # few distinct masked records, each repeated
        y = rng.integers(0, 6, (max(1, n // 7), m)).astype(float)[rng.integers(0, max(1, n // 7), n)]
    else:
        y = np.clip(x + rng.integers(-1, 2, (n, m)), 0, 5)
    return x, y, int(rng.integers(0, n)), int(rng.integers(1, n + 1))


@settings(max_examples=60, deadline=None)
@given(tied_files())
def test_tied_integer_files_tree_equals_brute(files):
    x, y, P, k = files
    check_all(x, y, None, P=P, k=k)


def test_many_duplicate_masked_records():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3000, 4))
    centres = rng.standard_normal((40, 4))
    y = centres[rng.integers(0, 40, 3000)]  # 3000 records, 40 distinct
    check_all(x, y, None, P=150, k=75)
    tree = KDTree(y)
    assert tree.n_unique == 40
    # the representative of each group is its lowest index
    links, _ = tree.query(centres, rescore=False)
    first = np.array([np.flatnonzero((y == c).all(axis=1))[0] for c in centres])
    np.testing.assert_array_equal(links, first)


def _dedup_by_sorting(b, keys):
    """The stored rows by numpy's row sort (the previous implementation): representative = lowest
    index of each group of bitwise-equal rows, groups in ascending representative order."""
    n = b.shape[0]
    _, inv = np.unique(np.concatenate([b.view(np.int64), keys], axis=1), axis=0, return_inverse=True)
    inv = inv.ravel()
    rep = np.array(sorted(np.flatnonzero(inv == g)[0] for g in range(inv.max() + 1)), dtype=np.int64)
    first_of = {inv[r]: r for r in rep}
    return rep, np.array([(inv == inv[r]).sum() for r in rep]), np.array([first_of[inv[i]] for i in range(n)])


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 200), st.integers(1, 3), st.integers(0, 2), st.integers(0, 2**31))
def test_dedup_groups_bitwise_equal_rows(n, m, c, seed):
    """The hash grouping gives the representatives, counts and mapping of a full row sort, with
    -0.0 and 0.0 distinct (bitwise) and keys part of the row."""
    rng = np.random.default_rng(seed)
    b = rng.integers(0, 3, (n, m)).astype(np.float64)
    b[rng.random((n, m)) < 0.2] = -0.0
    keys = rng.integers(0, 2, (n, c))
    for got, want in zip(neighbours._dedup(b, keys), _dedup_by_sorting(b, keys)):
        np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 700), st.integers(1, 5), st.sampled_from([1, 4, 64]), st.booleans(), st.integers(0, 2**31))
def test_leaves_hold_their_rows_attribute_by_attribute(n, m, leaf, unique, seed):
    """Every leaf's block of the leaf-major values holds its rows' values, attribute by attribute,
    and the leaves' blocks tile the array."""
    rng = np.random.default_rng(seed)
    b = rng.integers(0, 4, (n, m)).astype(np.float64) + rng.random((n, m)) * (rng.random() < 0.5)
    tree = KDTree(b, leaf_size=leaf, unique=unique)
    covered = 0
    for v in np.flatnonzero(tree.left < 0):
        s, e = tree.start[v], tree.end[v]
        block = tree.pts[s * m:e * m].reshape(m, e - s)
        np.testing.assert_array_equal(block, b[tree.idx[s:e]].T)
        covered += e - s
    assert covered == tree.n_unique and tree.pts.size == tree.n_unique * m


def test_dedup_survives_hash_collisions(monkeypatch):
    """Rows of equal hash but different values stay apart (every hash forced equal)."""
    rng = np.random.default_rng(5)
    b = rng.integers(0, 4, (300, 2)).astype(np.float64)
    keys = np.zeros((300, 0), dtype=np.int64)
    monkeypatch.setattr(neighbours, "_row_hashes", lambda bits, k: np.zeros(bits.shape[0], dtype=np.uint64))
    for got, want in zip(neighbours._dedup(b, keys), _dedup_by_sorting(b, keys)):
        np.testing.assert_array_equal(got, want)


def test_more_near_ties_than_the_search_buffer():
    """A query equidistant from 2m distinct rows (more than the per-query buffer): the fallback
    range search lists them all and the lowest index wins, as in the brute force."""
    m = 12
    assert 2 * m > neighbours._NEAR
    b = np.vstack([np.eye(m), -np.eye(m), 3 * np.ones((1, m))])[::-1].copy()  # row 0: far away
    a = np.zeros((2, m))
    a[1, 0] = 0.5  # nearest: e_0, the last row
    for method in ("tree", "brute"):
        links, d = nearest(a, b, method=method)
        assert links.tolist() == [1, 2 * m] and d.tolist() == [1.0, 0.25]


# ---------------------------------------------------------------- the tree's own queries
def brute_box(a, b, keys, lo, hi, metric):
    """Reference: lowest-index minimiser over the rows inside the box (integer data: exact)."""
    d = cdist(a, b, {"sqeuclidean": "sqeuclidean", "l1": "cityblock", "linf": "chebyshev"}[metric])
    inside = ((keys[None, :, :] >= lo[:, None, :]) & (keys[None, :, :] < hi[:, None, :])).all(axis=2)
    d[~inside] = np.inf
    links = np.where(inside.any(axis=1), d.argmin(axis=1), -1)
    return links, np.where(links >= 0, d.min(axis=1), np.inf), inside.sum(axis=1)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 150), st.integers(1, 4), st.integers(1, 3), st.integers(0, 2**32 - 1),
       st.sampled_from(["sqeuclidean", "l1", "linf"]), st.sampled_from([1, 4, 64]))
def test_box_queries_equal_numpy(n, m, c, seed, metric, leaf):
    rng = np.random.default_rng(seed)
    b = rng.integers(0, 4, (n, m)).astype(float)
    a = rng.integers(0, 4, (n + 3, m)).astype(float)
    keys = rng.integers(0, 6, (n, c))  # not monotone in the values: pruning must not rely on it
    lo = rng.integers(-1, 6, (n + 3, c))
    hi = lo + rng.integers(-1, 5, (n + 3, c))  # empty (hi <= lo) boxes included
    ref_links, ref_d, ref_count = brute_box(a, b, keys, lo, hi, metric)
    tree = KDTree(b, keys=keys, leaf_size=leaf)
    links, d = tree.query(a, metric, lo=lo, hi=hi, rescore=False)
    np.testing.assert_array_equal(links, ref_links)
    np.testing.assert_array_equal(d, ref_d)
    np.testing.assert_array_equal(tree.count(lo, hi), ref_count)
    if metric == "sqeuclidean":  # re-scored with numpy: same links and distances on exact data
        links, d = tree.query(a, metric, lo=lo, hi=hi)
        np.testing.assert_array_equal(links, ref_links)
        np.testing.assert_array_equal(d, ref_d)
    links, d = neighbours.nearest(a, b, metric, leaf_size=leaf)  # no box
    np.testing.assert_array_equal(links, cdist(a, b, {"sqeuclidean": "sqeuclidean", "l1": "cityblock",
                                                      "linf": "chebyshev"}[metric]).argmin(axis=1))


# ---------------------------------------------------------------- empty candidate sets
def test_empty_candidate_sets(census):
    x = census[:300, :4]
    y = mask("rankswap", x, np.random.default_rng(5), p=5)
    a, b = rank_swap_intervals(x, y, 15)
    rng = np.random.default_rng(6)
    rows = rng.random(x.shape[0]) < 0.3
    b[rows, 1] = a[rows, 1]  # empty range on one attribute: empty set
    far = rng.random(x.shape[0]) < 0.3  # ranges of two attributes far apart: empty intersection
    a[far, 0], b[far, 0] = 0, 5
    a[far, 2], b[far, 2] = 290, 300
    tree = link_in_intervals(x, y, a, b, method="tree")
    assert_same(tree, link_in_intervals(x, y, a, b, method="brute"))
    assert (tree.links[rows] == -1).all() and (tree.candidates[rows] == 0).all()
    assert np.isinf(tree.score[tree.links == -1]).all()


def test_ranges_not_made_of_whole_runs(census):
    """Ranges cutting runs of equal masked values (not produced by the attacks, but allowed by
    :func:`link_in_intervals`): the tree falls back to the positions as keys."""
    x = census[:400, :3]
    y = mask("optimal_univariate_ma", x, np.random.default_rng(7), k=10)
    a, b = microaggregation_intervals(x, y, "window", 10)
    rng = np.random.default_rng(8)
    a = np.clip(a + rng.integers(-3, 4, a.shape), 0, x.shape[0])
    b = np.clip(b + rng.integers(-3, 4, b.shape), 0, x.shape[0])
    _, ysorted, _ = _sorted_masked(y)
    assert (ysorted[a.clip(1, 399) - 1, 0] == ysorted[a.clip(1, 399), 0]).any()  # some cut a run
    assert_same(link_in_intervals(x, y, a, b, method="tree"), link_in_intervals(x, y, a, b, method="brute"))


# ---------------------------------------------------------------- floating point and threads
def test_large_magnitudes_and_rescoring():
    """Kernel sums that differ from numpy's in the last bit are re-scored like the brute force."""
    rng = np.random.default_rng(9)
    x = 1e8 + rng.integers(0, 3, (500, 9)) + 0.1 * rng.integers(0, 3, (500, 9))
    y = x[rng.permutation(500)] + rng.integers(-1, 2, (500, 9)) * 0.1
    for mode in ("none", "own", "original"):
        assert_same(dbrl(x, y, standardise=mode), dbrl(x, y, standardise=mode, method="brute"))


def test_kernel_and_numpy_sums_disagree_in_the_last_bit():
    """Two masked rows at the same real distance (the same terms, permuted): the sequential sum
    ranks the second lower, numpy's pairwise sum ties them, so the link is the first, as in the
    brute force (and so the tree must collect near-minimal rows, not only the kernel's minimum)."""

    def sequential(v):
        d = 0.0
        for t in v:
            d += t * t
        return d

    rng = np.random.default_rng(0)
    while True:
        v = rng.standard_normal(10) * np.exp(rng.uniform(-3, 3, 10))
        w = v[rng.permutation(10)]
        if sequential(w) < sequential(v) and (v**2).sum() <= (w**2).sum():
            break
    a, b = np.zeros((1, 10)), np.vstack([v, w])
    for method in ("tree", "brute"):
        links, d = nearest(a, b, method=method)
        assert links.tolist() == [0] and d[0] == ((a[0] - v) ** 2).sum()


def test_result_does_not_depend_on_thread_count():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((2000, 5))
    y = x + 0.5 * rng.standard_normal(x.shape)
    before = numba.get_num_threads()
    runs = []
    try:
        for t in sorted({1, before}):
            numba.set_num_threads(t)
            runs.append([dbrl(x, y), rbrl(x, y, criterion="sum"), rsrl(x, y, p=5)])
    finally:
        numba.set_num_threads(before)
    for r0, r1 in zip(runs[0], runs[-1]):
        assert_same(r0, r1)


def test_result_does_not_depend_on_query_order():
    """Queries run in the order of the leaves they reach (KDTree._order): permuting the query rows
    permutes the results and changes nothing else, box queries and rescored ties included."""
    rng = np.random.default_rng(11)
    x = np.round(rng.standard_normal((3000, 4)), 1)  # many tied distances
    y = np.round(x + 0.3 * rng.standard_normal(x.shape), 1)
    keys = rng.integers(0, 50, size=(3000, 4))
    lo = rng.integers(0, 25, size=(3000, 4))
    hi = lo + rng.integers(1, 40, size=(3000, 4))
    tree = KDTree(y, keys=keys)
    order = tree._order(np.ascontiguousarray(x), 0)
    assert np.array_equal(np.sort(order), np.arange(3000))
    assert not np.array_equal(order, np.arange(3000))  # the order is not the row order
    p = rng.permutation(3000)
    for kw in ({}, {"rescore": False}, {"lo": lo, "hi": hi, "rescore": False}):
        links, d = tree.query(x, **kw)
        pk = {k: (v[p] if k in ("lo", "hi") else v) for k, v in kw.items()}
        links_p, d_p = tree.query(x[p], **pk)
        np.testing.assert_array_equal(links_p, links[p])
        np.testing.assert_array_equal(d_p.view(np.int64), d[p].view(np.int64))


@pytest.mark.parametrize("m", [4, 10])  # 10: leaves are left after half of the attributes (_leaf)
@pytest.mark.parametrize("decimals", [None, 1, 0])  # continuous, tied, heavily tied (duplicate rows)
def test_k_nearest_equal_a_brute_force(decimals, m):
    """KDTree.knn (GDBRL's candidates): the k nearest by (distance, index), as a stable argsort of
    the full distance matrix; with approx=eps the k-th is within (1 + eps) of the true k-th."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((1500, m))
    y = x + 0.3 * rng.standard_normal(x.shape)
    if decimals is not None:
        x, y = np.round(x, decimals), np.round(y, decimals)
    tree = KDTree(y, unique=False, leaf_size=16)
    kd, ki = tree.knn(x, 7)
    d = cdist(x, y, "sqeuclidean")
    expect = np.argsort(d, axis=1, kind="stable")[:, :7]
    np.testing.assert_array_equal(ki, expect)
    np.testing.assert_allclose(kd, np.take_along_axis(d, expect, axis=1), rtol=1e-12, atol=1e-12)
    kd_a, ki_a = tree.knn(x, 7, approx=0.5)
    assert (np.sqrt(kd_a[:, -1]) <= 1.5 * np.sqrt(kd[:, -1]) + 1e-12).all()
    assert (np.diff(kd_a, axis=1) >= 0).all()
    with pytest.raises(ValueError, match="unique=False"):
        KDTree(y).knn(x, 3)
    with pytest.raises(ValueError, match="k must be"):
        tree.knn(x, 0)


@pytest.mark.parametrize("decimals", [None, 0])
@pytest.mark.parametrize("metric", ["sqeuclidean", "l1", "linf"])
def test_ten_attributes_equal_a_brute_force(decimals, metric):
    """On ten attributes the leaf scan stops after half (or seven tenths) of them when no row can
    come near enough (:func:`neighbours._leaf`): the nearest row, the box query, the search's tie
    count and the range listing still equal the brute force."""
    rng = np.random.default_rng(21)
    x = rng.standard_normal((1200, 10))
    y = x + 0.4 * rng.standard_normal(x.shape)
    if decimals is not None:
        x, y = np.round(x, decimals), np.round(y, decimals)
    d = cdist(x, y, {"sqeuclidean": "sqeuclidean", "l1": "cityblock", "linf": "chebyshev"}[metric])
    for leaf in (16, 64):
        links, dist = KDTree(y, leaf_size=leaf).query(x, metric, rescore=False)
        np.testing.assert_array_equal(links, d.argmin(axis=1))
        np.testing.assert_allclose(dist, d.min(axis=1), rtol=1e-12)
        keys = np.argsort(np.argsort(y, axis=0, kind="stable"), axis=0)[:, :3]
        lo = rng.integers(0, 600, (x.shape[0], 3))
        hi = lo + 700
        ref_links, ref_d, _ = brute_box(x, y, keys, lo, hi, metric)
        links, dist = KDTree(y, keys=keys, leaf_size=leaf).query(x, metric, lo=lo, hi=hi, rescore=False)
        np.testing.assert_array_equal(links, ref_links)
        np.testing.assert_allclose(dist, ref_d, rtol=1e-12)
    if metric == "sqeuclidean":
        found = KDTree(y, leaf_size=16).search(x)
        best = np.zeros(d.shape)
        for j in range(x.shape[1]):  # the kernel's sequential sum
            best += (x[:, j, None] - y[None, :, j]) ** 2
        low = best.min(axis=1)
        np.testing.assert_array_equal(found.dist, low)
        np.testing.assert_array_equal(found.counted, (best == low[:, None]).sum(axis=1))


def test_bad_arguments():
    b = np.zeros((5, 2))
    with pytest.raises(ValueError, match="metric"):
        neighbours.nearest(b, b, "cosine")
    with pytest.raises(ValueError, match="keys"):
        KDTree(b).query(b, lo=np.zeros((5, 1), dtype=int), hi=np.ones((5, 1), dtype=int))
    with pytest.raises(ValueError, match="method"):
        dbrl(b + np.arange(5)[:, None], b, method="fast")
    with pytest.raises(ValueError, match="method"):
        rbrl(b + np.arange(5)[:, None], b, method="fast")
    with pytest.raises(ValueError, match="method"):
        rsrl(b + np.arange(5)[:, None], b, p=5, method="fast")


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 120), m=st.integers(1, 4), levels=st.integers(1, 6), seed=st.integers(0, 10**6),
       metric=st.sampled_from(["sqeuclidean", "l1", "linf"]), boxed=st.booleans(), leaf=st.sampled_from([1, 3, 16]))
def test_ties_counted_by_the_query_equal_the_separate_count(n, m, levels, seed, metric, boxed, leaf):
    """The ties the query counts on its way (KDTree.counted_ties: a second search only where it is
    unsure) are those of the separate count (KDTree.ties), on heavily tied integer data, in boxes or not."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, levels, (n, m)).astype(float)
    b = rng.integers(0, levels, (n + 3, m)).astype(float)
    keys = rng.integers(0, 5, (n + 3, 2)) if boxed else None
    tree = KDTree(b, keys, leaf)
    box = {}
    if boxed:
        lo = rng.integers(0, 3, (n, 2))
        box = {"lo": lo, "hi": lo + rng.integers(1, 4, (n, 2))}
    truth = rng.integers(-1, n + 3, n)
    links, dist, ties, hit = tree.query(a, metric, rescore=False, truth=truth, **box)
    total, want_hit = tree.ties(a, dist, truth, metric, **box)
    assert np.array_equal(ties, np.where(links >= 0, total, 0))
    assert np.array_equal(hit, want_hit & (links >= 0))
