"""The replication check's status rules and the known-differences explanations."""

from pathlib import Path

import pandas as pd
import pytest

from sdcrisk.replication import UNEXPLAINED, explain, load_explanations, markdown_report, match_or_close, status

ROOT = Path(__file__).resolve().parents[1]
KNOWN = ROOT / "docs" / "known_differences.yaml"


@pytest.mark.parametrize("args, expected", [
    ((12.34, 2, 12.344, 0.0, 1, None, "percent", None), ("match", "within published rounding")),
    ((12.34, 2, 12.36, 0.0, 1, None, "percent", None), ("close", "within 1 percentage point")),
    ((50.0, 1, 52.4, 0.0, 1, None, "percent", None), ("close", "within 5% relative")),
    ((50.0, 1, 53.0, 0.0, 1, None, "percent", None), ("differs", "outside every tolerance")),
    # 2 sd sqrt(1/4 + 1/100) = 2 * 2 * 0.51 = 2.04 (+ half unit 0.05)
    ((10.0, 1, 12.0, 2.0, 4, 100, "percent", None), ("match", "within 2 combined standard errors")),
    # record counts: 1 % of n = 10.8 records for Census
    ((100.0, 0, 110.0, 0.0, 1, None, "records", 1080), ("close", "within 1% of n records")),
    ((100.0, 0, 120.0, 0.0, 1, None, "records", 1080), ("differs", "outside every tolerance")),
    ((100.0, 0, float("nan"), 0.0, 1, None, "records", 1080), ("missing", "no regenerated value")),
])
def test_status_rules(args, expected):
    assert status(*args) == expected


def _rows(**cols):
    base = {"kind": "cell", "paper": "p", "table": "T1", "dataset": "census", "method": "m", "param": "1",
            "known": "1", "measure": "DLD", "published": 1.0, "mean": 2.0, "sd": 0.0, "n": 1, "status": "differs"}
    n = max(len(v) for v in cols.values())
    return pd.DataFrame({k: cols.get(k, [v] * n) for k, v in base.items()})


def test_explain_first_matching_group_and_unexplained():
    groups = [{"id": "a", "section": 1, "title": "A", "where": [{"paper": "p", "tables": ["T1"], "measures": ["PLD"]}]},
              {"id": "b", "section": 2, "title": "B", "where": [{"paper": "p"}]},
              {"id": "c", "section": 3, "title": "C", "where": [{"paper": "q"}, {"methods": ["z"]}]}]
    df = _rows(paper=["p", "p", "q", "r", "r", "p"], measure=["PLD", "DLD", "DLD", "DLD", "DLD", "PLD"],
               method=["m", "m", "m", "z", "m", "m"], status=["differs"] * 5 + ["close"])
    assert explain(df, groups).tolist() == ["a", "b", "c", "c", UNEXPLAINED, ""]
    registered = df.assign(method=["mdav", "mdav", "rankswap", "rankswap", "mdav", "mdav"])
    summary = {"cells": 6, "claims": 0, "status": {"differs": 5, "close": 1}, "by_paper_table": {},
               "match_or_close": match_or_close(registered)}
    md = markdown_report(df.assign(explanation=explain(df, groups)), summary, groups)
    assert "| `a` | 1 | A | 1 |" in md and "| `c` | 3 | C | 2 |" in md and f"`{UNEXPLAINED}`" in md
    assert "0 match, 1 close, 5 differs, 0 missing" in md
    assert "- All rows: match or close 1 of 6 (16.7 %)" in md


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


def test_project_file_explains_every_committed_difference():
    """Every `differs` row of the committed paper-scale check names a known cause."""
    groups = load_explanations(KNOWN)
    rep = pd.read_csv(ROOT / "tables" / "replication.csv", dtype={"known": str, "param": str})
    assert not (explain(rep, groups)[rep.status == "differs"] == UNEXPLAINED).any()


@pytest.mark.parametrize("text, key", [
    ("groups: []", "non-empty list under 'groups'"),
    ("groups:\n  - {id: a, section: 1, title: A}", "groups[0] needs id"),
    ("groups:\n  - {id: a, section: 1, title: A, where: {paper: p, tabels: [T1]}}", "groups[0] (a): a where"),
    ("groups:\n  - {id: a, section: 1, title: A, where: [{}]}", "groups[0] (a): a where"),
    ("groups:\n  - {id: a, section: 1, title: A, where: {tables: T1}}", "the others lists"),
    ("groups: [", "cannot read"),
    ("groups:\n  - {id: a, section: 1, title: A, where: {paper: p}}\n  - {id: a, section: 2, title: B, where: {paper: q}}",
     "used twice"),
])
def test_bad_known_differences_file_names_the_entry(tmp_path, text, key):
    bad = tmp_path / "known.yaml"
    bad.write_text(text)
    with pytest.raises(ValueError, match="known.yaml") as err:
        load_explanations(bad)
    assert key in str(err.value)
