"""Snakemake adapter: the committed aggregated results of every experiment and the data sets'
shapes, after checking each experiment's digest (sdcrisk.replication.committed)."""

from sdcrisk.replication.committed import restore, restore_shapes
from sdcrisk.replication.joblog import log_stderr

log_stderr(snakemake.log[0])
for experiment, committed, out in zip(snakemake.params.experiments, snakemake.input.csv, snakemake.output.aggregated):
    restore(experiment, committed, snakemake.input.manifest, snakemake.params.digests[experiment], out)
restore_shapes(snakemake.input.manifest, snakemake.output.shapes)
