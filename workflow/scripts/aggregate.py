"""Snakemake adapter: mean, sd and n over replicates, one row per (cell, measure, known)."""

from sdcrisk.replication.check import aggregate_cells
from sdcrisk.replication.joblog import log_stderr

log_stderr(snakemake.log[0])
aggregate_cells(snakemake.input, snakemake.params.cells).to_csv(snakemake.output[0], index=False, float_format="%.6g")
