"""Snakemake adapter: one figure as PNG and PDF."""
import sys

from sdcrisk.figures import render_figure

sys.stderr = open(snakemake.log[0], "w")
render_figure(snakemake.input[0], snakemake.params.experiment, snakemake.params.figure,
              snakemake.params.name, snakemake.output.png, snakemake.output.pdf)
