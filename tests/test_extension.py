"""Extension: a new masking method and a new attack (registry plugins) and two new data sets, an R
data file and a CSV file (config entries only), get their tables and check files from the DAG
without touching the package."""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyreadr
import pytest
import yaml
from conftest import planned_jobs

ROOT = Path(__file__).resolve().parents[1]


def test_toy_method_and_dataset_through_the_dag(tmp_path):
    rng = np.random.default_rng(3)
    toy = pd.DataFrame(rng.lognormal(8, 1, size=(120, 4)).round(), columns=["A", "B", "C", "D"])
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    pyreadr.write_rdata(str(mirror / "toy.rda"), toy, df_name="toydata")
    sha = hashlib.sha256((mirror / "toy.rda").read_bytes()).hexdigest()
    (toy * 1.5).round().to_csv(mirror / "toy2.csv", index=False)
    sha_csv = hashlib.sha256((mirror / "toy2.csv").read_bytes()).hexdigest()
    cfg = {
        "data_mirror": str(mirror),
        "seed": 1,
        "plugins": ["toy_masking", "toy_attack"],
        "datasets": {"toy": {"url": "https://example.invalid/toy.rda", "sha256": sha, "object": "toydata",
                             "columns": ["A", "B", "C", "D"]},
                     "toycsv": {"url": "https://example.invalid/toy2.csv", "sha256": sha_csv,
                                "columns": ["D", "C", "B", "A"]}},
        "experiments": {
            "toy_exp": {
                "paper": "toy_paper", "datasets": ["toy", "toycsv"],
                "methods": {"toy_rounding": {"base": [10.0, 1000.0]}, "rankswap": {"p": [5]}},
                "label": {"toy_rounding": "base={base}", "rankswap": "p={p}"},
                "replicates": 2, "evaluation": "attack_matrix",
                "options": {"attacks": ["DBRL", "RBRL-Sum", "RBRL-Max", "PRL", "Oracle"]},
                "tables": {"T1": {"dataset": "toy", "layout": "param_by_method_measure",
                                  "measures": ["DBRL", "RBRL-Sum", "RBRL-Max", "PRL", "Oracle"]},
                           "T2": {"dataset": "toycsv", "layout": "param_by_method_measure",
                                  "measures": ["DBRL", "Oracle"]}},
            },
        },
    }
    (tmp_path / "toy.yaml").write_text(yaml.safe_dump(cfg))
    plugins = tmp_path / "plugins"
    shutil.copytree(ROOT / "tests" / "plugins", plugins, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(plugins) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("SDCRISK_DATA_MIRROR", None)
    work = tmp_path / "work"

    def snakemake(*args):
        proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(work),
                               "tables/toy_paper_T1.csv", "tables/toy_paper_T2.csv", "tables/replication.csv",
                               "--cores", "2", "--configfile", str(tmp_path / "toy.yaml"), *args],
                              env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return proc.stdout + proc.stderr

    snakemake()
    table = pd.read_csv(work / "tables" / "toy_paper_T1.csv")
    assert set(table.method) == {"toy_rounding", "rankswap"}
    assert set(table.measure) == {"DBRL", "RBRL-Sum", "RBRL-Max", "PRL", "Oracle"}
    assert (table[table.measure == "Oracle"]["mean"] == 100.0).all()  # the plugin attack ran on every cell
    assert (table.n == 2).all() and table["mean"].between(0, 100).all()
    coarse = table[(table.method == "toy_rounding") & (table.measure == "DBRL")].set_index("param")["mean"]
    assert coarse["base=10"] >= coarse["base=1000"]  # coarser rounding protects more
    csv_table = pd.read_csv(work / "tables" / "toy_paper_T2.csv")  # the CSV data set, same DAG
    assert (work / "data" / "raw" / "toycsv.csv").is_file() and set(csv_table.dataset) == {"toycsv"}
    assert (csv_table[csv_table.measure == "Oracle"]["mean"] == 100.0).all() and (csv_table.n == 2).all()
    check = pd.read_csv(work / "tables" / "replication.csv")
    published = pd.read_csv(ROOT / "published" / "published_values.csv")
    assert (check.kind == "cell").sum() == len(published)  # complete, even if none is computed here

    # Plugin code is provenance too: editing a plugin's code reruns exactly the cells using it.
    def planned_cells():
        return planned_jobs(snakemake("-n")).get("cell", 0)

    masking = plugins / "toy_masking.py"
    masking.write_text(masking.read_text().replace("plus a little noise", "plus a small noise"))
    assert planned_cells() == 0  # a docstring edit
    masking.write_text(masking.read_text().replace("base / 10", "base / 20"))
    assert planned_cells() == 4  # the two toy_rounding cells of each data set, not the rankswap ones
    attack = plugins / "toy_attack.py"
    attack.write_text(attack.read_text().replace("np.arange(x.shape[0])", "np.arange(len(x))"))
    assert planned_cells() == 6  # every cell runs the toy attack
