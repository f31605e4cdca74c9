"""The report of ``sdcrisk assess`` (:mod:`sdcrisk.assess.report`) on hand-built result tables, and the
measures it rests on: Wilson's interval and the random-guess rate
(:mod:`sdcrisk.measures.uncertainty`), IL1s and IL-s (:mod:`sdcrisk.measures.information_loss`)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest

from sdcrisk.assess import report
from sdcrisk.measures.information_loss import il1s, il_components, il_s, il_s_components
from sdcrisk.measures.uncertainty import random_guess_percent, wilson_interval

ATTACKS = ["DBRL", "RBRL-Sum", "RBRL-Max", "PRL", "PRL-graded", "RS-RL(p<=20%)", "L-RL(MA)", "GDBRL"]
LOSSES = ["IL1", "IL2", "IL3", "IL4", "IL5", "IL", "IL1s", "IL-s"]


def results(n_files=1, n=200, seed=0, names=None, blocks=1):
    """A results table as ``sdcrisk assess`` concatenates it: every attack, ID and the losses per
    masked file, with Wilson intervals, the random-guess rate and GDBRL's tie draws."""
    rng = np.random.Generator(np.random.PCG64(seed))
    tables = []
    for f in range(n_files):
        rows = []
        for a in ATTACKS:
            linked = float(rng.integers(0, n + 1)) - (0.5 if a == "GDBRL" and f % 2 else 0.0)
            linked = max(linked, 0.0)
            pct = 100.0 * linked / n
            low, high = wilson_interval(linked, n)
            draws = (max(0.0, pct - 1.5), min(100.0, pct + 1.5)) if a == "GDBRL" else (math.nan, math.nan)
            rows.append((a, report.RISK, "all", "a,b,c,d", 4, n, linked, pct, low, high, 100.0 * blocks / n,
                         *draws, 0.1, ""))
        rows.append(("ID", report.RISK, "all", "a,b,c,d", 4, n, math.nan, 61.0, 58.0, 64.0, math.nan, math.nan,
                     math.nan, 0.01, ""))
        for m, v in zip(LOSSES, rng.uniform(0.0, 60.0, len(LOSSES))):
            rows.append((m, report.LOSS, "", "", 0, n, math.nan, float(v), math.nan, math.nan, math.nan, math.nan,
                         math.nan, 0.01, ""))
        t = pd.DataFrame(rows, columns=report.RESULT_COLUMNS)
        tables.append(t.assign(masked=(names[f] if names else f"release_{f:02d}_masked.csv")))
    return pd.concat(tables, ignore_index=True)


# ----------------------------------------------------------------------------- Wilson interval
@pytest.mark.parametrize("k,n", [(0, 1), (1, 1), (0, 10), (3, 10), (10, 10), (57, 200), (199, 200), (1, 1080),
                                 (4000, 4092)])
def test_wilson_matches_scipy_for_whole_counts(k, n):
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(k, n)
    assert low == pytest.approx(100 * ci.low, abs=1e-9) and high == pytest.approx(100 * ci.high, abs=1e-9)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.99])
def test_wilson_level(level):
    from scipy.stats import binomtest

    ci = binomtest(13, 40).proportion_ci(confidence_level=level, method="wilson")
    assert wilson_interval(13, 40, level) == pytest.approx((100 * ci.low, 100 * ci.high), abs=1e-9)


