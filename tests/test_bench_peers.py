"""benchmarks/bench_peers.py: sdcrisk's side on a release with no record correspondence is what
``sdcrisk assess --control`` runs, its linkability is anonymeter's definition on anonymeter's
auxiliary columns (checked against a brute-force computation written here), and the page reports
it with both per-target time ratios."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bp():
    sys.path.insert(0, str(BENCH))
    import bench_peers

    return bench_peers


@pytest.fixture(scope="module")
def files(bp):
    rng = np.random.default_rng(7)
    original = bp.with_id(bp.population(400, rng))
    control = bp.with_id(bp.population(80, rng), start=401)
    release = bp.with_id(bp.population(400, rng), start=1)  # row numbers, as the generator's file has
    return original, control, release


@pytest.fixture(scope="module")
def side(bp, files):
    return bp.sdcrisk_synthetic(*files)


def _brute_linkability(original, control, release, halves):
    """Anonymeter's linkability by hand: per target, the release records nearest on each half
    (numeric columns standardised by the training + control mean and standard deviation, a
    different category adding 1 to the squared distance); credit |A ∩ B| / (|A| |B|)."""
    both = pd.concat([original, control], ignore_index=True)

    def nearest(targets, cols):
        d2 = np.zeros((len(targets), len(release)))
        for c in cols:
            if c in ("age", "hours", "income"):
                m, s = both[c].mean(), both[c].to_numpy(float).std()
                a = (targets[c].to_numpy(float) - m) / s
                b = (release[c].to_numpy(float) - m) / s
                d2 += (a[:, None] - b[None, :]) ** 2
            else:
                d2 += targets[c].to_numpy()[:, None] != release[c].to_numpy()[None, :]
        best = d2.min(axis=1, keepdims=True)
        return [set(np.flatnonzero(row)) for row in d2 <= best * (1 + 1e-9) + 1e-12]

    out = []
    for targets in (original, control):
        a, b = nearest(targets, halves[0]), nearest(targets, halves[1])
        out.append(sum(len(x & y) / (len(x) * len(y)) for x, y in zip(a, b)) / len(targets))
    return out


def test_linkability_is_anonymeters_definition_on_its_auxiliary_columns(bp, files, side):
    original, control, release = files
    link = side["linkage"]
    assert link["kind"] == "control" and len(link["rows"]) == 1
    row = link["rows"][0]
    assert row["attack"] == "nearest record, split known attributes"
    assert (row["n_training"], row["n_control"]) == (400, 80)
    train, ctrl = _brute_linkability(original, control, release, bp.LINK_AUX)
    assert row["rate"] == pytest.approx(100 * train, abs=1e-9)
    assert row["control_rate"] == pytest.approx(100 * ctrl, abs=1e-9)
    assert row["excess"] == pytest.approx(row["rate"] - row["control_rate"], abs=1e-9)
    assert row["excess_low"] <= row["excess"] <= row["excess_high"]
    assert link["targets_new"] == link["targets_old"] == 480


def test_every_criterion_on_training_and_control_targets(bp, side):
    so = side["singling_out"]
    assert {r["attack"] for r in so["rows"]} >= {"exact (keys)", "multivariate predicates"}
    assert so["targets_new"] == 400  # the release's records, each counted once
    assert so["targets_old"] == sum(r["n_training"] + r["n_control"] for r in so["rows"])
    for secret in bp.SECRETS:
        inf = side[f"inference:{secret}"]
        assert inf["rows"] and all(r["target"] == secret and r["n_training"] == 400 and r["n_control"] == 80
                                   for r in inf["rows"])
        assert inf["targets_new"] == 480
    assert side["membership"]["rows"] and "numeric attributes" in side["membership"]["note"]


def _linkability_page(bp, side, anonymeter_wall_s):
    """The page's tables for one independent release at 400 originals: anonymeter's linkability
    (``anonymeter_wall_s`` seconds, 10 + 10 targets) beside sdcrisk's ``side``."""
    a = {"status": "ok", "evaluator": "linkability", "wall_s": anonymeter_wall_s, "n_attacks_ori": 10,
         "n_attacks_control": 10, "attack_rate": {"value": 0.1, "error": 0.01},
         "baseline_rate": {"value": 0.05, "error": 0.01}, "control_rate": {"value": 0.1, "error": 0.01},
         "risk": 0.0, "risk_low": 0.0, "risk_high": 0.1}
    res = {"n": 400, "control": 80, "generator": {"generator": "g", "sdv": "0", "fit_s": 0.0, "rows": 400,
                                                  "sample_s": 0.0},
           "releases": {"independent": {"anonymeter": {"linkability": a}, "sdcrisk": side}}}
    return bp.tables([res], {})


def test_page_reports_linkability_and_both_ratios(bp, side):
    body, rows = _linkability_page(bp, side, 2.0)
    line = next(x for x in body.splitlines() if x.startswith("| independent | linkability |"))
    assert "not applicable" not in line and "nearest record, split known attributes" in line
    expected = (2.0 / 20) / (side["linkage"]["wall_s"] / 480)
    assert rows[0]["per_target_ratio"] == pytest.approx(expected)
    assert rows[0]["per_target_ratio_former"] == pytest.approx(expected)
    assert line.rstrip(" |").endswith(f"{expected:.0f} | {expected:.0f}")


