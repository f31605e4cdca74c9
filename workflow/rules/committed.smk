# Committed cell results (sdcrisk.replication.committed): a full run copies every experiment's aggregated
# cells to tables/cells/ with a manifest of digests; `--config from_committed=true` renders every
# table, figure and the check from them instead of recomputing the cells, after checking that
# they belong to the current code, parameters and data.
from sdcrisk.replication import committed as sdc_committed


def experiment_digest(experiment):
    """Digest of every param of every cell job of ``experiment`` (as rule `cell` computes them)
    and of the aggregation code."""
    jobs = [cell_params(c) for c in cells_of(experiment)]
    return sdc_committed.experiment_digest(jobs, sdc_provenance.code_digest("sdcrisk.replication.check"))


# `--config from_committed=true` arrives as text, a config file gives a boolean
FROM_COMMITTED = str(config.get("from_committed", False)).lower() == "true"
# where the fast path reads the committed results (a test points it at another run's snapshot)
COMMITTED = config.get("committed_dir") or repo_path("tables", "cells")

if FROM_COMMITTED:

    localrules: restore_committed
    ruleorder: restore_committed > aggregate
    ruleorder: restore_committed > data_shapes

    rule restore_committed:
        input:
            csv=expand(os.path.join(COMMITTED, "{experiment}.csv"), experiment=config["experiments"]),
            manifest=os.path.join(COMMITTED, sdc_committed.MANIFEST),
        output:
            aggregated=expand("results/aggregated/{experiment}.csv", experiment=config["experiments"]),
            shapes="data/shapes.json",
        log:
            "logs/restore_committed.log",
        params:
            experiments=list(config["experiments"]),
            digests=lambda wc: {e: experiment_digest(e) for e in config["experiments"]},
            code=sdc_provenance.code_digest("sdcrisk.replication.committed"),
        script:
            "../scripts/restore_committed.py"

else:

    localrules: snapshot

    rule snapshot:
        input:
            aggregated=expand("results/aggregated/{experiment}.csv", experiment=config["experiments"]),
            shapes="data/shapes.json",
        output:
            expand("tables/cells/{experiment}.csv", experiment=config["experiments"]),
            manifest="tables/cells/" + sdc_committed.MANIFEST,
        log:
            "logs/snapshot.log",
        params:
            experiments=list(config["experiments"]),
            digests=lambda wc: {e: experiment_digest(e) for e in config["experiments"]},
            out_dir="tables/cells",
            code=sdc_provenance.code_digest("sdcrisk.replication.committed"),
        script:
            "../scripts/snapshot.py"
