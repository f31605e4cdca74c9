"""Snakemake adapter: mask, attack and measure every replicate of one cell."""

from sdcrisk.replication.celljob import run_cell_job

run_cell_job(snakemake.input[0], snakemake.output[0], snakemake.log[0], **dict(snakemake.params.items()))
