"""The quick DAG end to end, in a scratch directory: every table, figure and check file, complete."""

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest
import yaml

from sdcrisk.replication import config as cfgmod
from sdcrisk.replication.check import figure_targets, table_targets
from conftest import mirror_dir, planned_jobs

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "config" / "quick.yaml"


def _command(workdir: Path, *args: str, mirror: bool = True) -> tuple[list[str], dict]:
    """The Snakemake command line on the repository's Snakefile in ``workdir``, and its environment."""
    env = {k: v for k, v in os.environ.items() if k != "SDCRISK_DATA_MIRROR"}
    if mirror:
        env["SDCRISK_DATA_MIRROR"] = str(mirror_dir())
    return [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(workdir), *args], env


def snakemake(workdir: Path, *args: str, check: bool = True,
              mirror: bool = True) -> subprocess.CompletedProcess:
    cmd, env = _command(workdir, *args, mirror=mirror)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    return _checked(proc) if check else proc


def _checked(proc):
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    if not (mirror_dir() / "EIA.rda").is_file():
        pytest.skip("reference data mirror not available")
    work = tmp_path_factory.mktemp("quick")
    _QUICK_LOG[work] = snakemake(work, "--cores", "2", "--configfile", str(QUICK)).stderr
    return work


_QUICK_LOG = {}  # the quick run's Snakemake log (stderr), by working directory


def test_every_table_and_figure_exists(quick_run):
    cfg = cfgmod.load(QUICK)
    for name in table_targets(cfg):
        for ext in ("csv", "md", "tex"):
            assert (quick_run / "tables" / f"{name}.{ext}").stat().st_size > 0
    for name in figure_targets(cfg):
        for ext in ("png", "pdf"):
            assert (quick_run / "figures" / f"{name}.{ext}").stat().st_size > 0


def test_kernels_are_compiled_once_before_the_first_job(quick_run):
    """The workflow's onstart compiles the numba kernels (sdcrisk.compile.before_jobs) before any
    job starts, so that parallel cells never compile one kernel at the same time."""
    log = _QUICK_LOG[quick_run].splitlines()
    said = [i for i, line in enumerate(log) if line.startswith("sdcrisk: numba kernels ")]
    jobs = [i for i, line in enumerate(log) if line.startswith(("rule ", "localrule "))]
    assert len(said) == 1 and jobs and said[0] < jobs[0], "\n".join(log[:80])


def test_every_measure_has_a_unit_and_lies_in_its_range(quick_run):
    """Percentages in [0, 100], IL and scores >= 0, counts >= 0 (sdcrisk.measures.units); a
    measure without a declared unit fails, so a new measure must declare one."""
    from sdcrisk.measures.units import range_violations

    frames = [pd.read_csv(f, dtype={"known": str, "param": str}, keep_default_na=False)
              for f in sorted((quick_run / "results" / "aggregated").glob("*.csv"))]
    rows = pd.concat(frames, ignore_index=True)
    assert len(rows) > 500  # every experiment of the quick config
    bad = range_violations(rows)
    assert bad.empty, bad[["dataset", "method", "param", "measure", "mean"]].drop_duplicates("measure").to_string()


def test_check_files_complete(quick_run):
    rep = pd.read_csv(quick_run / "tables" / "replication.csv")
    published = pd.read_csv(ROOT / "published" / "published_values.csv")
    claims = pd.read_csv(ROOT / "published" / "published_claims.csv")
    assert (rep.kind == "cell").sum() == len(published)
    assert (rep.kind == "claim").sum() == len(claims)
    assert set(rep.status) <= {"match", "close", "differs", "unconverged", "missing"}
    differs = rep.status.isin(["differs", "missing"])
    assert rep.explanation[differs].notna().all() and rep.explanation[~differs].isna().all()
    summary = json.loads((quick_run / "tables" / "replication_summary.json").read_text())
    assert summary["cells"] == len(published) and summary["claims"] == len(claims)
    compared = rep[rep.status != "unconverged"]
    ok = compared.status.isin(["match", "close"])
    assert summary["match_or_close"]["all"] == {"ok": int(ok.sum()), "n": len(compared),
                                                "unconverged": len(rep) - len(compared), "share": round(ok.mean(), 4)}
    assert "Replication check" in (quick_run / "tables" / "replication.md").read_text()


def test_run_records_its_environment(quick_run):
    recorded = json.loads((quick_run / "tables" / "environment.json").read_text())
    assert recorded["packages"]["numpy"] == metadata.version("numpy")
    assert recorded["packages"]["snakemake"] == metadata.version("snakemake")


