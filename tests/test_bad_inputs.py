"""The bad inputs of docs/bad_inputs.md added with the strict extension contract: absurd sweeps
(the compute estimate), a column listed twice, YAML syntax errors, unreadable config files,
read-only output places and a full disk. Each gives one line naming the file and the cause, no
traceback, and leaves no partial file."""

import copy
import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sdcrisk import config as cfgmod
from sdcrisk.cli import main
from sdcrisk.data import WriteError, atomic_write, write_table
from sdcrisk.estimate import ATTACKS_PER_SCENARIO, DEFAULT_MAX_LINKAGES
from sdcrisk.preflight import PreflightError, check

ROOT = Path(__file__).resolve().parents[1]
QUICK = cfgmod.load(ROOT / "config" / "quick.yaml")


# ----------------------------------------------------------------------------- compute estimate
def test_the_paper_and_quick_configs_are_within_the_limit():
    paper = cfgmod.compute_estimate(cfgmod.validate(cfgmod.load(ROOT / "config" / "config.yaml")))
    assert (paper.jobs, paper.maskings, paper.linkages) == (253, 5975, 34034)
    assert "about 23 CPU minutes" in str(paper) and paper.linkages * 29 < DEFAULT_MAX_LINKAGES
    quick = cfgmod.compute_estimate(cfgmod.validate(copy.deepcopy(QUICK)))
    assert quick.linkages < paper.linkages


def test_an_absurd_sweep_is_refused_with_its_estimate():
    cfg = copy.deepcopy(QUICK)
    cfg["experiments"]["nin2007_rankswap"]["replicates"] = 1_000_000_000
    with pytest.raises(cfgmod.ConfigError) as err:
        cfgmod.validate(cfg, "bad.yaml")
    assert str(err.value) == (
        "bad.yaml: the sweeps would run 57 cell job(s), 4,000,000,071 masking(s) and 138,000,000,928 linkage(s), "
        "about 175 CPU years at 0.04 s per linkage, more than the limit of 1,000,000 linkages (most in "
        "experiments.nin2007_rankswap: 138,000,000,000); lower its replicates or parameter grid, or set "
        "max_linkages: 138000000928 in the config to run it anyway")
    cfg["max_linkages"] = 138_000_000_928  # the documented override
    assert cfgmod.validate(cfg, "bad.yaml") is cfg
    cfg["max_linkages"] = 0
    with pytest.raises(cfgmod.ConfigError, match="invalid value at 'max_linkages': 0 is less than the minimum of 1"):
        cfgmod.validate(cfg, "bad.yaml")


def test_a_deterministic_method_is_estimated_at_one_masking():
    cfg = copy.deepcopy(QUICK)
    cfg["experiments"]["nin2007_univariate"]["replicates"] = 1_000_000_000  # optimal_univariate_ma: deterministic
    assert cfgmod.compute_estimate(cfgmod.validate(cfg)).linkages == cfgmod.compute_estimate(QUICK).linkages


def test_every_evaluation_has_its_linkage_count():
    from sdcrisk.evaluation import EVALUATIONS

    assert set(ATTACKS_PER_SCENARIO) == set(EVALUATIONS)


# ----------------------------------------------------------------------------- data set definitions
def test_a_column_listed_twice_is_named_in_the_config_and_in_preflight(tmp_path):
    cfg = copy.deepcopy(QUICK)
    cfg["datasets"]["census"]["columns"].append(cfg["datasets"]["census"]["columns"][0])
    message = "config datasets.census.columns: column(s) ['AFNLWGT'] listed twice; expected every attribute once"
    with pytest.raises(cfgmod.ConfigError) as err:
        cfgmod.validate(cfg, "mine.yaml")
    assert str(err.value) == f"mine.yaml: {message}"
    (tmp_path / "mine.csv").write_text("a,b\n1,2\n3,5\n4,4\n")
    mine = {"datasets": {"mine": {"url": "https://example.org/mine.csv", "sha256": "0" * 64, "columns": ["a", "b", "a"]}},
            "experiments": {}}
    with pytest.raises(PreflightError, match=r"^config datasets\.mine\.columns: column\(s\) \['a'\] listed twice"):
        check(mine, {"mine": str(tmp_path / "mine.csv")})


