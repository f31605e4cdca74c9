# One job per (experiment, data set, method, parameters): all replicates of that cell are masked,
# attacked and measured in the job, so the DAG stays a few hundred jobs at paper scale. On a
# cluster several cells can share a job (config key cell_batch, below).
import re
import types


def cells_of(experiment):
    return [c for c in CELLS if c.experiment == experiment]


def cell_of(wc):
    return sdc_config.find_cell(config, wc.experiment, wc.dataset, wc.cell)


def settings_of(wc):
    return sdc_config.cell_settings(config["experiments"][wc.experiment])


# Everything a cell job's numbers depend on: its params (Snakemake reruns a cell when one changes;
# the committed results' digests are taken over the same values: workflow/rules/committed.smk).
CELL_PARAMS = dict(
    cell=cell_of,
    experiment=lambda wc: settings_of(wc),
    seed=config["seed"],
    # only the plugins the cell's method and attacks come from: listing another reruns nothing
    plugins=lambda wc: sdc_config.cell_plugins(cell_of(wc).method, settings_of(wc)),
    # the code behind the cell (sdcrisk.replication.provenance; every rule has one): editing a masking
    # method, attack or plugin reruns its cells, comments and docstrings do not count
    code=lambda wc: sdc_provenance.cell_code(cell_of(wc).method, settings_of(wc)),
)


def cell_params(c):
    """The params of the job of cell ``c`` (rule `cell`; one entry of a batch job's `cells`)."""
    wc = types.SimpleNamespace(experiment=c.experiment, dataset=c.dataset, cell=c.cell_id)
    return {k: (v(wc) if callable(v) else v) for k, v in CELL_PARAMS.items()}


# A cell's memory, runtime (minutes) and CPUs where a cluster executor reads them (profiles/slurm);
# a local run does not limit them.
CELL_RESOURCES = dict(mem_mb=2000, runtime=15, cpus_per_task=1)
# Cells per job (config key cell_batch, validated in the Snakefile). 1: one job per cell, rule
# `cell`. More: one rule per batch (sdcrisk.replication.config.cell_batches) whose job computes its cells in
# one process, one after another, and writes each cell's files as rule `cell` would. Only the job
# layout changes: a batch reruns when any of its cells' params change, and switching cell_batch
# reruns the cells (other jobs made their files).
CELL_BATCH = config.get("cell_batch", 1)
BATCHES = sdc_config.cell_batches(CELLS, CELL_BATCH) if CELL_BATCH > 1 else []


rule cell:
    input:
        "data/processed/{dataset}.parquet",
    output:
        "results/cells/{experiment}/{dataset}/{cell}.parquet",
    log:
        "logs/cells/{experiment}/{dataset}/{cell}.log",
    benchmark:
        "benchmarks/out/cells/{experiment}/{dataset}/{cell}.tsv"
    wildcard_constraints:
        experiment="(?!)" if BATCHES else "|".join(config["experiments"]),  # (?!) matches nothing
    params:
        **CELL_PARAMS,
    resources:
        **CELL_RESOURCES,
    script:
        "../scripts/run_cell.py"


def batch_params(batch):
    return lambda wc: [cell_params(c) for c in batch]


def cell_path(kind, c, ext):
    return f"{kind}/{c.experiment}/{c.dataset}/{c.cell_id}.{ext}"


_batch_count = {}  # experiment -> batches so far: rule names cell_batch_<experiment>_<1, 2, ...>
for _batch in BATCHES:
    _experiment = _batch[0].experiment
    _batch_count[_experiment] = _batch_count.get(_experiment, 0) + 1

    rule:
        name:
            f"cell_batch_{re.sub(r'[^A-Za-z0-9_]', '_', _experiment)}_{_batch_count[_experiment]}"
        input:
            data=[f"data/processed/{c.dataset}.parquet" for c in _batch],
        output:
            cells=[cell_path("results/cells", c, "parquet") for c in _batch],
            benchmarks=[cell_path("benchmarks/out/cells", c, "tsv") for c in _batch],
        log:
            [cell_path("logs/cells", c, "log") for c in _batch],
        params:
            cells=batch_params(_batch),
        resources:
            # the cells run one after another: one cell's memory and CPU, all their runtimes
            **{**CELL_RESOURCES, "runtime": CELL_RESOURCES["runtime"] * len(_batch)},
        script:
            "../scripts/run_cells.py"


rule aggregate:
    input:
        lambda wc: [f"results/cells/{c.experiment}/{c.dataset}/{c.cell_id}.parquet" for c in cells_of(wc.experiment)],
    output:
        "results/aggregated/{experiment}.csv",
    log:
        "logs/aggregate/{experiment}.log",
    params:
        cells=lambda wc: cells_of(wc.experiment),
        code=sdc_provenance.code_digest("sdcrisk.replication.check"),
    script:
        "../scripts/aggregate.py"
