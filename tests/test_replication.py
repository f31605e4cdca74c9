"""The replication check's status rules, calibration split and pinned differences."""

from pathlib import Path

import pandas as pd
import pytest

from sdcrisk.replication import (CALIBRATION, HELD_OUT, ROW_KEY, UNEXPLAINED, by_paper, calibration_split, explain,
                                 load_calibration, load_explanations, markdown_report, match_or_close, per_paper_table, propose_pins,
                                 read_pins, stale_pins, status)

ROOT = Path(__file__).resolve().parents[1]
KNOWN = ROOT / "docs" / "known_differences.yaml"
CALIBRATION_FILE = ROOT / "docs" / "calibration.yaml"
PINS = ROOT / "docs" / "differing_cells.csv"


@pytest.mark.parametrize("args, expected", [
    ((12.34, 2, 12.344, 0.0, 1, None, "percent", None), ("match", "within published rounding")),
    ((12.34, 2, 12.36, 0.0, 1, None, "percent", None), ("close", "within 1 point")),
    # no relative tolerance: 4.8 % off a value of 50 is more than 1 point
    ((50.0, 1, 52.4, 0.0, 1, None, "percent", None), ("differs", "outside every tolerance")),
    ((50.0, 1, 53.0, 0.0, 1, None, "percent", None), ("differs", "outside every tolerance")),
    # 2 sd sqrt(1/4 + 1/100) = 2 * 2 * 0.51 = 2.04 (+ half unit 0.05)
    ((10.0, 1, 12.0, 2.0, 4, 100, "percent", None), ("match", "within 2 combined standard errors")),
    # record counts: 1 % of n = 10.8 records for Census
    ((100.0, 0, 110.0, 0.0, 1, None, "records", 1080), ("close", "within 1% of n records")),
    ((100.0, 0, 120.0, 0.0, 1, None, "records", 1080), ("differs", "outside every tolerance")),
    # a count of 3074 off by 125 records is 4 % relative but 3 % of n = 4092: differs
    ((3074.0, 0, 3199.0, 0.0, 1, None, "records", 4092), ("differs", "outside every tolerance")),
    ((100.0, 0, float("nan"), 0.0, 1, None, "records", 1080), ("missing", "no regenerated value")),
])
def test_status_rules(args, expected):
    assert status(*args) == expected


def _rows(**cols):
    base = {"kind": "cell", "paper": "p", "table": "T1", "dataset": "census", "method": "m", "param": "1",
            "known": "1", "measure": "DLD", "published": 1.0, "mean": 2.0, "sd": 0.0, "n": 1, "status": "differs"}
    n = max(len(v) for v in cols.values())
    return pd.DataFrame({k: cols.get(k, [v] * n) for k, v in base.items()})


GROUPS = [{"id": "a", "section": 1, "title": "A", "where": [{"paper": "p", "tables": ["T1"], "measures": ["PLD"]}]},
          {"id": "b", "section": 2, "title": "B", "where": [{"paper": "p"}]},
          {"id": "c", "section": 3, "title": "C", "where": [{"paper": "q"}, {"methods": ["z"]}]}]


def test_explain_uses_the_pinned_rows_only():
    df = _rows(paper=["p", "p", "q", "r", "r", "p"], measure=["PLD", "DLD", "DLD", "DLD", "DLD", "PLD"],
               method=["m", "m", "m", "z", "m", "m"], status=["differs"] * 5 + ["close"])
    pins = propose_pins(df, GROUPS)
    assert pins["cause"].tolist() == ["a", "b", "c", "c", UNEXPLAINED]  # the first group whose scope covers it
    pins = pins.iloc[:3]                                                  # two rows not pinned
    assert explain(df, pins).tolist() == ["a", "b", "c", UNEXPLAINED, UNEXPLAINED, ""]
    # a pinned row that now is close is stale; a kept pin keeps its cause even if the scopes change
    moved = df.assign(status=["close"] + ["differs"] * 4 + ["close"])
    assert stale_pins(moved, pins)[ROW_KEY].values.tolist() == pins.iloc[:1][ROW_KEY].values.tolist()
    assert propose_pins(df, [GROUPS[1]], pins)["cause"].tolist()[:3] == ["a", "b", "c"]


def test_calibration_split_and_report():
    choices = [{"id": "x", "choice": "X", "section": "S", "calibrated_on": [{"paper": "p", "tables": ["T1"]}]},
               {"id": "y", "choice": "Y", "section": "S", "calibrated_on": [{"measures": ["DLD"]}]},
               {"id": "z", "choice": "Z", "section": "S", "calibrated_on": []}]
    df = _rows(paper=["p", "p", "q", "q"], table=["T1", "T2", "T1", "T1"], measure=["PLD", "PLD", "DLD", "PLD"],
               method=["mdav", "mdav", "rankswap", "rankswap"], status=["match", "differs", "close", "differs"])
    split, by = calibration_split(df, choices)
    assert split.tolist() == [CALIBRATION, HELD_OUT, CALIBRATION, HELD_OUT]
    assert by.tolist() == ["x", "", "y", ""]
    df = df.assign(split=split, calibrated_by=by)
    shares = match_or_close(df)
    assert shares[CALIBRATION] == {"ok": 2, "n": 2, "share": 1.0} and shares[HELD_OUT] == {"ok": 0, "n": 2, "share": 0.0}
    per = by_paper(df)
    assert per["p"]["all"]["n"] == 2 and per["p"][CALIBRATION]["ok"] == 1 and per["q"][HELD_OUT]["differs"] == 1
    pins = propose_pins(df, GROUPS)
    df["explanation"] = explain(df, pins)
    summary = {"cells": 4, "claims": 0, "status": {"match": 1, "close": 1, "differs": 2}, "by_paper_table": {},
               "match_or_close": shares, "by_paper": per}
    md = markdown_report(df, summary, GROUPS, choices, stale_pins(df, pins))
    assert "- Calibration rows: match or close 2 of 2 (100.0 %)." in md
    assert "- Held-out rows: match or close 0 of 2 (0.0 %)." in md
    assert "| `x` | X | REPLICATION.md, S | 1 |" in md and "| `z` | Z | REPLICATION.md, S | 0 |" in md
    assert "| `b` | 2 | B | 1 |" in md and "| `c` | 3 | C | 1 |" in md


