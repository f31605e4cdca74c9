"""Snakemake adapter: mask, attack and measure every replicate of one cell."""

from sdcrisk.config import load_plugins
from sdcrisk.data import read_table, write_table
from sdcrisk.evaluation import run_cell
from sdcrisk.joblog import log_stderr

log_stderr(snakemake.log[0])
load_plugins({"plugins": snakemake.params.plugins})  # the cell's own plugins only
x = read_table(snakemake.input[0]).to_numpy()
rows = run_cell(x, snakemake.params.cell, snakemake.params.experiment, snakemake.params.seed)
write_table(rows, snakemake.output[0])
