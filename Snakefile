# sdcrisk replication DAG: raw data -> masked files -> attacks -> measures -> tables, figures, check.
# Paper scale:  snakemake --cores 8
# CI scale:     snakemake --cores 2 --configfile config/quick.yaml
# One table:    snakemake --cores 2 tables/nin2007_location_rl_T7.csv
import os

# One BLAS thread per job: jobs run in parallel, and single-threaded BLAS keeps sums reproducible.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from sdcrisk import config as sdc_config
from sdcrisk import data as sdc_data
from sdcrisk import environment as sdc_environment
from sdcrisk import provenance as sdc_provenance
from sdcrisk import replication as sdc_rep

# Outputs go to the working directory (--directory), inputs come from the repository. Its path is
# relative to the working directory, so moving a checkout with its outputs changes no input path
# and reruns nothing.
REPO = os.path.relpath(workflow.basedir)


def repo_path(*parts):
    """A repository file as a normalised path relative to the working directory (no './' prefix,
    which Snakemake warns about)."""
    return os.path.normpath(os.path.join(REPO, *parts))


# A --configfile on the command line fills `config`; otherwise read the paper-scale config.
if not config.get("experiments"):
    config.update(sdc_config.load(os.path.join(workflow.basedir, "config", "config.yaml")))
elif "datasets" not in config:
    config.update({"datasets": sdc_config.load(os.path.join(workflow.basedir, "config", "config.yaml"))["datasets"]})
# Snakemake reads a --configfile with plain YAML, which keeps the last of two equal keys (an
# experiment given twice would silently lose its first definition): read them again strictly.
for _configfile in workflow.configfiles:
    sdc_config.read_yaml(_configfile)
sdc_config.validate(config, source="config")

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
include: "workflow/rules/notebooks.smk"

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
    environment,
    notebook,

rule all:
    input:
        expand("tables/{name}.csv", name=TABLES),
        expand("tables/{name}.md", name=TABLES),
        expand("tables/{name}.tex", name=TABLES),
        expand("figures/{name}.png", name=FIGURES),
        expand("figures/{name}.pdf", name=FIGURES),
        "tables/torra_belief_Texamples.csv",
        "tables/torra_belief_Texamples.tex",
        "tables/replication.csv",
        "tables/replication.md",
        "tables/replication_summary.json",
        "tables/environment.json",
        expand("results/notebooks/{paper}.ipynb", paper=NOTEBOOK_PAPERS),
        expand("results/notebooks/{paper}.html", paper=NOTEBOOK_PAPERS),