def test_report_holds_every_table_figure_and_notebook(quick_run):
    """``snakemake --report report.zip`` gives reviewers one browsable file with every tagged output."""
    snakemake(quick_run, "--configfile", str(QUICK), "--report", "report.zip")
    with zipfile.ZipFile(quick_run / "report.zip") as z:
        names = {Path(n).name for n in z.namelist()}
    cfg = cfgmod.load(QUICK)
    assert {f"{name}.csv" for name in table_targets(cfg)} <= names
    assert {f"{name}.png" for name in figure_targets(cfg)} <= names
    papers = {exp["paper"] for exp in cfg["experiments"].values()}
    notebooks = {f"{p.stem}.html" for p in (ROOT / "notebooks").glob("*.ipynb") if p.stem in papers}
    assert notebooks and notebooks <= names and "replication.csv" in names


def test_data_source_is_not_a_rerun_trigger(quick_run):
    """After a run fed from the mirror, the same DAG without the mirror has nothing to do: the
    files are checksum-verified, so where they came from must not rerun everything; nor does naming
    the mirror in the config instead of the environment (no rule but the fetch reads it)."""
    proc = snakemake(quick_run, "--cores", "1", "--configfile", str(QUICK), "-n", mirror=False)
    assert "Nothing to be done" in proc.stdout + proc.stderr
    proc = snakemake(quick_run, "--cores", "1", "--configfile", str(QUICK), "-n",
                     "--config", f"data_mirror={mirror_dir()}", mirror=False)
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_listing_a_plugin_reruns_no_reference_cell(quick_run, tmp_path):
    """One more config layer listing a plugin file (a masking method and an attack no reference
    experiment uses) changes no reference cell's params: the quick run stays complete."""
    (tmp_path / "extra.py").write_text(
        "import numpy as np\n"
        "from sdcrisk.attacks import register_attack\n"
        "from sdcrisk.linkage.base import LinkResult\n"
        "from sdcrisk.masking import register\n\n\n"
        "@register('extra_identity', family='toy', randomised=False)\n"
        "def extra_identity(x, rng):\n"
        "    return x.copy()\n\n\n"
        "@register_attack('ExtraOracle')\n"
        "def extra_oracle(x, y, known, v, rng):\n"
        "    return LinkResult(links=np.arange(x.shape[0]))\n")
    (tmp_path / "extra.yaml").write_text("plugins: [extra.py]  # relative to this file\n")
    proc = snakemake(quick_run, "--cores", "1", "-n", "--configfile", str(QUICK), str(tmp_path / "extra.yaml"))
    assert "Nothing to be done" in proc.stdout + proc.stderr, proc.stdout[-3000:]


def test_editing_tables_and_figures_reruns_no_cell(quick_run, tmp_path):
    """A changed caption or figure spec re-renders; it does not mask or attack anything again."""
    cfg = yaml.safe_load(QUICK.read_text())
    exp = cfg["experiments"]["nin2008_multivariate"]
    exp["figures"]["F1"]["caption"] += " (edited)"
    exp["tables"]["T1"]["caption"] += " (edited)"
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(cfg, sort_keys=False))  # key order names the cells
    proc = snakemake(quick_run, "--cores", "1", "--configfile", str(edited), "-n")
    planned = set(planned_jobs(proc.stdout))
    assert {"table", "figure"} <= planned and not planned & {"cell", "aggregate"}


def test_killed_run_resumes_to_the_same_tables(quick_run, tmp_path):
    """A run killed hard (SIGKILL, after 35 of the quick config's 57 cells) resumes with --unlock
    and --rerun-incomplete and ends with the same tables as an uninterrupted run; it resumes on 1
    core where both ran on 2, so the tables are also byte-identical whatever the core count (one
    test: each run of the quick DAG costs minutes of CI; killed after 5 cells, the resume of the
    whole DAG on 1 core took 6.4 of the suite's 27 minutes)."""
    cmd, env = _command(tmp_path, "--cores", "2", "--configfile", str(QUICK))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    cells = tmp_path / "results" / "cells"
    while time.monotonic() < deadline and proc.poll() is None:
        if cells.is_dir() and sum(1 for _ in cells.rglob("*.parquet")) >= 35:
            break
        time.sleep(0.2)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (tmp_path / "tables" / "replication.csv").exists()
    snakemake(tmp_path, "--unlock", "--configfile", str(QUICK))
    # the resume builds the tables it compares and the check (the cells, aggregation, tables and
    # replication.csv), not the figures, notebooks and report, which only read those tables and
    # would add one process per file on 1 core
    expected = {p.name: p.read_bytes() for p in (quick_run / "tables").glob("*.csv")}
    snakemake(tmp_path, *(f"tables/{name}" for name in sorted(expected)), "--cores", "1",
              "--configfile", str(QUICK), "--rerun-incomplete")
    assert expected and {p.name: p.read_bytes() for p in (tmp_path / "tables").glob("*.csv")} == expected


def test_bad_config_fails_before_any_job(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(QUICK.read_text().replace("replicates: 2", "replicates: 0", 1))
    proc = snakemake(tmp_path, "--cores", "1", "--configfile", str(bad), check=False)
    assert proc.returncode != 0
    assert "replicates" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "data").exists()


