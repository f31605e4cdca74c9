"""``sdcrisk assess`` on the command line: the --max-risk gate (exit 3, report written), the --out
place checked before any attack, duplicate header names, identifier columns, one line and no
traceback for every error (2 bad input, 1 internal error, 130 interrupted), the lazy
``sdcrisk.assess`` with its real signature.

In-process calls of :func:`sdcrisk.cli.main` are fast; the tests starting the command in a
subprocess are listed as slow in ``tests/conftest.py``."""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sdcrisk
import sdcrisk.assess.assessment as assessment
from sdcrisk.assess.assessment import AssessError, identifier_columns, read_file
from sdcrisk.cli import (EXIT_GATE, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNDECIDED, main,
                         out_problem)

from interrupt import signal_during_attacks


def _original(n=200, seed=0):
    rng = np.random.Generator(np.random.PCG64(seed))
    return pd.DataFrame(rng.lognormal(mean=3.0, size=(n, 4)), columns=["income", "rent", "tax", "savings"])


def _masked(x, scale, seed=1):
    rng = np.random.Generator(np.random.PCG64(seed))
    return x * np.exp(rng.normal(scale=scale, size=x.shape))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    x = _original()
    x.to_csv(d / "original.csv", index=False)
    _masked(x, 0.02).to_csv(d / "light.csv", index=False)  # nearly everything links
    _masked(x, 1.0).to_csv(d / "heavy.csv", index=False)
    return d


def _one_error_line(err: str, status_text: str = "sdcrisk assess: error: ") -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(status_text) and "Traceback" not in err
    return lines[0]


def _no_attack(monkeypatch):
    """Make any attack run fail the test: the check must come before."""
    def boom(*args, **kwargs):
        raise AssertionError("an attack ran")

    monkeypatch.setattr(assessment, "assess", boom)


# ----------------------------------------------------------------------------- --max-risk
def test_gate_exits_3_after_writing_the_report(files, tmp_path, capsys):
    out = tmp_path / "rep"
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), str(files / "heavy.csv"),
                   "--attacks", "DBRL,RBRL-Max,ID", "--out", str(out), "--quiet", "--max-risk", "50"])
    err = capsys.readouterr().err
    assert status == EXIT_GATE == 3
    doc = json.loads((out / "report.json").read_text())
    top = {Path(h["masked"]).name: h for h in doc["headline"]}
    assert top["light.csv"]["max_linked_percent"] > 50 >= top["heavy.csv"]["max_linked_percent"]
    gate = [line for line in err.splitlines() if "risk gate" in line]
    assert len(gate) == 1 and "light.csv" in gate[0] and top["light.csv"]["worst_attack"] in gate[0]
    assert gate[0].startswith("sdcrisk assess: risk gate: ") and "above --max-risk 50" in gate[0]
    assert doc["gate"] == [gate[0].split("risk gate: ", 1)[1]] and doc["meta"]["max_risk"] == 50.0
    assert doc["meta"]["command"].startswith("sdcrisk assess ") and doc["meta"]["command"].endswith("--max-risk 50")


def test_gate_passes_at_or_above_the_highest_risk(files, tmp_path, capsys):
    status = main(["assess", str(files / "original.csv"), str(files / "heavy.csv"), "--attacks", "DBRL",
                   "--out", str(tmp_path / "rep"), "--quiet", "--max-risk", "100"])
    assert status == 0 and "risk gate" not in capsys.readouterr().err


@pytest.mark.parametrize("value", ["150", "-1", "nan", "abc", "inf", ""])
def test_max_risk_outside_0_100_is_refused_before_anything(value, files, tmp_path, capsys, monkeypatch):
    _no_attack(monkeypatch)
    out = tmp_path / "rep"
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--out", str(out),
                   f"--max-risk={value}"])
    line = _one_error_line(capsys.readouterr().err)
    assert status == EXIT_INPUT and "--max-risk: expected a percentage from 0 to 100" in line
    assert not out.exists()


def _refuse(monkeypatch, names):
    """Make the memory limit refuse the attacks ``names`` as it does an attack expected above it
    (``_attack_row``'s up-front check, here with an expected peak of 1 PB)."""
    real = assessment._attack_row

    def row(name, pair, perm, cols, seed, prl_candidates=None, expected=None):
        return real(name, pair, perm, cols, seed, prl_candidates, 1e15 if name in names else expected)

    monkeypatch.setattr(assessment, "_attack_row", row)


