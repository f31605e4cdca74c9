# Reference data: mirror copy or download, sha256 verified; processed to parquet (masked attributes only).

rule fetch_data:
    output:
        "data/raw/{dataset}.rda",
    log:
        "logs/fetch_data/{dataset}.log",
    params:
        spec=lambda wc: config["datasets"][wc.dataset],  # URL and sha256: a new checksum refetches
    # The mirror ($SDCRISK_DATA_MIRROR or config data_mirror) is read by the script, not a param:
    # where a checksum-verified file came from must not make Snakemake rerun the whole DAG.
    script:
        "../scripts/fetch_data.py"


rule process_data:
    input:
        "data/raw/{dataset}.rda",
    output:
        "data/processed/{dataset}.parquet",
    log:
        "logs/process_data/{dataset}.log",
    params:
        spec=lambda wc: config["datasets"][wc.dataset],
        code=sdc_provenance.code_digest("sdcrisk.data", "sdcrisk.validation"),
    script:
        "../scripts/process_data.py"
