"""The k-d tree MDAV kernel gives the brute-force kernel's labels exactly, ties included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcrisk.masking.mdav_tree import _mdav_tree_kernel, tree_applicable
from sdcrisk.masking.microaggregation import _mdav_kernel_brute, attribute_blocks, mdav_groups


def _same(block, k, scale):
    tree = mdav_groups(block, k, scale, method="tree")
    brute = mdav_groups(block, k, scale, method="brute")
    assert np.array_equal(tree, brute), (block.shape, k, scale)


@pytest.mark.parametrize("scale", ["z", "none"])
@pytest.mark.parametrize("name", ["census", "eia"])
def test_reference_files(name, scale, request):
    x = request.getfixturevalue(name)
    m = x.shape[1]
    for v in (2, 3, 4, m):
        for cols in attribute_blocks(m, v):
            for k in (3, 5, 15, 25):
                _same(x[:, cols], k, scale)


@pytest.mark.parametrize("seed", range(6))
def test_random_ties_and_duplicates(seed):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        k = int(rng.integers(2, 9))
        n = int(rng.integers(k, 40 * k))
        m = int(rng.integers(1, 6))
        kind = rng.integers(4)
        if kind == 0:
            x = rng.integers(0, 3, size=(n, m)).astype(float)  # many ties, duplicate rows
        elif kind == 1:
            x = rng.normal(size=(n, m)).round(1)
        elif kind == 2:
            x = np.repeat(rng.normal(size=(max(1, n // 4), m)), 4, axis=0)[:n]  # exact copies
        else:
            x = rng.choice([-1.0, 0.0, 1.0], size=(n, m))  # symmetric: centroid ties
        for scale in ("z", "none"):
            _same(x, k, scale)


def test_end_games():
    rng = np.random.default_rng(7)
    for k in (2, 3, 5):
        for n in range(k, 7 * k + 2):  # n < 2k, 2k .. 3k-1, not multiples of k
            _same(rng.integers(0, 4, size=(n, 2)).astype(float), k, "none")
            _same(rng.normal(size=(n, 3)), k, "z")


def test_constant_and_symmetric():
    _same(np.zeros((31, 3)), 3, "none")
    g = np.array([[a, b] for a in (-2.0, -1.0, 0.0, 1.0, 2.0) for b in (-2.0, -1.0, 0.0, 1.0, 2.0)])
    _same(np.tile(g, (3, 1)), 4, "none")


def test_larger_continuous():
    rng = np.random.default_rng(11)
    x = np.round(100 * np.exp(0.6 * rng.normal(size=(3000, 6))), 2)
    _same(x, 3, "z")
    _same(x, 7, "none")


def test_non_finite_goes_to_brute():
    assert not tree_applicable(np.array([[np.inf, 0.0]]))
    assert not tree_applicable(np.array([[1e200, 0.0]]))
    with pytest.raises(ValueError):
        mdav_groups(np.zeros((6, 2)), 2, method="fast")


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(1, 4), st.integers(0, 2 ** 32 - 1), st.integers(0, 80),
       st.integers(1, 4))
def test_hypothesis_integer_grids(k, m, seed, extra, levels):
    rng = np.random.default_rng(seed)
    n = k + extra
    z = rng.integers(-levels, levels + 1, size=(n, m)).astype(np.float64)
    labels, _ = _mdav_tree_kernel(z, k)
    assert np.array_equal(labels, _mdav_kernel_brute(z, k))


@pytest.mark.parametrize("k", [2, 3, 5, 10])
def test_labels_equal_brute_tied_and_untied(k):
    """Labels (not only group sizes) of the tree kernel equal the brute-force kernel's, on
    continuous and on tied data (values rounded to one decimal), n not a multiple of k; n is
    large enough for several rebuilds of the tree."""
    rng = np.random.default_rng(100 + k)
    for n in (7 * k + 1, 613, 2503):
        z = np.exp(0.7 * rng.normal(size=(n, 5))) * np.arange(1, 6)
        for x in (z, np.round(z, 1)):
            assert n % k != 0
            _same(x, k, "z")
            _same(x, k, "none")


def test_labels_equal_brute_larger_tied_census_like():
    """A larger correlated, skewed file rounded to one decimal (many ties and duplicate rows)."""
    rng = np.random.default_rng(29)
    n, m = 12_001, 10
    load = np.linspace(0.5, 0.9, m)
    f = rng.standard_normal((n, 1)) * load + rng.standard_normal((n, m)) * np.sqrt(1 - load ** 2)
    x = np.round(np.exp(0.6 * f), 1)
    z = np.ascontiguousarray((x - x.mean(axis=0)) / x.std(axis=0, ddof=1))
    for k in (3, 10):
        labels, _ = _mdav_tree_kernel(z, k)
        assert np.array_equal(labels, _mdav_kernel_brute(z, k))


def test_offset_and_scale_far_from_one():
    """Raw values with a large common offset and tiny spread, and values near 1e-100: the
    rotated-coordinate bounds keep their margins relative to the data."""
    rng = np.random.default_rng(5)
    base = rng.normal(size=(900, 4))
    for x in (1e6 + np.round(base, 2), 1e-100 * base, 1e100 * np.round(base, 1)):
        for k in (2, 3, 7):
            _same(x, k, "none")


def test_exact_centroid_fallback_is_exercised():
    """On a symmetric grid the centroid box cannot separate the candidates: the kernel recomputes
    the exact centroid and still returns the brute-force labels."""
    g = np.array([[a, b] for a in (-2.0, -1.0, 0.0, 1.0, 2.0) for b in (-2.0, -1.0, 0.0, 1.0, 2.0)])
    z = np.ascontiguousarray(np.tile(g, (3, 1)))
    labels, fallbacks = _mdav_tree_kernel(z, 4)
    assert fallbacks > 0
    assert np.array_equal(labels, _mdav_kernel_brute(z, 4))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(1, 4), st.integers(0, 2 ** 32 - 1), st.integers(0, 120),
       st.integers(1, 4))
def test_two_threads_give_the_same_labels(k, m, seed, extra, levels):
    """The searches split over two threads (from the first record, ``par_min=0``) return the
    serial kernel's labels and fallbacks, on heavily tied integer grids."""
    rng = np.random.default_rng(seed)
    z = rng.integers(-levels, levels + 1, size=(k + extra, m)).astype(np.float64)
    serial = _mdav_tree_kernel(z, k, 1, 10**9)
    split = _mdav_tree_kernel(z, k, 2, 0)
    assert np.array_equal(split[0], serial[0]) and split[1] == serial[1]
    assert np.array_equal(split[0], _mdav_kernel_brute(z, k))


