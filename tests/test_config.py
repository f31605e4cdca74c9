"""Config validation: bad values fail with a message naming the key; sweeps expand to cells."""

import copy

import pytest

from sdcrisk import config as cfgmod
from sdcrisk.replication import figure_targets, table_targets

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
    from sdcrisk.evaluation import scenario_sizes
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
