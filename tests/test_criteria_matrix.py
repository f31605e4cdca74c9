"""The three anonymisation criteria beside the attack matrix (options.criteria): what the cells
write on a release that is the original file itself and on one drawn independently of it, the
config keys, the table and the figure."""

import copy
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from sdcrisk.measures import units
from sdcrisk.replication import config as cfgmod
from sdcrisk.replication import figures
from sdcrisk.replication.evaluation import attack_matrix, criteria_rows

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ["DBRL", "RBRL-Sum", "GDBRL"]
CELL = cfgmod.Cell("attack_matrix", "census", "additive_noise", (("a", 0.25),), "a=0.25")


def _file(seed: int, n: int = 300, m: int = 6) -> np.ndarray:
    rng = np.random.Generator(np.random.PCG64(seed))
    return rng.lognormal(mean=2.0, sigma=0.6, size=(n, m))


def _measures(x, y, seed=0) -> dict[str, float]:
    rows = attack_matrix(x, y, CELL, {"attacks": ATTACKS, "criteria": True}, np.random.Generator(np.random.PCG64(seed)))
    assert all(known == "half" for _, known, _ in rows)
    return {m: v for m, _, v in rows}


def test_the_original_released_unchanged_gives_every_criterion_away():
    """y = x: every record linked, every secret read off its linked record, every predicate that
    isolates a release record isolates its original; the baselines recomputed here by brute force."""
    x = _file(1)
    n, m = x.shape
    got = _measures(x, x.copy())
    assert got["Linkability"] == 100.0 and got["Linkability_baseline"] == pytest.approx(100.0 / n)
    assert got["SinglingOut"] == 100.0
    assert got["Inference"] == 100.0
    # the release's median guessed for each secret (the attributes not known: the second half),
    # within 5 % of the true value; the worst row is the secret the median guesses worst
    known = int(np.ceil(m / 2))
    base = [100.0 * np.mean(np.abs(np.median(x[:, s]) - x[:, s]) <= 0.05 * np.abs(x[:, s])) for s in range(known, m)]
    assert got["Inference_baseline"] == pytest.approx(min(base))
    for c in units.CRITERIA:
        assert got[f"{c}_low"] <= got[c] <= got[f"{c}_high"]
        assert got[f"{c}_excess_low"] <= got[f"{c}_excess"] <= got[f"{c}_excess_high"]
        assert got[f"{c}_excess"] == pytest.approx(got[c] - got[f"{c}_baseline"])
        assert got[f"{c}_excess_low"] > 0  # the release gives every criterion away
    assert not [k for k, v in got.items() if units.out_of_range(k, v)]


def test_an_independent_release_gives_nothing_away():
    """A release drawn from the same distribution, independently of the originals: no excess
    beyond chance. The worst row is a maximum of point excesses over attacks (and secrets), some
    on a few trials (the univariate extremes: a handful), so its interval is what must hold 0;
    inference and linkability, every record a target, stay within a few points of it."""
    x = _file(2)
    got = _measures(x, _file(3))
    assert got["Linkability"] <= 2.0  # a handful of the 300 records at most
    for c in units.CRITERIA:
        assert got[f"{c}_excess_low"] <= 0.0 <= got[f"{c}_excess_high"], (c, got[f"{c}_excess_low"])
    assert got["Inference_excess"] < 5.0 and got["Linkability_excess"] < 2.0


def test_a_microaggregated_release_singles_out_nobody():
    """Every release record shared by k = 3 records (fixed-size groups of one value): no predicate
    isolates a release record, so nothing is singled out (0, the documented value)."""
    x = _file(4, n=300)
    y = np.repeat(x[::3], 3, axis=0)  # groups of three equal records
    got = dict((m, v) for m, _, v in criteria_rows(x, y, np.arange(3), {"DBRL": np.arange(300)},
                                                   np.random.Generator(np.random.PCG64(5))))
    assert all(got[f"SinglingOut{part}"] == 0.0 for part in
               units.CRITERION_PERCENT_PARTS + units.CRITERION_POINTS_PARTS)


def test_the_criteria_are_declared_only_when_asked():
    exp = {"evaluation": "attack_matrix", "options": {"attacks": ATTACKS}}
    assert not [m for m in cfgmod.evaluation_measures(exp) if m.startswith(units.CRITERIA)]
    exp["options"]["criteria"] = True
    declared = cfgmod.evaluation_measures(exp)
    assert set(_measures(_file(6), _file(6) * 1.01)) == set(declared) - {f"{a}_unconverged" for a in ATTACKS}
    assert set(attack_matrix(_file(6), _file(6), CELL, {"attacks": ATTACKS}, np.random.default_rng(0))) \
        .isdisjoint(declared[len(ATTACKS) * 2:])


def test_criteria_only_with_the_attack_matrix():
    cfg = cfgmod.load(ROOT / "config" / "quick.yaml")
    bad = copy.deepcopy(cfg)
    bad["experiments"]["muralidhar2016_additive"]["options"] = {"criteria": True}
    with pytest.raises(cfgmod.ConfigError, match=r"muralidhar2016_additive\.options\.criteria: only the attack_matrix"):
        cfgmod.validate(bad, "quick")
    bad = copy.deepcopy(cfg)
    bad["experiments"]["attack_matrix"]["options"]["criteria"] = "yes"
    with pytest.raises(cfgmod.ConfigError, match="options.criteria"):
        cfgmod.validate(bad, "quick")


def test_the_beyond_experiment_has_the_criteria_table_and_figure():
    for name in ("config.yaml", "quick.yaml"):
        exp = cfgmod.load(ROOT / "config" / name)["experiments"]["attack_matrix"]
        assert exp["options"]["criteria"] is True
        assert set(exp["tables"]["Tcriteria"]["measures"]) >= set(units.CRITERIA)
        assert exp["figures"]["Fcriteria"] == {**exp["figures"]["Fcriteria"], "kind": "criteria",
                                               "measure": list(units.CRITERIA)}


def test_the_figure_draws_each_risk_with_its_interval_beside_its_baseline():
    exp = cfgmod.load(ROOT / "config" / "quick.yaml")["experiments"]["attack_matrix"]
    rows = []
    for order, c in enumerate(cfgmod.cells({"experiments": {"attack_matrix": exp}})):
        for j, crit in enumerate(units.CRITERIA):
            risk = 10.0 + 20.0 * j + order
            for part, v in {"": risk, "_low": risk - 3, "_high": risk + 4, "_baseline": 5.0 + j}.items():
                rows.append({"dataset": c.dataset, "method": c.method, "param": c.label, "known": "half",
                             "measure": crit + part, "mean": v, "sd": 0.0, "n": 1, "order": order})
    fig = figures.build_figure(pd.DataFrame(rows), exp, "Fcriteria", figures.published_points(exp))
    axes = [ax for ax in fig.axes if ax.get_yticklabels()]
    assert len(axes) == 2  # Census and EIA
    methods = len(exp["methods"])
    for ax in axes:
        assert len(ax.get_yticklabels()) == methods
        baselines = [line for line in ax.get_lines() if line.get_gid() == "baseline"]
        assert sorted({float(v) for line in baselines for v in line.get_xdata()}) == [5.0, 6.0, 7.0]
        whiskers = [seg for coll in ax.collections for seg in coll.get_segments()]
        widths = {round(float(seg[1][0] - seg[0][0]), 6) for seg in whiskers}
        assert widths == {7.0}  # low = risk - 3, high = risk + 4
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["Linkability", "Singling out", "Inference"]
    plt.close(fig)
