"""Snakemake adapter: one published table as CSV, Markdown and LaTeX."""
import sys

from sdcrisk.render import render_table

sys.stderr = open(snakemake.log[0], "w")
render_table(snakemake.input[0], snakemake.params.experiment, snakemake.params.table,
             snakemake.params.name, snakemake.output.csv, snakemake.output.md, snakemake.output.tex)
