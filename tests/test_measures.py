"""Tests of the measures: information loss, interval disclosure, scenarios, scores."""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from sdcrisk.measures.information_loss import il_components, information_loss, mean_variation
from sdcrisk.measures.interval_disclosure import interval_disclosure, interval_disclosure_by_attribute
from sdcrisk.measures.scenarios import (average_linkage, block_columns, known_block_scenarios,
                                        known_scenarios, scenario_average)
from sdcrisk.measures.scores import (disclosure_risk, dr_rsld, dr_standard, score, score1, score2,
                                     score_max, score_new, score_rsld, score_standard)

PUBLISHED = Path(__file__).resolve().parents[1] / "published" / "published_values.csv"  # the repo's copy

X4 = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0], [4.0, 50.0]])
Y4 = np.array([[2.0, 10.0], [2.0, 20.0], [3.0, 40.0], [3.0, 50.0]])

IL_VARIANTS = [dict(il1=a, zero=z, cov_entries=c, corr_entries=r, il5=f, ddof=d)
               for a in ("variation", "mae", "sd", "sd_sqrt2") for z in ("skip", "zero", "abs_error", "column_scale")
               for c in ("upper", "strict", "full") for r in ("strict", "full") for f in ("mae", "variation")
               for d in (0, 1)][::7]
ID_VARIANTS = [dict(rule="rank", width=w, ranks=r) for w in ("total", "each_side") for r in ("original", "masked")] + \
              [dict(rule="sd", width=w, sd_of=s) for w in ("total", "each_side") for s in ("original", "masked")]


# ------------------------------------------------------------------ information loss
def test_il_hand_computed_4x2():
    c = il_components(X4, Y4)  # defaults: variation, skip, upper, strict, mae, ddof=1
    il1 = ((1 / 1 + 0 + 0 + 1 / 4) + (0 + 0 + 10 / 30 + 0)) / 8
    il2 = (0 + abs(27.5 - 30) / 27.5) / 2
    v_x = np.array([[5 / 3, 65 / 3], [65 / 3, 875 / 3]])   # hand-computed sample covariances
    v_y = np.array([[1 / 3, 10.0], [10.0, 1000 / 3]])
    rel = np.abs(v_x - v_y) / np.abs(v_x)
    il3 = (rel[0, 0] + rel[0, 1] + rel[1, 1]) / 3
    il4 = (rel[0, 0] + rel[1, 1]) / 2
    r_x = v_x[0, 1] / math.sqrt(v_x[0, 0] * v_x[1, 1])
    r_y = v_y[0, 1] / math.sqrt(v_y[0, 0] * v_y[1, 1])
    il5 = abs(r_x - r_y)
    np.testing.assert_allclose(c, [il1, il2, il3, il4, il5], rtol=1e-12)
    assert il4 == pytest.approx((0.8 + 1 / 7) / 2)
    assert information_loss(X4, Y4) == pytest.approx(20 * (il1 + il2 + il3 + il4 + il5))


def test_il_options_hand_computed():
    c = il_components(X4, Y4, il1="mae", cov_entries="strict", corr_entries="full", il5="variation")
    assert c[0] == pytest.approx((1 + 0 + 0 + 1 + 0 + 0 + 10 + 0) / 8)
    assert c[2] == pytest.approx(abs(65 / 3 - 10) / (65 / 3))
    r_x = (65 / 3) / math.sqrt(5 / 3 * 875 / 3)
    r_y = 10 / math.sqrt(1 / 3 * 1000 / 3)
    assert c[4] == pytest.approx(2 * abs(r_x - r_y) / r_x / 4)  # full 2x2: two off-diagonal entries, two zeros
    sd = X4.std(axis=0, ddof=0)
    c0 = il_components(X4, Y4, il1="sd", ddof=0)
    assert c0[0] == pytest.approx(np.mean(np.abs(X4 - Y4) / sd))
    assert il_components(X4, Y4, il1="sd_sqrt2", ddof=0)[0] == pytest.approx(c0[0] / math.sqrt(2))


@pytest.mark.parametrize("opts", IL_VARIANTS)
def test_il_zero_for_unmasked(opts):
    assert information_loss(X4, X4.copy(), **opts) == 0.0


def test_il_positive_for_perturbed(census):
    rng = np.random.default_rng(1)
    y = census + rng.normal(0, 0.1, census.shape) * census.std(axis=0)
    il = information_loss(census, y)
    assert 0 < il < 100
    assert information_loss(census, census) == 0.0


def test_zero_denominators_no_nan():
    x = np.array([[0.0, 1.0], [0.0, 2.0], [3.0, 3.0], [-4.0, 5.0]])
    y = np.array([[1.0, 1.0], [0.0, 2.0], [3.0, 4.0], [-2.0, 5.0]])
    got = {z: il_components(x, y, zero=z) for z in ("skip", "zero", "abs_error", "column_scale")}
    for c in got.values():
        assert np.isfinite(c).all()
    # IL1 by hand: ratios of the non-zero entries: col0 rows 2,3: 0, 2/4; col1: 0, 0, 1/3, 0
    nonzero = [0.0, 0.5, 0.0, 0.0, 1 / 3, 0.0]
    assert got["skip"][0] == pytest.approx(sum(nonzero) / 6)
    assert got["zero"][0] == pytest.approx(sum(nonzero) / 8)
    assert got["abs_error"][0] == pytest.approx((sum(nonzero) + 1 + 0) / 8)
    assert got["column_scale"][0] == pytest.approx((sum(nonzero) + 1 / (7 / 4)) / 8)
    assert mean_variation([0.0, 0.0], [1.0, 2.0], zero="skip") == 0.0


