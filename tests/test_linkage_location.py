"""Location record linkage (RS-RL / L-RL, annotated union): candidate sets and linkage inside them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from sdcrisk.linkage.distance import dbrl, standardise
from sdcrisk.masking import mask
from sdcrisk.masking.swapping import rank_distance
from sdcrisk.linkage.location import (
    _sorted_masked,
    link_in_intervals,
    lrl_mdav,
    lrl_microaggregation,
    microaggregation_intervals,
    rank_swap_intervals,
    rsrl,
    rsrl_annotated_union,
)


def members(a, b, y, i):
    """Materialised candidate set of record i: masked records inside every range."""
    _, _, pos = _sorted_masked(y)
    inside = (pos >= a[i]) & (pos < b[i])
    return set(np.flatnonzero(inside.all(axis=1)).tolist())


@pytest.fixture(scope="module")
def swapped(census):
    """Census under standard rank swapping with p = 5 % (the registry's method) and its P."""
    y = mask("rankswap", census, np.random.default_rng(2007), p=5)
    return census, y, rank_distance(5, census.shape[0])


# ---------------------------------------------------------------- hand-computed candidate sets
def test_rank_swap_candidate_sets_by_hand():
    x = np.array([[10.0], [20.0], [30.0], [40.0], [50.0]])
    y = np.array([[20.0], [10.0], [40.0], [30.0], [50.0]])
    a, b = rank_swap_intervals(x, y, 1)
    # x=10 (rank 0): values 10..20 -> masked records 0, 1;  x=30: values 20..40 -> records 0, 2, 3
    assert members(a, b, y, 0) == {0, 1}
    assert members(a, b, y, 2) == {0, 2, 3}
    assert members(a, b, y, 4) == {2, 4}
    r = rsrl(x, y, distance=1)
    assert r.candidates.tolist() == [2, 3, 3, 3, 2]
    # each original value is still present in its set; DBRL picks the masked record holding it
    assert r.links.tolist() == [1, 0, 3, 2, 4]
    # P = 0: only the record's own value is eligible
    assert rsrl(x, y, distance=0).links.tolist() == [1, 0, 3, 2, 4]


def test_rank_swap_candidate_sets_with_ties():
    x = np.array([[1.0], [2.0], [2.0], [3.0], [4.0], [5.0]])
    y = x.copy()
    a, b = rank_swap_intervals(x, y, 1)
    # value 2 occupies ranks 1-2: with P = 1 the interval is ranks 0..3 -> values 1..3
    assert members(a, b, y, 1) == members(a, b, y, 2) == {0, 1, 2, 3}
    assert members(a, b, y, 5) == {4, 5}


def test_two_attribute_intersection_by_hand():
    x = np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 3.0], [4.0, 2.0], [5.0, 1.0]])
    y = np.array([[2.0, 5.0], [1.0, 3.0], [3.0, 4.0], [5.0, 2.0], [4.0, 1.0]])
    a, b = rank_swap_intervals(x, y, 1)
    # record 0: attr 0 values 1..2 -> {0, 1}; attr 1 values 4..5 -> {0, 2}; intersection {0}
    assert members(a, b, y, 0) == {0}
    r = rsrl(x, y, distance=1)
    assert r.links[0] == 0 and r.candidates[0] == 1


def test_microaggregation_group_rule_by_hand():
    x = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0]])
    y = np.array([[2.0], [2.0], [2.0], [5.5], [5.5], [5.5], [5.5]])  # groups {1,2,3}, {4..7}
    a, b = microaggregation_intervals(x, y, "group")
    assert members(a, b, y, 0) == {0, 1, 2}
    assert members(a, b, y, 3) == {3, 4, 5, 6}
    # window rule with k = 2 (rank distance 3): x=3 (rank 2) reaches ranks 0..5 -> both groups
    a, b = microaggregation_intervals(x, y, "window", k=2)
    assert members(a, b, y, 2) == set(range(7))
    assert members(a, b, y, 0) == set(range(7))
    a, b = microaggregation_intervals(x, y, "window", k=1)  # rank distance 1
    assert members(a, b, y, 0) == {0, 1, 2}


