"""Extension: a new masking method and a new attack (registry plugins) and two new data sets, an R
data file and a CSV file (config entries only), get their tables from the DAG without touching the
package; the extension example of docs/extending.md runs as written."""

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyreadr
import pytest
import yaml
from conftest import dataset_spec, mirror_dir, planned_jobs
from sdcrisk.replication.config import cells

ROOT = Path(__file__).resolve().parents[1]
# A plugin no toy cell uses: listing it must rerun none of them.
UNUSED_PLUGIN = """
import numpy as np

from sdcrisk.attacks import register_attack
from sdcrisk.linkage.base import LinkResult
from sdcrisk.masking import register


@register("unused_rounding", family="toy", randomised=False)
def unused_rounding(x, rng):
    return np.round(x)


@register_attack("Unused")
def unused(x, y, known, v, rng):
    return LinkResult(links=np.arange(x.shape[0]))
"""


def reference_files(mirror: Path) -> None:
    """Copy the reference data files into ``mirror``: a user's config is layered on the reference
    one, whose data sets the pre-flight check reads too."""
    for name in ("census", "eia"):
        source = mirror_dir() / dataset_spec(name).filename
        if not source.is_file():
            pytest.skip(f"reference data mirror {mirror_dir()} not available")
        shutil.copy(source, mirror / source.name)


