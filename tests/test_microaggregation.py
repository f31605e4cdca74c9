"""Microaggregation: optimal univariate, individual ranking, MDAV, PCP / Zscore projection."""

from __future__ import annotations

import numpy as np
import pytest

from sdcrisk.masking import mask
from sdcrisk.masking.microaggregation import (
    attribute_blocks, fixed_size_groups, group_sse, mdav_groups, optimal_univariate_groups,
    projection_groups,
)
from sdcrisk.masking.projection import project

BLOCK_METHODS = ("mdav", "pcp_ma", "zscore_ma")
ALL = ("optimal_univariate_ma", "individual_ranking_ma") + BLOCK_METHODS


def _params(name, v, k):
    return {"k": k} if name in ("optimal_univariate_ma", "individual_ranking_ma") else {"v": v, "k": k}


def _sizes(labels):
    return np.bincount(labels)


def _brute_force_sse(v, k):
    """Minimum SSE over all partitions of sorted v into contiguous groups of size >= k."""
    n = v.size
    best = {0: 0.0}
    for j in range(1, n + 1):
        cands = [best[i] + ((v[i:j] - v[i:j].mean()) ** 2).sum() for i in range(0, j - k + 1) if i in best]
        if cands:
            best[j] = min(cands)
    return best[n]


def _enumerate_sse(v, k):
    """Same minimum by explicit enumeration of every composition (independent of the recursion)."""
    n = v.size
    out = np.inf

    def rec(start, acc):
        nonlocal out
        if start == n:
            out = min(out, acc)
            return
        for end in range(start + k, n + 1):
            if n - end == 0 or n - end >= k:
                seg = v[start:end]
                rec(end, acc + ((seg - seg.mean()) ** 2).sum())

    rec(0, 0.0)
    return out


# -------------------------------------------------------------------------- univariate partitions

def test_optimal_hand_case():
    v = np.array([1.0, 2.0, 3.0, 10.0, 11.0, 12.0])
    assert optimal_univariate_groups(v, 3).tolist() == [0, 0, 0, 1, 1, 1]
    y = mask("optimal_univariate_ma", np.column_stack([v[::-1], np.arange(6.0)]), k=3)
    assert y[:, 0].tolist() == [11.0, 11.0, 11.0, 2.0, 2.0, 2.0]
    # an outlier is not isolated (sizes >= k); it takes the fewest other values with it
    v2 = np.array([0.0, 0.1, 0.2, 0.3, 100.0])
    assert optimal_univariate_groups(v2, 2).tolist() == [0, 0, 0, 1, 1]


@pytest.mark.parametrize("seed", range(6))
def test_optimal_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    for n in (8, 10, 12):
        for k in (2, 3, 4):
            if seed % 2:
                v = np.sort(rng.integers(0, 5, size=n).astype(float))  # many ties
            else:
                v = np.sort(rng.lognormal(size=n))
            labels = optimal_univariate_groups(v, k)
            sizes = _sizes(labels)
            assert sizes.min() >= k and sizes.max() <= 2 * k - 1
            assert np.all(np.diff(labels) >= 0)  # contiguous, labelled left to right
            bf = _enumerate_sse(v, k)
            assert bf == pytest.approx(_brute_force_sse(v, k), rel=1e-12, abs=1e-12)
            assert group_sse(v, labels) == pytest.approx(bf, rel=1e-10, abs=1e-10)


def test_optimal_sizes_and_beats_fixed_size(eia):
    for j in range(eia.shape[1]):
        col = np.sort(eia[:1500, j], kind="stable")
        for k in (3, 10, 25):
            labels = optimal_univariate_groups(col, k)
            sizes = _sizes(labels)
            assert sizes.sum() == col.size and sizes.min() >= k and sizes.max() <= 2 * k - 1
            fixed = fixed_size_groups(col.size, k)
            assert group_sse(col, labels) <= group_sse(col, fixed) * (1 + 1e-12) + 1e-9


def test_fixed_size_groups():
    assert fixed_size_groups(7, 3).tolist() == [0, 0, 0, 1, 1, 1, 1]
    assert fixed_size_groups(6, 3).tolist() == [0, 0, 0, 1, 1, 1]
    assert fixed_size_groups(5, 5).tolist() == [0] * 5


def test_individual_ranking_hand_case_and_k_equals_n(census):
    x = np.column_stack([[5.0, 1, 4, 2, 3, 6, 7], [1.0, 2, 3, 4, 5, 6, 7]])
    y = mask("individual_ranking_ma", x, k=3)
    assert y[:, 0].tolist() == [5.5, 2, 5.5, 2, 2, 5.5, 5.5]
    n = census.shape[0]
    y = mask("individual_ranking_ma", census, k=n)
    np.testing.assert_allclose(y, np.broadcast_to(census.mean(axis=0), census.shape), rtol=1e-12)


