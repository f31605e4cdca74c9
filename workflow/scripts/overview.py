"""Snakemake adapter: figures/replication_overview.{png,pdf}."""

from sdcrisk.replication.joblog import log_stderr
from sdcrisk.replication.overview import overview_figure

log_stderr(snakemake.log[0])
overview_figure(snakemake.input.replication, snakemake.input.shapes, snakemake.output.png, snakemake.output.pdf)