@pytest.mark.parametrize("decimals", [0, 1, 2])
def test_two_threads_on_larger_skewed_files(decimals):
    rng = np.random.default_rng(40 + decimals)
    x = np.round(np.exp(0.6 * rng.standard_normal((6001, 6))) * np.arange(1, 7), decimals)
    z = np.ascontiguousarray((x - x.mean(axis=0)) / x.std(axis=0, ddof=1))
    assert np.array_equal(_mdav_tree_kernel(z, 3, 2, 0)[0], _mdav_kernel_brute(z, 3))


def test_two_threads_and_the_exact_centroid_fallback():
    g = np.array([[a, b] for a in (-2.0, -1.0, 0.0, 1.0, 2.0) for b in (-2.0, -1.0, 0.0, 1.0, 2.0)])
    z = np.ascontiguousarray(np.tile(g, (3, 1)))
    labels, fallbacks = _mdav_tree_kernel(z, 4, 2, 0)
    assert fallbacks > 0
    assert np.array_equal(labels, _mdav_kernel_brute(z, 4))


@pytest.mark.parametrize("k", [2, 3, 5])
def test_two_threads_when_the_farthest_record_is_in_the_nearest_group(k):
    """On copies of one row every record is as far from x_r as any other: the farthest (lowest
    index) is also x_r's nearest, so the search that runs beside the nearest-records search
    returns a record of x_r's group and must run again; the labels stay the brute force's."""
    z = np.ascontiguousarray(np.tile(np.array([[1.5, -2.0, 0.25]]), (10 * k + 2, 1)))
    assert np.array_equal(_mdav_tree_kernel(z, k, 2, 0)[0], _mdav_kernel_brute(z, k))
    x = np.ascontiguousarray(np.vstack([z, z + 1.0]))
    assert np.array_equal(_mdav_tree_kernel(x, k, 2, 0)[0], _mdav_kernel_brute(x, k))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2 ** 32 - 1), st.integers(20, 400), st.floats(0.0, 3.0),
       st.floats(0.0, 0.5), st.integers(0, 3))
