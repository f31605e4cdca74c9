"""Several releases through workflow/assess.smk (sdcrisk.assess.jobs): one job per (release,
attack) and one per release for information loss give the report of ``sdcrisk assess`` on the
same files byte for byte (``--no-timings`` / ``timings: false``): in-process (the parts and the
gather step without Snakemake), through Snakemake with profiles/local, and through profiles/slurm
on a running cluster (three of the attacks; skips with the reason otherwise). The config checks, and what
``--no-timings`` leaves out.

The tests starting Snakemake are listed as slow in ``tests/conftest.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sdcrisk.assess import jobs as assess_jobs
from sdcrisk.assess.default_attacks import ALL_ATTACKS
from sdcrisk.assess.jobs import AssessJobsError, Plan, local_argv, plan_from_config
from sdcrisk.cli import main
from sdcrisk.masking import mask

ROOT = Path(__file__).resolve().parents[1]
SNAKEFILE = ROOT / "workflow" / "assess.smk"
COLUMNS = ["income", "rent", "tax", "savings"]
REPORT = ("report.json", "report.md", "report.html")
SLURM_TIMEOUT = 400  # seconds for the cluster run (about 100 s on the one-node cluster)
# on the cluster three of the attacks (10 SLURM jobs instead of 24: each costs about 10 s of start-up
# on the one-node cluster); every attack runs through profiles/local above


def _write_files(d: Path, categorical: bool = False, identifier: bool = False) -> None:
    """original.csv (200 records x 4, lognormal) and two releases: additive noise (a = 0.5) and
    rank swapping (p = 10); with ``categorical`` an id column and a region code kept unchanged
    (a blocking key), the releases' records shuffled; with ``identifier`` an unmasked record
    number that is not named as the id (left out, with a warning)."""
    rng = np.random.Generator(np.random.PCG64(20261125))
    x = rng.lognormal(mean=3.0, size=(200, 4))
    releases = {"noise.csv": mask("additive_noise", x, np.random.Generator(np.random.PCG64(1)), a=0.5),
                "swap.csv": mask("rankswap", x, np.random.Generator(np.random.PCG64(2)), p=10)}
    original = pd.DataFrame(x, columns=COLUMNS)
    extra = {}
    if categorical:
        extra = {"pid": np.arange(1000, 1200), "region": rng.integers(0, 4, size=200)}
    elif identifier:
        extra = {"record": np.arange(1, 201)}
    d.mkdir(parents=True, exist_ok=True)
    original.assign(**extra).to_csv(d / "original.csv", index=False)
    for k, (name, y) in enumerate(releases.items()):
        t = pd.DataFrame(y, columns=COLUMNS).assign(**extra)
        if categorical:
            t = t.sample(frac=1.0, random_state=np.random.RandomState(k)).reset_index(drop=True)
        t.to_csv(d / name, index=False)


def _config(**extra) -> dict:
    return {"original": "original.csv", "releases": ["noise.csv", "swap.csv"], "timings": False,
            "out": "report", **extra}


def _local_report(d: Path, plan: Plan, monkeypatch) -> None:
    """``sdcrisk assess`` in-process in ``d`` with the command the plan names."""
    monkeypatch.chdir(d)
    assert main(local_argv(plan)) == 0


def _parts_equal_local(local: Path, jobs: Path, plan: Plan, monkeypatch) -> dict:
    """The command in ``local``, the plan's parts gathered in ``jobs``: the same report files;
    returns the parts' report.json."""
    _local_report(local, plan, monkeypatch)
    monkeypatch.chdir(jobs)
    _run_parts(plan)
    assess_jobs.write(Plan.from_json(plan.to_json()))
    _same_files(local / "report", jobs / "report")
    return json.loads((jobs / "report" / "report.json").read_text())


def _same_reports(a: Path, b: Path) -> None:
    for name in REPORT:
        assert (a / name).read_bytes() == (b / name).read_bytes(), f"{name} differs"


def _weights(d: Path) -> None:
    """A sampling-weight column ``w`` in each release (positive, by region)."""
    for name in ("noise.csv", "swap.csv"):
        t = pd.read_csv(d / name)
        t.assign(w=1.0 + 2.5 * t["region"]).to_csv(d / name, index=False)


