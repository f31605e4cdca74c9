# The replication check: every published cell and claim against its regenerated value.


# n and m of every data set, read from the processed files (the fast path takes them from the
# manifest of the committed results instead: workflow/rules/committed.smk).
rule data_shapes:
    input:
        expand("data/processed/{dataset}.parquet", dataset=config["datasets"]),
    output:
        "data/shapes.json",
    log:
        "logs/data_shapes.log",
    params:
        datasets=list(config["datasets"]),
        code=sdc_provenance.code_digest("sdcrisk.replication.check"),
    script:
        "../scripts/data_shapes.py"


rule check:
    input:
        aggregated=expand("results/aggregated/{experiment}.csv", experiment=config["experiments"]),
        values=repo_path("published", "published_values.csv"),
        claims=repo_path("published", "published_claims.csv"),
        explanations=repo_path("docs", "known_differences.yaml"),
        calibration=repo_path("docs", "calibration.yaml"),
        # the files whose "# compares:" lines make the calibration split (a changed line reruns the check)
        evidence=[os.path.relpath(f) for f in sdc_rep.evidence_files(repo_path("docs", "calibration.yaml"))],
        pins=repo_path("docs", "differing_cells.csv"),
        shapes="data/shapes.json",
    output:
        csv=report("tables/replication.csv", category="Replication check", caption="../report/replication.rst"),
        md="tables/replication.md",
        summary="tables/replication_summary.json",
    log:
        "logs/check.log",
    params:  # only what the check reads: a change elsewhere in the config (e.g. data_mirror) reruns nothing
        experiments=config["experiments"],
        code=sdc_provenance.code_digest("sdcrisk.replication.check"),
    script:
        "../scripts/check.py"


# Every published value against its regenerated value, one panel per paper.
rule overview:
    input:
        replication="tables/replication.csv",
        shapes="data/shapes.json",
    output:
        png=report("figures/replication_overview.png", category="Replication check", caption="../report/replication.rst"),
        pdf="figures/replication_overview.pdf",
    log:
        "logs/overview.log",
    params:
        code=sdc_provenance.code_digest("sdcrisk.replication.overview", "sdcrisk.replication.figures", "sdcrisk.replication.check",
                                       libraries=sdc_provenance.FIGURE_LIBRARIES),
    script:
        "../scripts/overview.py"


# The software behind this run (Python, platform, every package the project needs): with
# constraints.txt, what a reader needs to regenerate the tables bit for bit. The versions are the
# params, so an upgraded package rewrites the file (and, through the code digests, reruns the jobs
# whose output it can change).
rule environment:
    output:
        "tables/environment.json",
    log:
        "logs/environment.log",
    params:
        environment=sdc_environment.describe(),
        code=sdc_provenance.code_digest("sdcrisk.replication.environment"),
    script:
        "../scripts/environment.py"
