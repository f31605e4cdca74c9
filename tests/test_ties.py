"""Expected credit under uniform random tie-breaking (``run_attack(..., truth=)``): equal to a
brute force computed here with numpy on files with heavy ties, independent of the order of the
masked records, consistent with the links, and leaving links and scores unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata

from sdcrisk.attacks import ATTACKS, OWN_RULE, TIE_AWARE, register_attack, run_attack
from sdcrisk.linkage.base import LinkResult, checked_links
from sdcrisk.linkage.distance import dbrl, standardise
from sdcrisk.linkage.global_distance import TIE_DRAWS, gdbrl
from sdcrisk.linkage.location import (_sorted_masked, lrl_microaggregation, microaggregation_intervals,
                                      rank_swap_intervals, rsrl)
from sdcrisk.linkage.rank import rbrl
from sdcrisk.masking import mask
from sdcrisk.masking.swapping import rank_distance

UNIFORM = ["DBRL", "RBRL-Sum", "RBRL-Max", "RS-RL(p<=20%)", "L-RL(MA)"]
N, M = 240, 3
KNOWN = np.arange(M)


def _files(kind: str):
    """(original, masked) with many exact ties, masked in the original's record order."""
    rng = np.random.default_rng({"rounded": 1, "duplicated": 2, "mdav": 3, "univariate": 4}[kind])
    x = rng.normal(size=(N, M))
    if kind == "rounded":  # few distinct values per attribute, both files
        x = np.round(x * 2) / 2 + 1e-3 * np.arange(N)[:, None] * (np.arange(M) == 0)
        return x, np.round(x + 0.3 * rng.normal(size=x.shape))
    if kind == "duplicated":  # records repeated in both files
        x = np.repeat(np.round(x[: N // 4], 1), 4, axis=0) + 1e-6 * rng.normal(size=(N, M))
        return x, np.round(x, 1)
    if kind == "univariate":
        return x, np.round(mask("individual_ranking_ma", x, k=12), 1)
    return x, mask("mdav", x, k=3, v=M)


KINDS = ["rounded", "duplicated", "mdav", "univariate"]


@pytest.fixture(scope="module", params=KINDS)
def shuffled(request):
    """Original, masked in a random order, and the true masked index of every original record."""
    x, y = _files(request.param)
    perm = np.random.default_rng(7).permutation(N)
    return x, y[perm], np.argsort(perm)


# ------------------------------------------------------------------ brute force, numpy only
def _expected(d: np.ndarray, allowed: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """1 / t_i when truth[i] is among the t_i allowed columns at the row's minimum, else 0."""
    d = np.where(allowed, d, np.inf)
    best = d.min(axis=1, keepdims=True)
    tied = (d == best) & allowed & np.isfinite(best)
    t = tied.sum(axis=1)
    hit = tied[np.arange(d.shape[0]), truth]
    return np.where(hit, 1.0 / np.maximum(t, 1), 0.0)


def _seq_sqdist(a, b):
    """sum_j (a_ij - b_lj)^2 added j = 0, 1, ... (the kernels' order)."""
    d = np.zeros((a.shape[0], b.shape[0]))
    for j in range(a.shape[1]):
        d += (a[:, None, j] - b[None, :, j]) ** 2
    return d


def brute_credit(name, x, y, truth):
    n = x.shape[0]
    everyone = np.ones((n, y.shape[0]), dtype=bool)
    if name == "DBRL":
        xs, ys = standardise(x, y, "own")
        return _expected(((xs[:, None, :] - ys[None, :, :]) ** 2).sum(axis=2), everyone, truth)
    if name.startswith("RBRL"):
        r, s = 2 * rankdata(x, axis=0), 2 * rankdata(y, axis=0)
        g = np.abs(r[:, None, :] - s[None, :, :])
        return _expected(g.sum(axis=2) if name == "RBRL-Sum" else g.max(axis=2), everyone, truth)
    _, ysorted, pos = _sorted_masked(y)
    if name == "L-RL(MA)":
        a, b = microaggregation_intervals(x, y, "group", ysorted=ysorted)
    else:
        a, b = rank_swap_intervals(x, y, rank_distance(20.0, n), ysorted=ysorted)
    allowed = ((pos[None, :, :] >= a[:, None, :]) & (pos[None, :, :] < b[:, None, :])).all(axis=2)
    xs, ys = standardise(x, y, "own")
    return _expected(_seq_sqdist(xs, ys), allowed, truth)


# ------------------------------------------------------------------ tests
@pytest.mark.parametrize("name", UNIFORM)
def test_credit_equals_the_brute_force(shuffled, name):
    x, y, truth = shuffled
    res = run_attack(name, x, y, KNOWN, 2, np.random.default_rng(0), truth=truth)
    np.testing.assert_array_equal(res.credit, brute_credit(name, x, y, truth))
    assert res.info["ties"] == "uniform"
    assert res.info["tied_records"] >= int(((res.credit > 0) & (res.credit < 1)).sum())


@pytest.mark.parametrize("name", UNIFORM)
def test_links_and_scores_unchanged_and_consistent(shuffled, name):
    x, y, truth = shuffled
    plain = ATTACKS[name](x, y, KNOWN, 2, np.random.default_rng(0))
    res = run_attack(name, x, y, KNOWN, 2, np.random.default_rng(0), truth=truth)
    np.testing.assert_array_equal(res.links, plain.links)
    np.testing.assert_array_equal(res.score, plain.score)
    correct = res.links == truth
    # a correct link is one of the equally best; a record whose best is unique scores its link
    assert (res.credit[correct] > 0).all()
    single = res.credit == 1
    assert (correct[single]).all()
    assert res.credit.sum() <= correct.sum() + res.info["tied_records"]


def _brute_variant(name, x, y, truth):
    if name == "DBRL":
        return dbrl(x, y, known=KNOWN, method="brute", truth=truth)
    if name.startswith("RBRL"):
        return rbrl(x, y, known=KNOWN, criterion=name[-3:].lower(), method="brute", truth=truth)
    if name == "L-RL(MA)":
        return lrl_microaggregation(x, y, known=KNOWN, method="brute", truth=truth)
    return rsrl(x, y, known=KNOWN, p=20.0, method="brute", truth=truth)


@pytest.mark.parametrize("name", UNIFORM)
def test_tree_and_brute_force_paths_agree(shuffled, name):
    x, y, truth = shuffled
    tree = run_attack(name, x, y, KNOWN, 2, np.random.default_rng(0), truth=truth)
    brute = _brute_variant(name, x, y, truth)
    np.testing.assert_array_equal(tree.links, brute.links)
    np.testing.assert_array_equal(tree.credit, brute.credit)
    assert tree.info["tied_records"] == brute.info["tied_records"]


@pytest.mark.parametrize("name", UNIFORM)
def test_credit_does_not_depend_on_the_order_of_the_masked_file(name):
    x, y = _files("mdav")
    sums = []
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(N)
        truth = np.argsort(perm)
        res = run_attack(name, x, y[perm], KNOWN, 2, np.random.default_rng(seed), truth=truth)
        sums.append(res.credit.sum())
        if seed == 0:
            first = res.credit
        else:  # the same credit record by record, whatever the order
            np.testing.assert_allclose(res.credit, first, rtol=0, atol=1e-12)
    assert max(sums) - min(sums) < 1e-9


def test_more_equally_best_candidates_than_the_search_buffer():
    # the 32 corners of the unit 5-cube are all at distance 5/4 from its centre: more ties than the
    # tree keeps per query (16), so they are listed by its range search
    corners = np.array(np.meshgrid(*[[0.0, 1.0]] * 5)).reshape(5, -1).T
    y = np.vstack([corners, corners[:3]])  # three corners twice
    x = np.vstack([np.full((4, 5), 0.5), corners[:31]])
    truth = np.r_[0, 1, 32, -1, np.arange(31)]
    for method in ("tree", "brute"):
        res = dbrl(x, y, standardise="none", method=method, truth=truth)
        assert res.info["tied_records"] == 4 + 3  # the centres and the three duplicated corners
        np.testing.assert_array_equal(res.credit[:4], [1 / 35, 1 / 35, 1 / 35, 0.0])
        np.testing.assert_array_equal(res.credit[4:], np.where(np.arange(31) < 3, 0.5, 1.0))


def test_gdbrl_credit_is_the_share_of_draws_and_deterministic():
    x, y = _files("mdav")
    perm = np.random.default_rng(5).permutation(N)
    truth = np.argsort(perm)
    res = run_attack("GDBRL", x, y[perm], KNOWN, 2, np.random.default_rng(11), truth=truth)
    plain = ATTACKS["GDBRL"](x, y[perm], KNOWN, 2, np.random.default_rng(11))
    np.testing.assert_array_equal(res.links, plain.links)
    assert len(res.info["draws"]) == TIE_DRAWS
    assert res.info["draws"][0] == int((res.links == truth).sum())
    assert sum(res.info["draws"]) == pytest.approx(res.credit.sum() * TIE_DRAWS)
    assert np.allclose(res.credit * TIE_DRAWS, np.round(res.credit * TIE_DRAWS))
    assert len(set(res.info["draws"])) > 1  # tied groups of three: the draws differ
    again = gdbrl(x, y[perm], known=KNOWN, rng=np.random.default_rng(11), truth=truth)
    np.testing.assert_array_equal(res.credit, again.credit)
    assert res.info["draws"] == again.info["draws"]


def test_attacks_without_tie_support_keep_their_rule():
    x, y = _files("rounded")
    truth = np.arange(N)
    for name in ("PRL", "Pro-RL-PCP"):
        assert name not in TIE_AWARE
        res = run_attack(name, x, y, KNOWN, 2, np.random.default_rng(0), truth=truth)
        assert res.info["ties"] == OWN_RULE
        np.testing.assert_array_equal(res.credit, (res.links == truth).astype(float))


def test_plugin_attack_gets_its_own_rule(monkeypatch):
    monkeypatch.setattr("sdcrisk.attacks.ATTACKS", dict(ATTACKS))

    @register_attack("identity-for-ties")
    def _identity(x, y, known, v, rng):
        return LinkResult(links=np.arange(x.shape[0]))

    x, y = _files("rounded")
    res = run_attack("identity-for-ties", x, y, KNOWN, 2, None, truth=np.r_[np.arange(N - 1), -1])
    assert res.info["ties"] == OWN_RULE
    assert res.credit.sum() == N - 1


def test_bad_truth_and_bad_credit_are_refused():
    x, y = _files("rounded")
    with pytest.raises(ValueError, match="truth of shape"):
        run_attack("DBRL", x, y, KNOWN, 2, None, truth=np.arange(N - 1))
    with pytest.raises(ValueError, match="truth 240 for original record 0"):
        run_attack("DBRL", x, y, KNOWN, 2, None, truth=np.full(N, N))
    for credit, msg in ((np.full(3, 1.5), "credit 1.5"), (np.full(2, 0.5), "credit of shape"),
                        (np.array([0.0, np.nan, 1.0]), "credit nan")):
        with pytest.raises(ValueError, match=msg):
            checked_links(LinkResult(links=np.arange(3), credit=credit), "toy", 3, 3)


def test_sparse_gdbrl_is_marked_as_approximate():
    x, y = _files("rounded")
    assert gdbrl(x, y, known=KNOWN, method="sparse").info["approximate"] is True
    assert "approximate" not in gdbrl(x, y, known=KNOWN, method="exact").info


def test_gdbrl_without_identical_records_draws_once():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(N, M))
    y = x + 0.5 * rng.normal(size=x.shape)
    truth = np.arange(N)
    res = gdbrl(x, y, known=KNOWN, rng=np.random.default_rng(1), truth=truth)
    assert res.info["draws"] == [int((res.links == truth).sum())]
    np.testing.assert_array_equal(res.credit, (res.links == truth).astype(float))
    assert len(gdbrl(x, np.round(y), known=KNOWN, rng=np.random.default_rng(1), truth=truth).info["draws"]) > 1