def _gate_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("sdcrisk assess: risk gate")]


def test_gate_is_undecided_when_an_attack_was_refused(files, tmp_path, capsys, monkeypatch):
    _refuse(monkeypatch, {"RBRL-Sum"})
    out = tmp_path / "rep"
    status = main(["assess", str(files / "original.csv"), str(files / "heavy.csv"), "--attacks", "DBRL,RBRL-Sum",
                   "--out", str(out), "--quiet", "--max-risk", "60"])
    captured = capsys.readouterr()
    doc = json.loads((out / "report.json").read_text())
    ran = [r for r in doc["results"] if r["measure"] == "DBRL"][0]
    assert ran["percent"] <= 60 and [r["percent"] for r in doc["results"] if r["measure"] == "RBRL-Sum"] == [None]
    assert status == EXIT_UNDECIDED == 4
    lines = _gate_lines(captured.err)
    assert lines and all(line.startswith("sdcrisk assess: risk gate undecided: ") for line in lines)
    assert any("RBRL-Sum was not run on" in line and "SDCRISK_MEMORY_LIMIT" in line for line in lines)
    assert doc["gate_status"] == "undecided" and "RBRL-Sum on heavy.csv, scenario all: not run (" in captured.out
    assert "RBRL-Sum was not run" in (out / "report.md").read_text()


def test_every_attack_refused_does_not_pass_the_gate(files, tmp_path, capsys, monkeypatch):
    _refuse(monkeypatch, set(assessment.ALL_ATTACKS))
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--attacks", "DBRL,GDBRL,ID",
                   "--out", str(tmp_path / "rep"), "--quiet", "--max-risk", "5", "--no-singling-out"])
    err = capsys.readouterr().err
    assert status == EXIT_UNDECIDED and "every attack at or below" not in err
    assert sum("was not run" in line for line in _gate_lines(err)) == 2  # DBRL and GDBRL; ID does not gate


def test_shuffled_rows_without_an_id_make_the_gate_undecided(files, tmp_path, capsys):
    masked = pd.read_csv(files / "light.csv").sample(frac=1.0, random_state=4)
    masked.to_csv(tmp_path / "shuffled.csv", index=False)
    out = tmp_path / "rep"
    status = main(["assess", str(files / "original.csv"), str(tmp_path / "shuffled.csv"), "--attacks", "DBRL",
                   "--out", str(out), "--quiet", "--max-risk", "5", "--no-singling-out"])  # linkability's gate alone
    err = capsys.readouterr().err
    doc = json.loads((out / "report.json").read_text())
    assert doc["results"][0]["percent"] <= 5  # wrongly paired: the attack seems to link almost nothing
    assert status == EXIT_UNDECIDED
    assert any("pairing could not be verified" in line and "--id" in line for line in _gate_lines(err))
    # paired by an id, the same records are verified and the gate decides (light: nearly all linked)
    x = pd.read_csv(files / "original.csv").assign(rid=np.arange(200))
    x.to_csv(tmp_path / "o_id.csv", index=False)
    pd.read_csv(files / "light.csv").assign(rid=np.arange(200)).sample(frac=1.0, random_state=4).to_csv(
        tmp_path / "m_id.csv", index=False)
    status = main(["assess", str(tmp_path / "o_id.csv"), str(tmp_path / "m_id.csv"), "--id", "rid", "--attacks",
                   "DBRL", "--out", str(tmp_path / "rep2"), "--quiet", "--max-risk", "5"])
    assert status == EXIT_GATE


def test_an_attack_that_does_not_apply_does_not_hold_the_gate(tmp_path, capsys):
    x = _original(200).assign(region=np.arange(200) % 5)
    y = pd.DataFrame(_masked(x[["income", "rent", "tax", "savings"]], 1.0)).assign(region=(np.arange(200) + 1) % 5)
    x.to_csv(tmp_path / "o.csv", index=False)
    y.to_csv(tmp_path / "m.csv", index=False)
    out = tmp_path / "rep"
    status = main(["assess", str(tmp_path / "o.csv"), str(tmp_path / "m.csv"), "--known", "region",
                   "--categorical", "region", "--attacks", "DBRL,RBRL-Max", "--out", str(out), "--quiet",
                   "--max-risk", "50"])
    captured = capsys.readouterr()
    doc = json.loads((out / "report.json").read_text())
    assert [(r["measure"], r["status"]) for r in doc["not_run"]] == [("RBRL-Max", "not applicable")]
    assert status == EXIT_OK and doc["gate_status"] == "pass" and not _gate_lines(captured.err)
    assert "RBRL-Max on m.csv, scenario given: not applicable (no numeric known attribute" in captured.out


