"""DBRL (Muralidhar & Domingo-Ferrer (2016) §2) and RBRL (Muralidhar & Domingo-Ferrer (2016) §3): hand-computed cases, brute force, invariances."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.stats import rankdata

from sdcrisk.linkage.distance import dbrl, standardise
from sdcrisk.linkage.rank import rbrl


def group_means(x: np.ndarray, k: int) -> np.ndarray:
    """Tiny individual-ranking microaggregation (groups of k consecutive sorted values, remainder
    joined to the last group): creates many exact ties for the tie-break tests."""
    y = np.empty_like(x)
    n = x.shape[0]
    for j in range(x.shape[1]):
        order = np.argsort(x[:, j], kind="stable")
        bounds = [b for b in range(0, n, k) if n - b >= k] + [n]
        for s, e in zip(bounds[:-1], bounds[1:]):
            y[order[s:e], j] = x[order[s:e], j].mean()
    return y


def brute_dbrl(x, y):
    xs, ys = standardise(x, y, "own")
    return cdist(xs, ys, "sqeuclidean").argmin(axis=1)


def brute_rbrl(x, y, crit):
    r, s = rankdata(x, axis=0), rankdata(y, axis=0)
    d = np.abs(r[:, None, :] - s[None, :, :])
    return (d.sum(axis=2) if crit == "sum" else d.max(axis=2)).argmin(axis=1)


@pytest.fixture(scope="module")
def noisy(census):
    rng = np.random.default_rng(20160901)
    return census, census + 0.25 * census.std(axis=0, ddof=1) * rng.standard_normal(census.shape)


# ---------------------------------------------------------------- hand-computed examples
def test_dbrl_hand_example_own_and_original_standardisation():
    x = np.array([[1.0], [2.0], [3.0]])       # standardised: -1, 0, 1
    y = np.array([[10.0], [30.0], [20.0]])    # own standardisation: -1, 1, 0
    assert dbrl(x, y).links.tolist() == [0, 2, 1]
    np.testing.assert_allclose(dbrl(x, y).score, [0.0, 0.0, 0.0], atol=1e-12)
    # scaled by the original's mean 2 and sd 1 the masked values are 8, 28, 18: all nearest to 8
    assert dbrl(x, y, standardise="original").links.tolist() == [0, 0, 0]


def test_dbrl_exact_ties_go_to_lowest_index_despite_blas_rounding():
    # |a|^2 ~ 1e16: the BLAS expansion cannot resolve the exact tie (both distances are 1)
    x = np.array([[1e8, 0.0], [0.0, 1.0]])
    y = np.array([[1e8 + 1, 0.0], [1e8 - 1, 0.0]])
    assert dbrl(x, y, standardise="none").links[0] == 0
    assert dbrl(x, y[::-1], standardise="none").links[0] == 0
    # identical masked records
    x = np.array([[0.4, 0.4], [2.0, 1.0]])
    y = np.array([[5.0, 5.0], [2.0, 1.0], [0.5, 0.5], [0.5, 0.5]])
    assert dbrl(np.vstack([x, x]), y, standardise="none").links.tolist() == [2, 1, 2, 1]


def test_rbrl_hand_example_sum_and_max_differ():
    x = np.array([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]], dtype=float)
    # masked ranks: A=(1,4) |diff| to (1,1) = (0,3): sum 3, max 3;  B=(3,3): (2,2) sum 4, max 2;
    # C=(5,1): sum 4, max 4;  D=(4,2): sum 4, max 3;  E=(2,5): sum 5, max 4
    y = np.array([[1, 4], [3, 3], [5, 1], [4, 2], [2, 5]], dtype=float)
    assert rbrl(x, y, criterion="sum").links[0] == 0
    assert rbrl(x, y, criterion="max").links[0] == 1
    assert rbrl(x, y, criterion="sum").score[0] == 3.0
    assert rbrl(x, y, criterion="max").score[0] == 2.0


def test_rbrl_average_ranks_hand_example():
    x = np.array([[1.0], [2.0], [3.0]])
    y = np.array([[5.0], [5.0], [7.0]])  # average ranks 1.5, 1.5, 3
    r = rbrl(x, y)
    assert r.links.tolist() == [0, 0, 2]
    np.testing.assert_array_equal(r.score, [0.5, 0.5, 0.0])
    assert rbrl(x, y, ranks="min").links.tolist() == [0, 0, 2]


# ---------------------------------------------------------------- brute force agreement
def test_dbrl_matches_brute_force(noisy):
    x, y = noisy
    assert np.array_equal(dbrl(x, y).links, brute_dbrl(x, y))
    known = [0, 3, 7]
    xs, ys = standardise(x[:, known], y[:, known])
    assert np.array_equal(dbrl(x, y, known).links, cdist(xs, ys, "sqeuclidean").argmin(1))


def test_dbrl_with_massive_ties_matches_brute_force(census):
    y = group_means(census, 54)
    assert np.array_equal(dbrl(census, y, block=100).links, brute_dbrl(census, y))
    y[:, 2] = y[0, 2]  # a constant masked column: standardised to 0, never NaN
    r = dbrl(census, y)
    assert np.isfinite(r.score).all()
    assert np.array_equal(r.links, brute_dbrl(census, y))


def test_dbrl_many_exactly_tied_candidates_matches_brute_force(census):
    # whole-record clusters of 60 identical masked rows (MDAV-like): every original record has 60
    # exactly tied candidates, more than the kernel's first candidate buffer holds
    order = np.argsort(census[:, 0], kind="stable")
    y = np.empty_like(census)
    for s in range(0, census.shape[0], 60):
        y[order[s:s + 60]] = census[order[s:s + 60]].mean(axis=0)
    r = dbrl(census, y)
    assert np.array_equal(r.links, brute_dbrl(census, y))
    xs, ys = standardise(census, y)
    np.testing.assert_allclose(r.score, cdist(xs, ys, "sqeuclidean").min(axis=1), rtol=1e-12, atol=1e-12)


def test_rbrl_kernel_32_and_64_bit_agree(noisy):
    from sdcrisk.linkage.rank import _rbrl_kernel, rank_matrix

    x, y = noisy
    r, s = rank_matrix(x), rank_matrix(y)
    for use_max in (False, True):
        a = _rbrl_kernel(r.astype(np.int32), np.ascontiguousarray(s.T, dtype=np.int32), use_max)
        b = _rbrl_kernel(r, np.ascontiguousarray(s.T), use_max)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_mahalanobis_refuses_linearly_dependent_columns(census):
    with pytest.raises(ValueError, match="singular.*linear combinations"):
        dbrl(census, census, metric="mahalanobis")


def test_mahalanobis_matches_brute_force(noisy):
    x, y = noisy
    known = [0, 1, 4, 9]
    vi = np.linalg.inv(np.cov(x[:, known], rowvar=False))
    d = cdist(x[:, known], y[:, known], "mahalanobis", VI=vi)
    assert np.array_equal(dbrl(x, y, known, metric="mahalanobis", standardise="none").links, d.argmin(1))


@pytest.mark.parametrize("crit", ["sum", "max"])
def test_rbrl_matches_brute_force(noisy, crit):
    x, y = noisy
    assert np.array_equal(rbrl(x, y, criterion=crit).links, brute_rbrl(x, y, crit))
    t = group_means(x, 108)  # heavy ties in both ranks and criterion values
    assert np.array_equal(rbrl(x, t, criterion=crit).links, brute_rbrl(x, t, crit))


# ---------------------------------------------------------------- properties
ATTACKS = {
    "dbrl": lambda x, y: dbrl(x, y),
    "dbrl_original": lambda x, y: dbrl(x, y, standardise="original"),
    # Census' 13 columns are linearly dependent (column 4, 7 or 9 is a combination of the others,
    # covariance eigenvalue ~1e-17): leave column 4 out there
    "dbrl_mahalanobis": lambda x, y: dbrl(x, y, known=[j for j in range(x.shape[1]) if j != 4 or x.shape[1] < 13],
                                          metric="mahalanobis"),
    "rbrl_sum": lambda x, y: rbrl(x, y, criterion="sum"),
    "rbrl_max": lambda x, y: rbrl(x, y, criterion="max"),
}


@pytest.mark.parametrize("name", ATTACKS)
def test_unmasked_file_fully_linked(census, name):
    # Census has no duplicate records, so every record is its own unique nearest neighbour
    assert ATTACKS[name](census, census).percent_correct == 100.0


@pytest.mark.parametrize("name", ATTACKS)
def test_permuting_masked_records_permutes_links(noisy, name):
    x, y = noisy
    perm = np.random.default_rng(7).permutation(x.shape[0])
    inv = np.argsort(perm)
    res, res_perm = ATTACKS[name](x, y), ATTACKS[name](x, y[perm])  # masked perm[q] now at q
    # the criterion value of each link is unchanged; the link itself wherever the minimum is
    # unique (integer rank criteria tie often, and ties go to the lowest index, which moves)
    np.testing.assert_allclose(res_perm.score, res.score, rtol=1e-9, atol=1e-9)
    unique = np.ones(x.shape[0], dtype=bool)
    if name.startswith("rbrl"):
        r, s = rankdata(x, axis=0), rankdata(y, axis=0)
        d = np.abs(r[:, None, :] - s[None, :, :])
        d = d.sum(axis=2) if name == "rbrl_sum" else d.max(axis=2)
        unique = (d == d.min(axis=1, keepdims=True)).sum(axis=1) == 1
        assert unique.mean() > 0.5
    assert np.array_equal(res_perm.links[unique], inv[res.links[unique]])


def test_rbrl_invariant_under_monotone_transform(noisy):
    x, y = noisy
    for crit in ("sum", "max"):
        base = rbrl(x, y, criterion=crit).links
        xt, yt = x.copy(), y.copy()
        xt[:, 1], yt[:, 1] = np.exp(x[:, 1] / x[:, 1].max()), np.exp(y[:, 1] / x[:, 1].max())
        xt[:, 4], yt[:, 4] = x[:, 4] ** 3, y[:, 4] ** 3
        assert np.array_equal(rbrl(xt, yt, criterion=crit).links, base)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("attack", [dbrl, rbrl])
def test_bad_input(census, attack):
    with pytest.raises(ValueError, match="known"):
        attack(census, census, known=[0, 13])
    with pytest.raises(ValueError, match="known"):
        attack(census, census, known=[1, 1])
    with pytest.raises(ValueError, match="known"):
        attack(census, census, known=[])
    with pytest.raises(ValueError, match="shape"):
        attack(census, census[:-1])


def test_bad_options(census):
    with pytest.raises(ValueError, match="metric"):
        dbrl(census, census, metric="cosine")
    with pytest.raises(ValueError, match="standardise"):
        dbrl(census, census, standardise="robust")
    with pytest.raises(ValueError, match="criterion"):
        rbrl(census, census, criterion="mean")
    with pytest.raises(ValueError, match="ranks"):
        rbrl(census, census, ranks="first")
