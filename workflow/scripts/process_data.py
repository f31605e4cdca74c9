"""Snakemake adapter: read the data file (R object, CSV or parquet), keep the masked attributes in file order, write parquet."""

from sdcrisk.data import DatasetSpec, load_table, write_table
from sdcrisk.replication.joblog import log_stderr

log_stderr(snakemake.log[0])
spec = DatasetSpec.from_config(snakemake.wildcards.dataset, snakemake.params.spec)
write_table(load_table(spec, snakemake.input[0]), snakemake.output[0])