def test_duplicate_key_in_a_configfile_fails_before_any_job(tmp_path):
    text = QUICK.read_text()
    start = text.index("\n  nin2007_rankswap:") + 1
    block = text[start:text.index("\n  nin2007_", start)]
    bad = tmp_path / "dup.yaml"
    bad.write_text(text.replace(block, block + "\n" + block, 1))
    proc = snakemake(tmp_path, "--cores", "1", "--configfile", str(bad), check=False)
    assert proc.returncode != 0
    assert "key 'nin2007_rankswap' given twice" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "data").exists()


def test_parameter_beyond_the_data_stops_in_preflight_before_any_masking(tmp_path):
    """k = 5000 > n: the pre-flight step fails with the message on the console; no data set is
    processed and no cell runs."""
    if not (mirror_dir() / "EIA.rda").is_file():
        pytest.skip("reference data mirror not available")
    bad = tmp_path / "bigk.yaml"
    bad.write_text(QUICK.read_text().replace("        k: [10]\n", "        k: [5000]\n", 1))
    assert bad.read_text() != QUICK.read_text()
    proc = snakemake(tmp_path, "--cores", "2", "--configfile", str(bad), check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "PRE-FLIGHT CHECK FAILED" in out and "k = 5000 exceeds the data's" in out, out[-3000:]
    assert not (tmp_path / "results").exists() and not (tmp_path / "data" / "processed").exists()


def test_full_dag_builds_from_the_repository_without_warnings():
    """The README's command, dry: run in the repository itself (the Snakefile's ``REPO`` is then
    '.'), the paper-scale DAG plans one job per cell and Snakemake prints no path warnings."""
    env = {k: v for k, v in os.environ.items() if k != "SDCRISK_DATA_MIRROR"}
    proc = _checked(subprocess.run([sys.executable, "-m", "snakemake", "-n", "--forceall", "--cores", "1"],
                                   cwd=ROOT, env=env, capture_output=True, text=True, check=False))
    output = proc.stdout + proc.stderr
    assert planned_jobs(output)["cell"] == len(cfgmod.cells(cfgmod.load(ROOT / "config" / "config.yaml")))
    assert "starts with './'" not in output and "discouraged" not in output


def _outputs(workdir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(workdir)): p.read_bytes()
            for d in ("tables", "figures") for p in sorted((workdir / d).glob("*.*"))}


def test_fast_path_renders_everything_from_the_committed_results(quick_run, tmp_path):
    """`snakemake render --config from_committed=true` in an empty directory, from the quick run's
    snapshot (tables/cells) and without the data: no cell, no data job, and every table, figure
    and check file byte-identical to the full run's."""
    committed = quick_run / "tables" / "cells"
    manifest = json.loads((committed / "manifest.json").read_text())
    assert set(manifest["experiments"]) == set(cfgmod.load(QUICK)["experiments"])
    args = ("render", "--cores", "2", "--configfile", str(QUICK), "--config", "from_committed=true",
            f"committed_dir={committed}")
    planned = set(planned_jobs(snakemake(tmp_path, *args, "-n", mirror=False).stdout))
    assert planned >= {"restore_committed", "table", "figure", "check"}
    assert not planned & {"cell", "aggregate", "fetch_data", "process_data", "preflight"}
    snakemake(tmp_path, *args, mirror=False)
    full = {k: v for k, v in _outputs(quick_run).items() if "environment" not in k}
    assert _outputs(tmp_path) == full


def test_fast_path_refuses_results_of_other_parameters(quick_run, tmp_path):
    """Committed results whose digest is not the current one (here: another root seed) are refused
    with the experiment named, before anything is rendered."""
    cfg = yaml.safe_load(QUICK.read_text())
    cfg["seed"] += 1
    other = tmp_path / "other_seed.yaml"
    other.write_text(yaml.safe_dump(cfg, sort_keys=False))
    proc = snakemake(tmp_path, "render", "--cores", "1", "--configfile", str(other), "--config",
                     "from_committed=true", f"committed_dir={quick_run / 'tables' / 'cells'}", check=False, mirror=False)
    assert proc.returncode != 0
    assert "were computed by other code, parameters or data" in proc.stdout + proc.stderr
    assert not (tmp_path / "tables" / "replication.csv").exists()


def test_readme_fast_path_regenerates_the_committed_tables(tmp_path):
    """README's fast-path command, as typed there, run on the repository's committed paper-scale
    results (in a scratch directory): the committed results belong to the current code and
    config, and every committed table, figure and check file comes out byte for byte."""
    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- fast-path -->")[1].split("<!-- /fast-path -->")[0]
    line = next(ln for ln in block.splitlines() if ln.startswith("snakemake "))
    args = line.split()[1:]
    assert args[0] == "render"
    snakemake(tmp_path, *args, mirror=False)
    committed = {k: v for k, v in _outputs(ROOT).items() if "environment" not in k}
    produced = _outputs(tmp_path)
    assert sorted(produced) == sorted(committed)
    assert [k for k in committed if produced[k] != committed[k]] == []
