"""The SLURM profile on a real cluster: one published table built through profiles/slurm (its two
cells submitted with sbatch as one batch job, config key cell_batch; the light rules local) has the
same bytes as the same table built locally with one job per cell.

Needs a running cluster; .ci/run starts a one-node one with cluster/slurm-one-node.sh. Without
one (no sbatch/sinfo, no answer, no usable node, no executor plugin) the test skips and says why.
It never installs anything. About a minute on the one-node cluster.
"""

import os
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from conftest import mirror_dir

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "config" / "quick.yaml"
PROFILE = ROOT / "profiles" / "slurm"
# A cheap published table of the quick config from two cells (optimal univariate microaggregation
# k = 10 on Census and on EIA), which the profile runs as one batch job.
TABLE = "nin2007_location_rl_T5"
BATCH = "cell_batch_nin2007_univariate_1"
TIMEOUT = 150  # seconds for the cluster run (about 40 s on the one-node cluster)

pytestmark = pytest.mark.slow


def _cluster_problem() -> str | None:
    """Why the cluster cannot be used here, or None when it can."""
    for tool in ("sbatch", "sinfo", "squeue", "scancel"):
        if shutil.which(tool) is None:
            return f"`{tool}` not found: no SLURM client here (CI starts a cluster with cluster/slurm-one-node.sh)"
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        return "snakemake-executor-plugin-slurm not installed (pip install -e '.[cluster]' -c constraints.txt)"
    try:
        proc = subprocess.run(["sinfo", "--noheader", "--format=%a %T"], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "sinfo did not answer within 30 s"
    if proc.returncode != 0:
        return f"SLURM cluster not reachable: sinfo: {(proc.stderr or proc.stdout).strip()[:300]}"
    # "idle*" (a trailing flag) is a node that does not answer or is powered down, rebooting...
    usable = [line for line in proc.stdout.splitlines() if line.split()[:1] == ["up"] and line.split()[1:] in (["idle"], ["mixed"])]
    if not usable:
        return f"no partition up with an idle node (sinfo: {proc.stdout.strip()!r})"
    return None


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_", "SRUN_"))}
    env["SDCRISK_DATA_MIRROR"] = str(mirror_dir())
    return env


def _snakemake(workdir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(workdir),
            f"tables/{TABLE}.csv", "--configfile", str(QUICK), *args]  # the target before --configfile


def _cancel(prefix: str) -> None:
    """Cancel whatever this test's run left in the queue (its job names start with ``prefix``)."""
    out = subprocess.run(["squeue", "--noheader", "--format=%i %j"], capture_output=True, text=True).stdout
    ids = [line.split()[0] for line in out.splitlines() if len(line.split()) == 2 and line.split()[1].startswith(prefix)]
    if ids:
        subprocess.run(["scancel", *ids], check=False)


def run_on_cluster(cmd: list[str], env: dict, prefix: str, timeout: float) -> subprocess.CompletedProcess:
    """Run a Snakemake command on the cluster (its SLURM jobs named ``prefix``...); past ``timeout``
    seconds stop it (SIGINT, then SIGKILL), cancel its jobs and fail the test with the cluster's state."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGINT)  # Snakemake cancels its SLURM jobs on SIGINT
        try:
            out, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        _cancel(prefix)
        pytest.fail(f"cluster run did not finish within {timeout} s:\n{out[-3000:]}\n{_cluster_state()}")
    _cancel(prefix)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, "")


def _run_on_cluster(workdir: Path) -> subprocess.CompletedProcess:
    prefix = f"sdcrisktest{uuid.uuid4().hex[:8]}"
    cmd = _snakemake(workdir, "--profile", str(PROFILE), "--slurm-jobname-prefix", prefix)
    return run_on_cluster(cmd, _env(), prefix, TIMEOUT)


def _cluster_state() -> str:
    node = subprocess.run(["sinfo", "-N", "-l"], capture_output=True, text=True).stdout
    queue = subprocess.run(["squeue", "--states=all"], capture_output=True, text=True).stdout
    return node + queue


def test_published_table_on_the_cluster_matches_the_local_build(tmp_path):
    problem = _cluster_problem()
    if problem:
        print(f"SKIP test_slurm: {problem}")
        pytest.skip(problem)
    if not (mirror_dir() / "CASCrefmicrodata.rda").is_file():
        pytest.skip(f"reference data mirror {mirror_dir()} not available")

    cluster, local = tmp_path / "cluster", tmp_path / "local"
    done = _run_on_cluster(cluster)
    assert done.returncode == 0, done.stdout[-4000:]
    # the two cells really went through sbatch, as one batch job; the light rules ran locally
    assert f"rule {BATCH}:" in done.stdout and f"rule_{BATCH}/" in done.stdout, done.stdout[-4000:]
    assert done.stdout.count("has been submitted with SLURM jobid") == 1, done.stdout[-4000:]
    assert "localrule aggregate:" in done.stdout and "localrule table:" in done.stdout

    proc = subprocess.run(_snakemake(local, "--cores", "2"), env=_env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "rule cell:" in proc.stdout + proc.stderr  # locally one job per cell

    cells = sorted(p.relative_to(local) for p in (local / "results" / "cells").rglob("*.parquet"))
    assert len(cells) == 2
    for rel in cells:
        assert (cluster / rel).read_bytes() == (local / rel).read_bytes(), f"{rel} differs"
    for ext in ("csv", "md", "tex"):
        built = (cluster / "tables" / f"{TABLE}.{ext}").read_bytes()
        assert built, ext
        assert built == (local / "tables" / f"{TABLE}.{ext}").read_bytes(), f"{TABLE}.{ext} differs"