def test_quiet_prints_no_closing_time(files, tmp_path, capsys):
    args = ["assess", str(files / "original.csv"), str(files / "heavy.csv"), "--attacks", "DBRL"]
    assert main([*args, "--out", str(tmp_path / "a"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    assert "done in " in capsys.readouterr().err


def test_help_lists_every_attack_assess_runs(capsys, monkeypatch):
    from sdcrisk.assess.arguments import attack_choices

    with pytest.raises(SystemExit):
        main(["assess", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    described, attacks_help = text.split("positional arguments")[0], text.split("--attacks ATTACKS", 2)[-1]
    attacks_help = attacks_help.split("(default")[0].replace(" ", "")
    assert attack_choices()[:5] == ["DBRL", "RBRL-Sum", "RBRL-Max", "PRL", "PRL-graded"]
    assert attack_choices() and assessment.attack_names(attack_choices()) == list(assessment.ALL_ATTACKS)
    for name in attack_choices():  # each as --attacks takes it
        assert name in attacks_help.removeprefix("comma-separatedsubsetof").split(",or'all'")[0].split(",")
        assert name == "ID" or name in described
    # made from sdcrisk.assess.default_attacks.ALL_ATTACKS, not written out: a new one shows up
    from sdcrisk.assess import default_attacks

    monkeypatch.setattr(assessment, "ALL_ATTACKS", (*assessment.ALL_ATTACKS, "NEW-RL"))
    monkeypatch.setattr(default_attacks, "ALL_ATTACKS", (*default_attacks.ALL_ATTACKS, "NEW-RL"))
    with pytest.raises(SystemExit):
        main(["assess", "--help"])
    assert "NEW-RL" in capsys.readouterr().out


# ----------------------------------------------------------------------------- L-RL where it does not apply
def _microaggregated(x: pd.DataFrame, k: int = 3) -> pd.DataFrame:
    """Univariate microaggregation written out: each attribute's sorted values in groups of k
    (the last takes the rest), each value replaced by its group's mean."""
    out = x.copy()
    for c in x.columns:
        order = np.argsort(x[c].to_numpy(), kind="stable")
        groups = np.minimum(np.arange(len(x)) // k, len(x) // k - 1)
        values = x[c].to_numpy()[order]
        means = pd.Series(values).groupby(groups).transform("mean").to_numpy()
        col = np.empty(len(x))
        col[order] = means
        out[c] = col
    return out


def test_has_equal_values_matches_a_count_of_distinct_values():
    from sdcrisk.linkage.location import has_equal_values

    rng = np.random.Generator(np.random.PCG64(3))
    for trial in range(40):
        n, m = int(rng.integers(1, 30)), int(rng.integers(1, 4))
        y = rng.integers(0, int(rng.integers(2, 200)), size=(n, m)).astype(float)
        columns = sorted(rng.choice(m, size=int(rng.integers(1, m + 1)), replace=False).tolist())
        expected = any(len(set(y[:, j].tolist())) < n for j in columns)
        assert has_equal_values(y, columns) == expected
        assert has_equal_values(y) == any(len(set(y[:, j].tolist())) < n for j in range(m))
    assert has_equal_values(_microaggregated(_original(60)).to_numpy())
    assert not has_equal_values(_masked(_original(60), 0.3).to_numpy())


def test_l_rl_is_not_applicable_to_a_release_that_is_not_microaggregated(files, tmp_path, capsys):
    from sdcrisk.linkage.location import LRL_NOT_APPLICABLE

    x = pd.read_csv(files / "original.csv")
    _microaggregated(x).to_csv(tmp_path / "ma.csv", index=False)
    out = tmp_path / "rep"
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), str(tmp_path / "ma.csv"),
                   "--attacks", "L-RL,DBRL", "--out", str(out), "--quiet", "--max-risk", "100"])
    capsys.readouterr()
    rows = {(Path(r["masked"]).name, r["measure"]): r for r in json.loads((out / "report.json").read_text())["results"]}
    assert rows["ma.csv", "L-RL(MA)"]["percent"] is not None  # microaggregated: the attack runs
    lrl = rows["light.csv", "L-RL(MA)"]
    assert lrl["percent"] is None and lrl["note"] == f"not applicable: {LRL_NOT_APPLICABLE}"
    assert status == EXIT_OK  # not applicable: the gate still decides


# ----------------------------------------------------------------------------- --out
def test_out_that_is_a_file_fails_before_any_attack(files, tmp_path, capsys, monkeypatch):
    _no_attack(monkeypatch)
    target = tmp_path / "report.html"
    target.write_text("not a directory")
    t0 = time.perf_counter()
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--out", str(target)])
    assert time.perf_counter() - t0 < 2.0
    line = _one_error_line(capsys.readouterr().err)
    assert status == EXIT_INPUT and f"--out {target}: is a file" in line
    assert target.read_text() == "not a directory"


def test_out_below_a_file_fails(files, tmp_path, capsys, monkeypatch):
    _no_attack(monkeypatch)
    (tmp_path / "f").write_text("x")
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--out",
                   str(tmp_path / "f" / "sub" / "rep")])
    line = _one_error_line(capsys.readouterr().err)
    assert status == EXIT_INPUT and f"{tmp_path / 'f'} is a file, not a directory" in line


def _read_only_dir(tmp_path) -> Path:
    """A directory nobody can create entries in: chmod for a normal user; for root (who ignores
    permissions) the kernel's /sys, where the probe fails too; else skip."""
    if os.geteuid() != 0:
        d = tmp_path / "ro"
        d.mkdir()
        d.chmod(0o555)
        return d
    if Path("/sys").is_dir() and out_problem("/sys/sdcrisk-probe-test"):
        return Path("/sys")
    pytest.skip("running as root without a read-only place to test")


@pytest.mark.parametrize("existing", [False, True])
def test_out_in_a_read_only_place_fails_before_any_attack(existing, files, tmp_path, capsys, monkeypatch):
    _no_attack(monkeypatch)
    ro = _read_only_dir(tmp_path)
    out = ro if existing else ro / "rep"
    try:
        status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--out", str(out)])
    finally:
        if ro != Path("/sys"):
            ro.chmod(0o755)
    line = _one_error_line(capsys.readouterr().err)
    assert status == EXIT_INPUT and f"--out {out}: cannot write in {ro}" in line
    assert not (ro / "rep").exists() and not list(ro.glob(".sdcrisk-probe-*"))


def test_out_without_room_for_the_report_fails_before_any_attack(files, tmp_path, capsys, monkeypatch):
    import shutil

    from sdcrisk.cli import report_bytes

    _no_attack(monkeypatch)
    need = report_bytes(2)
    real = shutil.disk_usage
    seen = []

    def usage(path):
        seen.append(Path(path))
        total = real(path).total
        return type(real(path))(total, total - (need - 1), need - 1)

    monkeypatch.setattr(shutil, "disk_usage", usage)
    out = tmp_path / "new" / "rep"
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), str(files / "heavy.csv"),
                   "--out", str(out)])
    line = _one_error_line(capsys.readouterr().err)
    assert status == EXIT_INPUT and f"--out {out}: " in line and "KiB free in" in line and "needs about" in line
    assert seen == [tmp_path] and not (tmp_path / "new").exists()
    assert report_bytes(1) < report_bytes(2) < report_bytes(3)


