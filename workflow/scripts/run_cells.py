"""Snakemake adapter: several cells in one process (a `cell_batch_*` job, config key cell_batch),
each computed and written as rule `cell` writes it (the same function), with its own log and
benchmark file. Imports and numba's compiled kernels are loaded once for the batch."""

import warnings

from snakemake.benchmark import benchmarked, write_benchmark_records

from sdcrisk.celljob import run_cell_job

for i, params in enumerate(snakemake.params.cells):
    # warnings: each cell's log shows them as a process of its own would (once per cell)
    with benchmarked() as record, warnings.catch_warnings():
        run_cell_job(snakemake.input.data[i], snakemake.output.cells[i], snakemake.log[i], **params)
    write_benchmark_records([record], snakemake.output.benchmarks[i], False)
