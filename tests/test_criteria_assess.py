"""Singling out and the agencies' measures through ``sdcrisk.assess`` and the command."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import sdcrisk
from sdcrisk.assess.assessment import AssessError, records_at_risk
from sdcrisk.criteria.key_risk import key_risk
from sdcrisk.criteria.singling_out import singling_out


def _files(n=600, seed=3):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({"region": rng.integers(0, 6, n), "sex": rng.integers(0, 2, n), "age": rng.integers(18, 90, n),
                      "income": np.round(rng.lognormal(10, 1, n), 0)})
    y = x.copy()
    y["income"] = np.round(x["income"] * (1 + 0.2 * rng.standard_normal(n)), 0)  # hand noise, not the package's
    return x, y, rng.uniform(10, 200, n)


def test_singling_out_rows_are_the_engine_rows():
    x, y, _ = _files()
    res = sdcrisk.assess(x, y, categorical=["region", "sex"], singling_out=True, attacks=["RBRL-Max"],
                         information_loss=False)
    rows = res[res.kind == "singling out"].set_index("measure")
    cols = ["region", "sex", "age", "income"]
    want, proof = singling_out(x[cols].astype(float), y[cols].astype(float), cols, categorical=["region", "sex"],
                               seed=0)
    assert set(rows.index) == {r.attack for r in want}
    for r in want:
        got = rows.loc[r.attack]
        assert got.linked == r.successes and got.n == r.trials and got.criterion == "singling out"
        assert got.excess == pytest.approx(r.excess[0])
    at_risk = records_at_risk(res)
    assert len(at_risk[at_risk.criterion == "singling out"]) == len(proof)


def test_weights_give_the_agency_measures_and_leave_the_attacks_alone():
    x, y, w = _files()
    plain = sdcrisk.assess(x, y, categorical=["region", "sex"], attacks=["RBRL-Max"], information_loss=False)
    res = sdcrisk.assess(x.assign(w=w), y.assign(w=w), categorical=["region", "sex"], attacks=["RBRL-Max"],
                         information_loss=False, weights="w")
    pd.testing.assert_frame_equal(plain.drop(columns="seconds"), res.drop(columns="seconds"))  # w is no attribute
    got = res.attrs["key_risk"]
    want = key_risk(pd.DataFrame({"region": y.region, "sex": y.sex, "w": w}), ["region", "sex"], weights="w")
    assert got["keys"] == ["region", "sex"]
    assert got["expected_reidentifications"] == pytest.approx(want.risk_ER, rel=1e-12)
    assert [r["violations"] for r in got["k_anonymity"]] == list(want.k_anonymity.violations)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan])
def test_bad_weights_are_refused(bad):
    x, y, w = _files()
    w[5] = bad
    with pytest.raises(AssessError, match="weights"):
        sdcrisk.assess(x, y.assign(w=w), weights="w", attacks=["RBRL-Max"])
    with pytest.raises(AssessError, match="no column 'v'"):
        sdcrisk.assess(x, y, weights="v", attacks=["RBRL-Max"])


@pytest.mark.slow
def test_command_reports_three_criteria_and_the_agency_measures(tmp_path):
    x, y, w = _files()
    x.assign(w=w).to_csv(tmp_path / "o.csv", index=False)
    y.assign(w=w).to_csv(tmp_path / "m.csv", index=False)
    out = subprocess.run([sys.executable, "-m", "sdcrisk.cli", "assess", str(tmp_path / "o.csv"), str(tmp_path / "m.csv"),
                          "--categorical", "region,sex", "--singling-out", "--secret", "income", "--weights", "w",
                          "--attacks", "RBRL-Max", "--out", str(tmp_path / "r"), "--quiet"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    md = (tmp_path / "r" / "report.md").read_text()
    crit = md[md.index("## Criteria"):md.index("## Summary")]
    for criterion in ("linkability:", "inference:", "singling out:"):
        assert criterion in crit
    assert "## Agency measures on the categorical keys" in md and "expected re-identifications" in md
    bad = subprocess.run([sys.executable, "-m", "sdcrisk.cli", "assess", str(tmp_path / "o.csv"), str(tmp_path / "m.csv"),
                          "--weights", "nosuch", "--out", str(tmp_path / "r2"), "--quiet"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "weights" in bad.stderr and not (tmp_path / "r2").exists()


# ----------------------------------------------------------------------------- singling out by default
def test_singling_out_runs_by_default_and_can_be_left_out():
    from sdcrisk.assess.assessment import COLUMNS

    x, y, _ = _files()
    on = sdcrisk.assess(x, y, categorical=["region", "sex"], attacks=["RBRL-Max"], information_loss=False)
    off = sdcrisk.assess(x, y, categorical=["region", "sex"], attacks=["RBRL-Max"], information_loss=False,
                         singling_out=False)
    assert on.attrs["singling_out"] and (on.kind == "singling out").any()
    assert not off.attrs["singling_out"] and list(off.columns) == COLUMNS and set(off.kind) == {"disclosure risk"}
    assert "key_risk" in on.attrs and "key_risk" not in off.attrs  # the agencies' measures go with singling out
    pd.testing.assert_frame_equal(on[on.kind == "disclosure risk"][COLUMNS].drop(columns="seconds"),
                                  off[COLUMNS].drop(columns="seconds"))  # the linkage rows are the same


def test_the_predicates_are_capped_on_large_files(monkeypatch):
    """The multivariate predicates assess asks for: 1000 up to 10^5 records, then 10^8 / n, at least 100."""
    import sdcrisk.criteria.singling_out as engine
    from sdcrisk.assess.assessment import singling_out_predicates

    assert [singling_out_predicates(n) for n in (10, 1000, 100_000, 200_000, 1_000_000, 10**7)] == \
        [1000, 1000, 1000, 500, 100, 100]
    asked = []
    real = engine.singling_out

    def spy(*args, **kwargs):
        asked.append(kwargs["predicates"])
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "singling_out", spy)
    monkeypatch.setattr("sdcrisk.assess.criteria.SINGLING_OUT_WORK", 600 * 250)  # 600 records: 250 predicates
    x, y, _ = _files()
    sdcrisk.assess(x, y, attacks=["RBRL-Max"], information_loss=False)
    assert asked == [250]


def test_singling_out_on_a_sample_release_attacks_every_original_record():
    """A sample release: the predicates isolate released records and succeed when exactly one record
    of the whole original (the population) satisfies them."""
    x, y, _ = _files()
    x, y = x.assign(pid=np.arange(600)), y.assign(pid=np.arange(600)).iloc[::3].reset_index(drop=True)
    res = sdcrisk.assess(x, y, id="pid", categorical=["region", "sex"], attacks=["DBRL"], information_loss=False)
    assert res.attrs["release_type"] == "sample"
    rows = res[res.kind == "singling out"].set_index("measure")
    cols = ["region", "sex", "age", "income"]
    want, proof = singling_out(x[cols].astype(float), y[cols].astype(float), cols, categorical=["region", "sex"],
                               seed=0)
    assert set(rows.index) == {r.attack for r in want} and len(want) >= 2
    for r in want:
        assert rows.loc[r.attack].linked == r.successes and rows.loc[r.attack].n == r.trials
    at_risk = records_at_risk(res)
    assert sorted(at_risk.record) == sorted(x.pid.to_numpy()[proof.record])  # by id, among every original
    inferred = sdcrisk.assess(x, y, id="pid", secret="income", attacks=["DBRL"], information_loss=False)
    rows = inferred[inferred.kind == "inference"]  # released targets against the unreleased ones
    assert set(rows.measure) == {"nearest record", "key cell"} and (rows.n == len(y)).all()
    assert (rows.baseline_kind == f"unreleased originals ({len(x) - len(y):,} targets)").all()


def _command(tmp_path, *extra, out="r"):
    import json

    from sdcrisk.cli import main

    x, y, _ = _files(n=300)
    x.to_csv(tmp_path / "o.csv", index=False)
    y.to_csv(tmp_path / "m.csv", index=False)
    status = main(["assess", str(tmp_path / "o.csv"), str(tmp_path / "m.csv"), "--categorical", "region,sex",
                   "--attacks", "RBRL-Max", "--out", str(tmp_path / out), "--quiet", "--no-timings", *extra])
    path = tmp_path / out / "report.json"
    return status, (json.loads(path.read_text()) if path.exists() else None)


def test_command_singling_out_flags_and_criteria_lines(tmp_path, capsys):
    status, doc = _command(tmp_path)
    assert status == 0 and any(r["kind"] == "singling out" for r in doc["results"])
    md = (tmp_path / "r" / "report.md").read_text()
    assert md.startswith("# Disclosure risk and information loss (one to one release)\n")
    lines = {c["criterion"]: c for c in doc["criteria"]}
    assert list(lines) == ["linkability", "inference", "singling out"]
    assert lines["inference"]["status"] == "not assessed" and lines["inference"]["text"].startswith(
        "inference: not assessed: name --secret")
    assert "- **inference: not assessed: name --secret" in md
    assert lines["singling out"]["status"] == "assessed" and lines["singling out"]["excess"] is not None
    assert (tmp_path / "r" / "records_at_risk.csv").exists()  # the records singled out, without a secret
    # --singling-out: accepted, changes nothing
    assert _command(tmp_path, "--singling-out", out="same")[0] == 0
    for name in ("report.md", "report.html", "records_at_risk.csv"):
        assert (tmp_path / "r" / name).read_bytes() == (tmp_path / "same" / name).read_bytes()
    status, off = _command(tmp_path, "--no-singling-out", out="off")
    assert status == 0 and not any(r["kind"] == "singling out" for r in off["results"])
    assert {c["criterion"]: c["text"] for c in off["criteria"]}["singling out"] == \
        "singling out: not assessed (--no-singling-out)"
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:  # argparse's own usage error, one line
        _command(tmp_path, "--singling-out", "--no-singling-out", out="both")
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not allowed with argument" in err[0] and not (tmp_path / "both").exists()


@pytest.mark.parametrize("extra, words", [
    (["--max-risk", "linkability=50,inference=5"], "--max-risk: inference=5 gates a criterion that is not assessed"),
    (["--max-risk", "singling-out=5", "--no-singling-out"], "--max-risk: singling-out=5 gates a criterion"),
])
def test_a_gate_on_a_criterion_not_assessed_is_bad_input(tmp_path, capsys, extra, words):
    status, doc = _command(tmp_path, *extra, out="gate")
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and doc is None and not (tmp_path / "gate").exists()
    assert err == [f"sdcrisk assess: error: {err[0].split('error: ', 1)[1]}"] and words in err[0]


def test_the_first_line_names_each_file_s_release_type_when_they_differ(tmp_path):
    import json

    from sdcrisk.cli import main

    x, y, _ = _files(n=300)
    x.assign(pid=np.arange(300)).to_csv(tmp_path / "o.csv", index=False)
    y.assign(pid=np.arange(300)).to_csv(tmp_path / "full.csv", index=False)
    y.assign(pid=np.arange(300)).iloc[::2].to_csv(tmp_path / "half.csv", index=False)
    assert main(["assess", str(tmp_path / "o.csv"), str(tmp_path / "full.csv"), str(tmp_path / "half.csv"), "--id",
                 "pid", "--attacks", "DBRL", "--out", str(tmp_path / "r"), "--quiet", "--no-timings"]) == 0
    md = (tmp_path / "r" / "report.md").read_text()
    assert md.startswith("# Disclosure risk and information loss (releases: full.csv one to one; half.csv sample)\n")
    doc = json.loads((tmp_path / "r" / "report.json").read_text())
    assert doc["release_type"] == "mixed"
    assert doc["meta"]["release_types"] == {str(tmp_path / "full.csv"): "one to one", str(tmp_path / "half.csv"): "sample"}