def test_centroid_pass_keeps_every_record_a_full_scan_keeps(m, seed, n, shift, width, decimals):
    """The pass over the records in decreasing distance from a reference point (``_fc_pass``)
    stops early, yet keeps every record whose largest distance over the box reaches the largest
    smallest distance, as a scan of all active records does; the box's centre away from the
    reference point (``shift``), boxes of any width, deleted records, tied values."""
    from sdcrisk.masking import mdav_tree as T

    rng = np.random.default_rng(seed)
    z = np.ascontiguousarray(np.round(np.exp(rng.normal(size=(n, m))), decimals))
    pos, leaf_of = np.empty(n, np.int64), np.empty(n, np.int64)
    tree, _ = T._make_tree(z, np.arange(n), T.LEAF, pos, leaf_of)
    zp, yp, alive_p = tree[1], tree[2], tree[4]
    alive_p[rng.random(n) < 0.3] = False
    cref = yp[alive_p].mean(axis=0) if alive_p.any() else np.zeros(m)
    fo, frho, fst, fnum = np.empty(n, np.int64), np.empty(n), np.zeros(3, np.int64), np.zeros(1)
    fst[0] = T._far_order(tree, cref, fo, frho, fnum)
    centre = z.mean(axis=0) + shift * rng.normal(size=m) * z.std(axis=0)
    half = width * z.std(axis=0) * rng.random(m)
    qlo, qhi, qy = centre - half, centre + half, np.empty(m)
    qn = T._rotate(centre, tree[5], tree[6], qy)
    h = np.sqrt(np.sum(half ** 2)) * (1 + 1e-9)
    bufp, bufu, bufl = np.empty(n, np.int64), np.empty(n), np.empty(n)
    nb, maxlow = T._fc_pass(tree, qlo, qhi, qy, qn, h, fo, frho, cref, fst, fnum, bufp, bufu, bufl)
    active = np.flatnonzero(alive_p)
    lo = np.array([T._box_dists(zp, p, qlo, qhi)[0] for p in active])
    up = np.array([T._box_dists(zp, p, qlo, qhi)[1] for p in active])
    assert maxlow == (lo.max() if active.size else -1.0)
    expected = set(active[up >= maxlow].tolist())
    assert expected <= {p for p, u in zip(bufp[:nb].tolist(), bufu[:nb].tolist()) if u >= maxlow}
    assert fst[2] <= active.size + int((~alive_p).sum())  # records read since the order was made


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2 ** 32 - 1), st.integers(1, 3000), st.integers(-1, 2),
       st.floats(0.0, 0.95))
def test_leaf_table_searches_equal_a_scan(m, seed, n, decimals, dead):
    """The leaf table's farthest search (serial and in two threads) and nearest search return what
    a scan of the active records returns: largest (smallest) computed distance, then lowest index;
    continuous and tied values (``decimals``), any dimension (fewer than the filter's NF
    coordinates included), records deleted at random."""
    from sdcrisk.masking import mdav_tree as T

    rng = np.random.default_rng(seed)
    z = np.exp(rng.normal(size=(n, m))) * rng.uniform(0.1, 10, size=m)
    if decimals >= 0:
        z = np.round(z, decimals)
    z = np.ascontiguousarray(z)
    pos, leaf_of, alive = np.empty(n, np.int64), np.empty(n, np.int64), np.ones(n, np.bool_)
    tree, flat = T._make_tree(z, np.arange(n), T.LEAF, pos, leaf_of)
    sums = tuple(np.zeros(m) for _ in range(4))
    for i in np.flatnonzero(rng.random(n) < dead):
        T._delete(i, tree, flat, pos, leaf_of, alive, sums)
    act = np.flatnonzero(alive)
    if act.size < 2:
        return
    ng = flat[3].shape[1]
    gub, order, glb, nbout = np.empty(ng), np.empty(ng, np.int64), np.empty(ng), np.empty(1, np.int64)
    for r in rng.choice(act, size=min(5, act.size), replace=False):
        q = z[r].copy()
        d = np.zeros(act.size)  # the kernel's sum, coordinate by coordinate
        for t in range(m):
            d += (z[act, t] - q[t]) * (z[act, t] - q[t])
        far = act[np.lexsort((act, -d))[0]]
        assert T._farthest(tree, flat, q, gub, order) == far
        assert T._farthest_par(tree, flat, q, 0, 0, nbout, 2, gub, order, glb) == far
        kk = min(3, act.size)
        near = act[np.lexsort((act, d))[:kk]]
        assert np.array_equal(T._knn_flat(tree, flat, q, kk, T._home(flat, leaf_of, r), glb), near)
