"""Snakemake adapter: compare every published cell and claim with the regenerated value."""
import sys

from sdcrisk.replication import check

sys.stderr = open(snakemake.log[0], "w")
check(snakemake.input.aggregated, snakemake.input.values, snakemake.input.claims,
      {"experiments": snakemake.params.experiments}, snakemake.output.csv, snakemake.output.md,
      snakemake.output.summary, snakemake.input.explanations)
