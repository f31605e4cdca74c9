"""Snakemake adapter: mean, sd and n over replicates, one row per (cell, measure, known)."""
import os
import sys

from sdcrisk.replication import aggregate_cells
from sdcrisk.joblog import log_stderr

log_stderr(snakemake.log[0])
aggregate_cells(snakemake.input, snakemake.params.cells).to_csv(snakemake.output[0], index=False, float_format="%.6g")
# Leave without running C++ static destructors: after pandas.read_parquet, Arrow's thread pool can
# abort the interpreter's teardown with "terminate called without an active exception" (SIGABRT;
# apache/arrow#34314), seen here in this rule under load. The output is complete and closed here.
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
