"""Snakemake adapter: compare every published cell and claim with the regenerated value."""

from sdcrisk.replication.check import check
from sdcrisk.replication.joblog import log_stderr

log_stderr(snakemake.log[0])
check(snakemake.input.aggregated, snakemake.input.values, snakemake.input.claims,
      {"experiments": snakemake.params.experiments}, snakemake.output.csv, snakemake.output.md,
      snakemake.output.summary, snakemake.input.explanations, snakemake.input.calibration,
      snakemake.input.pins, snakemake.input.shapes)