@pytest.mark.parametrize("k,n", [(0.5, 10), (2.25, 7), (119.5, 200), (0.1, 3)])
def test_wilson_for_fractional_counts_is_the_score_test_inversion(k, n):
    """Derived independently of the closed form: the interval is the set of p with
    |k/n - p| <= z sqrt(p (1 - p) / n); its ends are the roots found numerically."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    z, phat = norm.ppf(0.975), k / n
    score = lambda p: abs(phat - p) - z * math.sqrt(p * (1 - p) / n)  # noqa: E731
    low = brentq(score, 1e-15, phat) if phat > 0 else 0.0
    high = brentq(score, phat, 1 - 1e-15) if phat < 1 else 1.0
    assert wilson_interval(k, n) == pytest.approx((100 * low, 100 * high), abs=1e-7)


def test_wilson_is_vectorised_and_passes_nan_through():
    k = np.array([0.0, 2.5, np.nan, 10.0])
    low, high = wilson_interval(k, 10)
    assert low.shape == high.shape == (4,)
    assert low[0] == 0.0 and high[3] == 100.0 and np.isnan(low[2]) and np.isnan(high[2])
    for i in (0, 1, 3):
        assert (low[i], high[i]) == pytest.approx(wilson_interval(float(k[i]), 10))
    low2, _ = wilson_interval([1, 2], [10, 20])
    assert low2 == pytest.approx([wilson_interval(1, 10)[0], wilson_interval(2, 20)[0]])


def test_wilson_widens_as_n_shrinks_and_contains_the_estimate():
    for n in (5, 50, 500):
        low, high = wilson_interval(0.3 * n, n)
        assert low < 30 < high
    assert np.diff([np.subtract(*wilson_interval(0.3 * n, n)[::-1]) for n in (5, 50, 500)]).max() < 0


@pytest.mark.parametrize("k,n,level", [(-1, 10, 0.95), (11, 10, 0.95), (1, 0, 0.95), (1, 10, 1.0), (1, 10, 0)])
def test_wilson_refuses_impossible_input(k, n, level):
    with pytest.raises(ValueError):
        wilson_interval(k, n, level)


def test_random_guess_is_one_expected_link_per_block():
    """Exact expectation by enumerating every one-to-one guess within blocks of 3, 2 and 1 records."""
    sizes = [3, 2, 1]
    fixed = [np.mean([sum(p[i] == i for i in range(b)) for p in itertools.permutations(range(b))]) for b in sizes]
    assert sum(fixed) == pytest.approx(len(sizes))
    assert random_guess_percent(sizes) == pytest.approx(100 * sum(fixed) / sum(sizes))
    assert random_guess_percent(200) == pytest.approx(0.5) == random_guess_percent([200])
    assert random_guess_percent([1] * 7) == 100.0
    assert random_guess_percent([0, 4, 0, 4]) == 25.0
    for bad in ([], [0], [-1, 3], [1.5]):
        with pytest.raises(ValueError):
            random_guess_percent(bad)


# ----------------------------------------------------------------------------- IL1s, IL-s
def _noisy(n=200, m=4, shift=0.0, seed=3):
    rng = np.random.Generator(np.random.PCG64(seed))
    x = rng.normal(size=(n, m)) + shift
    return x, x + rng.normal(scale=0.3, size=x.shape)


def test_il1s_is_yancey_winkler_creecy():
    x, y = _noisy(shift=5.0)
    expected = np.mean(np.abs(x - y) / (math.sqrt(2.0) * x.std(axis=0, ddof=1)))
    assert il1s(x, y) == pytest.approx(expected, rel=1e-12)
    assert il1s(x, y) == il_components(x, y, il1="sd_sqrt2")[0]  # the existing rule, reused


def test_il_s_parts_by_hand():
    x, y = _noisy(n=50, m=3, shift=2.0, seed=5)
    sd = x.std(axis=0, ddof=1)
    vx, vy = np.cov(x, rowvar=False), np.cov(y, rowvar=False)
    i, j = np.triu_indices(3)
    parts = il_s_components(x, y)
    assert parts[1] == pytest.approx(np.mean(np.abs(x.mean(0) - y.mean(0)) / sd))
    assert parts[2] == pytest.approx(np.mean(np.abs(vx[i, j] - vy[i, j]) / (sd[i] * sd[j])))
    assert parts[3] == pytest.approx(np.mean(np.abs(np.diag(vx) - np.diag(vy)) / np.diag(vx)))
    assert il_s(x, y) == pytest.approx(100 * parts.mean())
    assert il_s(x, x) == 0.0


def test_il_s_does_not_explode_near_zero_where_il_does():
    centred, far = _noisy(shift=0.0), _noisy(shift=50.0)
    il_c, il_f = (100 * il_components(*p) for p in (centred, far))
    assert il_c[0] > 20 * il_f[0] and il_c[1] > 20 * il_f[1]  # IL1, IL2 of the same noise explode near zero
    assert il_c[2] > 50  # IL3: covariances of independent attributes are near zero anywhere
    assert il_s(*centred) == pytest.approx(il_s(*far), rel=1e-9)
    assert il_s(*centred) < 20


def test_il_s_ignores_location_and_units():
    x, y = _noisy(seed=7)
    a, b = np.array([1e-3, 2.0, 1e4, 7.0]), np.array([-5.0, 0.0, 1e6, 3.0])
    assert il_s(a * x + b, a * y + b) == pytest.approx(il_s(x, y), rel=1e-9)


def test_il_s_refuses_a_constant_original_attribute():
    x, y = _noisy(n=20, m=2)
    x[:, 1] = 4.0
    with pytest.raises(ValueError):
        il_s_components(x, y)


# ----------------------------------------------------------------------------- headline and gate
def test_headline_is_the_highest_linkage_risk_with_its_interval_and_the_random_guess():
    r = results(2, seed=4)
    top = report.headline(r)
    assert list(top.masked) == list(dict.fromkeys(r.masked))
    for t in top.itertuples():
        g = r[(r.masked == t.masked) & (r.kind == report.RISK) & (r.measure != "ID")]
        best = g.loc[g.percent.idxmax()]
        assert (t.worst_attack, t.max_linked_percent) == (best.measure, best.percent)
        assert (t.low, t.high) == pytest.approx(wilson_interval(best.linked, best.n))
        assert t.baseline == pytest.approx(0.5)
        assert t.low <= t.max_linked_percent <= t.high
    sentence = report.headline_text(r)
    worst = top.loc[top.max_linked_percent.idxmax()]
    assert sentence.startswith(f"Highest risk: {worst.worst_attack} links {worst.max_linked_percent:.1f} %")
    assert "95 % interval" in sentence and "random guess links 0.50 %" in sentence


def test_interval_disclosure_is_not_the_headline_and_ties_keep_the_table_order():
    r = results(1)
    risk = r.kind == report.RISK
    r.loc[risk & (r.measure != "ID"), "percent"] = 40.0
    r.loc[r.measure == "ID", "percent"] = 99.0
    top = report.headline(r).iloc[0]
    assert top.worst_attack == "DBRL" and top.max_linked_percent == 40.0


def test_gate_uses_the_point_estimate_and_names_attack_and_file():
    r = results(3, seed=1)
    top = report.headline(r)
    limit = float(top.max_linked_percent.median())
    lines = report.over_limit(r, limit)
    assert len(lines) == int((top.max_linked_percent > limit).sum()) >= 1
    for t, line in zip(top[top.max_linked_percent > limit].itertuples(), lines):
        assert line.startswith(f"{t.worst_attack} links {t.max_linked_percent:.2f} % of the records of {t.masked}")
        assert line.endswith(f"above --max-risk {limit:g}")
    assert report.over_limit(r, float(top.max_linked_percent.max())) == []  # equal is not above
    only_id = r[(r.measure == "ID") | (r.kind == report.LOSS)]
    assert report.over_limit(only_id, 0.0) == []  # ID does not gate


def test_intruder_line_for_every_measure_assess_runs():
    from sdcrisk.assess.assessment import ALL_ATTACKS

    for name in ALL_ATTACKS:
        assert len(report.INTRUDER.get(name, "")) > 20, name
        assert "\n" not in report.INTRUDER[name]


# ----------------------------------------------------------------------------- figures
def _check_text_boxes(fig):
    boxes = report.text_boxes(fig)
    assert boxes
    frame = fig.bbox
    for text, b in boxes:
        assert (b.x0 >= frame.x0 - 0.5 and b.y0 >= frame.y0 - 0.5 and b.x1 <= frame.x1 + 0.5
                and b.y1 <= frame.y1 + 0.5), f"{text!r} lies outside the figure"
    for (t1, b1), (t2, b2) in itertools.combinations(boxes, 2):
        assert not b1.overlaps(b2), f"{t1!r} overlaps {t2!r}"
    return [t for t, _ in boxes]


@pytest.mark.parametrize("n_files", [1, 3, 12])
def test_risk_utility_map_is_readable_with_any_number_of_files(n_files):
    import matplotlib.pyplot as plt

    r = results(n_files, seed=n_files)
    fig = report.risk_utility_map(r)
    try:
        texts = _check_text_boxes(fig)
        labels = report.file_labels(list(dict.fromkeys(r.masked)))
        assert all(label in texts for label in labels.values())  # one legend entry per file
        assert all(a in texts for a in ATTACKS)  # one per attack
        assert "ID" not in texts
        ax = fig.axes[0]
        assert "IL-s" in ax.get_xlabel()
        colours = {tuple(np.round(line.get_color() if isinstance(line.get_color(), tuple)
                                  else plt.matplotlib.colors.to_rgba(line.get_color()), 4))
                   for line in ax.lines if line.get_marker() not in (None, "None", "", "_", "|")}
        assert len(colours) == n_files
        # error bars: one vertical segment per file and attack, from the low to the high bound
        segments = [s for c in ax.collections for s in c.get_segments()]
        assert len(segments) == n_files * len(ATTACKS)
        spans = sorted((round(s[:, 1].min(), 6), round(s[:, 1].max(), 6)) for s in segments)
        risk = r[(r.kind == report.RISK) & (r.measure != "ID")]
        assert spans == sorted(zip(risk.low.round(6), risk.high.round(6)))
        # the markers sit at each file's IL-s (spread by at most 1.5 % of the axis)
        ils = r[r.measure == "IL-s"].set_index("masked").percent
        width = ax.get_xlim()[1]
        for f, masked in enumerate(dict.fromkeys(r.masked)):
            xs = [line.get_xdata()[0] for line in ax.lines if line.get_marker() not in (None, "None", "")
                  and len(line.get_xdata()) == 1]
            assert any(abs(x - ils[masked]) <= 0.0076 * width for x in xs)
    finally:
        plt.close(fig)


@pytest.mark.parametrize("n_files", [1, 3, 12])
def test_attack_chart_is_readable_with_any_number_of_files(n_files):
    import matplotlib.pyplot as plt

    r = results(n_files, seed=10 + n_files)
    fig = report.attack_chart(r)
    try:
        texts = _check_text_boxes(fig)
        assert all(a in texts for a in [*ATTACKS, "ID"])
        assert "random guess" in texts and "range over tie draws" in texts
        ax = fig.axes[0]
        segments = [s for c in ax.collections for s in c.get_segments()]
        assert len(segments) == n_files * (len(ATTACKS) + 1)  # a horizontal 95 % bar per file and measure
    finally:
        plt.close(fig)


def test_long_and_repeated_file_names_get_distinct_short_labels():
    names = ["a/x.csv", "b/x.csv", "c/" + "very_long_name_" * 6 + "1.csv", "c/" + "very_long_name_" * 6 + "2.csv"]
    labels = report.file_labels(names)
    assert len(set(labels.values())) == 4
    assert labels["a/x.csv"] == "a/x.csv" and all(len(v) <= 40 for v in labels.values())


# ----------------------------------------------------------------------------- the files
def test_report_files_carry_every_column_headline_intervals_and_intruders(tmp_path):
    r = results(3, seed=2)
    blocking = {"keys": ["region", "sex"], "blocks": 12, "unique_share": 2.5}
    meta = {"original": "orig.csv", "masked": list(dict.fromkeys(r.masked)), "pairing": "row order",
            "warnings": ["a warning"], "seed": 0, "command": "sdcrisk assess ...",
            "blocking": {m: blocking for m in dict.fromkeys(r.masked)}, "max_risk": 50.0}
    files = report.write_report(r, tmp_path / "rep", meta)
    assert [f.name for f in files] == list(report.FILES)
    doc = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert len(doc["results"]) == len(r)
    for row in doc["results"]:
        assert set(report.RESULT_COLUMNS) | {"masked"} <= set(row)
    gd = [row for row in doc["results"] if row["measure"] == "GDBRL"]
    assert all(row["draws_low"] <= row["percent"] <= row["draws_high"] for row in gd)
    assert all(row["draws_low"] is None for row in doc["results"] if row["measure"] == "DBRL")
    assert doc["headline_text"] == report.headline_text(r)
    assert {h["masked"] for h in doc["headline"]} == set(r.masked)
    assert all({"low", "high", "baseline", "IL-s"} <= set(h) for h in doc["headline"])
    assert set(doc["intruder"]) == {*ATTACKS, "ID"}
    assert doc["gate"] == report.over_limit(r, 50.0)
    md = (tmp_path / "rep" / "report.md").read_text()
    page = (tmp_path / "rep" / "report.html").read_text()
    for text in (md, page):
        assert report.headline_text(r).split(" (")[0] in text
        assert "What the intruder knows and does" in text and "PRL-graded" in text
        assert "blocking keys region, sex" in text and "12 blocks" in text and "2.50 % of the records are unique" in text
        assert "over its tie draws" in text and "95 % interval" in text and "random guess %" in text
        assert "IL-s" in text and "IL1s" in text
    assert page.count("data:image/png;base64,") == 2 and "<script" not in page
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == sorted(report.FILES)  # no temporary left


def test_report_of_results_without_the_new_columns_still_renders(tmp_path):
    r = results(1).drop(columns=["low", "high", "baseline", "draws_low", "draws_high"])
    r = r[~r.measure.isin(["IL1s", "IL-s"])]
    report.write_report(r, tmp_path, {"original": "o.csv"})
    doc = json.loads((tmp_path / "report.json").read_text())
    assert all(row["low"] is None for row in doc["results"])
    assert doc["blocking"] == {} and "Blocking" not in (tmp_path / "report.md").read_text()


def test_missing_numbers_in_meta_are_null_in_json(tmp_path):
    meta = {"blocking": {"keys": ["k"], "blocks": np.int64(3), "unique_share": math.nan}, "max_risk": None}
    report.write_report(results(1), tmp_path, meta)
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["blocking"] == {"keys": ["k"], "blocks": 3, "unique_share": None}
    assert "3 blocks" in (tmp_path / "report.md").read_text()


# ----------------------------------------------------------------------------- the gate never passes silently
MEMORY_NOTE = ("not run: GDBRL on 200 records: its expected peak (measured per record at 10^6, sdcrisk.assess.workers) "
               "is 1.2 GiB; the memory limit is 200 MiB (SDCRISK_MEMORY_LIMIT)")
UNPAIRED = ("masked.csv: records paired by row order are no closer than random pairs: the masked rows may be in "
            "another order than the original's; give the id column (--id) if the files have one")


def _with(r, measure, percent, note="", masked=None):
    """``r`` with ``measure``'s row (of the first file, or ``masked``) set to ``percent`` and ``note``."""
    r = r.copy()
    at = (r.measure == measure) & (r.masked == (masked or r.masked.iloc[0]))
    r.loc[at, "percent"] = percent
    r.loc[at, "note"] = note
    if not np.isfinite(percent):
        r.loc[at, ["linked", "low", "high", "draws_low", "draws_high"]] = math.nan
    return r


