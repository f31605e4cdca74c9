"""Config validation: bad values fail with a message naming the key; sweeps expand to cells."""

import copy

import pytest

from sdcrisk.replication import config as cfgmod
from sdcrisk.replication.check import figure_targets, table_targets

FULL = cfgmod.load(cfgmod.ROOT / "config" / "config.yaml")
QUICK = cfgmod.load(cfgmod.ROOT / "config" / "quick.yaml")


def test_both_configs_validate():
    cfgmod.validate(copy.deepcopy(FULL), "config.yaml")
    cfgmod.validate(copy.deepcopy(QUICK), "quick.yaml")


def test_quick_has_the_same_tables_and_figures():
    assert set(table_targets(QUICK)) == set(table_targets(FULL))
    assert set(figure_targets(QUICK)) == set(figure_targets(FULL))


@pytest.mark.parametrize("mutate,key", [
    (lambda c: c["experiments"]["nin2007_univariate"]["methods"].update({"no_such_method": {"k": [3]}}), "nin2007_univariate.methods"),
    (lambda c: c["experiments"]["nin2007_univariate"]["methods"]["optimal_univariate_ma"].update({"k": [-3]}), "optimal_univariate_ma.k"),
    (lambda c: c["experiments"]["nin2007_rankswap"].update({"replicates": 0}), "experiments.nin2007_rankswap.replicates"),
    (lambda c: c["experiments"]["nin2007_rankswap"].update({"replicate": 3}), "experiments.nin2007_rankswap"),
    (lambda c: c.update({"sed": 1}), "top level"),
    (lambda c: c["experiments"]["nin2007_rankswap"]["methods"]["rankswap"].update({"p": [0]}), "rankswap.p"),
    (lambda c: c["experiments"]["nin2007_rankswap"].update({"datasets": ["census", "nosuch"]}), "nin2007_rankswap.datasets"),
    (lambda c: c["experiments"]["nin2007_mdav"]["options"].update({"scenarios": "2-all"}), "nin2007_mdav.options.scenarios"),
    (lambda c: c["experiments"]["nin2007_mdav"]["options"].update({"scenarios": "9..3"}), "nin2007_mdav.options.scenarios"),
    (lambda c: c["experiments"]["nin2007_mdav"]["methods"]["mdav"].update({"scale": ["range"]}), "mdav.scale"),
    (lambda c: c["experiments"]["nin2008_multivariate"]["figures"]["F1"].update({"known": "blocks"}), "F1.known"),
    (lambda c: c["experiments"]["nin2007_mdav"]["options"].update({"scenario": "2..all"}), "nin2007_mdav.options"),
    (lambda c: c["experiments"]["nin2007_mdav"]["options"].update({"prl": {"coincidenc": "exact"}}), "nin2007_mdav.options.prl.coincidenc"),
    (lambda c: c["experiments"]["nin2007_mdav"]["options"].update({"il": {"zeros": "skip"}}), "nin2007_mdav.options.il.zeros"),
    (lambda c: c["experiments"]["attack_matrix"]["options"]["attacks"].append("NoSuchRL"), "attack_matrix.options.attacks[9]"),
    (lambda c: c["experiments"]["attack_matrix"]["options"].update({"attacks": []}), "attack_matrix.options.attacks"),
    (lambda c: c["experiments"]["nin2007_mdav"]["options"].update({"attacks": ["DBRL"]}), "nin2007_mdav.options.attacks"),
    (lambda c: c["datasets"]["census"].pop("object"), "datasets.census: an R data file needs object"),
    (lambda c: c["datasets"]["census"].update({"format": "xlsx"}), "datasets.census.format"),
    (lambda c: c["datasets"]["eia"].update({"url": "https://example.invalid/eia", "filename": "eia.txt"}),
     "datasets.eia: cannot tell the format"),
])
def test_bad_values_name_the_key(mutate, key):
    c = copy.deepcopy(QUICK)
    mutate(c)
    with pytest.raises(cfgmod.ConfigError) as err:
        cfgmod.validate(c, "quick.yaml")
    assert key in str(err.value)


