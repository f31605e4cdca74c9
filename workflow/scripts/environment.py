"""Snakemake adapter: record the software environment of the run (tables/environment.json)."""

from sdcrisk.replication.environment import write
from sdcrisk.replication.joblog import log_stderr

log_stderr(snakemake.log[0])
write(snakemake.output[0], snakemake.params.environment)  # described once, when the DAG was built