def test_a_failed_write_prints_the_summary_and_gate_and_leaves_no_directory(files, tmp_path, capsys, monkeypatch):
    import errno

    import sdcrisk.assess.report as report

    def full(results, out_dir, meta, **kwargs):
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        raise OSError(errno.ENOSPC, "No space left on device", str(Path(out_dir) / "report.html"))

    monkeypatch.setattr(report, "write_report", full)
    out = tmp_path / "a" / "b" / "rep"
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--attacks", "DBRL",
                   "--out", str(out), "--quiet", "--max-risk", "10"])
    captured = capsys.readouterr()
    assert status == EXIT_INPUT
    assert "DBRL" in captured.out and "Highest risk: DBRL" in captured.out  # the summary came first
    assert any(line.startswith("sdcrisk assess: risk gate: DBRL links") for line in captured.err.splitlines())
    assert captured.err.strip().splitlines()[-1].startswith("sdcrisk assess: error: cannot write ")
    assert "No space left on device" in captured.err
    assert list(tmp_path.iterdir()) == []  # a, a/b and a/b/rep were the command's: removed


def test_out_check_leaves_nothing_behind(tmp_path):
    assert out_problem(tmp_path / "new" / "deeper") is None
    assert out_problem(tmp_path) is None
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- inputs
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_duplicate_header_names_are_refused(kind, tmp_path, capsys):
    good = tmp_path / "good.csv"
    _original(20).to_csv(good, index=False)
    if kind == "csv":
        bad = tmp_path / "dup.csv"
        bad.write_text("income,rent,income,savings\n" + "\n".join(f"{i},{i + 1},{i + 2},{i * 3}" for i in range(20)))
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        bad = tmp_path / "dup.parquet"
        cols = [pa.array(np.arange(20.0) + k) for k in range(4)]
        pq.write_table(pa.Table.from_arrays(cols, names=["income", "rent", "income", "savings"]), bad)
    with pytest.raises(AssessError, match=r"dup\.(csv|parquet): column 'income' appears 2 times in the header"):
        read_file(bad)
    status = main(["assess", str(good), str(bad), "--out", str(tmp_path / "rep"), "--quiet"])
    line = _one_error_line(capsys.readouterr().err)
    assert status == EXIT_INPUT and f"{bad}: column 'income' appears 2 times" in line
    assert not (tmp_path / "rep").exists()