def _ma_intervals_by_loops(x, y, rule, k):
    """microaggregation_intervals from its docstring, one record and attribute at a time: the
    masked groups (runs of the sorted masked column) mapped onto the sorted original positions;
    "group": those whose value span holds x_ij; "window": those meeting the ranks of x_ij's tie run
    widened by 2k - 1."""
    n, m = x.shape
    a, b = np.empty((n, m), dtype=np.int64), np.empty((n, m), dtype=np.int64)
    for j in range(m):
        xs, ys = np.sort(x[:, j]), np.sort(y[:, j])
        groups = []
        s = 0
        for e in range(1, n + 1):
            if e == n or ys[e] != ys[s]:
                groups.append((s, e - 1))
                s = e
        for i in range(n):
            v = x[i, j]
            ranks = [r for r in range(n) if xs[r] == v]
            if rule == "group":
                hit = [g for g in groups if xs[g[0]] <= v <= xs[g[1]]]
            else:
                lo, hi = ranks[0] - (2 * k - 1), ranks[-1] + (2 * k - 1)
                hit = [g for g in groups if g[1] >= lo and g[0] <= hi]
            a[i, j], b[i, j] = hit[0][0], hit[-1][1] + 1
    return a, b


@pytest.mark.parametrize("seed", range(4))
def test_microaggregation_intervals_match_their_definition_on_tied_values(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    x = np.round(rng.lognormal(size=(n, 3)) * 4, int(seed % 2))  # many tied values
    k = int(rng.integers(2, 5))
    y = mask("optimal_univariate_ma", x, k=k)
    for rule in ("group", "window"):
        a, b = microaggregation_intervals(x, y, rule, k)
        ea, eb = _ma_intervals_by_loops(x, y, rule, k)
        assert np.array_equal(a, ea) and np.array_equal(b, eb), rule


def test_annotated_union_by_hand():
    x = np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 3.0], [4.0, 2.0], [5.0, 1.0]])
    y = x.copy()
    a, b = rank_swap_intervals(x, y, 1)
    # record 0: attr 0 -> {0, 1}, attr 1 -> {0, 1}: both counted twice, DBRL picks 0
    r = link_in_intervals(x, y, a, b, "annotated_union")
    assert r.links[0] == 0 and r.candidates[0] == 2
    assert r.n_correct == 5


# ---------------------------------------------------------------- properties
def test_rsrl_candidate_sets_contain_true_record(swapped):
    x, y, P = swapped
    a, b = rank_swap_intervals(x, y, P)
    _, _, pos = _sorted_masked(y)
    assert ((pos >= a) & (pos < b)).all()  # pos[i, j]: masked record i's position
    r = rsrl(x, y, p=5)
    assert np.array_equal(r.links, rsrl(x, y, distance=P).links)
    assert (r.candidates >= 1).all()
    assert r.correct[r.candidates == 1].all()  # a singleton set is the true record
    # restricting the search never hurts much: at least as many correct links as plain DBRL here
    assert r.n_correct >= dbrl(x, y).n_correct


def test_rsrl_matches_brute_force(swapped):
    x, y, P = swapped
    known = [0, 2, 5]
    r = rsrl(x, y, known, distance=P)
    xk, yk = x[:, known], y[:, known]
    a, b = rank_swap_intervals(xk, yk, P)
    _, _, pos = _sorted_masked(yk)
    xs, ys = standardise(xk, yk)
    d = cdist(xs, ys, "sqeuclidean")
    for i in range(0, x.shape[0], 37):
        allowed = ((pos >= a[i]) & (pos < b[i])).all(axis=1)
        assert r.candidates[i] == allowed.sum()
        di = np.where(allowed, d[i], np.inf)
        assert r.links[i] == int(np.argmin(di))


def test_annotated_union_contains_true_record_when_all_sets_do(swapped):
    x, y, P = swapped
    r = rsrl_annotated_union(x, y, [0, 1, 2, 3], distance=P)
    full = rsrl(x, y, [0, 1, 2, 3], distance=P)
    # every record lies in all its B(x_ij), so the maximum count equals c: same sets, same links
    assert np.array_equal(r.links, full.links)
    assert np.array_equal(r.candidates, full.candidates)


