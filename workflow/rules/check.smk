# The replication check: every published cell and claim against its regenerated value.


rule check:
    input:
        aggregated=expand("results/aggregated/{experiment}.csv", experiment=config["experiments"]),
        values=repo_path("published", "published_values.csv"),
        claims=repo_path("published", "published_claims.csv"),
        explanations=repo_path("docs", "known_differences.yaml"),
    output:
        csv=report("tables/replication.csv", category="Replication check", caption="../report/replication.rst"),
        md="tables/replication.md",
        summary="tables/replication_summary.json",
    log:
        "logs/check.log",
    params:  # only what the check reads: a change elsewhere in the config (e.g. data_mirror) reruns nothing
        experiments=config["experiments"],
        code=sdc_provenance.code_digest("sdcrisk.replication"),
    script:
        "../scripts/check.py"