def test_a_missing_later_file_stops_before_any_attack(files, tmp_path, capsys, monkeypatch):
    _no_attack(monkeypatch)
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), str(tmp_path / "gone.csv"),
                   "--out", str(tmp_path / "rep")])
    line = _one_error_line(capsys.readouterr().err)
    assert status == EXIT_INPUT and line.endswith("gone.csv: no such file")


def test_names_that_only_look_renamed_are_kept(tmp_path):
    f = tmp_path / "ok.csv"
    f.write_text("a,a.1,b\n1,2,3\n4,5,6\n")
    assert list(read_file(f).columns) == ["a", "a.1", "b"]


def test_identifier_columns():
    x = _original(50)
    x.insert(0, "rid", np.arange(50) * 7 + 3)
    x["code"] = [f"P{i:04d}" for i in range(50)]
    y = _masked(x[["income", "rent", "tax", "savings"]], 0.3).assign(rid=x.rid, code=x.code)
    assert identifier_columns(x, y) == ["rid", "code"]
    shuffled = y.sample(frac=1.0, random_state=3).reset_index(drop=True)
    assert identifier_columns(x, shuffled, id="rid") == ["code"]  # paired by the id, not the row order
    assert identifier_columns(x, shuffled) == []  # row order pairs other records: nothing identical
    # an unmasked file: its 100 % risk is the true one, nothing left out
    assert identifier_columns(x, x.copy()) == []
    # measurements released unmasked are attributes, not identifiers
    assert identifier_columns(x, y.assign(income=x.income)) == ["rid", "code"]
    # not unique, changed, missing values, different counts, a bad id: not identifiers
    z = y.assign(rid=y.rid.where(np.arange(50) != 4, 3), code=y.code.where(np.arange(50) != 5, None))
    assert identifier_columns(x.assign(rid=x.rid.where(np.arange(50) != 4, 3)), z) == []
    assert identifier_columns(x, y.iloc[:49]) == [] and identifier_columns(x, y, id="nope") == []


# ----------------------------------------------------------------------------- errors: one line
def test_internal_error_is_one_line_exit_1(files, tmp_path, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise TypeError("an attack went wrong")

    monkeypatch.setattr(assessment, "assess", broken)
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--out", str(tmp_path / "rep"),
                   "--quiet"])
    line = _one_error_line(capsys.readouterr().err)
    assert status == EXIT_INTERNAL == 1
    assert "internal error TypeError: an attack went wrong at sdcrisk/cli.py:" in line and "please report it" in line
    assert not (tmp_path / "rep").exists()


