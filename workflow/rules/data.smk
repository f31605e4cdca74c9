# Data: mirror copy or download, sha256 verified; processed to parquet (masked attributes only).
# A data set is an R data file, a CSV file or a parquet file (sdcrisk.data.DatasetSpec): the raw
# copy keeps its format's extension, data/raw/{dataset}.{format}.


def raw_data(wc):
    return sdc_data.DatasetSpec.from_config(wc.dataset, config["datasets"][wc.dataset]).raw_path


rule fetch_data:
    output:
        "data/raw/{dataset}.{format}",
    wildcard_constraints:
        format="rda|csv|parquet",
    log:
        "logs/fetch_data/{dataset}.{format}.log",
    params:
        spec=lambda wc: config["datasets"][wc.dataset],  # URL and sha256: a new checksum refetches
    # The mirror ($SDCRISK_DATA_MIRROR or config data_mirror) is read by the script, not a param:
    # where a checksum-verified file came from must not make Snakemake rerun the whole DAG.
    script:
        "../scripts/fetch_data.py"


def used_datasets():
    return sorted({d for exp in config["experiments"].values() for d in exp["datasets"]})


# Every data set readable and every swept parameter within its data (k <= n, v <= m, ...), checked
# once before any data set is processed or masked; a failure prints one message naming the file or
# config key (sdcrisk.replication.preflight).
rule preflight:
    input:
        lambda wc: [sdc_data.DatasetSpec.from_config(d, config["datasets"][d]).raw_path for d in used_datasets()],
    output:
        "data/preflight.json",
    log:
        "logs/preflight.log",
    params:
        datasets=used_datasets(),
        code=sdc_provenance.code_digest("sdcrisk.replication.preflight", "sdcrisk.data", "sdcrisk.validation", "sdcrisk.masking"),
    script:
        "../scripts/preflight.py"


rule process_data:
    input:
        raw_data,
        "data/preflight.json",
    output:
        "data/processed/{dataset}.parquet",
    log:
        "logs/process_data/{dataset}.log",
    params:
        spec=lambda wc: config["datasets"][wc.dataset],
        code=sdc_provenance.code_digest("sdcrisk.data", "sdcrisk.validation"),
    script:
        "../scripts/process_data.py"
