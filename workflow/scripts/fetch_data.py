"""Snakemake adapter: obtain one reference file (mirror or download) and verify its sha256."""
import sys

from sdcrisk.config import mirror
from sdcrisk.data import DatasetSpec, fetch

sys.stderr = open(snakemake.log[0], "w")
spec = DatasetSpec.from_config(snakemake.wildcards.dataset, snakemake.params.spec)
fetch(spec, snakemake.output[0], mirror=mirror(snakemake.config))
