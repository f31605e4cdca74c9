"""Bad inputs of the two workflows that used to pass silently (docs/bad_inputs.md, "Workflow
inputs"):

- workflow/assess.smk: files whose header or first records already show that every job would fail
  (a release with other columns, an id column a file lacks, an option that does not fit the
  columns) stop the workflow before any job, with one line naming the file and the field;
- the replication's config: a table or figure naming a measure its evaluation never computes;
- the replication's data: a header repeating a configured column;
- ``sdcrisk check-config`` on an empty config file, which Snakemake refuses.

The tests starting Snakemake are marked slow (about 2 s each)."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sdcrisk.assess import jobs as assess_jobs
from sdcrisk.replication import config as cfgmod
from sdcrisk.assess.jobs import AssessJobsError, check_inputs, plan_from_config
from sdcrisk.assess.assessment import AssessError, read_file

ROOT = Path(__file__).resolve().parents[1]
SNAKEFILE = ROOT / "workflow" / "assess.smk"
COLUMNS = ["income", "rent", "tax"]


def _table(n: int = 40, seed: int = 7, id_: bool = True) -> pd.DataFrame:
    rng = np.random.Generator(np.random.PCG64(seed))
    t = pd.DataFrame(rng.lognormal(mean=3.0, size=(n, len(COLUMNS))), columns=COLUMNS)
    return t.assign(pid=np.arange(100, 100 + n)) if id_ else t


def _files(d: Path) -> None:
    """original.csv, and two releases of it (noise.csv, shuffled.csv: the records in another order)
    with the same columns and the id column pid."""
    d.mkdir(parents=True, exist_ok=True)
    original = _table()
    original.to_csv(d / "original.csv", index=False)
    rng = np.random.Generator(np.random.PCG64(8))
    noisy = original.assign(**{c: original[c] + rng.normal(scale=2.0, size=len(original)) for c in COLUMNS})
    noisy.to_csv(d / "noise.csv", index=False)
    noisy.iloc[rng.permutation(len(noisy))].to_csv(d / "shuffled.csv", index=False)


def _bad_release(d: Path, fault: str) -> str:
    """A release of original.csv with one fault; its file name."""
    t = pd.read_csv(d / "noise.csv")
    if fault == "other-column":
        t.rename(columns={"tax": "taxes"}).to_csv(d / "bad.csv", index=False)
    elif fault == "extra-column":
        t.assign(weight=1.0).to_csv(d / "bad.csv", index=False)
    elif fault == "no-id":
        t.drop(columns="pid").to_csv(d / "bad.csv", index=False)
    elif fault == "repeated-id":
        t.assign(pid=t["pid"].where(t.index != 3, t["pid"][0])).to_csv(d / "bad.csv", index=False)
    elif fault == "missing-id":
        t.assign(pid=t["pid"].where(t.index != 5)).to_csv(d / "bad.csv", index=False)
    elif fault == "repeated-header":
        text = (d / "noise.csv").read_text().splitlines()
        text[0] = text[0].replace("tax", "rent")
        (d / "bad.csv").write_text("\n".join(text) + "\n")
    elif fault == "empty":
        (d / "bad.csv").write_text("")
    elif fault == "header-only":
        (d / "bad.csv").write_text(",".join(t.columns) + "\n")
    elif fault == "parquet-other-column":
        t.drop(columns="rent").to_parquet(d / "bad.parquet", index=False)
        return "bad.parquet"
    elif fault == "missing-file":
        return "nosuch.csv"
    elif fault == "xlsx":
        (d / "bad.xlsx").write_text("not read")
        return "bad.xlsx"
    else:  # pragma: no cover
        raise AssertionError(fault)
    return "bad.csv"


# the fault, and words the one line must hold besides the file's name
FILE_FAULTS = {"other-column": "have different columns: only in original.csv: ['tax']; only in bad.csv: ['taxes']",
               "extra-column": "only in original.csv: none; only in bad.csv: ['weight']",
               "no-id": "bad.csv: has no id column 'pid'",
               "repeated-id": "bad.csv: id column 'pid' has 1 duplicated value(s), e.g. 100",
               "missing-id": "bad.csv: id column 'pid' has 1 missing value(s)",
               "repeated-header": "bad.csv: column 'rent' appears 2 times in the header",
               "empty": "bad.csv: the file is empty",
               "header-only": "bad.csv: has a header but no records",
               "parquet-other-column": "only in original.csv: ['rent']; only in bad.parquet: none",
               "missing-file": "nosuch.csv: no such file",
               "xlsx": "bad.xlsx: unknown file type '.xlsx'"}
# options that do not fit the files, and the words of the line
OPTION_FAULTS = {"id-nosuch": ({"id": "nosuch"}, "original.csv: has no id column 'nosuch'; its columns are"),
                 "known-nosuch": ({"known": "income,wealth"}, "original.csv: known: ['wealth'] not among the "
                                                              "attribute columns ['income', 'rent', 'tax']"),
                 "scenarios-beyond": ({"scenarios": "1..5"}, "original.csv: scenarios: '1..5' gives no scenario "
                                                             "for 3 attributes"),
                 "categorical-nosuch": ({"categorical": "region"}, "original.csv: categorical: ['region'] not "
                                                                   "among the attribute columns")}


def _job_fails(plan, release: str, loss: bool = True) -> str:
    """The message with which the workflow's jobs on ``release`` fail: an attack job (interval
    disclosure, the cheapest) and, with ``loss``, the information-loss job (which reads no
    attack option), both as the workflow runs them."""
    messages = []
    for run in (lambda: assess_jobs.attack_part(plan.original, release, "ID", plan.settings, "part-a.json"),
                lambda: assess_jobs.loss_part(plan.original, release, plan.settings, "part-l.json"))[:1 + loss]:
        with pytest.raises(AssessError) as err:
            run()
        messages.append(str(err.value))
    return messages[0]


# ----------------------------------------------------------------------------- assess: in-process
@pytest.mark.parametrize("fault", sorted(FILE_FAULTS))
def test_a_release_every_job_would_refuse_is_refused_before_the_jobs(tmp_path, monkeypatch, fault):
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    bad = _bad_release(tmp_path, fault)
    plan = plan_from_config({"original": "original.csv", "releases": ["noise.csv", bad], "id": "pid"})
    with pytest.raises(AssessJobsError) as err:
        check_inputs(plan)
    message = str(err.value)
    assert FILE_FAULTS[fault] in message and bad in message and "\n" not in message
    # sound: the jobs on that release fail too (the check refuses nothing they would accept) ...
    _job_fails(plan, bad)
    # ... and those on the good release run
    assess_jobs.loss_part(plan.original, "noise.csv", plan.settings, "good.json")
    assert not list(tmp_path.glob("part-*.json"))


@pytest.mark.parametrize("fault", sorted(OPTION_FAULTS))
def test_options_that_do_not_fit_the_columns_are_refused_before_the_jobs(tmp_path, monkeypatch, fault):
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    options, words = OPTION_FAULTS[fault]
    options = {"id": "pid", **options}
    plan = plan_from_config({"original": "original.csv", "releases": ["noise.csv", "shuffled.csv"], **options})
    with pytest.raises(AssessJobsError) as err:
        check_inputs(plan)
    assert str(err.value).startswith(words), str(err.value)
    job = _job_fails(plan, "noise.csv", loss=fault == "id-nosuch")
    # the same cause as the job's own message (without the file name the check puts first)
    assert job.split(";")[0].split(": ", 1)[-1] in str(err.value)


def test_good_inputs_pass_and_only_the_first_records_are_read(tmp_path, monkeypatch):
    """Files the jobs accept pass (CSV and parquet, with and without the id, records in another
    order); a fault past the first HEAD_ROWS records is not read by the check (the jobs, reading
    every record, refuse it)."""
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    pd.read_csv("shuffled.csv").to_parquet("shuffled.parquet", index=False)
    for config in ({"releases": ["noise.csv", "shuffled.csv"], "id": "pid"},
                   {"releases": ["shuffled.parquet"], "id": "pid", "known": "rent,tax", "categorical": "tax"},
                   {"releases": ["noise.csv"], "scenarios": "1..all"}):
        check_inputs(plan_from_config({"original": "original.csv", **config}))
    n = assess_jobs.HEAD_ROWS + 500
    big = _table(n, id_=False)
    big.to_csv("big.csv", index=False)
    lines = Path("big.csv").read_text().splitlines()
    lines[n - 10] += ",1,2"  # a record with more fields than the header, far down
    Path("big-bad.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(AssessError, match="big-bad.csv: cannot be read as csv"):
        read_file("big-bad.csv")
    check_inputs(plan_from_config({"original": "big.csv", "releases": ["big-bad.csv"]}))
    assert len(assess_jobs.read_head("big-bad.csv")) == assess_jobs.HEAD_ROWS
    assert len(assess_jobs.read_head("shuffled.parquet", rows=7)) == 7


# ----------------------------------------------------------------------------- assess: through Snakemake
def _env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_", "SRUN_"))}


def _assess_workflow(workdir: Path, *config: str, dry: bool = True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(workdir), "--cores", "1",
           *(["-n"] if dry else []), "--config", "original=original.csv", "timings=false", "out=report",
           "attacks=DBRL,ID", *config]
    return subprocess.run(cmd, env=_env(), capture_output=True, text=True, check=False)


@pytest.mark.slow
@pytest.mark.parametrize("config,words", [
    (["releases=[noise.csv,bad.csv]", "id=pid"],
     "INPUT ERROR: original.csv and bad.csv have different columns: only in original.csv: ['tax']; "
     "only in bad.csv: ['taxes']"),
    (["releases=[noise.csv,shuffled.csv]", "id=nosuch"], "INPUT ERROR: original.csv: has no id column 'nosuch'"),
    (["releases=[noise.csv,shuffled.csv]", "id=pid", "known=income,wealth"],
     "INPUT ERROR: original.csv: known: ['wealth'] not among the attribute columns"),
], ids=["other-columns", "id-nosuch", "known-nosuch"])
def test_the_assess_workflow_stops_before_any_job_with_one_line(tmp_path, config, words):
    _files(tmp_path)
    _bad_release(tmp_path, "other-column")
    for dry in (True, False):  # a dry run says it too; a real run submits nothing
        proc = _assess_workflow(tmp_path, *config, dry=dry)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 2, out[-3000:]  # bad input, as the command's exit 2
        (line,) = [line for line in out.splitlines() if "INPUT ERROR" in line]
        assert line.startswith(words), out[-3000:]
        assert "Traceback" not in out and "rule attack" not in out and "Job stats" not in out, out[-3000:]
        assert not (tmp_path / "report").exists()


@pytest.mark.slow
def test_the_assess_workflow_plans_every_job_on_good_inputs(tmp_path):
    _files(tmp_path)
    proc = _assess_workflow(tmp_path, "releases=[noise.csv,shuffled.csv]", "id=pid")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "INPUT ERROR" not in out, out[-3000:]
    # 2 releases x (2 attacks + information loss) and the report
    assert out.count("rule attack:") == 4 and out.count("rule information_loss:") == 2, out[-3000:]


# ----------------------------------------------------------------------------- replication: measures of a table
QUICK = cfgmod.load(ROOT / "config" / "quick.yaml")


@pytest.mark.parametrize("experiment,table,field,measures,method", [
    ("attack_matrix", "Tmatrix", "measures", ["DBRL", "IL"], None),
    ("muralidhar2016_additive", "T1", "measures", ["DBRL", "PRL"], None),
    ("nin2007_rankswap", "T3", "measures", ["IL", "RSLD"], None),
    ("nin2008_rankswap", "T4", "measures", ["IL", "DBRL_count"], "rankswap"),  # only p-distribution's cells have it
    ("nin2008_multivariate", "F1", "measure", ["DLD", "LLD"], None),
])
def test_a_table_asking_for_a_measure_its_evaluation_never_computes_is_refused(experiment, table, field, measures,
                                                                                method):
    cfg = copy.deepcopy(QUICK)
    exp = cfg["experiments"][experiment]
    kind = "figures" if table.startswith("F") else "tables"
    exp[kind][table][field] = measures
    with pytest.raises(cfgmod.ConfigError) as err:
        cfgmod.validate(cfg, "mine.yaml")
    message = str(err.value)
    of = f" for method {method!r}" if method else ""
    assert message.startswith(f"mine.yaml: experiments.{experiment}.{kind}.{table}.{field}[1]: measure "
                              f"{measures[1]!r} is never computed by the evaluation {exp['evaluation']!r}{of}"), message
    assert "\n" not in message and f"{exp['evaluation']!r} computes [" in message
    assert f"'{measures[0]}'" in message.split(" computes ")[1]  # the measures it does compute are listed


def test_every_configured_table_asks_only_for_computed_measures():
    for name in ("config.yaml", "quick.yaml"):
        cfg = cfgmod.load(ROOT / "config" / name)
        for exp in cfg["experiments"].values():
            for kind in ("tables", "figures"):
                for spec in (exp.get(kind) or {}).values():
                    values = spec.get("measures", spec.get("measure"))
                    values = values if isinstance(values, list) else [values]
                    shown = [spec["method"]] if "method" in spec else None
                    assert set(values) <= set(cfgmod.evaluation_measures(exp, shown)), (name, spec)


def test_the_declared_measures_are_the_ones_each_evaluation_writes():
    """Every evaluation run on a small file (80 records x 6) with each method the quick config
    sweeps for it (the attack matrix with one method: its measures do not depend on it) writes
    exactly the measures sdcrisk.replication.config declares for that method."""
    from sdcrisk.replication.evaluation import run_cell

    rng = np.random.Generator(np.random.PCG64(20261129))
    x = rng.lognormal(mean=2.0, sigma=0.6, size=(80, 6))
    seen = set()
    for name, exp in QUICK["experiments"].items():
        if exp["evaluation"] in seen and exp["evaluation"] != "location_scores":
            continue  # one experiment per evaluation (location scores differ by method: each)
        seen.add(exp["evaluation"])
        methods = list(exp["methods"])[:1] if exp["evaluation"] == "attack_matrix" else list(exp["methods"])
        for method in methods:
            grid = cfgmod._sweep_for(exp["methods"][method], exp["datasets"][0], name, "quick")
            params = tuple((p, values[0]) for p, values in grid.items())
            cell = cfgmod.Cell(name, exp["datasets"][0], method, params, "")
            settings = {**cfgmod.cell_settings(exp), "replicates": 1}
            written = set(run_cell(x, cell, settings, 1).measure)
            declared = set(cfgmod.evaluation_measures(exp, [method]))
            if exp["evaluation"] == "attack_matrix":  # an attack fitted by EM adds its _unconverged
                attacks = {m for m in declared if not m.endswith("_unconverged")}
                assert attacks <= written <= declared, (name, method, written ^ declared)
                assert "PRL_unconverged" in written
            else:
                assert written == declared, (name, method, written ^ declared)
    assert seen == set(cfgmod.EVALUATION_MEASURES) | {"attack_matrix"}


# ----------------------------------------------------------------------------- replication: data file header
def _dataset(tmp_path: Path, name: str, header: list[str], columns: list[str]) -> tuple[dict, Path]:
    """A config with one data set ``name`` of the given ``columns`` and its file (5 records whose
    values differ from column to column: repeated names hold different values)."""
    from sdcrisk.data import FORMATS

    values = np.arange(5 * len(header), dtype=np.float64).reshape(5, len(header)) * 1.5
    path = tmp_path / name
    if path.suffix == ".csv":
        path.write_text(",".join(header) + "\n" + "\n".join(",".join(repr(float(v)) for v in row) for row in values) + "\n")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_arrays([pa.array(values[:, j]) for j in range(len(header))], names=header), path)
    assert FORMATS[path.suffix] in ("csv", "parquet")
    entry = {"url": f"https://example.org/{name}", "sha256": "0" * 64, "columns": columns}
    return {"datasets": {"mine": entry}, "experiments": {}}, path


@pytest.mark.parametrize("name", ["mine.csv", "mine.parquet"])
def test_a_header_repeating_a_configured_column_is_refused(tmp_path, name):
    from sdcrisk.data import DatasetSpec, load_table
    from sdcrisk.replication.preflight import PreflightError, check

    cfg, path = _dataset(tmp_path, name, ["a", "b", "a", "c"], ["a", "b"])
    with pytest.raises(PreflightError) as err:
        check(cfg, {"mine": str(path)})
    assert str(err.value) == (f"data set 'mine' (config datasets.mine, file https://example.org/{name}): {name}: "
                              "column 'a' (config datasets.mine.columns) appears 2 times in the header; expected "
                              "each configured column once")
    with pytest.raises(ValueError, match=r"column 'a' \(config datasets\.mine\.columns\) appears 2 times"):
        load_table(DatasetSpec.from_config("mine", cfg["datasets"]["mine"]), path)
    # a repeated column that is not configured is not read: the configured ones load, in order
    cfg, path = _dataset(tmp_path, name, ["b", "c", "a", "c"], ["a", "b"])
    assert check(cfg, {"mine": str(path)})["mine"] == {"n": 5, "m": 2}
    table = load_table(DatasetSpec.from_config("mine", cfg["datasets"]["mine"]), path)
    expected = np.arange(20, dtype=np.float64).reshape(5, 4) * 1.5
    assert list(table.columns) == ["a", "b"] and np.array_equal(table.to_numpy(), expected[:, [2, 0]])


# ----------------------------------------------------------------------------- replication: an empty config file
@pytest.mark.slow
@pytest.mark.parametrize("text", ["", "# my settings, to come\n"])
def test_check_config_and_snakemake_both_refuse_an_empty_config_file(tmp_path, text):
    empty = tmp_path / "empty.yaml"
    empty.write_text(text)
    dag = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
                          str(tmp_path / "w"), "-n", "--cores", "1", "--configfile", str(empty)],
                         capture_output=True, text=True, check=False)
    assert dag.returncode != 0 and "Config file must be given as JSON or YAML with keys at top level" in dag.stdout + dag.stderr
    check = subprocess.run([sys.executable, "-m", "sdcrisk.cli", "check-config", str(empty)], cwd=ROOT,
                           capture_output=True, text=True, check=False)
    assert check.returncode == 2 and check.stdout == ""
    assert check.stderr == (f"sdcrisk check-config: error: {empty}: the config file is empty (no keys); expected a "
                            "mapping of config keys, e.g. 'experiments: {...}' (Snakemake refuses an empty "
                            "--configfile too)\n")