def _sample(d: Path, n: int = 120) -> None:
    """Each release cut to its first ``n`` records: a sample release (the id column in both files)."""
    for name in ("noise.csv", "swap.csv"):
        pd.read_csv(d / name).iloc[:n].to_csv(d / name, index=False)


def _run_parts(plan: Plan) -> None:
    """Every job of the plan in this process, in the order Snakemake may run them."""
    for i, release in enumerate(plan.releases):
        if plan.synthetic:
            assess_jobs.synthetic_part(plan.original, release, plan.settings, plan.part(i, assess_jobs.SYNTHETIC))
            continue
        for attack in plan.attacks:
            assess_jobs.attack_part(plan.original, release, attack, plan.settings, plan.part(i, attack))
        assess_jobs.loss_part(plan.original, release, plan.settings, plan.part(i, None))
        if plan.criteria:
            assess_jobs.criteria_part(plan, i, plan.part(i, assess_jobs.CRITERIA))


def _same_files(a: Path, b: Path) -> None:
    """The report and records_at_risk.csv alike (both present or both absent)."""
    _same_reports(a, b)
    assert (a / "records_at_risk.csv").exists() == (b / "records_at_risk.csv").exists()
    if (a / "records_at_risk.csv").exists():
        assert (a / "records_at_risk.csv").read_bytes() == (b / "records_at_risk.csv").read_bytes()


@pytest.mark.parametrize("extra", [{"scenarios": "1..all"},
                                   {"id": "pid", "categorical": ["region"], "attacks": "DBRL,PRL,GDBRL,ID",
                                    "seed": 3, "max_risk": 95},
                                   {"attacks": "DBRL,ID", "known": "income,tax"},
                                   {"id": "pid", "categorical": ["region"], "attacks": "DBRL,GDBRL,ID",
                                    "secret": ["tax"], "tolerance": 0.1,
                                    "max_risk": {"linkability": 99, "inference": 50, "singling-out": 90}},
                                   {"id": "pid", "categorical": ["region"], "attacks": "DBRL,ID", "weights": "w",
                                    "singling_out": False},
                                   {"id": "pid", "categorical": ["region"], "sample": True},
                                   {"id": "pid", "categorical": ["region"], "sample": True, "secret": ["tax"],
                                    "attacks": "DBRL,ID", "max_risk": 99}],
                         ids=["scenarios", "id-categorical", "identifier-warning", "secret-gates", "weights-no-so",
                              "sample-default-set", "sample-secret"])
def test_parts_gathered_in_process_give_the_local_report(tmp_path, monkeypatch, capsys, extra):
    extra = dict(extra)
    sample = extra.pop("sample", False)
    categorical, identifier = "categorical" in extra, "known" in extra
    local, jobs = tmp_path / "local", tmp_path / "jobs"
    for d in (local, jobs):
        _write_files(d, categorical, identifier)
        if "weights" in extra:
            _weights(d)
        if sample:
            _sample(d)
    plan = plan_from_config(_config(**extra))
    doc = _parts_equal_local(local, jobs, plan, monkeypatch)
    assert doc["meta"]["command"] == "sdcrisk " + " ".join(local_argv(plan))
    so = [r for r in doc["results"] if r["kind"] == "singling out"]
    assert bool(so) == extra.get("singling_out", True)  # the default: singling out on every release
    inference = [r for r in doc["results"] if r["kind"] == "inference"]
    assert bool(inference) == ("secret" in extra)
    if sample:  # told from the files: the id in both, fewer released records; the default set adds DBRL
        assert doc["release_type"] == "sample" and doc["meta"]["sample"]
        assert (jobs / "report" / "report.md").read_text().startswith(
            "# Disclosure risk and information loss (sample release)")
        attacks = [r["measure"] for r in doc["results"] if r["kind"] == "disclosure risk" and r["masked"] == "noise.csv"]
        assert "DBRL" in attacks and len(attacks) == len(plan.attacks if plan.attacks_given else
                                                         assess_jobs._release_attacks(plan, True))
        assert all(r["records"] == "released" for r in inference)
    else:
        assert doc["release_type"] == "one to one"
        n_linkage = len(assess_jobs.attack_names(None)) if not plan.attacks_given else len(plan.attacks)
        assert len(doc["results"]) - len(so) - len(inference) == \
            2 * (n_linkage * (4 if "scenarios" in extra else 1) + 8 + categorical)
    if "weights" in extra:
        assert set(doc["meta"]["key_risk"]) == {"noise.csv", "swap.csv"} and doc["meta"]["key_risk"]["noise.csv"]["weights"]
    if isinstance(extra.get("max_risk"), dict):
        assert doc["meta"]["max_risk"] == {"inference": 50.0, "linkability": 99.0, "singling out": 90.0}
        assert "--max-risk inference=50.0,linkability=99.0,singling-out=90.0" in doc["meta"]["command"]
    if identifier:
        assert len(doc["meta"]["warnings"]) == 2 and "'record' is unique per record" in doc["meta"]["warnings"][0]
    if categorical and not sample:
        assert doc["blocking"]["noise.csv"]["keys"] == ["region"] and bool(doc["gate"]) == ("max_risk" in extra)