def _capped(r, cap):
    """Every linkage percentage of ``r`` at most ``cap`` (so that a gate at ``cap`` has nothing above it)."""
    r = r.copy()
    over = (r.kind == report.RISK) & (r.measure != "ID") & (r.percent > cap)
    r.loc[over, "percent"] = cap
    r.loc[over, "linked"] = cap / 100.0 * r.loc[over, "n"]
    low, high = wilson_interval(r.loc[over, "linked"].to_numpy(), r.loc[over, "n"].to_numpy())
    r.loc[over, "low"], r.loc[over, "high"] = low, high
    r.loc[over, ["draws_low", "draws_high"]] = math.nan
    return r


def test_gate_prints_the_digits_that_show_a_value_above_the_limit():
    limit = 32.84
    for value in (32.84 + 1e-7, 32.8400000000001, 32.845, 40.0):
        r = _with(_capped(results(1), 30.0), "DBRL", value)
        (line,) = report.over_limit(r, limit)
        shown = line.split(" links ")[1].split(" %")[0]
        decimals = len(shown.split(".")[1])
        assert float(shown) > limit and decimals >= 2
        if decimals > 2:  # no fewer digits would show it above the limit
            assert float(f"{value:.{decimals - 1}f}") <= limit
        assert line.endswith("above --max-risk 32.84")