def test_error_inside_an_attack_names_where_it_arose(files, tmp_path, capsys, monkeypatch):
    import sdcrisk.attacks as attacks

    def broken(x, y, known, v, rng):
        return {"not": "a LinkResult"}

    monkeypatch.setitem(attacks.ATTACKS, "DBRL", broken)
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--attacks", "DBRL",
                   "--out", str(tmp_path / "rep"), "--quiet"])
    line = _one_error_line(capsys.readouterr().err)
    assert status == EXIT_INTERNAL and "attack 'DBRL'" in line and " at sdcrisk/" in line
    assert not (tmp_path / "rep").exists()


def test_keyboard_interrupt_is_one_line_exit_130(files, tmp_path, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(assessment, "assess", interrupted)
    status = main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--out", str(tmp_path / "rep"),
                   "--quiet"])
    assert status == EXIT_INTERRUPTED == 130
    assert _one_error_line(capsys.readouterr().err) == "sdcrisk assess: error: interrupted; no report written"
    assert not (tmp_path / "rep").exists()


def test_keyboard_interrupt_while_writing_leaves_no_report(files, tmp_path, capsys, monkeypatch):
    import sdcrisk.assess.report as report

    def interrupted(results, out_dir, meta, **_):
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "write_report", interrupted)
    out = tmp_path / "rep"
    status = main(["assess", str(files / "original.csv"), str(files / "heavy.csv"), "--attacks", "DBRL",
                   "--out", str(out), "--quiet"])
    assert status == EXIT_INTERRUPTED and not out.exists()
    assert _one_error_line(capsys.readouterr().err) == "sdcrisk assess: error: interrupted; no report written"


def test_usage_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["assess", "o.csv", "m.csv", "--seed", "x"])
    assert exit_.value.code == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "argument --seed: invalid int value: 'x'" in line and "--help" in line


def test_help_documents_the_exit_statuses_and_the_gate(capsys):
    with pytest.raises(SystemExit):
        main(["assess", "--help"])
    text = capsys.readouterr().out
    assert "--max-risk P" in text and "exit status:" in text
    for code in ("0", "1", "2", "3", "4", "130"):
        assert f"\n  {code} " in text


def _run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "sdcrisk.cli", *map(str, args)], capture_output=True, text=True,
                          check=False, **kwargs)


def test_command_errors_have_no_traceback(files, tmp_path):
    """In a subprocess: each kind of error, one line, its status, no traceback, no report."""
    (tmp_path / "dup.csv").write_text("a,a,b\n1,2,3\n4,5,6\n")
    (tmp_path / "file").write_text("x")
    o, m = files / "original.csv", files / "light.csv"
    cases = [([o, m, "--max-risk", "101"], EXIT_INPUT, "--max-risk"),
             ([o, m, "--out", tmp_path / "file"], EXIT_INPUT, "is a file"),
             ([tmp_path / "dup.csv", m], EXIT_INPUT, "column 'a' appears 2 times"),
             ([o, tmp_path / "missing.csv"], EXIT_INPUT, "missing.csv: no such file"),
             ([o, m, "--attacks", "XRL"], EXIT_INPUT, "unknown attack 'XRL'"),
             ([o, m, "--seed"], EXIT_INPUT, "argument --seed: expected one argument")]
    for args, status, message in cases:
        out = tmp_path / "rep"
        extra = [] if "--out" in args else ["--out", out]
        proc = _run("assess", *args, *extra, "--quiet")
        assert proc.returncode == status, (args, proc.stderr)
        assert message in _one_error_line(proc.stderr), (args, proc.stderr)
        assert not out.exists()


def test_internal_error_in_a_subprocess_has_no_traceback(files, tmp_path):
    code = ("import sys, sdcrisk.attacks as a\n"
            "def broken(x, y, known, v, rng):\n    raise ZeroDivisionError('inside the attack')\n"
            "a.ATTACKS['DBRL'] = broken\n"
            "from sdcrisk.cli import main\n"
            f"sys.exit(main(['assess', {str(files / 'original.csv')!r}, {str(files / 'light.csv')!r}, "
            f"'--attacks', 'DBRL', '--out', {str(tmp_path / 'rep')!r}, '--quiet']))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == EXIT_INTERNAL, proc.stderr
    line = _one_error_line(proc.stderr)
    assert "internal error ZeroDivisionError: inside the attack at " in line
    assert not (tmp_path / "rep").exists()
    debug = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                           env={**os.environ, "SDCRISK_DEBUG": "1"})
    assert "Traceback" in debug.stderr and debug.returncode == EXIT_INTERNAL