def test_no_timings_leaves_the_clock_out(tmp_path, monkeypatch):
    _write_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["assess", "original.csv", "noise.csv", "--attacks", "DBRL", "--out", "on", "--quiet"]) == 0
    assert main(["assess", "original.csv", "noise.csv", "--attacks", "DBRL", "--out", "off", "--quiet",
                 "--no-timings"]) == 0
    on, off = (json.loads((tmp_path / d / "report.json").read_text()) for d in ("on", "off"))
    assert "created" in on["meta"] and "timings" not in on["meta"] and "seconds" in on["results"][0]
    assert "created" not in off["meta"] and off["meta"]["timings"] is False
    assert all("seconds" not in r for r in off["results"])
    md = (tmp_path / "off" / "report.md").read_text()
    assert "seconds" not in md and on["meta"]["created"] not in md
    strip = {k: v for k, v in on["results"][0].items() if k != "seconds"}
    assert strip == off["results"][0]


def test_config_is_checked_with_the_key_named():
    plan = plan_from_config({"original": "o.csv", "releases": "a.csv, b/c.csv", "attacks": ["rs-rl", "ID"],
                             "known": "x,y", "timings": "false", "cell_batch": 8})
    assert plan.releases == ["a.csv", "b/c.csv"] and plan.keys == ["1-a", "2-c"]
    assert plan.attacks == ["RS-RL(p<=20%)", "ID"] and plan.part(0, "RS-RL(p<=20%)") == "sdcrisk-report/parts/1-a/RS-RL_p_20.json"
    assert plan.part(1, None) == "sdcrisk-report/parts/2-c/information-loss.json"
    assert local_argv(plan) == ["assess", "o.csv", "a.csv", "b/c.csv", "--known", "x,y", "--attacks",
                                "RS-RL(p<=20%),ID", "--out", "sdcrisk-report", "--no-timings"]
    assert local_argv(plan_from_config({"original": "o.csv", "releases": ["a.csv"], "seed": 7}))[-4:] == [
        "--seed", "7", "--out", "sdcrisk-report"]
    default = plan_from_config({"original": "o.csv", "releases": ["a.csv"]})
    # the default set, and DBRL, which a sample release's default adds (its job writes no rows on a one-to-one release)
    assert default.attacks == [a for a in ALL_ATTACKS if a in assess_jobs.attack_names(None) or a == "DBRL"]
    assert "--attacks" not in local_argv(default) and default.settings["singling_out"] and default.criteria
    assert "--no-timings" not in local_argv(default)
    for bad, words in [({"releases": ["a.csv"]}, "original"),
                       ({"original": "o.csv"}, "releases"),
                       ({"original": "o.csv", "releases": ["a.csv", "a.csv"]}, "given 2 times"),
                       ({"original": "o.csv", "releases": ["a.csv"], "relaeses": 1}, "unknown key"),
                       ({"original": "o.csv", "releases": ["a.csv"], "attacks": "XRL"}, "unknown attack"),
                       ({"original": "o.csv", "releases": ["a.csv"], "known": "a", "scenarios": "1..2"}, "not both"),
                       ({"original": "o.csv", "releases": ["a.csv"], "seed": -1}, "seed"),
                       ({"original": "o.csv", "releases": ["a.csv"], "max_risk": 120}, "max_risk"),
                       ({"original": "o.csv", "releases": ["a.csv"], "timings": "maybe"}, "timings"),
                       ({"original": "o.csv", "releases": ["a.csv"], "prl_candidates": 0}, "prl_candidates")]:
        with pytest.raises(AssessJobsError, match=words):
            plan_from_config(bad)