def test_toy_method_and_dataset_through_the_dag(tmp_path):
    rng = np.random.default_rng(3)
    toy = pd.DataFrame(rng.lognormal(8, 1, size=(120, 4)).round(), columns=["A", "B", "C", "D"])
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    reference_files(mirror)
    pyreadr.write_rdata(str(mirror / "toy.rda"), toy, df_name="toydata")
    sha = hashlib.sha256((mirror / "toy.rda").read_bytes()).hexdigest()
    (toy * 1.5).round().to_csv(mirror / "toy2.csv", index=False)
    sha_csv = hashlib.sha256((mirror / "toy2.csv").read_bytes()).hexdigest()
    cfg = {
        "data_mirror": str(mirror),
        "seed": 1,
        "plugins": ["toy_masking", "plugins/toy_attack.py"],  # a module on PYTHONPATH; a file next to toy.yaml
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
                               "tables/toy_paper_T1.csv", "tables/toy_paper_T2.csv",
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

    # Plugin code is provenance too: editing a plugin's code reruns exactly the cells using it, and
    # listing one more plugin reruns none of the cells that do not use it.
    def planned_cells():
        return planned_jobs(snakemake("-n")).get("cell", 0)

    (plugins / "unused.py").write_text(UNUSED_PLUGIN)
    cfg["plugins"].append("plugins/unused.py")
    (tmp_path / "toy.yaml").write_text(yaml.safe_dump(cfg))
    assert planned_cells() == 0
    masking = plugins / "toy_masking.py"
    masking.write_text(masking.read_text().replace("plus a little noise", "plus a small noise"))
    assert planned_cells() == 0  # a docstring edit
    masking.write_text(masking.read_text().replace("base / 10", "base / 20"))
    assert planned_cells() == 4  # the two toy_rounding cells of each data set, not the rankswap ones
    attack = plugins / "toy_attack.py"
    attack.write_text(attack.read_text().replace("np.arange(x.shape[0])", "np.arange(len(x))"))
    assert planned_cells() == 6  # every cell runs the toy attack


def example_blocks() -> tuple[dict[str, str], list[str]]:
    """The extension guide's files (``<!-- extension-example NAME -->`` before a code block) and
    its commands (the block after ``<!-- extension-commands -->``), in docs/extending.md."""
    text = (ROOT / "docs" / "extending.md").read_text()
    files = dict(re.findall(r"<!-- extension-example (\S+) -->\s*```\w*\n(.*?)```", text, flags=re.S))
    commands = re.search(r"<!-- extension-commands -->\s*```bash\n(.*?)```", text, flags=re.S)
    assert files and commands, "docs/extending.md: the extension example's markers are missing"
    return files, [line for line in commands.group(1).splitlines() if line.strip()]


def test_readme_extension_example_runs_as_written(tmp_path):
    """The extension guide's plugin and config files, and its commands typed as they are, in a scratch copy
    of the repository (the reference data from the mirror): a dry run, then a real run of the
    plugin's cells; a deterministic method runs one replicate."""
    files, commands = example_blocks()
    repo = tmp_path / "repo"
    repo.mkdir()
    for part in ("Snakefile", "workflow", "config", "published", "docs", "notebooks", "research", "src"):  # a checkout without outputs
        (shutil.copytree if (ROOT / part).is_dir() else shutil.copy)(ROOT / part, repo / part)
    for name, text in files.items():
        (repo / name).write_text(text)
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    reference_files(mirror)
    env = {**os.environ, "SDCRISK_DATA_MIRROR": str(mirror)}
    outputs = []
    for line in commands:
        argv = shlex.split(line, comments=True)
        assert argv[0] == "snakemake", line
        proc = subprocess.run([sys.executable, "-m", "snakemake", *argv[1:]], cwd=repo, env=env,
                              capture_output=True, text=True)
        assert proc.returncode == 0, line + "\n" + proc.stdout[-3000:] + proc.stderr[-3000:]
        outputs.append(proc.stdout + proc.stderr)
    config = yaml.safe_load(files["my.yaml"])
    (experiment, spec), = config["experiments"].items()
    assert planned_jobs(outputs[0])["cell"] == len(cells({"experiments": config["experiments"]}))  # only the example's
    (table_id,) = spec["tables"]
    table = pd.read_csv(repo / "tables" / f"{spec['paper']}_{table_id}.csv")
    assert set(table.method) == set(spec["methods"]) and set(table.measure) == set(spec["options"]["attacks"])
    assert table["mean"].between(0, 100).all()
    # the example's deterministic method (randomised=False) ran one replicate, rank swapping every one
    assert set(table[table.method == "rankswap"].n) == {spec["replicates"]} and set(table.n) == {1, spec["replicates"]}


# ----------------------------------------------------------------------------- the plugin contract
# A plugin's attack is checked where its links enter scoring (sdcrisk.attacks.run_attack), a
# plugin's masking method where its output returns (MaskingMethod.checked_output); each failure is
# one sentence naming the plugin, what was expected and what it returned (docs/bad_inputs.md).
def _pair(n=200, m=4):
    x = np.random.default_rng(0).lognormal(3, 1, size=(n, m))
    return x, x * np.exp(np.random.default_rng(1).normal(scale=0.01, size=x.shape))


def _attack(links=None, **fields):
    from sdcrisk.linkage.base import LinkResult

    return lambda x, y, known, v, rng: LinkResult(links=np.arange(len(x)) if links is None else links(len(x)), **fields)


@pytest.mark.parametrize("attack,message", [
    (_attack(lambda n: np.arange(n) + n), "attack 'Plugin' returned link 200 for original record 0 (200 such); "
                                          "expected a masked record index in [0, 200) or -1 for no link"),
    (_attack(lambda n: np.arange(n // 2)), "attack 'Plugin' returned links of shape (100,); expected one link per "
                                           "original record, shape (200,)"),
    (_attack(lambda n: np.arange(n) * 1.0), "attack 'Plugin' returned links of dtype float64; expected integers"),
    (_attack(lambda n: np.full(n, -2)), "attack 'Plugin' returned link -2 for original record 0"),
    (_attack(score=np.full(200, np.nan)), "attack 'Plugin' returned score nan for original record 0 (200 such); "
                                          "expected a number, finite where the record is linked"),
    (_attack(candidates=np.full(200, 201)), "attack 'Plugin' returned candidates 201 for original record 0 "
                                            "(200 such); expected a size in [0, 200]"),
    (_attack(candidates=np.ones(10, int)), "attack 'Plugin' returned candidates of shape (10,) and dtype int64; "
                                           "expected integers, one per original record, shape (200,)"),
    (_attack(info={"converged": "yes"}), "attack 'Plugin' returned info {'converged': 'yes'}; expected a dict"),
    (lambda x, y, known, v, rng: np.arange(len(x)), "attack 'Plugin' returned a ndarray; expected a "
                                                    "sdcrisk.linkage.LinkResult"),
])
def test_a_plugin_attack_breaking_the_contract_is_named(attack, message, monkeypatch):
    from sdcrisk.attacks import ATTACKS
    from sdcrisk.replication.evaluation import attack_matrix

    monkeypatch.setitem(ATTACKS, "Plugin", attack)
    x, y = _pair()
    cell = cells({"experiments": {"e": {"datasets": ["d"], "methods": {"rankswap": {"p": [5]}}}}})[0]
    with pytest.raises(ValueError) as err:
        attack_matrix(x, y, cell, {"attacks": ["DBRL", "Plugin"]}, np.random.default_rng(0))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_percentages_divide_by_the_original_records(monkeypatch):
    """A plugin declining half the records (-1, the documented "no link") scores 50 %, not 100 %;
    ``sdcrisk.assess`` and the attack matrix give the same."""
    from sdcrisk import assess
    from sdcrisk.attacks import ATTACKS
    from sdcrisk.replication.evaluation import attack_matrix
    from sdcrisk.measures.units import linkage_percent

    def half_nearest(x, y, known, v, rng):  # the nearest masked record for the first half, no link for the rest
        from sdcrisk.linkage.base import NO_LINK, LinkResult

        nearest = ((x[:, None, :] - y[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
        return LinkResult(links=np.where(np.arange(len(x)) < len(x) // 2, nearest, NO_LINK))

    monkeypatch.setitem(ATTACKS, "HalfOracle", half_nearest)
    x, y = _pair()
    cell = cells({"experiments": {"e": {"datasets": ["d"], "methods": {"rankswap": {"p": [5]}}}}})[0]
    rows = attack_matrix(x, y, cell, {"attacks": ["HalfOracle"]}, np.random.default_rng(0))
    assert rows == [("HalfOracle", "half", 50.0)] and linkage_percent(100, 200) == 50.0
    result = assess(pd.DataFrame(x), pd.DataFrame(y), attacks=["HalfOracle"], information_loss=False)
    assert result.set_index("measure").loc["HalfOracle", "percent"] == 50.0


def test_linkage_percentages_are_computed_in_one_function():
    """Every linkage percentage of the package goes through measures.units.linkage_percent."""
    src = ROOT / "src" / "sdcrisk"
    hits = [f"{p.relative_to(src)}:{i}" for p in src.rglob("*.py") for i, line in enumerate(p.read_text().splitlines(), 1)
            if re.search(r"100(\.0)? \* .*(link|correct|count|value / n)", line) and "def " not in line]
    units = (src / "measures" / "units.py").read_text().splitlines()
    assert hits == [f"measures/units.py:{i}" for i, line in enumerate(units, 1)
                    if line.strip() in ("return 100.0 * correct / records", "return 100.0 * correct / kept")]
    assert len(hits) == 2  # linkage_percent, and the precision of kept links (precision_percent)


@pytest.mark.parametrize("func,message", [
    (lambda x, rng: x[:, :-1], "masking method 'plugin' returned shape (200, 3); expected numbers of the input's "
                               "shape (200, 4) (records x attributes)"),
    (lambda x, rng: x.astype(str), "masking method 'plugin' returned values of dtype <U"),
    (lambda x, rng: None, "masking method 'plugin' returned a NoneType; expected numbers of the input's shape (200, 4)"),
    (lambda x, rng: x.T, "masking method 'plugin' returned shape (4, 200)"),
])
def test_a_plugin_masking_method_breaking_the_contract_is_named(func, message):
    from sdcrisk.masking.registry import MaskingMethod

    x, _ = _pair()
    with pytest.raises(ValueError) as err:
        MaskingMethod("plugin", func, (), "toy", False)(x)
    assert message in str(err.value) and "\n" not in str(err.value)