def test_cells_and_seeds_are_stable():
    cells = cfgmod.cells(FULL)
    ids = [(c.experiment, c.dataset, c.cell_id) for c in cells]
    assert len(ids) == len(set(ids))
    c = cells[0]
    a = c.seed_sequence(1, 0).generate_state(4)
    assert (a == c.seed_sequence(1, 0).generate_state(4)).all()
    assert (a != c.seed_sequence(1, 1).generate_state(4)).any()
    assert (a != cells[1].seed_sequence(1, 0).generate_state(4)).any()


def test_labels_match_published_style():
    labels = {(c.experiment, c.method, c.label) for c in cfgmod.cells(FULL)}
    assert ("nin2007_mdav", "mdav", "v=3;k=15") in labels
    assert ("muralidhar2016_rankswap", "rankswap", "p_pct=5") in labels
    assert ("muralidhar2016_additive", "additive_noise", "a=1") in labels
    assert ("nin2007_rankswap", "rankswap", "2") in labels


def test_scenario_sizes_option():
    from sdcrisk.replication.evaluation import scenario_sizes
    assert scenario_sizes({}, 13) == list(range(1, 8))      # default: one to half (rounded up)
    assert scenario_sizes({"scenarios": "2..all"}, 10) == list(range(2, 11))
    with pytest.raises(ValueError, match="scenarios"):
        scenario_sizes({"scenarios": "5..2"}, 10)


def test_cell_jobs_see_only_what_they_compute_from():
    """Tables, figures, captions and labels are not a cell job's params (editing them re-renders only)."""
    exp = QUICK["experiments"]["nin2007_mdav"]
    settings = cfgmod.cell_settings(exp)
    assert set(settings) == {"evaluation", "replicates", "options"} and settings["options"] == exp["options"]
    assert set(cfgmod.cell_settings(QUICK["experiments"]["nin2007_rankswap"])) == {"evaluation", "replicates"}


# ----------------------------------------------------------------------------- scenario ranges
def test_one_scenario_range_parser_for_the_dag_the_config_and_assess():
    """Nin, Herranz & Torra (2007) §3 ranges: 'half' rounds up, 'all' is every attribute; the DAG
    stops a bound beyond m at m (clip), ``sdcrisk assess`` refuses it; each caller names its key."""
    from sdcrisk.assess.assessment import AssessError, scenarios_from
    from sdcrisk.measures.scenarios import ScenarioRangeError, scenario_range

    assert scenario_range("1..half", 13) == list(range(1, 8)) and scenario_range("2..all", 4) == [2, 3, 4]
    assert scenario_range("3..3", 5) == [3] and scenario_range("1..20", 10, clip=True) == list(range(1, 11))
    for bad, what in [("1-3", "expected 'lo..hi'"), ("1..2..3", "expected 'lo..hi'"), ("half..x", "expected 'lo..hi'"),
                      ("5..2", "gives no scenario"), ("0..2", "gives no scenario"), ("1..20", "<= 10")]:
        with pytest.raises(ScenarioRangeError, match=what):
            scenario_range(bad, 10)
    with pytest.raises(ScenarioRangeError, match="gives no scenario"):
        scenario_range("12..all", 10, clip=True)
    with pytest.raises(AssessError, match=r"^scenarios: '1\.\.20' gives no scenario for 3 attributes"):
        scenarios_from(["a", "b", "c"], scenarios="1..20")
    c = copy.deepcopy(QUICK)
    c["experiments"]["nin2007_mdav"]["options"]["scenarios"] = "12..all"  # Census has 13 attributes, EIA 10
    with pytest.raises(cfgmod.ConfigError, match=r"nin2007_mdav\.options\.scenarios: on data set 'eia': '12\.\.all'"):
        cfgmod.validate(c, "quick.yaml")