@pytest.mark.parametrize("extra, words", [
    ({"secret": 3.5}, "config secret: expected a list of names"),
    ({"secret": ["a", ""]}, "config secret: '' is empty"),
    ({"secret": "a", "tolerance": 0}, r"config tolerance: expected a share of the true value in \(0, 1\]"),
    ({"secret": "a", "tolerance": True}, "config tolerance: expected a number"),
    ({"tolerance": 0.1}, "config tolerance: applies to inference only"),
    ({"singling_out": "perhaps"}, "config singling_out: expected true or false"),
    ({"weights": ""}, "config weights: expected a column name"),
    ({"weights": ["w"]}, "config weights: expected a column name"),
    ({"max_risk": {"membership": 3}}, "config max_risk: unknown criterion 'membership'"),
    ({"max_risk": {"linkability": 120}}, "config max_risk: expected a percentage"),
    ({"max_risk": {"linkability": "x"}}, "config max_risk: expected a percentage"),
    ({"max_risk": {"linkability": True}}, r"config max_risk: linkability: expected a percentage"),
    ({"max_risk": {}}, "config max_risk: an empty mapping"),
    ({"max_risk": [5]}, "config max_risk: expected a percentage from 0 to 100 or a mapping"),
    ({"max_risk": "linkability=5,linkage=3"}, "config max_risk: unknown criterion 'linkage'"),
    ({"max_risk": {"inference": 10}}, "config max_risk: inference=10 gates a criterion that is not assessed"),
    ({"max_risk": {"singling-out": 10}, "singling_out": False}, "config max_risk: singling-out=10 gates"),
    ({"control": 7}, "config control: expected the path of the control file"),
    ({"control": "c.csv", "attacks": "DBRL"}, "config attacks: does not apply to a synthetic release"),
    ({"control": "c.csv", "weights": "w"}, "config weights: does not apply to a synthetic release"),
    ({"control": "a.csv"}, "config control: 'a.csv' is also the original or a release"),
], ids=lambda v: str(v)[:40])
def test_each_criterion_key_is_checked_with_one_line(extra, words):
    """Every criterion option of the config: a wrong type, an unknown criterion, a gate on a
    criterion not assessed, a control file with options of record-level releases: AssessJobsError
    naming the key (workflow/assess.smk prints it on one line and exits 2 before any job)."""
    with pytest.raises(AssessJobsError, match=words) as err:
        plan_from_config({"original": "o.csv", "releases": ["a.csv"], **extra})
    assert "\n" not in str(err.value)


def test_criterion_keys_reach_the_command_line():
    plan = plan_from_config({"original": "o.csv", "releases": "a.csv", "secret": "x, y", "tolerance": "0.2",
                             "singling_out": "false", "weights": 7, "max_risk": "linkability=4,inference=3"})
    assert local_argv(plan) == ["assess", "o.csv", "a.csv", "--secret", "x,y", "--tolerance", "0.2",
                                "--no-singling-out", "--weights", "7", "--max-risk", "inference=3.0,linkability=4.0",
                                "--out", "sdcrisk-report"]
    synthetic = plan_from_config({"original": "o.csv", "releases": ["a.csv"], "control": "c.csv", "known": "x,y"})
    assert synthetic.synthetic and synthetic.attacks == [] and not synthetic.criteria
    assert synthetic.release_parts(0) == ["sdcrisk-report/parts/1-a/synthetic.json"]
    assert local_argv(synthetic)[:6] == ["assess", "o.csv", "a.csv", "--control", "c.csv", "--known"]


