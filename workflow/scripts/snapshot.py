"""Snakemake adapter: copy the aggregated results to tables/cells with their digests."""

from sdcrisk.replication.committed import snapshot
from sdcrisk.replication.joblog import log_stderr

log_stderr(snakemake.log[0])
snapshot(dict(zip(snakemake.params.experiments, snakemake.input.aggregated)), snakemake.params.digests,
         snakemake.input.shapes, snakemake.params.out_dir)