def test_il_constant_masked_column_finite():
    y = X4.copy()
    y[:, 1] = y[:, 1].mean()
    assert np.isfinite(il_components(X4, y)).all()


@pytest.mark.parametrize("kw, name", [({"il1": "bogus"}, "il1"), ({"zero": "nan"}, "zero"),
                                      ({"cov_entries": "lower"}, "cov_entries"), ({"corr_entries": 1}, "corr_entries"),
                                      ({"il5": "rmse"}, "il5"), ({"ddof": 2}, "ddof")])
def test_il_bad_options(kw, name):
    with pytest.raises(ValueError, match=name):
        information_loss(X4, Y4, **kw)


def test_il_bad_shapes():
    with pytest.raises(ValueError, match="masked"):
        information_loss(X4, Y4[:3])
    with pytest.raises(ValueError, match="masked"):
        information_loss(X4, np.full_like(Y4, np.nan))


# ------------------------------------------------------------------ interval disclosure
@pytest.mark.parametrize("opts", ID_VARIANTS)
def test_id_unmasked_is_100(opts, census):
    assert interval_disclosure(census, census.copy(), **opts) == 100.0


def test_id_rank_hand_computed():
    x = np.column_stack([np.arange(10.0), np.arange(10.0) ** 2])
    # masked = original + 0.5 (same order): w = 1 rank each side; interval [x_i - 0.5, x_i + 1.5]
    # misses x_0 only (its interval is [0.5, 1.5]) -> 90 %; shift 1.5: never inside -> 0 %
    per = interval_disclosure_by_attribute(x, x + 0.5, percents=[10], width="each_side", ranks="masked")
    assert per[0] == pytest.approx(90.0)
    assert interval_disclosure_by_attribute(x, x + 1.5, percents=[10], width="each_side",
                                            ranks="masked")[0] == 0.0
    # w = floor(0.1 * 10 / 2) = 0 with width="total": interval is the masked value itself
    assert interval_disclosure_by_attribute(x, x + 0.5, percents=[10], width="total", ranks="masked")[0] == 0.0


@pytest.mark.parametrize("ranks", ["original", "masked"])
def test_id_rank_intervals_record_by_record(ranks):
    """The rank intervals, one record at a time: the centre is the masked value's rank among the
    masked values ("masked", ties in record order), or the nearer of the original values around it
    ("original"); the interval runs w ranks each way, clipped at the ends."""
    from sdcrisk.measures.interval_disclosure import _inside_rank

    rng = np.random.default_rng(7)
    for n in (1, 2, 9, 40):
        x = np.round(rng.lognormal(size=n) * 3, 0)  # many ties
        y = np.round(x + rng.normal(size=n), 0)
        ws = np.array([0, 1, 3, n])
        s_orig, order = np.sort(x), sorted(range(n), key=lambda i: (y[i], i))
        s_mask = np.array([y[i] for i in order])
        inside = np.zeros(ws.size)
        for i in range(n):
            if ranks == "masked":
                s, c = s_mask, order.index(i)
            else:
                s = s_orig
                c = min(int(np.searchsorted(s, y[i])), n - 1)
                if c > 0 and abs(s[c - 1] - y[i]) < abs(s[c] - y[i]):
                    c -= 1
            for t, w in enumerate(ws):
                inside[t] += s[max(c - w, 0)] <= x[i] <= s[min(c + w, n - 1)]
        assert np.array_equal(_inside_rank(x, y, ws, ranks), inside / n)


def test_id_sd_hand_computed():
    x = np.column_stack([np.arange(10.0), np.arange(10.0) * 3])
    sd = x.std(axis=0, ddof=1)
    y = x + 0.045 * sd
    assert interval_disclosure(x, y, rule="sd", width="each_side", percents=[10]) == 100.0
    assert interval_disclosure(x, y, rule="sd", width="each_side", percents=[1]) == 0.0
    # average over p = 1..10: inside for p >= 5 (a = p/100 > 0.045) -> 6 of 10
    assert interval_disclosure(x, y, rule="sd", width="each_side") == pytest.approx(60.0)
    assert interval_disclosure(x, y, rule="sd", width="each_side", columns=[1]) == pytest.approx(60.0)


def test_id_bad_input():
    with pytest.raises(ValueError, match="percents"):
        interval_disclosure(X4, Y4, percents=[0])
    with pytest.raises(ValueError, match="rule"):
        interval_disclosure(X4, Y4, rule="iqr")
    with pytest.raises(ValueError, match="width"):
        interval_disclosure(X4, Y4, width="half")
    with pytest.raises(ValueError, match="columns"):
        interval_disclosure(X4, Y4, columns=[5])


