"""The intervals of the report: Newcombe's difference of two proportions."""

from __future__ import annotations

import numpy as np

from sdcrisk.measures.uncertainty import advantage, newcombe_difference, wilson_interval


def test_newcombe_worked_example():
    # Newcombe (1998), Statistics in Medicine 17:873-890, Table II example (a): 56/70 against
    # 48/80, method 10 gives 0.0524 to 0.3339.
    d, low, high = newcombe_difference(56, 70, 48, 80)
    assert abs(d - 100 * (56 / 70 - 48 / 80)) < 1e-12
    assert abs(low - 5.24) < 0.01 and abs(high - 33.39) < 0.01


def test_newcombe_edges_and_symmetry():
    d, low, high = newcombe_difference(0, 10, 0, 20)
    assert d == 0 and low < 0 < high
    d, low, high = newcombe_difference(10, 10, 0, 10)
    assert d == 100 and high == 100 and low > 0
    d1, l1, h1 = newcombe_difference(3, 40, 9, 50)
    d2, l2, h2 = newcombe_difference(9, 50, 3, 40)
    assert np.isclose(d1, -d2) and np.isclose(l1, -h2) and np.isclose(h1, -l2)
    lw, hw = wilson_interval(7, 30)
    d, low, high = newcombe_difference(7, 30, 0, 10**9)
    assert np.isclose(low, lw, atol=1e-3) and np.isclose(high, hw, atol=1e-3)


def test_newcombe_coverage_unequal_sizes():
    rng = np.random.default_rng(5)
    n1, n2, p = 1000, 120, 0.1
    k1 = rng.binomial(n1, p, 4000)
    k2 = rng.binomial(n2, p, 4000)
    _, low, high = newcombe_difference(k1, n1, k2, n2)
    cover = np.mean((low <= 0) & (0 <= high))
    assert 0.93 <= cover <= 0.975


def test_advantage_covers_the_floored_difference():
    """The excess risk max(0, p1 - p2): its interval (Newcombe's floored at 0) covers it at least
    as often as Newcombe's covers p1 - p2; for an attack worse than its baseline (true
    difference -12 points, the skewed secret's record-copying guess against the mode) it covers
    the risk 0 though Newcombe's interval excludes the difference's 0 almost always."""
    rng = np.random.default_rng(11)
    n1, n2 = 2000, 2000
    for p1, p2 in ((0.38, 0.50), (0.20, 0.20), (0.30, 0.22)):
        k1, k2 = rng.binomial(n1, p1, 4000), rng.binomial(n2, p2, 4000)
        d, low, high = newcombe_difference(k1, n1, k2, n2)
        risk, rlow, rhigh = advantage(d, low, high)
        true_d, true_risk = 100 * (p1 - p2), 100 * max(0.0, p1 - p2)
        raw = np.mean((low <= true_d) & (true_d <= high))
        floored = np.mean((rlow <= true_risk) & (true_risk <= rhigh))
        assert floored >= raw >= 0.93
        assert np.all((risk >= 0) & (rlow <= risk) & (risk <= rhigh)) and np.array_equal(risk, np.maximum(d, 0))
        if p1 < p2:
            assert np.mean(high < 0) > 0.99 and floored == 1.0
    assert advantage(-3.0, -5.0, -1.0) == (0.0, 0.0, 0.0) and advantage(2.0, -1.0, 4.0) == (2.0, 0.0, 4.0)


def test_criterion_row_derives_its_intervals():
    import pytest

    from sdcrisk.criteria import CriterionRow
    row = CriterionRow("inference", "key cell", 56, 70, "release's mode", 48, 80, target="INCOME")
    d = row.as_dict()
    assert d["percent"] == 80.0 and d["baseline_percent"] == 60.0
    assert (d["difference"], d["difference_low"], d["difference_high"]) == newcombe_difference(56, 70, 48, 80)
    assert (d["excess"], d["excess_low"], d["excess_high"]) == newcombe_difference(56, 70, 48, 80)  # all above 0
    worse = CriterionRow("inference", "nearest record", 30, 100, "release's mode", 50, 100).as_dict()
    diff = newcombe_difference(30, 100, 50, 100)
    assert diff[0] == -20.0 and diff[2] < 0  # the attack is worse than the constant guess
    assert (worse["difference"], worse["difference_low"], worse["difference_high"]) == diff
    assert (worse["excess"], worse["excess_low"], worse["excess_high"]) == (0.0, 0.0, 0.0)
    assert (d["low"], d["high"]) == wilson_interval(56, 70)
    with pytest.raises(ValueError, match="criterion"):
        CriterionRow("linking", "x", 1, 2, "b", 0, 2)
    with pytest.raises(ValueError, match="trials"):
        CriterionRow("inference", "x", 3, 2, "b", 0, 2)