def test_ctrl_c_during_the_attacks_exits_130_at_once(tmp_path):
    """A real SIGINT while attacks run: one line, status 130 within seconds, no report."""
    x = _original(4000, seed=5)
    x.to_csv(tmp_path / "o.csv", index=False)
    _masked(x, 0.5).to_csv(tmp_path / "m.csv", index=False)
    out = tmp_path / "rep"
    status, err, seconds = signal_during_attacks([str(tmp_path / "o.csv"), str(tmp_path / "m.csv"), "--scenarios",
                                                  "1..all", "--out", str(out)], signal.SIGINT)
    assert status == EXIT_INTERRUPTED, err
    assert seconds < 5.0
    assert err.strip().splitlines()[-1] == "sdcrisk assess: error: interrupted; no report written"
    assert "Traceback" not in err and not out.exists()


# ----------------------------------------------------------------------------- sdcrisk.assess
def test_help_shows_the_real_signature_and_docstring():
    sig = inspect.signature(sdcrisk.assess)
    assert {"original", "masked", "id", "known", "scenarios", "attacks", "seed"} <= set(sig.parameters)
    assert sdcrisk.assess.assess is assessment.assess  # the package's function, which help lists
    import pydoc

    text = pydoc.plain(pydoc.render_doc(sdcrisk.assess))
    assert "id=None" in text.replace("id: 'str | None' = None", "id=None")
    assert assessment.assess.__doc__.splitlines()[0].strip() in text
    assert "assess" in dir(sdcrisk)


def test_import_stays_light():
    code = ("import sys, time\nt = time.perf_counter()\nimport sdcrisk\nt = time.perf_counter() - t\n"
            "heavy = [m for m in ('numpy', 'pandas', 'numba', 'scipy', 'matplotlib') if m in sys.modules]\n"
            "print(heavy, t)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    heavy, seconds = proc.stdout.split("] ")
    assert heavy == "[" and float(seconds) < 0.5


def test_the_report_says_which_attacks_the_default_left_out_and_why(files, tmp_path, capsys):
    from sdcrisk.assess.default_attacks import LEFT_OUT

    out = tmp_path / "rep"
    assert main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    doc = json.loads((out / "report.json").read_text())
    assert set(doc["left_out"]) == set(LEFT_OUT) and all(doc["left_out"].values())
    assert not {r["measure"] for r in doc["results"]} & set(LEFT_OUT)
    for name in LEFT_OUT:
        assert f"left out by default: {name}: " in printed
        assert f"- {name}: " in (out / "report.md").read_text() and name in (out / "report.html").read_text()
    main(["assess", str(files / "original.csv"), str(files / "light.csv"), "--out", str(tmp_path / "all"),
          "--quiet", "--attacks", "all"])
    every = json.loads((tmp_path / "all" / "report.json").read_text())
    assert every["left_out"] == {} and set(LEFT_OUT) <= {r["measure"] for r in every["results"]}


def test_a_plugin_attack_declares_where_it_does_not_apply(monkeypatch):
    """The registry's applicability rule, not a special case in assess, makes a row 'not applicable'."""
    import numpy as np

    import sdcrisk
    from sdcrisk import attacks

    monkeypatch.setattr(attacks, "APPLIES", dict(attacks.APPLIES))
    monkeypatch.setitem(attacks.APPLIES, "RBRL-Max", lambda y, columns: "only for files with a column named x")
    rng = np.random.default_rng(0)
    x = pd.DataFrame(rng.normal(50, 10, size=(80, 3)), columns=["a", "b", "c"])
    row = sdcrisk.assess(x, x + rng.normal(0, 1, size=x.shape), attacks=["RBRL-Max"],
                         information_loss=False).set_index("measure").loc["RBRL-Max"]
    assert np.isnan(row["percent"]) and row["note"] == "not applicable: only for files with a column named x"
