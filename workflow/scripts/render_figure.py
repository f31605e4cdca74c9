"""Snakemake adapter: one figure as PNG and PDF."""

from sdcrisk.figures import render_figure
from sdcrisk.joblog import log_stderr

log_stderr(snakemake.log[0])
render_figure(snakemake.input[0], snakemake.params.experiment, snakemake.params.figure,
              snakemake.params.name, snakemake.output.png, snakemake.output.pdf)