def test_univariate_ties_stable_by_record_index():
    x = np.column_stack([[1.0, 1, 1, 1, 0, 0], [0.0, 1, 2, 3, 4, 5]])
    y = mask("individual_ranking_ma", x, k=3)
    # sorted order (stable): records 4, 5, 0 | 1, 2, 3
    assert y[:, 0].tolist() == pytest.approx([1 / 3, 1, 1, 1, 1 / 3, 1 / 3])


# -------------------------------------------------------------------------- blocks

def test_attribute_blocks():
    # numbers of groups of Nin, Herranz & Torra (2007) Table 9 (Census m = 13, EIA m = 10)
    assert [len(attribute_blocks(13, v)) for v in (2, 3, 4)] == [6, 4, 3]
    assert [len(attribute_blocks(10, v)) for v in (2, 3, 4)] == [5, 3, 2]
    b = attribute_blocks(13, 4)
    assert [c.tolist() for c in b] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11, 12]]
    assert np.concatenate(attribute_blocks(10, 3)).tolist() == list(range(10))
    assert len(attribute_blocks(5, 5)) == 1
    with pytest.raises(ValueError, match="v"):
        attribute_blocks(5, 6)
    with pytest.raises(ValueError, match="v"):
        attribute_blocks(5, 0)


# -------------------------------------------------------------------------- MDAV

def _mdav_reference(z, k):
    """Textbook MDAV (Domingo-Ferrer & Torra 2005) with full distance vectors, no tricks."""
    remaining = list(range(z.shape[0]))
    labels = -np.ones(z.shape[0], dtype=int)
    g = 0

    def take(r):
        nonlocal g, remaining
        rem = np.array(remaining)
        d = ((z[rem] - z[r]) ** 2).sum(axis=1)
        d[rem == r] = -1.0
        chosen = rem[np.lexsort((rem, d))[:k]]
        labels[chosen] = g
        g += 1
        remaining = [i for i in remaining if labels[i] < 0]

    def farthest(c):
        rem = np.array(remaining)
        return int(rem[np.argmax(((z[rem] - c) ** 2).sum(axis=1))])

    while len(remaining) >= 3 * k:
        xr = farthest(z[remaining].mean(axis=0))
        xs = farthest(z[xr])
        take(xr)
        take(xs)
    if len(remaining) >= 2 * k:
        take(farthest(z[remaining].mean(axis=0)))
    labels[remaining] = g
    return labels


@pytest.mark.parametrize("seed", range(4))
def test_mdav_matches_reference(seed):
    rng = np.random.default_rng(seed)
    n, v, k = (47, 53, 60, 61)[seed], 1 + seed, 2 + seed
    x = rng.lognormal(size=(n, v)) * rng.uniform(1, 100, size=v)
    z = (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)
    np.testing.assert_array_equal(mdav_groups(x, k), _mdav_reference(z, k))


def test_mdav_raw_scale_matches_reference():
    rng = np.random.default_rng(7)
    x = rng.lognormal(size=(58, 3)) * np.array([1.0, 50.0, 2000.0])
    np.testing.assert_array_equal(mdav_groups(x, 4, scale="none"), _mdav_reference(x, 4))
    # raw distances are dominated by the widest column, z-scores weigh all columns alike
    assert not np.array_equal(mdav_groups(x, 4, scale="none"), mdav_groups(x, 4))
    with pytest.raises(ValueError, match="scale"):
        mdav_groups(x, 4, scale="minmax")


def test_mdav_cluster_sizes(eia):
    x = eia[:1200]
    for k in (2, 3, 5, 10):
        sizes = _sizes(mdav_groups(x[:, :3], k))
        assert sizes.min() >= k
        assert (sizes > k).sum() <= 1 and sizes.max() <= 2 * k - 1
    assert _sizes(mdav_groups(x[:5], 3)).tolist() == [5]  # k <= n < 2k: one cluster


def test_mdav_end_game():
    rng = np.random.default_rng(3)
    k = 4
    # n = 4k - 1: one round of two clusters leaves 2k - 1 < 2k records -> one last cluster
    assert sorted(_sizes(mdav_groups(rng.normal(size=(4 * k - 1, 2)), k))) == [k, k, 2 * k - 1]
    # n = 5k - 1: the round leaves 3k - 1 (in [2k, 3k-1]) -> a cluster of k, then the 2k - 1 rest
    assert sorted(_sizes(mdav_groups(rng.normal(size=(5 * k - 1, 2)), k))) == [k, k, k, 2 * k - 1]
    # n = 4k: the round leaves exactly 2k -> two clusters of k
    assert sorted(_sizes(mdav_groups(rng.normal(size=(4 * k, 2)), k))) == [k, k, k, k]


# -------------------------------------------------------------------------- projections