# ------------------------------------------------------------------ scenarios
def test_known_scenarios_sizes():
    sc = known_scenarios(13)
    assert [len(c) for c in sc] == list(range(1, 8))
    assert all((c == np.arange(len(c))).all() for c in sc)
    assert [len(c) for c in known_scenarios(10)] == [1, 2, 3, 4, 5]
    allsub = known_scenarios(5, rule="all_subsets", j_max=2)
    assert len(allsub) == 5 + 10
    samp = known_scenarios(13, rule="sampled_subsets", rng=np.random.default_rng(0), per_size=4)
    sizes = [len(c) for c in samp]
    assert sizes.count(1) == 4 and sizes.count(7) == 4 and len(samp) == 28
    assert all(len(set(c.tolist())) == len(c) for c in samp)
    assert [len(b) for b in known_block_scenarios(6)] == [2, 3, 4, 5, 6]
    assert block_columns([np.array([0, 1]), np.array([2, 3]), np.array([4, 5])], np.array([0, 2])).tolist() == [0, 1, 4, 5]


def test_scenario_averages():
    assert average_linkage([10.0, 20.0, 60.0]) == pytest.approx(30.0)
    assert average_linkage([10.0, 20.0, 60.0], sizes=[1, 1, 2]) == pytest.approx((15 + 60) / 2)
    assert scenario_average([10.0, 20.0, 30.0], [np.array([0]), np.array([0, 1, 2])]) == pytest.approx(15.0)


def test_scenarios_bad_input():
    with pytest.raises(ValueError, match="m must"):
        known_scenarios(0)
    with pytest.raises(ValueError, match="rule"):
        known_scenarios(5, rule="last_j")
    with pytest.raises(ValueError, match="rng"):
        known_scenarios(5, rule="sampled_subsets")
    with pytest.raises(ValueError, match="j_max"):
        known_scenarios(5, j_max=6)
    with pytest.raises(ValueError, match="percent_by_scenario"):
        average_linkage([])
    with pytest.raises(ValueError, match="first"):
        known_block_scenarios(3, first=4)


# ------------------------------------------------------------------ scores
def test_scores_hand_computed():
    assert score(10, 30) == 20
    assert dr_standard(20, 30, 40) == pytest.approx(5 + 7.5 + 20)
    assert score1(10, 20, 30, 40) == pytest.approx(5 + 2.5 + 3.75 + 10)
    assert score_standard(10, 20, 30, 40) == score1(10, 20, 30, 40)
    assert score2(10, 20, 30, 40, 50) == pytest.approx(5 + 0.25 * 30 + 12.5)
    assert score_new(10, 20, 30, 40, 50) == pytest.approx(25.0)
    assert score_max(10, 20, 30, 40, 50) == pytest.approx(5 + 0.25 * 40 + 12.5)
    assert disclosure_risk(50, 20, 60, combine="max") == pytest.approx(55.0)
    assert dr_rsld(30, 20, 10, 40) == pytest.approx(0.166 * 60 + 20)
    assert dr_rsld(30, 20, 10, 40, rsld_weight="exact") == pytest.approx(10 + 20)


def test_rsld_weights_nearly_equal():
    rng = np.random.default_rng(3)
    comps = rng.uniform(0, 100, size=(5, 1000))
    paper = score_rsld(*comps)
    exact = score_rsld(*comps, rsld_weight="exact")
    assert np.all(exact >= paper)
    assert np.max(exact - paper) <= 0.5 * (1 / 6 - 0.166) * 300 + 1e-12  # <= 0.1 score points


def test_scores_bad_input():
    with pytest.raises(ValueError, match="dld"):
        score1(1, -2, 3, 4)
    with pytest.raises(ValueError, match="rsld_weight"):
        score_rsld(1, 2, 3, 4, 5, rsld_weight="0.17")
    with pytest.raises(ValueError, match="combine"):
        disclosure_risk(1, 2, combine="median")


def test_score_formulas_on_published_rows():
    """Score1/Score2 recomputed from the *published* components of the same row (Nin, Herranz & Torra (2007) Tables
    3, 4, 7, 8, 10, 11) reproduce the published scores to rounding: tests the formulas only."""
    rows = defaultdict(dict)
    for r in csv.DictReader(PUBLISHED.open()):
        rows[(r["paper"], r["table"], r["dataset"], r["method"], r["param"])][r["measure"]] = float(r["value"])
    checked = 0
    # components printed to 2 decimals (<= 0.005 each) and scores rounded to 2 decimals
    tol = 0.5 * 0.005 + 0.25 * 0.005 + 0.25 * 0.005 + 0.005 + 1e-9
    for key, v in rows.items():
        if "Score1" not in v:
            continue
        assert score1(v["IL"], v["DLD"], v["PLD"], v["ID"]) == pytest.approx(v["Score1"], abs=tol), key
        assert score2(v["IL"], v["DLD"], v["PLD"], v["LLD"], v["ID"]) == pytest.approx(v["Score2"], abs=tol), key
        checked += 1
    assert checked >= 40
