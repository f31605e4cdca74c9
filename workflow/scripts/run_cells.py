"""Snakemake adapter: several cells in one process (a `cell_batch_*` job, config key cell_batch),
each computed and written as rule `cell` writes it (the same function), with its own log and
benchmark file. Imports and numba's compiled kernels are loaded once for the batch."""

import warnings

from snakemake.benchmark import benchmarked, write_benchmark_records

from sdcrisk.replication.celljob import run_cell_job

cells, data = snakemake.params.cells, snakemake.input.data  # one data file per cell, in order
if len(data) != len(cells) or any(not d.endswith(f"/{p['cell'].dataset}.parquet") for d, p in zip(data, cells)):
    raise RuntimeError(f"batch input {list(data)} does not name the data set of each of its {len(cells)} cells")
for i, params in enumerate(cells):
    # warnings: each cell's log shows them as a process of its own would (once per cell)
    with benchmarked() as record, warnings.catch_warnings():
        run_cell_job(data[i], snakemake.output.cells[i], snakemake.log[i], **params)
    write_benchmark_records([record], snakemake.output.benchmarks[i], False)
