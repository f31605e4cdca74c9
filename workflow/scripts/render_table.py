"""Snakemake adapter: one published table as CSV, Markdown and LaTeX."""

from sdcrisk.replication.render import render_table
from sdcrisk.replication.joblog import log_stderr

log_stderr(snakemake.log[0])
render_table(snakemake.input[0], snakemake.params.experiment, snakemake.params.table,
             snakemake.params.name, snakemake.output.csv, snakemake.output.md, snakemake.output.tex)