def test_gate_is_undecided_when_an_attack_was_refused():
    r = _with(_capped(results(2), 20.0), "GDBRL", math.nan, MEMORY_NOTE)
    verdict = report.gate(r, 50.0)
    assert verdict["status"] == report.UNDECIDED and verdict["failed"] == []
    (why,) = verdict["undecided"]
    assert "GDBRL was not run on release_00_masked.csv" in why and "memory limit is 200 MiB" in why
    assert any("gate cannot pass" in line for line in verdict["lines"])
    # an attack that ran above the limit fails the gate whatever was not run; the missing one is still said
    failing = report.gate(r, 10.0)
    assert failing["status"] == report.FAIL and failing["failed"] == report.over_limit(r, 10.0)
    assert any("GDBRL was not run" in line for line in failing["lines"])


def test_gate_every_attack_refused_is_undecided_not_passed():
    r = results(1)
    for a in ATTACKS:
        r = _with(r, a, math.nan, MEMORY_NOTE.replace("GDBRL", a))
    verdict = report.gate(r, 5.0)
    assert verdict["status"] == report.UNDECIDED and len(verdict["undecided"]) == len(ATTACKS)
    assert not any(line.startswith("every attack at or below") for line in verdict["lines"])
    assert verdict["lines"][-1].startswith("no record-linkage attack ran: the gate cannot pass")