def test_project_zscore_and_pcp():
    rng = np.random.default_rng(5)
    b = rng.normal(size=(200, 3)) @ np.array([[1.0, 0.5, 0.2], [0, 1, 0.3], [0, 0, 1]])
    z = (b - b.mean(axis=0)) / b.std(axis=0, ddof=1)
    np.testing.assert_allclose(project(b, "zscore"), z.sum(axis=1), rtol=1e-12, atol=1e-12)
    p = project(b, "pcp")
    lam = np.linalg.eigvalsh(np.corrcoef(b, rowvar=False))[-1]
    assert p.var(ddof=1) == pytest.approx(lam, rel=1e-10)
    assert np.corrcoef(p, z.sum(axis=1))[0, 1] > 0  # sign convention
    # standardised: invariant to positive rescaling / shifting of the attributes
    np.testing.assert_allclose(project(b * [3, 0.1, 7] + 5, "pcp"), p, atol=1e-10)
    np.testing.assert_allclose(project(b[:, :1], "pcp"), z[:, 0], atol=1e-12)
    with pytest.raises(ValueError, match="method"):
        project(b, "pca")


@pytest.mark.parametrize("method", ["pcp", "zscore"])
def test_projection_groups_are_optimal_partitions(census, method):
    block = census[:, 4:8]
    k = 5
    labels = projection_groups(block, k, method)
    p = project(block, method)
    order = np.argsort(p, kind="stable")
    seq = labels[order]
    assert np.all(np.diff(seq) >= 0)  # contiguous in projection order
    sizes = _sizes(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    assert group_sse(p, labels) <= group_sse(p[order], fixed_size_groups(p.size, k)) + 1e-9


# -------------------------------------------------------------------------- masking properties

@pytest.mark.parametrize("name", BLOCK_METHODS)
@pytest.mark.parametrize("v,k", [(2, 3), (4, 5), (13, 3)])
def test_block_methods_k_anonymous(census, name, v, k):
    y = mask(name, census, **_params(name, v, k))
    for cols in attribute_blocks(census.shape[1], v):
        _, counts = np.unique(y[:, cols], axis=0, return_counts=True)
        assert counts.min() >= k


@pytest.mark.parametrize("name", ALL)
def test_means_preserved_and_deterministic(census, eia, name):
    for x, v in ((census, 3), (eia[:1000], 4)):
        p = _params(name, v, 7)
        y = mask(name, x, **p)
        assert y.shape == x.shape
        np.testing.assert_allclose(y.mean(axis=0), x.mean(axis=0), rtol=1e-11)
        np.testing.assert_array_equal(y, mask(name, x.copy(), **p))
        assert not np.allclose(y, x)


def test_univariate_methods_k_anonymous_per_attribute(census):
    for name in ("optimal_univariate_ma", "individual_ranking_ma"):
        y = mask(name, census, k=10)
        for j in range(census.shape[1]):
            assert np.unique(y[:, j], return_counts=True)[1].min() >= 10


def test_mdav_whole_eia_one_block(eia):
    sizes = _sizes(mdav_groups(eia, 3))
    assert sizes.min() >= 3 and sizes.max() <= 5 and (sizes > 3).sum() <= 1
    y = mask("mdav", eia, v=10, k=3)
    # distinct masked rows occur >= 3 times (duplicate EIA records can merge two clusters' rows)
    _, counts = np.unique(y, axis=0, return_counts=True)
    assert counts.min() >= 3


@pytest.mark.parametrize("name", ALL)
def test_bad_parameters(name):
    x = np.random.default_rng(0).normal(size=(20, 4))
    for k in (1, 21, 2.5):
        with pytest.raises(ValueError, match="parameter k"):
            mask(name, x, **_params(name, 2, k))
    if name in BLOCK_METHODS:
        for v in (0, 5):
            with pytest.raises(ValueError, match="parameter v"):
                mask(name, x, v=v, k=3)
    bad = x.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        mask(name, bad, **_params(name, 2, 3))
    const = x.copy()
    const[:, 2] = 1.0
    with pytest.raises(ValueError, match="constant"):
        mask(name, const, **_params(name, 2, 3))
    with pytest.raises(ValueError, match="k"):
        optimal_univariate_groups(np.arange(5.0), 6)


@pytest.mark.parametrize("name", ["individual_ranking_ma", "optimal_univariate_ma"])
def test_column_threads_change_nothing(monkeypatch, name):
    """From THREADS_MIN records the columns are grouped on numba's threads: the same values."""
    import sdcrisk.masking.microaggregation as ma

    x = np.round(np.random.default_rng(4).lognormal(size=(2000, 5)), 1)
    serial = mask(name, x, np.random.default_rng(0), k=3)
    monkeypatch.setattr(ma, "THREADS_MIN", 0)
    assert np.array_equal(mask(name, x, np.random.default_rng(0), k=3), serial)