def test_inputs_checked_before_the_jobs_name_the_criterion_option(tmp_path, monkeypatch):
    _write_files(tmp_path, categorical=True)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssessJobsError, match="weights: noise.csv has no column 'w'"):
        assess_jobs.check_inputs(plan_from_config(_config(id="pid", weights="w")))
    with pytest.raises(AssessJobsError, match="secret: 'wage' is not an attribute"):
        assess_jobs.check_inputs(plan_from_config(_config(id="pid", secret="wage")))
    # a control set given with a release whose records carry the original's ids (a sample or one to one)
    pd.read_csv("original.csv").assign(pid=np.arange(5000, 5200)).to_csv("control.csv", index=False)
    with pytest.raises(AssessJobsError, match="noise.csv holds 200 id\\(s\\) of original.csv .* not a synthetic"):
        assess_jobs.check_inputs(plan_from_config(_config(id="pid", control="control.csv")))


def _synthetic_files(d: Path) -> None:
    """train.csv (150), control.csv (100) and two synthetic releases (150) of one population."""
    rng = np.random.Generator(np.random.PCG64(5))

    def frame(n):
        return pd.DataFrame({"age": rng.integers(18, 90, n), "region": rng.integers(0, 4, n),
                             "income": rng.lognormal(3, 1, n)})

    files = {"train.csv": frame(150), "control.csv": frame(100), "syn1.csv": frame(150), "syn2.csv": frame(150)}
    d.mkdir(parents=True, exist_ok=True)
    for name, t in files.items():
        t.to_csv(d / name, index=False)


SYNTHETIC_CONFIG = {"original": "train.csv", "releases": ["syn1.csv", "syn2.csv"], "control": "control.csv",
                    "categorical": ["region"], "known": ["age", "region"], "secret": ["income"], "timings": False,
                    "max_risk": {"linkability": 100, "singling-out": 100, "inference": 100}, "out": "report"}


def test_synthetic_parts_give_the_local_report(tmp_path, monkeypatch):
    local, jobs = tmp_path / "local", tmp_path / "jobs"
    _synthetic_files(local)
    _synthetic_files(jobs)
    plan = plan_from_config(SYNTHETIC_CONFIG)
    doc = _parts_equal_local(local, jobs, plan, monkeypatch)
    assert doc["release_type"] == "synthetic" and len(doc["files"]) == 2
    assert {r["criterion"] for r in doc["files"][0]["results"]} == {"linkability", "singling out", "inference"}
    assert doc["gate"]["status"] == "pass"


def test_config_from_the_command_arguments(capsys):
    argv = ["original.csv", "noise.csv", "swap.csv", "--scenarios", "1..all", "--attacks", "dbrl,id", "--seed", "3",
            "--max-risk", "40", "--no-timings", "--out", "report", "--quiet"]
    config = assess_jobs.config_from_argv(argv)
    assert config == {"original": "original.csv", "releases": ["noise.csv", "swap.csv"], "scenarios": "1..all",
                      "attacks": ["dbrl", "id"], "seed": 3, "max_risk": 40.0, "timings": False, "out": "report"}
    assert local_argv(plan_from_config(config)) == [
        "assess", "original.csv", "noise.csv", "swap.csv", "--scenarios", "1..all", "--attacks", "DBRL,ID",
        "--max-risk", "40.0", "--seed", "3", "--out", "report", "--no-timings"]
    assert assess_jobs.main(["config", *argv]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out) == config and "sdcrisk assess original.csv noise.csv swap.csv" in out.err
    assert assess_jobs.main(["config", "original.csv", "a.csv", "--max-risk", "400"]) == 2
    assert "--max-risk: expected a percentage" in capsys.readouterr().err


