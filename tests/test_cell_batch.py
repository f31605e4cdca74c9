"""Several cells per job (config key cell_batch, set by profiles/slurm): the batches cover every
cell once, a bad value stops before any job, a batch writes the same bytes as one job per cell,
and a change to one cell's params reruns the batch holding it."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from sdcrisk.replication import config as cfgmod
from conftest import mirror_dir, planned_jobs

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "config" / "quick.yaml"


def _configs() -> dict[str, dict]:
    reference = cfgmod.load(ROOT / "config" / "config.yaml")
    return {"paper": reference, "quick": cfgmod.layer(reference, cfgmod.read_layer(QUICK))}


@pytest.mark.parametrize("size", [1, 2, 8, 1000])
@pytest.mark.parametrize("name", ["paper", "quick"])
def test_batches_hold_every_cell_once_within_one_experiment(name, size):
    cells = cfgmod.cells(_configs()[name])
    batches = cfgmod.cell_batches(cells, size)
    assert sorted((c for b in batches for c in b), key=cells.index) == cells  # every cell once
    assert all(b == sorted(b, key=cells.index) for b in batches)  # in the config's order
    per_experiment = {}
    for b in batches:
        assert b and len(b) <= size and len({c.experiment for c in b}) == 1
        per_experiment.setdefault(b[0].experiment, []).append(len(b))
    for experiment, lengths in per_experiment.items():
        n = sum(lengths)
        assert len(lengths) == -(-n // size), experiment  # as few batches as the size allows
        assert max(lengths) - min(lengths) <= 1, experiment  # of near-equal lengths


@pytest.mark.parametrize("value", [0, -3, 2.5, "8", "eight", True, None])
def test_a_bad_cell_batch_is_refused_naming_the_key(value):
    cfg = {**_configs()["quick"], "cell_batch": value}
    with pytest.raises(cfgmod.ConfigError, match=r"config: cell_batch: expected a whole number >= 1"):
        cfgmod.validate(cfg)


def _snakemake(workdir: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    env = env or {**os.environ, "SDCRISK_DATA_MIRROR": str(mirror_dir())}
    return subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
                           str(workdir), *args], env=env, capture_output=True, text=True)


def test_bad_cell_batch_stops_before_any_job(tmp_path):
    proc = _snakemake(tmp_path, "-n", "--cores", "1", "--configfile", str(QUICK), "--config", "cell_batch=eight")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "cell_batch: expected a whole number >= 1" in out, out[-3000:]
    assert not (tmp_path / "data").exists()


def _planned_outputs(dry_run: str) -> dict[str, list[str]]:
    """Rule -> the output files of its planned jobs, from a dry run's job listing."""
    out: dict[str, list[str]] = {}
    for rule, files in re.findall(r"^(?:local)?rule (\w+):\n(?:    .*\n)*?    output: (.*)$", dry_run, flags=re.M):
        out.setdefault(rule, []).extend(files.split(", "))
    return out


def test_batch_config_makes_fewer_jobs_covering_every_cell(tmp_path):
    cells = cfgmod.cells(_configs()["quick"])
    proc = _snakemake(tmp_path, "-n", "--cores", "2", "--configfile", str(QUICK))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert planned_jobs(proc.stdout)["cell"] == len(cells) == 57  # the default: one job per cell

    proc = _snakemake(tmp_path, "-n", "--cores", "2", "--configfile", str(QUICK), "--config", "cell_batch=8")
    assert proc.returncode == 0, proc.stderr[-3000:]
    jobs = planned_jobs(proc.stdout)
    batches = {rule: n for rule, n in jobs.items() if rule.startswith("cell_batch_")}
    assert "cell" not in jobs and set(batches.values()) == {1}
    assert len(batches) == len(cfgmod.cell_batches(cells, 8)) == 15  # 13 experiments, attack_matrix's 22 cells in 3
    outputs = _planned_outputs(proc.stdout)
    files = [f for rule in batches for f in outputs[rule]]
    expected = [f"{kind}/{c.experiment}/{c.dataset}/{c.cell_id}.{ext}" for c in cells
                for kind, ext in (("results/cells", "parquet"), ("benchmarks/out/cells", "tsv"))]
    assert sorted(files) == sorted(expected)  # every cell's files, each made by one batch
    # the rest of the DAG is the same
    assert {r: n for r, n in jobs.items() if r not in batches and r != "total"} == \
        {r: n for r, n in planned_jobs(_snakemake(tmp_path, "-n", "--cores", "2", "--configfile", str(QUICK)).stdout).items()
         if r not in ("cell", "total")}


PROBE = {  # one experiment of two cheap cells on Census, one of them from a plugin
    "experiments": {
        "batch_probe": {
            "paper": "batch_probe", "datasets": ["census"],
            "methods": {"toy_rounding": {"base": [1000.0]}, "rankswap": {"p": [2]}},
            "replicates": 2, "evaluation": "attack_matrix", "options": {"attacks": ["DBRL", "RBRL-Sum"]},
            "tables": {"T1": {"dataset": "census", "layout": "param_by_method_measure", "measures": ["DBRL"]}},
        },
    },
    "plugins": ["toy_masking"],
}


@pytest.mark.slow
def test_batch_writes_the_cells_bytes_and_reruns_when_one_cell_changes(tmp_path):
    if not (mirror_dir() / "CASCrefmicrodata.rda").is_file():
        pytest.skip(f"reference data mirror {mirror_dir()} not available")
    plugins = tmp_path / "plugins"
    shutil.copytree(ROOT / "tests" / "plugins", plugins, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "SDCRISK_DATA_MIRROR": str(mirror_dir()),
           "PYTHONPATH": os.pathsep.join([str(plugins), os.environ.get("PYTHONPATH", "")])}
    (tmp_path / "probe.yaml").write_text(yaml.safe_dump(PROBE))
    target = "results/aggregated/batch_probe.csv"

    def run(workdir, *args):
        proc = _snakemake(workdir, target, "--cores", "2", "--configfile", str(tmp_path / "probe.yaml"), *args, env=env)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return proc.stdout + proc.stderr

    single, batched = tmp_path / "single", tmp_path / "batched"
    run(single)
    assert planned_jobs(run(batched, "--config", "cell_batch=8")).get("cell_batch_batch_probe_1") == 1
    cells = sorted(p.relative_to(single) for p in (single / "results" / "cells").rglob("*.parquet"))
    assert len(cells) == 2
    for rel in [*cells, Path(target)]:
        assert (batched / rel).read_bytes() == (single / rel).read_bytes(), rel
    for rel in cells:  # each cell its own log and benchmark file
        log = Path("logs") / rel.relative_to("results").with_suffix(".log")
        assert (batched / log).read_bytes() == (single / log).read_bytes(), log
        assert (batched / "benchmarks" / "out" / rel.relative_to("results").with_suffix(".tsv")).is_file()
    assert "Nothing to be done" in run(batched, "-n", "--config", "cell_batch=8")

    # the plugin's code is the toy cell's param only: editing it reruns the whole batch holding that
    # cell (one job), as it reruns that cell alone with one job per cell
    masking = plugins / "toy_masking.py"
    masking.write_text(masking.read_text().replace("base / 10", "base / 20"))
    planned = run(batched, "-n", "--config", "cell_batch=8")
    assert planned_jobs(planned).get("cell_batch_batch_probe_1") == 1
    assert re.search(r"[Pp]arams have changed", planned), planned[-3000:]
    assert planned_jobs(run(single, "-n")).get("cell") == 1
