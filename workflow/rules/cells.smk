# One job per (experiment, data set, method, parameters): all replicates of that cell are masked,
# attacked and measured in the job, so the DAG stays a few hundred jobs at paper scale.


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
    # the code behind the cell (sdcrisk.provenance; every rule has one): editing a masking
    # method, attack or plugin reruns its cells, comments and docstrings do not count
    code=lambda wc: sdc_provenance.cell_code(cell_of(wc).method, settings_of(wc)),
)


rule cell:
    input:
        "data/processed/{dataset}.parquet",
    output:
        "results/cells/{experiment}/{dataset}/{cell}.parquet",
    log:
        "logs/cells/{experiment}/{dataset}/{cell}.log",
    benchmark:
        "benchmarks/out/cells/{experiment}/{dataset}/{cell}.tsv"
    params:
        **CELL_PARAMS,
    script:
        "../scripts/run_cell.py"


rule aggregate:
    input:
        lambda wc: [f"results/cells/{c.experiment}/{c.dataset}/{c.cell_id}.parquet" for c in cells_of(wc.experiment)],
    output:
        "results/aggregated/{experiment}.csv",
    log:
        "logs/aggregate/{experiment}.log",
    params:
        cells=lambda wc: cells_of(wc.experiment),
        code=sdc_provenance.code_digest("sdcrisk.replication"),
    script:
        "../scripts/aggregate.py"