# ----------------------------------------------------------------------------- config files
def test_a_yaml_syntax_error_names_the_file_line_and_column(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\nexperiments:\n  a: [1\n  b: 2\n")
    with pytest.raises(cfgmod.ConfigError) as err:
        cfgmod.read_layer(bad)
    assert str(err.value) == (f"{bad}: line 4, column 4: not valid YAML (while parsing a flow sequence, "
                              "expected ',' or ']', but got ':')")
    bad.write_text("seed: 1\n  data_mirror: x\n")
    with pytest.raises(cfgmod.ConfigError, match=r"bad\.yaml: line 2, column 14: not valid YAML \(mapping values "
                                                 r"are not allowed here\)"):
        cfgmod.load(bad)


def test_an_unreadable_config_file_is_named(tmp_path, monkeypatch):
    with pytest.raises(cfgmod.ConfigError) as err:
        cfgmod.layered(ROOT / "config" / "config.yaml", [tmp_path / "missing.yaml"])
    assert str(err.value) == f"{tmp_path / 'missing.yaml'}: cannot read the config file (No such file or directory)"
    (tmp_path / "locked.yaml").write_text("seed: 1\n")
    (tmp_path / "binary.yaml").write_bytes(b"seed: \xff\xfe\n")
    real = Path.read_text

    def read_text(self, *args, **kwargs):  # the test runs as root, which chmod does not stop
        if self.name == "locked.yaml":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)
    with pytest.raises(cfgmod.ConfigError, match=r"locked\.yaml: cannot read the config file \(Permission denied\)$"):
        cfgmod.read_layer(tmp_path / "locked.yaml")
    with pytest.raises(cfgmod.ConfigError, match=r"binary\.yaml: cannot read the config file \(not UTF-8 text: "
                                                 r"invalid start byte at byte 6\)"):
        cfgmod.read_layer(tmp_path / "binary.yaml")


@pytest.mark.parametrize("text,message", [
    ("seed: 1\nexperiments:\n  a: [1\n  b: 2\n", "bad.yaml: line 4, column 4: not valid YAML"),
    ("seed: 1\nmax_linkages: 10\n", "the sweeps would run"),
    ("seed: 1\nreplicatez: 3\n", "Additional properties are not allowed ('replicatez' was unexpected)"),
])
def test_check_config_prints_one_line(tmp_path, capsys, monkeypatch, text, message):
    monkeypatch.chdir(ROOT)
    (tmp_path / "bad.yaml").write_text(text)
    assert main(["check-config", str(tmp_path / "bad.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sdcrisk check-config: error: ") and message in err and err.count("\n") == 1, err


def test_check_config_prints_the_estimate(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["check-config", "config/quick.yaml"]) == 0
    assert capsys.readouterr().out.startswith("config OK: 57 cell job(s), 79 masking(s) and 1,204 linkage(s)")


# ----------------------------------------------------------------------------- output places
def _enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_leaves_no_partial_file(tmp_path):
    def half_written(tmp):
        Path(tmp).write_text("partial")
        _enospc()

    with pytest.raises(WriteError) as err:
        atomic_write(tmp_path / "tables" / "t.csv", half_written)
    assert str(err.value) == f"cannot write {tmp_path / 'tables' / 't.csv'}: No space left on device"
    assert err.value.errno == errno.ENOSPC and list((tmp_path / "tables").iterdir()) == []
    with pytest.raises(KeyboardInterrupt):  # any failure: the temporary goes
        atomic_write(tmp_path / "t.csv", lambda tmp: (Path(tmp).write_text("x"), (_ for _ in ()).throw(KeyboardInterrupt)))
    assert list(tmp_path.glob("*.part*")) == []


def test_a_read_only_place_is_named(tmp_path, monkeypatch):
    import pandas as pd

    def read_only(*args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(os, "replace", read_only)
    with pytest.raises(WriteError, match=r"cannot write .*cells/x\.parquet: Permission denied$"):
        write_table(pd.DataFrame({"a": [1.0]}), tmp_path / "cells" / "x.parquet")
    assert list((tmp_path / "cells").iterdir()) == []
    monkeypatch.setattr(Path, "mkdir", read_only)
    with pytest.raises(WriteError, match=r"cannot write .*other/y\.csv: Permission denied$"):
        atomic_write(tmp_path / "other" / "y.csv", lambda tmp: Path(tmp).write_text("y"))


def test_a_failing_job_names_the_cause_on_the_console_even_when_the_log_cannot_take_it(tmp_path):
    """The job's one console line comes first: on a full disk the log file takes nothing."""
    script = f"""
import errno, os, sys
from sdcrisk.data import atomic_write
from sdcrisk.joblog import log_stderr

def full_disk(*args):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

def render(tmp):
    open(tmp, "w").write("half a table")
    full_disk()

log_stderr({str(tmp_path / 'job.log')!r})
sys.stderr.write = sys.stderr.flush = full_disk  # the log takes nothing
atomic_write({str(tmp_path / 'tables' / 'T1.csv')!r}, render)
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert proc.returncode != 0  # 1, or 120 when even the exit's flush of the log fails
    assert proc.stderr.splitlines()[0] == (f"ERROR (log: {tmp_path / 'job.log'}): WriteError: cannot write "
                                           f"{tmp_path / 'tables' / 'T1.csv'}: No space left on device"), proc.stderr
    assert list((tmp_path / "tables").iterdir()) == []


def test_sdcrisk_assess_on_a_full_disk_prints_one_line(tmp_path, capsys, monkeypatch):
    import numpy as np
    import pandas as pd

    x = pd.DataFrame(np.random.default_rng(0).lognormal(size=(40, 3)), columns=["a", "b", "c"])
    x.to_csv(tmp_path / "o.csv", index=False)
    (x * 1.01).to_csv(tmp_path / "m.csv", index=False)
    monkeypatch.setattr(Path, "write_text", _enospc)
    out = tmp_path / "rep"
    assert main(["assess", str(tmp_path / "o.csv"), str(tmp_path / "m.csv"), "--attacks", "DBRL", "--out", str(out),
                 "--quiet"]) == 2
    assert capsys.readouterr().err == (f"sdcrisk assess: error: cannot write {out}: No space left on device; "
                                       "no report written\n")
    assert not out.exists()  # the directory the command made is removed


# ----------------------------------------------------------------------------- the Snakemake path
@pytest.mark.slow
@pytest.mark.parametrize("edit,message", [
    (lambda t: t.replace("replicates: 2", "replicates: 1000000000", 1), "the sweeps would run 57 cell job(s)"),
    (lambda t: t + "datasets:\n  mine: {url: https://example.org/m.csv, sha256: '" + "0" * 64
               + "', columns: [a, b, a]}\n", "config datasets.mine.columns: column(s) ['a'] listed twice"),
    (lambda t: t.replace("replicates: 2", "replicatez: 2", 1), "('replicatez' was unexpected)"),
])
def test_a_config_mistake_under_snakemake_is_one_line_without_traceback(tmp_path, edit, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text(edit((ROOT / "config" / "quick.yaml").read_text()))
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
                           str(tmp_path / "w"), "-n", "--configfile", str(bad)], capture_output=True, text=True,
                          check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1
    (line,) = [line for line in out.splitlines() if "CONFIG ERROR" in line]
    assert line.startswith("CONFIG ERROR: config: ") and message in line, out
    assert "Traceback" not in out and 'File "' not in out, out
    assert not (tmp_path / "w" / "results").exists()