def test_gate_is_undecided_when_the_pairing_is_not_verified():
    r = _capped(results(1), 3.0)
    assert report.gate(r, 5.0)["status"] == report.PASS
    verdict = report.gate(r, 5.0, [UNPAIRED])
    assert verdict["status"] == report.UNDECIDED
    assert verdict["undecided"] == ["the pairing could not be verified: masked.csv: records paired by row order "
                                    "are no closer than random pairs (pair them by an id column, --id)"]


@pytest.mark.parametrize("note", ["not applicable: the masked file has no groups of k >= 2 equal values "
                                  "(not microaggregated)",
                                  "not applicable: no numeric known attribute (the attack compares ordered values only)"])
def test_an_attack_that_does_not_apply_does_not_hold_the_gate(note):
    r = _with(_capped(results(1), 20.0), "L-RL(MA)", math.nan, note)
    r = _with(r, "ID", math.nan, "not applicable: no numeric known attribute")  # ID never gates
    verdict = report.gate(r, 50.0)
    assert verdict["status"] == report.PASS and verdict["lines"] == ["every attack at or below --max-risk 50 %"]
    missing = report.missing_rows(r)
    assert list(missing.status) == ["not applicable", "not applicable"]
    assert list(missing.measure) == ["L-RL(MA)", "ID"]


