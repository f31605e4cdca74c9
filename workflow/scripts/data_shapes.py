"""Snakemake adapter: n and m of every processed data set (data/shapes.json)."""

from sdcrisk.replication.joblog import log_stderr
from sdcrisk.replication.check import write_shapes

log_stderr(snakemake.log[0])
write_shapes(dict(zip(snakemake.params.datasets, snakemake.input)), snakemake.output[0])
