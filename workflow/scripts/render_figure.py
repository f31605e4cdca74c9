"""Snakemake adapter: one figure as PNG and PDF, published values overlaid where printed."""

from sdcrisk.replication.figures import render_figure
from sdcrisk.replication.joblog import log_stderr

log_stderr(snakemake.log[0])
render_figure(snakemake.input.aggregated, snakemake.params.experiment, snakemake.params.figure,
              snakemake.output.png, snakemake.output.pdf, snakemake.input.published, snakemake.input.claims)