def test_noise_release_linkability_is_anonymeters_definition(bp, files):
    """On a release one to one with the originals, the linkability the ratio uses is the same attack
    as on a synthetic release (brute force here), every original and every control record a target."""
    original, control, _ = files
    noise = bp.noisy(original, np.random.default_rng(3))
    link = bp.sdcrisk_split_linkability(original, control, noise)
    row = link["rows"][0]
    train, ctrl = _brute_linkability(original, control, noise.drop(columns=["rid"]), bp.LINK_AUX)
    assert row["attack"] == "nearest record, split known attributes"
    assert row["rate"] == pytest.approx(100 * train, abs=1e-9)
    assert row["control_rate"] == pytest.approx(100 * ctrl, abs=1e-9)
    assert train > ctrl  # noise of 10 % keeps most originals linkable; controls are not in the release
    assert link["targets_new"] == 480
    assert 0 < link["wall_s"] <= link["call_wall_s"]


def test_inference_seconds_include_the_standardisation(bp, side):
    for secret in bp.SECRETS:
        inf = side[f"inference:{secret}"]
        assert inf["standardise_s"] > 0
        assert inf["wall_s"] == pytest.approx(inf["rows_s"] + inf["standardise_s"])
        assert inf["wall_s"] <= inf["call_wall_s"] + inf["standardise_s"]


def test_noise_ratio_is_one_attack_against_one_attack(bp, files):
    """The noise row's ratio divides by the split-halves attack's seconds; the whole linkage
    command (8 attacks) is listed beside it with its own ratio."""
    original, control, _ = files
    a = {"status": "ok", "evaluator": "linkability", "wall_s": 2.0, "n_attacks_ori": 10, "n_attacks_control": 10,
         "attack_rate": {"value": 0.1, "error": 0.01}, "baseline_rate": {"value": 0.05, "error": 0.01},
         "control_rate": {"value": 0.1, "error": 0.01}, "risk": 0.0, "risk_low": 0.0, "risk_high": 0.1}
    link = {"kind": "control", "wall_s": 0.05, "call_wall_s": 0.06, "call_cpu_s": 0.06, "targets_new": 480,
            "targets_old": 480, "rows": [{"attack": "nearest record, split known attributes", "target": "",
                                          "rate": 50.0, "control_rate": 1.0, "excess": 49.0, "excess_low": 40.0,
                                          "excess_high": 55.0, "n_training": 400, "n_control": 80, "note": ""}]}
    command = {"status": "ok", "kind": "one-to-one", "wall_s": 4.0, "targets_new": 400, "targets_old": 400,
               "rows": [{"attack": "GDBRL", "rate": 97.0, "seconds": 1.5}]}
    res = {"n": 400, "control": 80, "generator": {"generator": "g", "sdv": "0", "fit_s": 0.0, "rows": 400,
                                                  "sample_s": 0.0},
           "releases": {"noise": {"anonymeter": {"linkability": a},
                                  "sdcrisk": {"linkage": link, "linkage_command": command, "membership": {}},
                                  "sdmetrics_dcr": {"status": "ok", "wall_s": 1.0, "score": 0.5,
                                                    "closer_to_training": 0.5}}}}
    body, rows = bp.tables([res], {})
    assert rows[0]["per_target_ratio"] == pytest.approx((2.0 / 20) / (0.05 / 480))
    line = next(x for x in body.splitlines() if "whole command" in x)
    assert f"per-target ratio {(2.0 / 20) / (4.0 / 400):.1f}" in line and "GDBRL 97.0 % (1.50 s)" in line


def test_releases_option_names_only_known_releases(bp, capsys):
    assert bp.main(["--releases", "noise,masked"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--releases" in err[0] and "independent,synthetic,noise" in err[0]


def test_univariate_row_is_timed_on_the_univariate_attacks(bp, files, side):
    """anonymeter's univariate mode is set against sdcrisk's exact and univariate attacks alone,
    timed on the same chunks; the multivariate mode against the whole singling-out step."""
    so = side["singling_out"]
    assert 0 < so["univariate_wall_s"]
    a = {"status": "ok", "evaluator": "singling_out_univariate", "wall_s": 1.0, "n_attacks": 100,
         "n_attacks_ori": 100, "n_attacks_control": 100}
    uni, _ = bp._sdc_per_target(side, "singling_out_univariate")
    multi, _ = bp._sdc_per_target(side, "singling_out_multivariate")
    assert uni == pytest.approx(so["univariate_wall_s"] / 400)
    assert multi == pytest.approx(so["wall_s"] / 400)
    assert bp._per_target(a) / uni == pytest.approx((1.0 / 100) / (so["univariate_wall_s"] / 400))


def test_page_lists_releases_in_one_order(bp):
    assert [r for r, _ in bp._in_order({"noise": {}, "synthetic": {}, "independent": {}})] == bp.RELEASES


def test_page_names_the_ratios_below_the_asked_factor(bp, side):
    body, rows = _linkability_page(bp, side, 1e-6)
    expected = (1e-6 / 20) / (side["linkage"]["wall_s"] / 480)
    assert expected < 50
    assert f"Per-target ratios below 50 at 400 originals: independent linkability {expected:.0f}." in body
    assert "Per-target ratios below 50 at 400 originals: none." in _linkability_page(bp, side, 1e6)[0]