def test_the_report_and_the_summary_say_what_was_not_run_and_why_the_gate_is_undecided(tmp_path):
    r = _with(_capped(results(1), 20.0), "GDBRL", math.nan, MEMORY_NOTE)
    r = _with(r, "L-RL(MA)", math.nan, "not applicable: the masked file has no groups of k >= 2 equal values")
    report.write_report(r, tmp_path, {"original": "o.csv", "max_risk": 50.0, "warnings": []})
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["gate_status"] == "undecided" and doc["gate"] == report.gate(r, 50.0)["lines"]
    assert [(x["measure"], x["status"]) for x in doc["not_run"]] == [("L-RL(MA)", "not applicable"),
                                                                   ("GDBRL", "not run")]
    reason = MEMORY_NOTE[len("not run: "):]
    md, page = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    for text in (md, page):
        assert "Gate undecided" in text and "GDBRL was not run on release_00_masked.csv" in text
        assert "every attack at or below" not in text
        assert "no groups of k &gt;= 2 equal values" in text or "no groups of k >= 2 equal values" in text
    summary = report.summary_text(r)
    assert f"GDBRL on release_00_masked.csv, scenario all: not run ({reason})" in summary
    assert "L-RL(MA) on release_00_masked.csv, scenario all: not applicable" in summary
    gd = [line for line in summary.splitlines() if line.strip().startswith("GDBRL")][0]
    assert "not run" in gd and "0.00" not in gd