def test_match_or_close_shares():
    """Deterministic = table cells of masking methods the registry marks as not randomised;
    text claims count only in the overall share."""
    df = _rows(kind=["cell", "cell", "cell", "cell", "claim", "cell"],
               method=["mdav", "optimal_univariate_ma", "mdav", "rankswap", "mdav", "individual_ranking_ma"],
               status=["match", "close", "differs", "match", "close", "missing"])
    shares = match_or_close(df)
    assert shares["all"] == {"ok": 4, "n": 6, "share": round(4 / 6, 4)}
    assert shares["deterministic_cells"] == {"ok": 2, "n": 4, "share": 0.5}
    assert match_or_close(df[df.method == "rankswap"])["deterministic_cells"] == {"ok": 0, "n": 0, "share": None}


def test_documents_show_the_committed_per_paper_counts():
    """README and REPLICATION.md carry the per-paper table of the committed check, as the check
    writes it (sdcrisk.replication.per_paper_table)."""
    import json

    summary = json.loads((ROOT / "tables" / "replication_summary.json").read_text())
    block = "\n".join(per_paper_table(summary))
    for doc in ("README.md", "REPLICATION.md"):
        text = (ROOT / doc).read_text()
        assert text.split("<!-- per-paper -->")[1].split("<!-- /per-paper -->")[0].strip() == block, doc


def _committed():
    return pd.read_csv(ROOT / "tables" / "replication.csv", dtype=str, keep_default_na=False)


def test_committed_differences_are_exactly_the_pinned_ones():
    """The set of differing rows per cause of the committed paper-scale check is the pinned set:
    a row that starts to differ (a regression) or stops differing fails until the pin list
    (docs/differing_cells.csv) is updated on purpose."""
    rep = _committed()
    pins = read_pins(PINS)
    assert set(pins["cause"]) <= {g["id"] for g in load_explanations(KNOWN)}
    assert (explain(rep, pins) == rep["explanation"]).all()
    assert not (rep["explanation"] == UNEXPLAINED).any()
    assert stale_pins(rep, pins).empty
    differing = rep[rep.status.isin(["differs", "missing"])]
    for cause, rows in pins.groupby("cause"):
        assert sorted(map(tuple, rows[ROW_KEY].values)) == sorted(
            map(tuple, differing[differing.explanation == cause][ROW_KEY].values)), cause


def test_committed_check_reports_the_calibration_split():
    """Every open choice of docs/calibration.yaml is recorded with the rows it was chosen on, and
    both splits have rows."""
    rep = _committed()
    choices = load_calibration(CALIBRATION_FILE)
    split, by = calibration_split(rep, choices)
    assert (split == rep["split"]).all() and (by == rep["calibrated_by"]).all()
    assert set(split) == {CALIBRATION, HELD_OUT}
    used = {i for ids in by for i in ids.split()}
    assert used == {c["id"] for c in choices if c["calibrated_on"]}


BAD_CALIBRATION = [
    ("choices: []", "non-empty list under 'choices'"),
    ("choices:\n  - {id: a, choice: A, section: S}", "choices[0] needs id"),
    ("choices:\n  - {id: a, choice: A, section: S, calibrated_on: {paper: p, tabels: [T1]}}", "choices[0] (a): a where"),
    ("choices:\n  - {id: a, choice: A, section: S, calibrated_on: []}\n  - {id: a, choice: B, section: S, calibrated_on: []}",
     "used twice"),
]
BAD_GROUPS = [
    ("groups: []", "non-empty list under 'groups'"),
    ("groups:\n  - {id: a, section: 1, title: A}", "groups[0] needs id"),
    ("groups:\n  - {id: a, section: 1, title: A, where: []}", "groups[0] (a): where must be"),
    ("groups:\n  - {id: a, section: 1, title: A, where: {paper: p, tabels: [T1]}}", "groups[0] (a): a where"),
    ("groups:\n  - {id: a, section: 1, title: A, where: [{}]}", "groups[0] (a): a where"),
    ("groups:\n  - {id: a, section: 1, title: A, where: {tables: T1}}", "the others lists"),
    ("groups: [", "cannot read"),
    ("groups:\n  - {id: a, section: 1, title: A, where: {paper: p}}\n  - {id: a, section: 2, title: B, where: {paper: q}}",
     "used twice"),
]


@pytest.mark.parametrize("loader, name, text, key",
                         [(load_calibration, "calibration.yaml", *case) for case in BAD_CALIBRATION]
                         + [(load_explanations, "known.yaml", *case) for case in BAD_GROUPS])
def test_bad_choice_or_cause_file_names_the_entry(tmp_path, loader, name, text, key):
    bad = tmp_path / name
    bad.write_text(text)
    with pytest.raises(ValueError, match=name) as err:
        loader(bad)
    assert key in str(err.value)
