"""Snakemake adapter: mean, sd and n over replicates, one row per (cell, measure, known)."""
import sys

from sdcrisk.replication import aggregate_cells

sys.stderr = open(snakemake.log[0], "w")
aggregate_cells(snakemake.input, snakemake.params.cells).to_csv(snakemake.output[0], index=False, float_format="%.6g")
