"""Snakemake adapter: read the data file (R object, CSV or parquet), keep the masked attributes in file order, write parquet."""
import sys

from sdcrisk.data import DatasetSpec, load_table, write_table

sys.stderr = open(snakemake.log[0], "w")
spec = DatasetSpec.from_config(snakemake.wildcards.dataset, snakemake.params.spec)
write_table(load_table(spec, snakemake.input[0]), snakemake.output[0])