# ----------------------------------------------------------------------------- readable tables
class _Tables:
    """The tables of an HTML page: each a list of rows of (tag, class, text) cells, and the CSS."""

    def __init__(self, page: str):
        from html.parser import HTMLParser

        tables, css = [], []

        class P(HTMLParser):
            cell = None

            def handle_starttag(self, tag, attrs):
                if tag == "table":
                    tables.append([])
                elif tag == "tr":
                    tables[-1].append([])
                elif tag in ("td", "th"):
                    self.cell = [tag, dict(attrs).get("class", ""), ""]
                elif tag == "style":
                    self.cell = ["style", "", ""]

            def handle_data(self, data):
                if self.cell is not None:
                    self.cell[2] += data

            def handle_endtag(self, tag):
                if tag in ("td", "th") and self.cell:
                    tables[-1][-1].append(tuple(self.cell))
                    self.cell = None
                elif tag == "style" and self.cell:
                    css.append(self.cell[2])
                    self.cell = None

        P().feed(page)
        self.tables, self.css = tables, "".join(css)

    def headers(self):
        return [c[2] for t in self.tables for c in t[0]]


FIELD_NAMES = {"max_linked_percent", "worst_attack", "worst_scenario", "baseline", "low", "high", "n_known",
               "measure", "percent", "masked", "note", "n", "linked"}


def test_report_tables_have_readable_headers_nowrap_names_and_each_repeated_note_once(tmp_path):
    r = results(2, seed=7)
    long_note = " ".join(f"word{k}" for k in range(60))  # a 60-word note on every attack row
    risk = (r.kind == report.RISK) & (r.measure != "ID")
    r.loc[risk, "note"] = long_note
    r.loc[(r.measure == "DBRL") & (r.masked == r.masked.iloc[0]), "note"] = "short"  # one row: stays inline
    report.write_report(r, tmp_path, {"original": "o.csv"})
    page, md = (tmp_path / "report.html").read_text(), (tmp_path / "report.md").read_text()
    assert page.count(long_note) == 1 and md.count(long_note) == 1
    parsed = _Tables(page)
    assert not FIELD_NAMES & set(parsed.headers())
    assert {"highest % linked", "95 % interval", "attack", "notes"} <= set(parsed.headers())
    css = parsed.css.replace(" ", "")
    assert ".nowrap{white-space:nowrap}" in css and "min-width" in css.split("td.note")[1].split("}")[0]
    detail = next(t for t in parsed.tables if "notes" in [c[2] for c in t[0]])
    head = [c[2] for c in detail[0]]
    for row in detail[1:]:
        cells = dict(zip(head, row))
        assert "nowrap" in cells["attack"][1].split() and "nowrap" in cells["95 % interval"][1].split()
        assert "note" in cells["notes"][1].split()
        if cells["attack"][2] not in ("DBRL", "ID"):
            assert cells["notes"][2] == "[1]"  # the mark of the note given once under the table
    assert sum(1 for row in detail[1:] if dict(zip(head, row))["notes"][2] == "short") == 1
    md_heads = [line for line in md.splitlines() if line.startswith("| ")]
    assert not any(f"| {f} |" in line for line in md_heads for f in FIELD_NAMES)
    assert report.summary_text(r).count(long_note) == 2  # once per file in the console


def test_footnotes_mark_repeated_and_long_notes_once():
    long = "x" * (report.FOOTNOTE_LENGTH + 1)
    shown, listed = report.footnotes(["a", "b", "b", "", long, "a", None, "c"])
    assert listed == ["a", "b", long]
    assert shown == ["[1]", "[2]", "[2]", "", "[3]", "[1]", "", "c"]