# ----------------------------------------------------------------------------- layering
def test_a_config_layer_adds_data_sets_and_experiments_and_replaces_by_name(tmp_path):
    own = {"seed": 7, "plugins": ["a_module"],
           "datasets": {"mine": {"url": "https://example.invalid/mine.csv", "sha256": "0" * 64, "columns": ["x", "y"]}},
           "experiments": {"mine": {"paper": "p"}, "nin2007_mdav": {"paper": "replaced"}}}
    layered = cfgmod.layer(FULL, own, {"plugins": ["a_module", "b.py"]})
    assert set(layered["datasets"]) == set(FULL["datasets"]) | {"mine"}
    assert list(layered["experiments"]) == [*FULL["experiments"], "mine"]
    assert layered["experiments"]["nin2007_mdav"] == {"paper": "replaced"}  # whole, not merged key by key
    assert layered["experiments"]["nin2007_rankswap"] == FULL["experiments"]["nin2007_rankswap"]
    assert layered["seed"] == 7 and layered["data_mirror"] == FULL["data_mirror"]
    assert layered["plugins"] == ["a_module", "b.py"]
    assert "mine" not in FULL["datasets"] and "plugins" not in FULL  # nothing changed in place
    quick_then_own = cfgmod.layer(FULL, QUICK, {"experiments": {"mine": {"paper": "p"}}})
    assert quick_then_own["experiments"] == {**QUICK["experiments"], "mine": {"paper": "p"}}
    with pytest.raises(cfgmod.ConfigError, match="my.yaml: datasets: expected a mapping"):
        cfgmod.layer(FULL, {"datasets": ["mine"]}, sources=["my.yaml"])
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "my.yaml").write_text("plugins: [plug.py, ../other/plug2.py, some.module]\n")
    assert cfgmod.read_layer(tmp_path / "sub" / "my.yaml")["plugins"] == [
        str(tmp_path / "sub" / "plug.py"), str(tmp_path / "other" / "plug2.py"), "some.module"]


# ----------------------------------------------------------------------------- plugins
PLUGIN = '''
import numpy as np

from sdcrisk.attacks import register_attack
from sdcrisk.linkage.base import LinkResult
from sdcrisk.masking import register


@register("layer_toy", family="toy", randomised=False)
def layer_toy(x, rng):
    return x.copy()


@register_attack("LayerOracle")
def oracle(x, y, known, v, rng):
    return LinkResult(links=np.arange(x.shape[0]))
'''


@pytest.fixture
def plugin_file(tmp_path, monkeypatch):
    """A plugin file registering one method and one attack, unregistered afterwards."""
    import sys

    from sdcrisk.replication import provenance
    from sdcrisk.attacks import ATTACKS
    from sdcrisk.masking.registry import METHODS

    monkeypatch.chdir(tmp_path)
    (tmp_path / "layerplugin.py").write_text(PLUGIN)
    yield "layerplugin.py"
    METHODS.pop("layer_toy", None)
    ATTACKS.pop("LayerOracle", None)
    sys.modules.pop("layerplugin", None)
    cfgmod._REGISTERED.pop("layerplugin", None)
    cfgmod._LOADED.pop("layerplugin", None)
    provenance.module_digest.cache_clear()


def test_listing_a_plugin_changes_no_params_of_the_reference_cells(plugin_file):
    """A cell job's params (cell_settings, plugins, code) depend only on the plugins its method and
    attacks come from: listing a plugin leaves every reference cell's params as they were."""
    from sdcrisk.replication import provenance

    def params(cfg):
        return {(c.experiment, c.dataset, c.cell_id): (
            cfgmod.cell_settings(cfg["experiments"][c.experiment]),
            cfgmod.cell_plugins(c.method, cfgmod.cell_settings(cfg["experiments"][c.experiment])),
            provenance.cell_code(c.method, cfgmod.cell_settings(cfg["experiments"][c.experiment])))
            for c in cfgmod.cells(cfg)}

    before = params(FULL)
    own = {"plugins": [plugin_file], "experiments": {"toy": {
        "paper": "toy", "datasets": ["census"], "methods": {"layer_toy": {}, "rankswap": {"p": [5]}},
        "replicates": 1, "evaluation": "attack_matrix", "options": {"attacks": ["DBRL", "LayerOracle"]},
        "tables": {"T1": {"dataset": "census", "layout": "param_by_method_measure", "measures": ["LayerOracle"]}}}}}
    layered = cfgmod.validate(cfgmod.layer(FULL, own))  # loads the plugin file (relative to the working dir)
    after = params(layered)
    assert {k: v for k, v in after.items() if k[0] != "toy"} == before
    toy = {k[2]: v for k, v in after.items() if k[0] == "toy"}
    assert toy["layer_toy__"][1] == toy["rankswap__p5"][1] == [plugin_file]  # the method; the attack
    assert toy["layer_toy__"][2] != provenance.cell_code("rankswap") != toy["rankswap__p5"][2]
    assert cfgmod.cell_plugin_modules("rankswap", cfgmod.cell_settings(layered["experiments"]["toy"])) == ["layerplugin"]


