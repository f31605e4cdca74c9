# Committed cell results (sdcrisk.committed): a full run copies every experiment's aggregated
# cells to tables/cells/ with a manifest of digests; `--config from_committed=true` renders every
# table, figure and the check from them instead of recomputing the cells, after checking that
# they belong to the current code, parameters and data.
import types

from sdcrisk import committed as sdc_committed


def experiment_digest(experiment):
    """Digest of every param of every cell job of ``experiment`` (as rule `cell` computes them)
    and of the aggregation code."""
    jobs = []
    for c in cells_of(experiment):
        wc = types.SimpleNamespace(experiment=c.experiment, dataset=c.dataset, cell=c.cell_id)
        jobs.append({k: (v(wc) if callable(v) else v) for k, v in CELL_PARAMS.items()})
    return sdc_committed.experiment_digest(jobs, sdc_provenance.code_digest("sdcrisk.replication"))


# `--config from_committed=true` arrives as text, a config file gives a boolean
FROM_COMMITTED = str(config.get("from_committed", False)).lower() == "true"
# where the fast path reads the committed results (a test points it at another run's snapshot)
COMMITTED = config.get("committed_dir") or repo_path("tables", "cells")

if FROM_COMMITTED:

    localrules: aggregate_from_committed, shapes_from_committed
    ruleorder: aggregate_from_committed > aggregate
    ruleorder: shapes_from_committed > data_shapes

    rule aggregate_from_committed:
        input:
            csv=os.path.join(COMMITTED, "{experiment}.csv"),
            manifest=os.path.join(COMMITTED, sdc_committed.MANIFEST),
        output:
            "results/aggregated/{experiment}.csv",
        params:
            digest=lambda wc: experiment_digest(wc.experiment),
        run:
            sdc_committed.restore(wildcards.experiment, input.csv, input.manifest, params.digest, output[0])

    rule shapes_from_committed:
        input:
            os.path.join(COMMITTED, sdc_committed.MANIFEST),
        output:
            "data/shapes.json",
        run:
            sdc_committed.restore_shapes(input[0], output[0])

else:

    localrules: snapshot

    rule snapshot:
        input:
            aggregated=expand("results/aggregated/{experiment}.csv", experiment=config["experiments"]),
            shapes="data/shapes.json",
        output:
            expand("tables/cells/{experiment}.csv", experiment=config["experiments"]),
            manifest="tables/cells/" + sdc_committed.MANIFEST,
        params:
            experiments=list(config["experiments"]),
            digests=lambda wc: {e: experiment_digest(e) for e in config["experiments"]},
            code=sdc_provenance.code_digest("sdcrisk.committed"),
        run:
            sdc_committed.snapshot(dict(zip(params.experiments, input.aggregated)), params.digests, input.shapes,
                                   "tables/cells")
