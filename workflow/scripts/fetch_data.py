"""Snakemake adapter: obtain one reference file (mirror or download) and verify its sha256."""

from sdcrisk.replication.config import mirror
from sdcrisk.data import DatasetSpec, fetch
from sdcrisk.replication.joblog import log_stderr

log_stderr(snakemake.log[0])
spec = DatasetSpec.from_config(snakemake.wildcards.dataset, snakemake.params.spec)
fetch(spec, snakemake.output[0], mirror=mirror(snakemake.config))
