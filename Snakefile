# sdcrisk replication DAG: raw data -> masked files -> attacks -> measures -> tables, figures, check.
# Paper scale:  snakemake --cores 8
# CI scale:     snakemake --cores 2 --configfile config/quick.yaml
# One table:    snakemake --cores 2 tables/nin2007_location_rl_T7.csv
import os
import sys

# One BLAS thread per job: jobs run in parallel, and single-threaded BLAS keeps sums reproducible.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from sdcrisk.replication import config as sdc_config
from sdcrisk import data as sdc_data
from sdcrisk.replication import environment as sdc_environment
from sdcrisk.replication import provenance as sdc_provenance
from sdcrisk.replication import check as sdc_rep

# Outputs go to the working directory (--directory), inputs come from the repository. Its path is
# relative to the working directory, so moving a checkout with its outputs changes no input path
# and reruns nothing.
REPO = os.path.relpath(workflow.basedir)


def repo_path(*parts):
    """A repository file as a normalised path relative to the working directory (no './' prefix,
    which Snakemake warns about)."""
    return os.path.normpath(os.path.join(REPO, *parts))


# The config is layered (sdcrisk.replication.config.layer): the reference config (config/config.yaml with the
# data sets of config/datasets.yaml), then every --configfile in the order given, then --config.
# A layer adds data sets and experiments, one of the same name replacing the one below whole; its
# plugins are added; seed and data_mirror replace. Each file is read strictly: Snakemake reads it
# with plain YAML, which keeps the last of two equal keys (an experiment given twice would silently
# lose its first definition). A layer's plugin files are relative to the file.
# Validated once, by the Snakemake process the user started; the processes Snakemake starts for
# single jobs (cluster job steps, `run:` jobs) only load the plugins: validation imports every
# masking method and attack, about 3 s of CPU that a job step would pay for every cell. A mistake
# in the config (sdcrisk.replication.config.ConfigError) ends the run with its one-line message, no traceback.
try:
    _layered = sdc_config.layered(os.path.join(workflow.basedir, "config", "config.yaml"), workflow.configfiles,
                                  workflow.config_settings.config)
    if workflow.is_main_process:
        sdc_config.validate(_layered, source="config")
    else:
        sdc_config.load_plugins(_layered, source="config")
except sdc_config.ConfigError as _exc:
    raise SystemExit(f"CONFIG ERROR: {_exc}")
config.clear()
config.update(_layered)

CELLS = sdc_config.cells(config)
TABLES = sdc_rep.table_targets(config)      # {"nin2007_location_rl_T1": (experiment, "T1"), ...}
FIGURES = sdc_rep.figure_targets(config)    # {"nin2008_rethinking_rs_F3": (experiment, "F3"), ...}

wildcard_constraints:
    dataset="|".join(config["datasets"]),
    experiment="|".join(config["experiments"]),
    cell=r"[A-Za-z0-9_.\-]+",

include: "workflow/rules/data.smk"
include: "workflow/rules/cells.smk"
include: "workflow/rules/render.smk"
include: "workflow/rules/check.smk"
include: "workflow/rules/committed.smk"
include: "workflow/rules/notebooks.smk"

# The compute estimate of the config's cells (sdcrisk.replication.estimate; over config max_linkages the
# config was refused above), once, where the user started Snakemake.
if workflow.is_main_process and not FROM_COMMITTED:
    print(f"sdcrisk compute estimate: {sdc_config.compute_estimate(config)}", file=sys.stderr)

# The numba kernels, compiled once here before the first job (sdcrisk.compile.before_jobs: parallel
# cells compiling one changed kernel at the same time can crash). Snakemake runs onstart only when
# it runs jobs, not in a dry run; the fast path computes nothing.
onstart:
    if not FROM_COMMITTED:
        from sdcrisk.compile import before_jobs

        before_jobs()

# On a cluster (profiles/slurm) only the cells are submitted as jobs; these rules take seconds
# (download, aggregation, rendering, the check, notebooks) and run beside Snakemake itself.
# Ignored by local runs.
localrules:
    all,
    fetch_data,
    preflight,
    process_data,
    aggregate,
    table,
    figure,
    belief_examples,
    check,
    data_shapes,
    overview,
    environment,
    notebook,

# Every table, figure and the check (the fast path's target: `snakemake render --cores 2 --config
# from_committed=true`, README "Tables and figures in under a minute").
rule render:
    input:
        expand("tables/{name}.{ext}", name=TABLES, ext=("csv", "md", "tex")),
        expand("figures/{name}.{ext}", name=FIGURES, ext=("png", "pdf")),
        expand("tables/torra_belief_Texamples.{ext}", ext=("csv", "tex")),
        "tables/replication.csv",
        "tables/replication.md",
        "tables/replication_summary.json",
        "figures/replication_overview.png",
        "figures/replication_overview.pdf",


rule all:
    default_target: True
    input:
        rules.render.input,
        [] if FROM_COMMITTED else rules.snapshot.output,
        "tables/environment.json",
        expand("results/notebooks/{paper}.ipynb", paper=NOTEBOOK_PAPERS),
        expand("results/notebooks/{paper}.html", paper=NOTEBOOK_PAPERS),
