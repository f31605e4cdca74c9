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