def test_a_job_on_a_bad_file_fails_with_one_line_and_no_part(tmp_path, monkeypatch, capsys):
    _write_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    pd.read_csv("noise.csv").drop(columns="tax").to_csv("bad.csv", index=False)
    settings = json.dumps(plan_from_config(_config()).settings)
    for step in (["attack", "--attack", "DBRL"], ["loss"]):
        assert assess_jobs.main([step[0], "--original", "original.csv", "--release", "bad.csv", *step[1:],
                                 "--settings", settings, "--part", "part.json"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        # named as the module is invoked (workflow/assess.smk, docs/cluster.md), as argparse's own errors are
        assert err[-1].startswith(f"python -m sdcrisk.assess.jobs {step[0]}: error: original.csv and bad.csv have different "
                                  "columns") and "Traceback" not in "".join(err)
        assert not list(tmp_path.glob("part*"))


def test_a_stale_part_is_refused(tmp_path, monkeypatch):
    _write_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    plan = plan_from_config(_config(attacks="DBRL"))
    assess_jobs.attack_part(plan.original, "swap.csv", "DBRL", plan.settings, plan.part(0, "DBRL"))  # wrong file
    assess_jobs.loss_part(plan.original, "noise.csv", plan.settings, plan.part(0, None))
    with pytest.raises(AssessJobsError, match="made for release 'swap.csv'"):
        assess_jobs.gather(plan)


# ----------------------------------------------------------------------------- through Snakemake
def _env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_", "SRUN_"))}


SLURM_ATTACKS = "DBRL,GDBRL,ID"


def _snakemake(workdir: Path, *args: str, attacks: str | None = None) -> list[str]:
    return [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(workdir), *args,
            "--config", "original=original.csv", "releases=[noise.csv,swap.csv]", "scenarios=1..all",
            "timings=false", "out=report", *([f"attacks={attacks}"] if attacks else [])]


def _local_command(d: Path, attacks: str | None = None) -> float:
    """``sdcrisk assess`` in a subprocess, as a user runs it; its wall time."""
    plan = plan_from_config(_config(scenarios="1..all", **({"attacks": attacks} if attacks else {})))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "sdcrisk.cli", *local_argv(plan)], cwd=d, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return time.perf_counter() - start


def test_workflow_with_the_local_profile_matches_the_command(tmp_path):
    local, jobs = tmp_path / "local", tmp_path / "jobs"
    _write_files(local)
    _write_files(jobs)
    seconds = _local_command(local)
    start = time.perf_counter()
    proc = subprocess.run(_snakemake(jobs, "--profile", str(ROOT / "profiles" / "local"), "--cores", "2"),
                          env=_env(), capture_output=True, text=True)
    took = time.perf_counter() - start
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    print(f"local command {seconds:.1f} s, workflow --cores 2 {took:.1f} s")
    log = proc.stdout + proc.stderr
    attacks = len(plan_from_config(_config()).attacks)  # the default set (and DBRL): one job per release and measure
    assert log.count("rule attack:") == 2 * attacks and log.count("rule information_loss:") == 2
    assert log.count("rule criteria:") == 2  # singling out, by default
    # the kernels compiled (or found current) once, before the first job (sdcrisk.compile.before_jobs)
    assert log.count("sdcrisk: numba kernels ") == 1
    assert proc.stderr.index("sdcrisk: numba kernels ") < proc.stderr.index("rule attack:")
    _same_files(local / "report", jobs / "report")
    again = subprocess.run(_snakemake(jobs, "--cores", "2", "-n"), env=_env(), capture_output=True, text=True)
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr


def _workflow_with_config(d: Path, config: dict) -> subprocess.CompletedProcess:
    """workflow/assess.smk with profiles/local and ``config`` (a JSON config file, which is YAML) in ``d``."""
    (d / "assess.json").write_text(json.dumps(config))
    return subprocess.run([sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(d),
                           "--profile", str(ROOT / "profiles" / "local"), "--cores", "2", "--configfile",
                           str(d / "assess.json")], env=_env(), capture_output=True, text=True)


def test_sample_and_synthetic_releases_through_the_workflow_match_the_command(tmp_path):
    """A sample release (id in both files, fewer released records: told from the files) with
    singling out and a per-criterion gate, and synthetic releases with a control set, through
    Snakemake with profiles/local: the command's report and records at risk, byte for byte."""
    local, jobs = tmp_path / "local", tmp_path / "jobs"
    for d in (local, jobs):
        _write_files(d, categorical=True)
        _sample(d)
    config = _config(id="pid", categorical=["region"], attacks="DBRL,RBRL-Max,ID",
                     max_risk={"linkability": 99, "singling-out": 99})
    proc = subprocess.run([sys.executable, "-m", "sdcrisk.cli", *local_argv(plan_from_config(config))], cwd=local,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    done = _workflow_with_config(jobs, config)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (done.stdout + done.stderr).count("rule criteria:") == 2
    _same_files(local / "report", jobs / "report")
    assert json.loads((jobs / "report" / "report.json").read_text())["release_type"] == "sample"

    local, jobs = tmp_path / "synthetic-local", tmp_path / "synthetic-jobs"
    _synthetic_files(local)
    _synthetic_files(jobs)
    proc = subprocess.run([sys.executable, "-m", "sdcrisk.cli", *local_argv(plan_from_config(SYNTHETIC_CONFIG))],
                          cwd=local, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    done = _workflow_with_config(jobs, SYNTHETIC_CONFIG)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-3000:]
    assert log.count("rule synthetic:") == 2 and "rule attack:" not in log
    _same_files(local / "report", jobs / "report")
    assert (jobs / "report" / "report.md").read_text().startswith("# Disclosure risk (synthetic release)")


def test_a_bad_criterion_key_stops_the_workflow_with_one_line_and_exit_2(tmp_path):
    _write_files(tmp_path, categorical=True)
    done = _workflow_with_config(tmp_path, _config(id="pid", max_risk={"inference": 10}))
    assert done.returncode == 2, done.stderr[-2000:]
    lines = [x for x in done.stderr.splitlines() if "ERROR" in x]
    assert lines == ["CONFIG ERROR: config max_risk: inference=10 gates a criterion that is not assessed: name the "
                     "attribute the intruder tries to infer with --secret COL, or drop inference= from the gate"]
    assert not (tmp_path / "report").exists()


def test_workflow_on_the_slurm_cluster_matches_the_command(tmp_path):
    from test_slurm import _cluster_problem, run_on_cluster

    problem = _cluster_problem()
    if problem:
        print(f"SKIP test_workflow_on_the_slurm_cluster_matches_the_command: {problem}")
        pytest.skip(problem)
    local, jobs = tmp_path / "local", tmp_path / "cluster"
    _write_files(local)
    _write_files(jobs)
    seconds = _local_command(local, SLURM_ATTACKS)
    prefix = f"sdcriskassess{uuid.uuid4().hex[:8]}"
    cmd = _snakemake(jobs, "--profile", str(ROOT / "profiles" / "slurm"), "--slurm-jobname-prefix", prefix,
                     attacks=SLURM_ATTACKS)
    start = time.perf_counter()
    done = run_on_cluster(cmd, _env(), prefix, SLURM_TIMEOUT)
    took = time.perf_counter() - start
    out = done.stdout
    assert done.returncode == 0, out[-4000:]
    print(f"local command {seconds:.1f} s, workflow through profiles/slurm {took:.1f} s")
    # every attack and information-loss job went through sbatch; the gather step ran locally
    # 2 releases x (3 attacks, the information loss, the criteria: singling out by default)
    assert out.count("has been submitted with SLURM jobid") == 10, out[-4000:]
    assert "localrule report:" in out
    _same_reports(local / "report", jobs / "report")


def test_the_gather_step_prints_the_commands_gate_verdict(monkeypatch, capsys):
    """An attack refused in its job leaves the gate undecided in the gathered report, as in the command."""
    import math

    import numpy as np
    import pandas as pd

    import sdcrisk
    from sdcrisk.assess import report

    rng = np.random.default_rng(0)
    x = pd.DataFrame(rng.normal(50, 10, size=(60, 3)), columns=["a", "b", "c"])
    results = sdcrisk.assess(x, x + rng.normal(0, 5, size=x.shape), attacks=["DBRL", "RBRL-Sum"],
                             information_loss=False).assign(masked="m.csv")
    results.loc[results.measure == "RBRL-Sum", ["percent", "linked", "note"]] = \
        [math.nan, math.nan, "not run: over the memory limit"]
    plan = plan_from_config({"original": "o.csv", "releases": ["m.csv"], "max_risk": 99.0, "out": "report"})
    monkeypatch.setattr(assess_jobs, "gather", lambda p: (results, {"warnings": []}, None))
    monkeypatch.setattr(report, "write_report", lambda *a, **k: [])
    assess_jobs.write(plan)
    out = capsys.readouterr().out
    assert "risk gate (undecided): undecided: RBRL-Sum was not run on m.csv" in out
    assert "every attack at or below" not in out