def test_a_plugin_that_cannot_load_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text("raise RuntimeError('boom')\n")
    for entry, what in [("no_such_plugin_module", "ModuleNotFoundError"), ("missing.py", "no such file"),
                        ("broken.py", "RuntimeError: boom")]:
        with pytest.raises(cfgmod.ConfigError, match=rf"my\.yaml: plugins\[1\]: cannot import '{entry}' .*{what}"):
            cfgmod.load_plugins({"plugins": ["sdcrisk.masking", entry]}, "my.yaml")


# ----------------------------------------------------------------------------- replicates
def test_a_deterministic_method_runs_one_replicate():
    """``randomised=False`` (the masking registry): one replicate whatever ``replicates`` says, so the
    aggregated n is 1 and sd 0; a randomised method runs every replicate."""
    import numpy as np

    from sdcrisk.replication.evaluation import run_cell

    x = np.random.default_rng(0).lognormal(size=(60, 4))
    settings = {"evaluation": "rank_linkage", "replicates": 3}
    ma = cfgmod.Cell("e", "d", "optimal_univariate_ma", (("k", 3),), "3")
    rs = cfgmod.Cell("e", "d", "rankswap", (("p", 10),), "10")
    assert set(run_cell(x, ma, settings, 1).replicate) == {0}
    assert set(run_cell(x, rs, settings, 1).replicate) == {0, 1, 2}


def test_the_package_has_no_import_cycle():
    """Module-level and deferred imports between the package's modules go one way (config does
    not import evaluation, which imports config's Cell)."""
    import ast
    import graphlib

    src = cfgmod.ROOT / "src"
    names = {".".join(p.relative_to(src).with_suffix("").parts).removesuffix(".__init__"): p
             for p in (src / "sdcrisk").rglob("*.py")}
    graph = {}
    for name, path in names.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.level and node.module else (base if node.level else node.module)
                deps |= {f"{target}.{a.name}" if f"{target}.{a.name}" in names else target for a in node.names}
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names}
        graph[name] = {d for d in deps if d in names and d != name}
    assert "sdcrisk.replication.evaluation" not in graph["sdcrisk.replication.config"]
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError naming the cycle


# ----------------------------------------------------------------------------- an empty config file
@pytest.mark.parametrize("text", ["", "\n", "# only a comment\n", "---\n"])
def test_an_empty_config_file_is_refused_as_snakemake_refuses_it(tmp_path, capsys, monkeypatch, text):
    """Snakemake refuses a --configfile without keys ("Config file must be given as JSON or YAML
    with keys at top level"); check-config says so in one line and exits 2."""
    from sdcrisk.cli import main

    empty = tmp_path / "empty.yaml"
    empty.write_text(text)
    message = (f"{empty}: the config file is empty (no keys); expected a mapping of config keys, e.g. "
               "'experiments: {...}' (Snakemake refuses an empty --configfile too)")
    with pytest.raises(cfgmod.ConfigError) as err:
        cfgmod.layered(cfgmod.ROOT / "config" / "config.yaml", [empty])
    assert str(err.value) == message
    monkeypatch.chdir(cfgmod.ROOT)
    assert main(["check-config", str(empty)]) == 2
    out = capsys.readouterr()
    assert out.err == f"sdcrisk check-config: error: {message}\n" and out.out == ""
    (tmp_path / "keys.yaml").write_text("seed: 3\n")  # one key is a layer
    assert cfgmod.layered(cfgmod.ROOT / "config" / "config.yaml", [tmp_path / "keys.yaml"])["seed"] == 3
