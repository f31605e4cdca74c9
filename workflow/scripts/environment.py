"""Snakemake adapter: record the software environment of the run (tables/environment.json)."""
import sys

from sdcrisk.environment import write

sys.stderr = open(snakemake.log[0], "w")
write(snakemake.output[0], snakemake.params.environment)  # described once, when the DAG was built