LOCATION = {
    "rsrl": lambda x, y: rsrl(x, y, distance=5),
    "union": lambda x, y: rsrl_annotated_union(x, y, distance=5, half=True),
    "ma_group": lambda x, y: lrl_microaggregation(x, y),
    "ma_window": lambda x, y: lrl_microaggregation(x, y, rule="window", k=3),
    "mdav": lambda x, y: lrl_mdav(x, y, [[0, 1, 2], [3, 4], [5, 6, 7, 8]]),
}


@pytest.mark.parametrize("name", LOCATION)
def test_unmasked_file_fully_linked(census, name):
    assert LOCATION[name](census, census).percent_correct == 100.0


@pytest.mark.parametrize("name", ["rsrl", "union", "ma_group"])
def test_permuting_masked_records_permutes_links(swapped, name):
    x, y, _ = swapped
    perm = np.random.default_rng(3).permutation(x.shape[0])
    inv = np.argsort(perm)
    res, res_perm = LOCATION[name](x, y), LOCATION[name](x, y[perm])
    np.testing.assert_allclose(res_perm.score, res.score, rtol=1e-9)
    assert np.array_equal(res_perm.candidates, res.candidates)
    assert np.array_equal(res_perm.links, np.where(res.links >= 0, inv[res.links], -1))


def test_microaggregation_group_rule_contains_true_record(census):
    from test_linkage_distance_rank import group_means

    y = group_means(census, 10)
    a, b = microaggregation_intervals(census, y, "group")
    _, _, pos = _sorted_masked(y)
    assert ((pos >= a) & (pos < b)).all()
    aw, bw = microaggregation_intervals(census, y, "window", k=10)
    assert (aw <= a).all() and (bw >= b).all()  # the window rule is looser
    r = lrl_microaggregation(census, y, [0, 1])
    assert r.correct[r.candidates == 1].all()


# ---------------------------------------------------------------- bad input
def test_bad_input(census):
    with pytest.raises(ValueError, match="known"):
        rsrl(census, census, [0, 99], distance=3)
    with pytest.raises(ValueError, match="shape"):
        rsrl(census, census[:, :5], distance=3)
    with pytest.raises(ValueError, match="exactly one"):
        rsrl(census, census)
    with pytest.raises(ValueError, match="distance"):
        rsrl(census, census, distance=-1)
    with pytest.raises(ValueError, match="p"):
        rsrl(census, census, p=150)
    with pytest.raises(ValueError, match="rule"):
        lrl_microaggregation(census, census, rule="nearest")
    with pytest.raises(ValueError, match="k"):
        lrl_microaggregation(census, census, rule="window")
    with pytest.raises(ValueError, match="known_blocks"):
        lrl_mdav(census, census, [[0, 1]], known_blocks=[1])
    with pytest.raises(ValueError, match="blocks"):
        lrl_mdav(census, census, [[0, 13]])


def test_unbounded_window_reduces_to_dbrl(census):
    y = mask("rankswap_pdist", census, np.random.default_rng(11), p=10)
    n = census.shape[0]
    base = dbrl(census, y, [0, 1, 2]).links
    assert np.array_equal(rsrl(census, y, [0, 1, 2], distance=n - 1).links, base)
    assert np.array_equal(rsrl_annotated_union(census, y, [0, 1, 2], distance=n - 1).links, base)
    assert (rsrl_annotated_union(census, y, [0, 1, 2], distance=n - 1).candidates == n).all()


@pytest.mark.parametrize("attack", ["rsrl", "lrl"])
def test_links_do_not_depend_on_counting(swapped, census, attack):
    if attack == "rsrl":
        x, y, p = swapped
        run = lambda count: rsrl(x, y, p=20, count=count)  # noqa: E731
    else:
        x = census
        y = mask("optimal_univariate_ma", x, np.random.default_rng(0), k=3)
        run = lambda count: lrl_microaggregation(x, y, count=count)  # noqa: E731
    with_sizes, without = run(True), run(False)
    assert without.candidates is None and with_sizes.candidates.min() >= 1
    assert np.array_equal(with_sizes.links, without.links) and np.array_equal(with_sizes.score, without.score)
