"""Every config or data mistake is caught before any job masks anything: semantic config errors
when the DAG is built (naming the key path), data-dependent ones in the pre-flight step (naming
the user's file or the config key), and masking that overflows. docs/bad_inputs.md lists them."""

import copy
import re
from pathlib import Path

import numpy as np
import pytest

from sdcrisk.replication import config as cfgmod
from sdcrisk.masking import mask
from sdcrisk.masking.registry import MaskingMethod, Param
from sdcrisk.replication.preflight import PreflightError, check

ROOT = Path(__file__).resolve().parents[1]
QUICK = cfgmod.load(ROOT / "config" / "quick.yaml")


# ----------------------------------------------------------------------------- config, at DAG build
def test_duplicate_yaml_keys_are_refused(tmp_path):
    text = (ROOT / "config" / "quick.yaml").read_text()
    start = text.index("\n  nin2007_rankswap:") + 1
    block = text[start:text.index("\n  nin2007_", start)]  # the experiment, up to the next one
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(block, block + "\n" + block, 1))  # the same experiment twice
    with pytest.raises(cfgmod.ConfigError, match=r"bad.yaml: line \d+: key 'nin2007_rankswap' given twice in one "
                                                 r"mapping \(first on line \d+\)"):
        cfgmod.load(bad)


@pytest.mark.parametrize("mutate,message", [
    (lambda c: c["experiments"]["nin2007_rankswap"]["methods"]["rankswap"].update({"p": [1, 2, 2]}),
     "experiments.nin2007_rankswap.methods.rankswap.p: value(s) 2 listed twice"),
    (lambda c: c["experiments"]["nin2007_mdav"].update({"label": "v={v};k={kk}"}),
     "experiments.nin2007_mdav.label: 'v={v};k={kk}' names 'kk', not a swept parameter of 'mdav'"),
    (lambda c: c["experiments"]["nin2007_mdav"].update({"label": "v={v"}),
     "experiments.nin2007_mdav.label: 'v={v' is not a valid format string"),
    (lambda c: c["experiments"]["attack_matrix"]["tables"]["Tmatrix"].update({"measures": ["DBRL", "DBLR"]}),
     "experiments.attack_matrix.tables.Tmatrix.measures[1]: unknown measure 'DBLR'"),
    (lambda c: c["experiments"]["attack_matrix"]["figures"]["Fmatrix"].update({"measure": "RBRL-sum"}),
     "experiments.attack_matrix.figures.Fmatrix.measure: unknown measure 'RBRL-sum'"),
    (lambda c: c["experiments"].update({"copy": copy.deepcopy(c["experiments"]["attack_matrix"])}),
     "experiments.copy.tables.Tmatrix: table id 'Tmatrix' of paper 'beyond_papers' is also defined by "
     "experiments.attack_matrix.tables.Tmatrix"),
])
def test_semantic_config_errors_name_the_key(mutate, message):
    c = copy.deepcopy(QUICK)
    mutate(c)
    with pytest.raises(cfgmod.ConfigError) as err:
        cfgmod.validate(c, "quick.yaml")
    assert message in str(err.value)


# ----------------------------------------------------------------------------- data, before any masking
def _dataset(tmp_path, text: str, name="mine", columns=("a", "b", "c")):
    path = tmp_path / f"{name}.csv"
    path.write_text(text)
    cfg = {"datasets": {name: {"url": f"https://example.org/{name}.csv", "sha256": "0" * 64, "columns": list(columns)}},
           "experiments": {"e": {"paper": "p", "datasets": [name], "replicates": 1, "evaluation": "rank_linkage",
                                 "tables": {}, "methods": {"mdav": {"v": [2], "k": [3]}}}}}
    return cfg, {name: str(path)}


GOOD = "a,b,c\n" + "".join(f"{i},{i * i % 7},{(3 * i) % 5}\n" for i in range(10))


@pytest.mark.parametrize("text,message", [
    ("a,b,c\n", "has a header but no records"),
    ("", "cannot read as a CSV file with a header row"),
    (GOOD.replace("4,2,2", "4,x,2"), "column 'b' is not numeric"),
    (GOOD.replace("4,2,2", "4,,2"), "column 'b' contains NaN or infinite values"),
    ("a,b,c\n" + "".join(f"{i},5,{i % 3}\n" for i in range(10)), "column 'b' is constant"),
    (GOOD.replace("a,b,c", "a,b,d"), "column(s) ['c'] not found"),
    (GOOD.replace("4,2,2", "4,1e200,2"), "column 'b' has values up to 1e+200"),
])
def test_bad_data_name_the_users_file(tmp_path, text, message):
    cfg, raw = _dataset(tmp_path, text)
    with pytest.raises(PreflightError) as err:
        check(cfg, raw)
    assert message in str(err.value)
    assert "data set 'mine' (config datasets.mine, file https://example.org/mine.csv)" in str(err.value)
    assert "data/raw" not in str(err.value)


@pytest.mark.parametrize("sweep,message", [
    ({"v": [2], "k": [3, 50]}, "experiments.e.methods.mdav on data set 'mine' (10 records, 3 attributes): "
                               "mdav: parameter k = 50 exceeds the data's 10 records"),
    ({"v": [4], "k": [3]}, "mdav: parameter v = 4 exceeds the data's 3 attributes"),
])
def test_parameters_that_do_not_fit_the_data(tmp_path, sweep, message):
    cfg, raw = _dataset(tmp_path, GOOD)
    cfg["experiments"]["e"]["methods"]["mdav"] = sweep
    with pytest.raises(PreflightError, match=re.escape(message)):
        check(cfg, raw)


def test_good_data_pass_with_their_shape(tmp_path):
    cfg, raw = _dataset(tmp_path, GOOD)
    assert check(cfg, raw, mirror=str(tmp_path)) == {"mine": {"n": 10, "m": 3}, "cells": 1}


def test_wrong_r_object_name_is_named(tmp_path):
    from conftest import dataset_spec, mirror_dir

    src = mirror_dir() / "EIA.rda"
    if not src.is_file():
        pytest.skip("reference data mirror not available")
    spec = dataset_spec("eia")
    entry = {"url": spec.url, "sha256": spec.sha256, "columns": list(spec.columns), "object": "EIAA"}
    cfg = {"datasets": {"eia": entry}, "experiments": {}}
    with pytest.raises(PreflightError, match=r"no R object 'EIAA'; the file holds \['EIA'\]"):
        check(cfg, {"eia": str(src)}, mirror=str(mirror_dir()))


# ----------------------------------------------------------------------------- masking output
def test_overflowing_input_is_refused_before_masking():
    x = np.abs(np.random.default_rng(0).normal(size=(30, 3))) * 1e200
    with pytest.raises(ValueError, match="column #0 has values up to .*rescale the data"):
        mask("mdav", x, v=2, k=3)


def test_non_finite_masked_values_stop_the_cell():
    method = MaskingMethod("explodes", lambda x, rng, a: np.exp(a * x), (Param("a", "real"),), "noise", False)
    x = np.abs(np.random.default_rng(0).normal(size=(30, 3))) + 1.0
    with pytest.raises(ValueError, match=r"explodes: the masked data hold 90 non-finite value\(s\) \(first in "
                                         r"attribute #0, record 1\); the method overflowed"):
        method(x, a=1000.0)
