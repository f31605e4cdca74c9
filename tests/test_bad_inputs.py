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

from sdcrisk.replication import config as cfgmod
from sdcrisk.cli import main
from sdcrisk.data import WriteError, atomic_write, write_table
from sdcrisk.replication.estimate import ATTACKS_PER_SCENARIO, DEFAULT_MAX_LINKAGES
from sdcrisk.replication.preflight import PreflightError, check

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
    from sdcrisk.replication.evaluation import EVALUATIONS

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
from sdcrisk.replication.joblog import log_stderr

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


# ----------------------------------------------------------------------------- sdcrisk assess: the fault-injection campaign
def _pair_files(tmp_path, n=300, m=3, kind="csv", seed=0):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    x = pd.DataFrame(rng.lognormal(size=(n, m)), columns=[f"a{j}" for j in range(m)])
    y = x * (1 + 0.05 * rng.normal(size=x.shape))
    o, mk = tmp_path / f"o.{kind}", tmp_path / f"m.{kind}"
    if kind == "csv":
        x.to_csv(o, index=False), y.to_csv(mk, index=False)
    else:
        x.to_parquet(o), y.to_parquet(mk)
    return str(o), str(mk)


def _nothing_read(monkeypatch):
    """Any read of a file's records fails the test: the check must come before the reading."""
    import pandas as pd

    from sdcrisk.assess import pairing

    def refuse(*args, **kwargs):
        raise AssertionError("a file was read")

    monkeypatch.setattr(pd, "read_csv", refuse)
    monkeypatch.setattr(pairing, "read_table", refuse)


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("sdcrisk assess: error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_file_pair_above_the_memory_limit_is_refused_before_reading(tmp_path, monkeypatch, capsys, kind):
    o, m = _pair_files(tmp_path, 300, 3, kind)
    monkeypatch.setenv("SDCRISK_MEMORY_LIMIT", "10K")
    _nothing_read(monkeypatch)
    out = tmp_path / "rep"
    assert main(["assess", o, m, "--out", str(out), "--quiet"]) == 2
    err = _one_line(capsys)
    need = 16 * (300 * 3 + 300 * 3)  # 16 bytes per value of each file (sdcrisk.assess.workers.READ_BYTES_PER_VALUE)
    assert f"{o} and {m}: reading them needs about {need / 1024:.1f} KiB (about 300 records x 3 columns" in err, err
    assert "more than the memory limit of 10.0 KiB (SDCRISK_MEMORY_LIMIT)" in err, err
    assert not out.exists()
    from sdcrisk.assess.assessment import AssessError, assess  # the library refuses the same way

    with pytest.raises(AssessError, match="reading them needs about"):
        assess(o, m)


def test_every_attack_above_the_memory_limit_is_refused_before_reading(tmp_path, monkeypatch, capsys):
    from sdcrisk.assess.assessment import attack_names
    from sdcrisk.assess.workers import expected_bytes

    o, m = _pair_files(tmp_path, 300, 3)
    monkeypatch.setenv("SDCRISK_MEMORY_LIMIT", "100M")
    monkeypatch.setenv("SDCRISK_WORKER_MIN", "0")  # the attacks run in workers, which refuse each
    least = min((a for a in attack_names(None) if a != "ID"), key=lambda a: expected_bytes(a, 300))
    with monkeypatch.context() as patch:
        _nothing_read(patch)
        assert main(["assess", o, m, "--out", str(tmp_path / "rep"), "--quiet"]) == 2
    err = _one_line(capsys)
    need = expected_bytes(least, 300) / 2**30
    assert (f"{o}: about 300 records (estimated from the file's size): every attack asked for needs more than the "
            f"memory limit of 100.00 MiB (SDCRISK_MEMORY_LIMIT), the least {least} about {need:.2f} GiB") in err, err
    assert main(["assess", o, m, "--out", str(tmp_path / "rep"), "--quiet", "--attacks", "ID"]) == 0  # no attack


def test_out_of_memory_while_reading_is_an_internal_error_with_the_estimate(tmp_path, monkeypatch, capsys):
    import pandas as pd

    o, m = _pair_files(tmp_path, 300, 3)
    real = pd.read_csv

    def short_of_memory(path, *args, **kwargs):
        if kwargs.get("nrows") is None:  # the records, not the header line
            raise MemoryError
        return real(path, *args, **kwargs)

    monkeypatch.setattr(pd, "read_csv", short_of_memory)
    assert main(["assess", o, m, "--out", str(tmp_path / "rep"), "--quiet"]) == 1
    err = _one_line(capsys)
    assert err.startswith(f"sdcrisk assess: error: stopped reading {o} (about 300 records x 3 columns, estimated to "
                          f"need about {16 * 900 / 1024:.1f} KiB for this file): out of "), err
    assert "cannot be read" not in err and not (tmp_path / "rep").exists()


@pytest.mark.parametrize("argv,message", [
    (["--seed", "-1"], "--seed: expected a whole number >= 0, got -1"),
    (["{m}"], "masked file given twice: {m}; give each masked file once"),
    (["{d}/../{d_name}/m.csv"], "masked file given twice: {d}/../{d_name}/m.csv is {m}; give each masked file once"),
])
def test_a_mistake_in_the_arguments_is_refused_before_reading(tmp_path, monkeypatch, capsys, argv, message):
    o, m = _pair_files(tmp_path)
    fill = {"m": m, "d": str(tmp_path), "d_name": tmp_path.name}
    _nothing_read(monkeypatch)
    out = tmp_path / "rep"
    assert main(["assess", o, m, *[a.format(**fill) for a in argv], "--out", str(out), "--quiet"]) == 2
    assert _one_line(capsys) == f"sdcrisk assess: error: {message.format(**fill)}\n"
    assert not out.exists()


@pytest.mark.parametrize("variable,value", [("SDCRISK_MEMORY_LIMIT", "abc"), ("SDCRISK_MEMORY_LIMIT", "-3G"),
                                            ("SDCRISK_WORKER_MIN", "many")])
def test_a_malformed_environment_variable_is_refused_before_reading(tmp_path, monkeypatch, capsys, variable, value):
    o, m = _pair_files(tmp_path)
    monkeypatch.setenv(variable, value)
    _nothing_read(monkeypatch)
    assert main(["assess", o, m, "--out", str(tmp_path / "rep"), "--quiet"]) == 2
    err = _one_line(capsys)
    assert f"error: {variable}={value!r}: expected a " in err, err
    assert not (tmp_path / "rep").exists()


@pytest.mark.parametrize("n", range(2, 10))
def test_prl_graded_runs_on_files_smaller_than_its_neighbours(n):
    import numpy as np

    from sdcrisk.linkage.graded import NEIGHBOURS, prl_graded

    rng = np.random.default_rng(n)
    x = rng.lognormal(size=(n, 3))
    y = x * (1 + 0.01 * rng.normal(size=x.shape))
    assert n < NEIGHBOURS
    res = prl_graded(x, y, rng=np.random.default_rng(0))
    assert res.info["neighbours"] == n and res.info["pairs"] == n * n  # every pair compared
    assert res.links.shape == (n,) and set(res.links[res.links >= 0]) <= set(range(n))
    assert len(set(res.links[res.links >= 0])) == int((res.links >= 0).sum())  # one-to-one


def test_sdcrisk_assess_runs_prl_graded_on_three_records(tmp_path, capsys):
    o, m = _pair_files(tmp_path, 3, 2)
    assert main(["assess", o, m, "--out", str(tmp_path / "rep"), "--quiet", "--attacks", "PRL-graded"]) == 0


# masking methods and attack plugins that write into their input
def _registered_method(name, func):
    from sdcrisk.masking import register

    register(name, family="toy", randomised=True)(func)


def test_a_masking_method_writing_into_its_input_is_refused(monkeypatch):
    import numpy as np

    from sdcrisk.masking import METHODS, mask

    monkeypatch.setattr("sdcrisk.masking.registry.METHODS", dict(METHODS))  # registrations vanish after the test
    from sdcrisk.masking import registry

    def in_place(x, rng):
        x += rng.normal(size=x.shape)
        return x

    def same(x, rng):
        return x[:, ::-1]  # a view of its input

    registry.register("in_place", family="toy", randomised=True)(in_place)
    registry.register("same", family="toy", randomised=True)(same)
    x = np.random.default_rng(0).lognormal(size=(50, 3))
    x0 = x.copy()
    with pytest.raises(ValueError, match=r"^masking method 'in_place' wrote into its input \(.*read-only.*\); expected "
                                         r"a new array, its input left unchanged \(e\.g\. x \+ noise, not x \+= noise\)$"):
        registry.mask("in_place", x, np.random.default_rng(1))
    with pytest.raises(ValueError, match=r"^masking method 'same' returned its input \(or a view of it\)"):
        registry.mask("same", x, np.random.default_rng(1))
    assert np.array_equal(x, x0)  # the caller's data unchanged
    assert mask("additive_noise", x, np.random.default_rng(1), a=0.1).shape == x.shape  # a built-in method is unaffected
    assert np.array_equal(x, x0)


def test_an_attack_plugin_writing_into_its_input_is_refused_and_a_list_of_links_accepted(monkeypatch):
    import numpy as np

    from sdcrisk import attacks
    from sdcrisk.linkage.base import LinkResult

    monkeypatch.setattr(attacks, "ATTACKS", dict(attacks.ATTACKS))

    @attacks.register_attack("Scribbler")
    def scribbler(x, y, known, v, rng):
        y[:] = x  # the masked file made the original: every later attack would link all records
        return LinkResult(links=np.arange(x.shape[0]))

    @attacks.register_attack("ListOracle")
    def list_oracle(x, y, known, v, rng):
        return LinkResult(links=list(range(x.shape[0])))

    @attacks.register_attack("Words")
    def words(x, y, known, v, rng):
        return LinkResult(links=["a"] * x.shape[0])

    rng = np.random.default_rng(0)
    x = rng.lognormal(size=(40, 3))
    y = x * (1 + 0.1 * rng.normal(size=x.shape))
    x0, y0 = x.copy(), y.copy()
    with pytest.raises(ValueError, match=r"^attack 'Scribbler' wrote into its input \(.*read-only.*\)"):
        attacks.run_attack("Scribbler", x, y, np.arange(3), 2, rng, truth=np.arange(40))
    assert np.array_equal(x, x0) and np.array_equal(y, y0)
    res = attacks.run_attack("ListOracle", x, y, np.arange(3), 2, rng, truth=np.arange(40))
    assert res.credit.sum() == 40 and res.links.dtype.kind == "i"
    with pytest.raises(ValueError, match=r"^attack 'Words' returned links of dtype <U1; expected integers"):
        attacks.run_attack("Words", x, y, np.arange(3), 2, rng)


# workers' directories left by a killed command
def test_the_next_run_removes_the_workers_directories_no_live_process_owns(tmp_path, monkeypatch, capsys):
    import socket
    import tempfile

    host = socket.gethostname()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        temp = tmp_path / "tmp"
        temp.mkdir()
        stale = temp / f"sdcrisk-workers-{dead.pid}@{host}-abcd1234"
        kept = [temp / f"sdcrisk-workers-{live.pid}@{host}-abcd1234", temp / f"sdcrisk-workers-{dead.pid}@other-host-x1",
                temp / "sdcrisk-workers-k3j2h1g0"]  # a live owner, another host, no owner named
        for d in [stale, *kept]:
            (d / "pair-1").mkdir(parents=True)
            (d / "pair-1" / "x.npy").write_bytes(b"0" * 1000)
        monkeypatch.setenv("TMPDIR", str(temp))
        monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
        o, m = _pair_files(tmp_path, 40, 3)
        assert main(["assess", o, m, "--out", str(tmp_path / "rep"), "--quiet", "--attacks", "DBRL"]) == 0
        assert not stale.exists() and all(d.is_dir() for d in kept)
    finally:
        live.kill()
        live.wait()


def test_every_built_in_masking_method_leaves_its_input_unchanged():
    """The built-in methods get the caller's array itself (their numba kernels are compiled for
    writable arrays): none may write into it, and none returns it."""
    import numpy as np

    from sdcrisk.compile import _example_params
    from sdcrisk.masking import METHODS, mask

    x = np.round(np.random.default_rng(0).lognormal(3.0, 0.5, (300, 4)), 1)
    x0 = x.copy()
    for name, method in METHODS.items():
        if not method.builtin:
            continue
        out = mask(name, x, np.random.default_rng(1), **{p.name: _example_params(p) for p in method.params})
        assert np.array_equal(x, x0), name
        assert not np.may_share_memory(out, x), name


# ----------------------------------------------------------------------------- inference options
def _records_never_read(monkeypatch):
    """Reading a file's records fails the test (its header row may be read: the --secret check)."""
    from sdcrisk.assess import pairing

    def refuse(*args, **kwargs):
        raise AssertionError("a file's records were read")

    monkeypatch.setattr(pairing, "_read", refuse)
    monkeypatch.setattr(pairing, "read_table", refuse)


@pytest.mark.parametrize("argv,message", [
    (["--secret", "a1", "--known", "a0,a1"],
     "--secret: 'a1' is also in --known; a secret is what the intruder does not know"),
    (["--secret", "zz"], "--secret: {o} has no column 'zz'; a secret must be a column of the original and of every "
                         "masked file"),
    (["{m2}", "--secret", "a2"], "--secret: {m2} has no column 'a2'; a secret must be a column of the original and "
                                 "of every masked file"),
    (["--secret", "each"], "--secret: 'each' needs --known (each attribute not known is then a secret in turn)"),
    (["--secret", "a1", "--scenarios", "1..2"],
     "--secret: give the known attributes with --known (or none: every other attribute), not --scenarios"),
    (["--tolerance", "0"], "--tolerance: expected a share of the true value in (0, 1] (e.g. 0.05 for 5 %), got '0'"),
    (["--tolerance", "1.5"],
     "--tolerance: expected a share of the true value in (0, 1] (e.g. 0.05 for 5 %), got '1.5'"),
    (["--tolerance", "five"],
     "--tolerance: expected a share of the true value in (0, 1] (e.g. 0.05 for 5 %), got 'five'"),
    (["--max-risk", "linkability=5,inference=10,membership=3"],
     "--max-risk: unknown criterion 'membership' in 'linkability=5,inference=10,membership=3'; expected "
     "CRITERION=P with CRITERION one of linkability, inference, singling-out (e.g. linkability=5,inference=10), "
     "or one number for all"),
    (["--max-risk", "inference=150"], "--max-risk: inference: expected a percentage from 0 to 100, got '150'"),
])
def test_a_bad_secret_tolerance_or_criterion_is_refused_before_reading(tmp_path, monkeypatch, capsys, argv, message):
    import pandas as pd

    o, m = _pair_files(tmp_path)
    m2 = tmp_path / "m2.csv"
    pd.read_csv(m).drop(columns="a2").to_csv(m2, index=False)
    fill = {"o": o, "m": m, "m2": str(m2)}
    _records_never_read(monkeypatch)
    out = tmp_path / "rep"
    assert main(["assess", o, m, *[a.format(**fill) for a in argv], "--out", str(out), "--quiet"]) == 2  # m2: masked
    assert _one_line(capsys) == f"sdcrisk assess: error: {message.format(**fill)}\n"
    assert not out.exists()


def test_the_python_api_refuses_the_same_secrets_and_tolerances(tmp_path):
    import pandas as pd

    from sdcrisk.assess.assessment import AssessError, assess

    o, m = _pair_files(tmp_path, n=30)
    x, y = pd.read_csv(o), pd.read_csv(m)
    for kwargs, match in [({"secret": "a1", "known": ["a1"]}, "also in --known"),
                          ({"secret": "zz"}, "'zz' is not an attribute of both original and masked"),
                          ({"secret": "a1", "tolerance": 0.0}, r"tolerance: expected a number in \(0, 1\]"),
                          ({"secret": "a1", "tolerance": 2}, r"tolerance: expected a number in \(0, 1\]")]:
        with pytest.raises(AssessError, match=match):
            assess(x, y, attacks=["DBRL"], information_loss=False, **kwargs)
