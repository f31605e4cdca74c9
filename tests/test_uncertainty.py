"""The intervals of the report: Newcombe's difference of two proportions."""

from __future__ import annotations

import numpy as np

from sdcrisk.measures.uncertainty import newcombe_difference, wilson_interval


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


def test_criterion_row_derives_its_intervals():
    import pytest

    from sdcrisk.criteria import CriterionRow
    row = CriterionRow("inference", "key cell", 56, 70, "release's mode", 48, 80, target="INCOME")
    d = row.as_dict()
    assert d["percent"] == 80.0 and d["baseline_percent"] == 60.0
    assert (d["excess"], d["excess_low"], d["excess_high"]) == newcombe_difference(56, 70, 48, 80)
    assert (d["low"], d["high"]) == wilson_interval(56, 70)
    with pytest.raises(ValueError, match="criterion"):
        CriterionRow("linking", "x", 1, 2, "b", 0, 2)
    with pytest.raises(ValueError, match="trials"):
        CriterionRow("inference", "x", 3, 2, "b", 0, 2)
