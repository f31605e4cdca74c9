# Reference data: mirror copy or download, sha256 verified; processed to parquet (masked attributes only).

rule fetch_data:
    output:
        "data/raw/{dataset}.rda",
    log:
        "logs/fetch_data/{dataset}.log",
    params:
        spec=lambda wc: config["datasets"][wc.dataset],
        mirror=sdc_config.mirror(config),
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
    script:
        "../scripts/process_data.py"
