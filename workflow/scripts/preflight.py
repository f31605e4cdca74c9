"""Snakemake adapter: the data-dependent checks, run once before any data set is processed or
masked (sdcrisk.replication.preflight). A failure prints one message naming the user's file or config key."""
import json
import sys

from sdcrisk.replication.config import load_plugins, mirror
from sdcrisk.data import atomic_write
from sdcrisk.replication.joblog import log_stderr
from sdcrisk.replication.preflight import PreflightError, check

log_stderr(snakemake.log[0])
load_plugins(snakemake.config)
try:
    summary = check(snakemake.config, dict(zip(snakemake.params.datasets, snakemake.input)), mirror(snakemake.config))
except PreflightError as exc:
    print(f"PRE-FLIGHT CHECK FAILED: {exc}", file=sys.stderr)
    print(f"PRE-FLIGHT CHECK FAILED: {exc}", file=sys.__stderr__)
    sys.exit(1)
atomic_write(snakemake.output[0], lambda tmp: open(tmp, "w").write(json.dumps(summary, indent=1) + "\n"))
