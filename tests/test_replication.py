"""The replication check's status rules, calibration split and pinned differences."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sdcrisk.replication.prose import rewrite, stale_regions
from sdcrisk.replication.check import (CALIBRATION, HELD_OUT, ROW_KEY, UNEXPLAINED, by_paper, calibration_split, declared_criteria,
                                 explain, matches,
                                 load_calibration, load_explanations, markdown_report, match_or_close, min_selection_bias,
                                 propose_pins, read_pins, stale_pins, status, unconverged_fits,
                                 unconverged_status)

ROOT = Path(__file__).resolve().parents[1]
KNOWN = ROOT / "docs" / "known_differences.yaml"
CALIBRATION_FILE = ROOT / "docs" / "calibration.yaml"
PINS = ROOT / "docs" / "differing_cells.csv"


@pytest.mark.parametrize("args, expected", [
    ((12.34, 2, 12.344, 0.0, 1, None, "percent", None), ("match", "within published rounding")),
    ((12.34, 2, 12.36, 0.0, 1, None, "percent", None), ("close", "within 1 point and 20%")),
    # the absolute bound: 4.8 % off a value of 50 is more than 1 point
    ((50.0, 1, 52.4, 0.0, 1, None, "percent", None), ("differs", "outside 1 point")),
    # the relative bound: 0.9 points off 3.0 is inside 1 point but 30 % off
    ((3.0, 1, 3.9, 0.0, 1, None, "percent", None), ("differs", "within 1 point but more than 20% off")),
    ((5.0, 1, 5.9, 0.0, 1, None, "percent", None), ("close", "within 1 point and 20%")),
    # a published zero: no relative room, only the rounding
    ((0.0, 1, 0.3, 0.0, 1, None, "percent", None), ("differs", "within 1 point but more than 20% off")),
    # 2 sd sqrt(1/4 + 1/100) = 2 * 2 * 0.51 = 2.04 (+ half unit 0.05), but 2 points is outside 1 point
    ((10.0, 1, 12.0, 2.0, 4, 100, "percent", None), ("differs", "outside 1 point")),
    # consistent within 2 standard errors stands in for the 20 % (0.9 off 3.0 = 30 %)
    ((3.0, 1, 3.9, 2.0, 4, 100, "percent", None), ("match", "within 2 combined standard errors and 1 point")),
    # record counts: 1 % of n = 10.8 records for Census
    ((100.0, 0, 110.0, 0.0, 1, None, "records", 1080), ("close", "within 1% of n records and 20%")),
    ((100.0, 0, 120.0, 0.0, 1, None, "records", 1080), ("differs", "outside 1% of n records")),
    # a count of 36 against 70.3 is within 1 % of n = 40.9 of EIA but 49 % off
    ((70.3, 1, 36.0, 0.0, 1, None, "records", 4092), ("differs", "within 1% of n records but more than 20% off")),
    # 463.2 vs 479.6 with a large sd: consistent, but 16.4 records is outside 1 % of n = 10.8
    ((479.6, 1, 463.2, 30.0, 5, None, "records", 1080), ("differs", "outside 1% of n records")),
    ((3074.0, 0, 3199.0, 0.0, 1, None, "records", 4092), ("differs", "outside 1% of n records")),
    ((100.0, 0, float("nan"), 0.0, 1, None, "records", 1080), ("missing", "no regenerated value")),
])
def test_status_rules(args, expected):
    assert status(*args) == expected


def test_a_match_is_always_within_the_absolute_bound():
    rng = np.random.default_rng(7)
    for _ in range(2000):
        pub, sd = rng.uniform(0, 100), rng.uniform(0, 20)
        mean, n = pub + rng.normal(0, 3), int(rng.integers(1, 10))
        st, _ = status(pub, 1, mean, sd, n, None, "percent", None)
        if st in ("match", "close"):
            assert abs(mean - pub) <= 1.0 + 0.05 + 1e-9
        if st == "close":
            assert abs(mean - pub) <= 0.2 * pub + 1e-9


def test_min_selection_bias_is_the_expected_maximum_of_normals():
    """E[max of 2 standard normals] = 1/sqrt(pi); of 3: 3/(2 sqrt(pi)); scaled by the standard error."""
    assert min_selection_bias(2, 1.0) == pytest.approx(1 / np.sqrt(np.pi), rel=1e-8)
    assert min_selection_bias(3, 0.5) == pytest.approx(0.5 * 3 / (2 * np.sqrt(np.pi)), rel=1e-8)
    assert min_selection_bias(1, 1.0) == 0.0 and min_selection_bias(5, 0.0) == 0.0


def test_prl_based_rows_of_unconverged_cells_are_counted_apart():
    cells = pd.DataFrame({"measure": ["PLD", "DLD", "PRL_unconverged"], "mean": [10.0, 20.0, 0.4], "n": [5, 5, 5]})
    assert unconverged_fits(cells) == pytest.approx(2.0)
    assert unconverged_status("PLD", cells, ("match", "r"))[0] == "unconverged"
    assert unconverged_status("Score1", cells, ("differs", "r"))[0] == "unconverged"
    assert unconverged_status("DLD", cells, ("differs", "r")) == ("differs", "r")
    assert unconverged_status("PLD", cells.assign(mean=[10.0, 20.0, 0.0]), ("close", "r")) == ("close", "r")
    df = _rows(status=["match", "unconverged", "differs", "close"], method=["mdav"] * 4)
    assert match_or_close(df)["all"] == {"ok": 2, "n": 3, "unconverged": 1, "share": round(2 / 3, 4)}


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
    assert shares[CALIBRATION] == {"ok": 2, "n": 2, "unconverged": 0, "share": 1.0} \
        and shares[HELD_OUT] == {"ok": 0, "n": 2, "unconverged": 0, "share": 0.0}
    per = by_paper(df)
    assert per["p"]["all"]["n"] == 2 and per["p"][CALIBRATION]["ok"] == 1 and per["q"][HELD_OUT]["differs"] == 1
    pins = propose_pins(df, GROUPS)
    df["explanation"] = explain(df, pins)
    summary = {"cells": 4, "claims": 0, "status": {"match": 1, "close": 1, "differs": 2}, "by_paper_table": {},
               "match_or_close": shares, "by_paper": per}
    md = markdown_report(df, summary, GROUPS, choices, stale_pins(df, pins))
    assert "- Calibration rows: match or close 2 of 2 compared (100.0 %)." in md
    assert "- Held-out rows: match or close 0 of 2 compared (0.0 %)." in md
    assert "| `x` | X | REPLICATION.md, S | 1 |" in md and "| `z` | Z | REPLICATION.md, S | 0 |" in md
    assert "| `b` | 2 | B | 1 |" in md and "| `c` | 3 | C | 1 |" in md


def test_match_or_close_shares():
    """Deterministic = table cells of masking methods the registry marks as not randomised;
    text claims count only in the overall share."""
    df = _rows(kind=["cell", "cell", "cell", "cell", "claim", "cell"],
               method=["mdav", "optimal_univariate_ma", "mdav", "rankswap", "mdav", "individual_ranking_ma"],
               status=["match", "close", "differs", "match", "close", "missing"])
    shares = match_or_close(df)
    assert shares["all"] == {"ok": 4, "n": 6, "unconverged": 0, "share": round(4 / 6, 4)}
    assert shares["deterministic_cells"] == {"ok": 2, "n": 4, "unconverged": 0, "share": 0.5}
    assert match_or_close(df[df.method == "rankswap"])["deterministic_cells"] == {"ok": 0, "n": 0, "unconverged": 0,
                                                                                  "share": None}


def test_documents_carry_the_numbers_of_the_committed_check():
    """Every count of the check quoted in README and REPLICATION.md sits in a marked region that
    equals what sdcrisk.replication.prose writes from the committed summary (the per-paper table included)."""
    import json

    summary = json.loads((ROOT / "tables" / "replication_summary.json").read_text())
    for doc in ("README.md", "REPLICATION.md"):
        text = (ROOT / doc).read_text()
        assert "<!-- check:per-paper -->" in text, doc
        assert stale_regions(text, summary) == [], doc


def test_prose_regions_are_written_from_the_summary():
    per = {s: 0 for s in ("match", "close", "differs", "unconverged", "missing")}
    counts = lambda **kw: {"all": {**per, **kw}, CALIBRATION: {**per, **kw}, HELD_OUT: dict(per)}  # noqa: E731
    summary = {"by_paper_table": {"p|T1": counts(match=3, close=1, differs=4), "p|T2": counts(differs=2, unconverged=2),
                                  "q|T1": counts(match=1)}}
    text = ("a <!-- check: ok paper=p tables=T1 -->9 of 9<!-- /check --> b "
            "<!-- check: okpct paper=p -->x<!-- /check --> <!-- check: unconverged -->x<!-- /check --> "
            "<!-- check: ok split=held-out paper=r -->x<!-- /check -->")
    with pytest.raises(ValueError, match="selects no row"):
        rewrite(text, summary)
    text = text.replace(" paper=r", " paper=p")
    assert rewrite(text, summary).endswith("<!-- check: ok split=held-out paper=p -->0 of 0<!-- /check -->")
    text = text.replace("ok split=held-out paper=p", "rows")
    out = rewrite(text, summary)
    assert out == ("a <!-- check: ok paper=p tables=T1 -->4 of 8<!-- /check --> b "
                   "<!-- check: okpct paper=p -->4 of 10 (40 %)<!-- /check --> <!-- check: unconverged -->2<!-- /check --> "
                   "<!-- check: rows -->13<!-- /check -->")
    assert [s for s, _, _ in stale_regions(text, summary)] == ["ok paper=p tables=T1", "okpct paper=p", "unconverged", "rows"]
    assert stale_regions(out, summary) == []
    with pytest.raises(ValueError, match="WHAT"):
        rewrite("<!-- check: oks -->1<!-- /check -->", summary)


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


def _declaring_files() -> dict[str, str]:
    """``{path: the "# compares:" line}`` of every tracked file that has one."""
    import subprocess

    out = subprocess.run(["git", "grep", "-l", "-e", "^# compares:", "-e", "^\\s*# compares:"], cwd=ROOT,
                         capture_output=True, text=True, check=False).stdout.split()
    return {f: next(ln for ln in (ROOT / f).read_text().splitlines() if ln.strip().startswith("# compares:"))
            for f in out}


def test_calibration_rows_are_derived_from_the_declarations():
    """Every research script declares the published rows it compares with (one "# compares:"
    line); every file with a non-empty declaration is the evidence of an open choice or a
    diagnostic in docs/calibration.yaml; the calibration rows are exactly the rows any of them
    declares, so no consulted row can be labelled held-out."""
    scripts = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "research").rglob("*.py"))
    for f in scripts:
        declared_criteria(ROOT / f)  # exactly one parseable line, or ValueError naming the file
    choices = load_calibration(CALIBRATION_FILE)
    named = {f for c in choices for f in c["evidence"]}
    declaring = {f for f in _declaring_files() if declared_criteria(ROOT / f)}
    assert declaring - named == set(), "files comparing with published rows that docs/calibration.yaml does not name"
    rep = _committed()
    union = pd.Series(False, index=rep.index)
    for f in declaring:
        union |= matches(rep, declared_criteria(ROOT / f))
    assert ((rep["split"] == CALIBRATION) == union).all()


def test_a_declaration_is_one_line_of_criteria(tmp_path):
    f = tmp_path / "script.py"
    f.write_text('"""doc"""\n# compares: [{paper: p, tables: [T1]}]\n')
    assert declared_criteria(f) == [{"paper": "p", "tables": ["T1"]}]
    f.write_text("# compares: []\n")
    assert declared_criteria(f) == []
    for text, key in [("x = 1\n", "found 0"), ("# compares: []\n# compares: []\n", "found 2"),
                      ("# compares: [{paper: p, tabels: [T1]}]\n", "a where criterion"),
                      ("# compares: [\n", "not YAML")]:
        f.write_text(text)
        with pytest.raises(ValueError, match="script.py") as err:
            declared_criteria(f)
        assert key in str(err.value)


BAD_CALIBRATION = [
    ("choices: []", "non-empty list under 'choices'"),
    ("choices:\n  - {id: a, choice: A, section: S}", "choices[0] needs id"),
    ("choices:\n  - {id: a, choice: A, section: S, evidence: x.py}", "choices[0] needs id"),
    ("choices:\n  - {id: a, choice: A, section: S, evidence: []}\n  - {id: a, choice: B, section: S, evidence: []}",
     "used twice"),
    ("choices:\n  - {id: a, choice: A, section: S, evidence: []}\ndiagnostics: x.py", "diagnostics must be a list"),
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


def _claim_case(values_by_cell: dict, op: str, value: float = 50.0):
    """A one-claim check on a sweep {(param, known): mean} of RS-RL % (paper p, data set d)."""
    from sdcrisk.replication.check import check_claims

    agg = pd.DataFrame([{"experiment": "e", "dataset": "d", "method": "m", "param": prm, "known": k,
                         "measure": "RSRL_pct", "mean": v, "sd": 0.5, "n": 5, "order": i}
                        for i, ((prm, k), v) in enumerate(values_by_cell.items())])
    claims = pd.DataFrame([{"paper": "p", "where": "Fig. 4", "dataset": "d", "method": "m", "param": "p=2",
                            "known": "3 or 4", "measure": "RSRL_pct", "op": op, "value": str(value), "value_hi": ""}])
    cfg = {"experiments": {"e": {"paper": "p", "tables": {}}}}
    return check_claims(agg, claims, cfg, {"d": (100, 6)}).iloc[0]


def test_gt_claims_match_whatever_the_distance_and_gt_only_needs_no_other_cell_above():
    """`gt`: match when the smallest of the claim's cells exceeds the bound (however far), close
    within 1 point below, else differs. `gt_only`: also differs when any other cell exceeds it."""
    only_p2 = {("2", "3"): 86.5, ("2", "4"): 95.0, ("2", "2"): 30.0, ("4", "4"): 40.0}
    assert tuple(_claim_case(only_p2, "gt")[["status", "mean"]]) == ("match", 86.5)
    assert _claim_case({**only_p2, ("2", "3"): 49.5}, "gt").status == "close"
    assert _claim_case({**only_p2, ("2", "3"): 48.0}, "gt").status == "differs"
    row = _claim_case(only_p2, "gt_only")
    assert row.status == "match" and "'only' holds" in row.rule
    row = _claim_case({**only_p2, ("4", "4"): 65.5, ("2", "5"): 97.0}, "gt_only")
    assert row.status == "differs" and "2 other cells exceed 50" in row.rule and "p=4: 4 known" in row.rule
    # the `gt` part alone decides when no other cell is above
    assert _claim_case({**only_p2, ("2", "3"): 48.0}, "gt_only").status == "differs"


def test_every_claim_operator_is_stated_with_the_status_rules():
    from sdcrisk.replication.check import STATUS_RULES, rules_markdown

    ops = set(pd.read_csv(ROOT / "published" / "published_claims.csv")["op"]) - {"eq"}
    assert all(any(f"`{op}`" in r for r in STATUS_RULES) for op in ops), ops
    assert "`gt`" in rules_markdown() and "whatever the distance" in rules_markdown()
    text = (ROOT / "REPLICATION.md").read_text()
    assert "<!-- check:rules -->" in text and rules_markdown() in text
    assert rules_markdown() in (ROOT / "tables" / "replication.md").read_text()
