"""Mixed-type files (:mod:`sdcrisk.assess.categorical`): common codes, blocks and their summary, the
mixed distance against an independent computation, attacks within blocks, ``assess`` on
categorical keys, and the mixed-type example's data (fetched and checksum-verified)."""

import numpy as np
import pandas as pd
import pytest

import sdcrisk
from sdcrisk.assess.assessment import AssessError, pair_files
from sdcrisk.assess.categorical import (MISMATCH_WEIGHT, block_codes, block_summary, blocked, codes, mixed_matrix,
                                 split_columns)
from sdcrisk.linkage.base import LinkResult

def _mixed(n=300, seed=0):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({"region": rng.choice(["north", "south", "east", "west"], n),
                      "sex": rng.integers(1, 3, n),
                      "status": rng.integers(1, 5, n),
                      "income": rng.lognormal(3, 1, n), "rent": rng.lognormal(2, 1, n), "age": rng.normal(40, 12, n)})
    y = x.copy()
    for c in ("income", "rent", "age"):
        y[c] = x[c] + rng.normal(0, 0.3 * x[c].std(), n)
    flip = rng.random(n) < 0.2
    y.loc[flip, "status"] = rng.integers(1, 5, int(flip.sum()))
    return x, y


def test_codes_are_common_and_text_equals_number():
    a, b = codes(pd.Series(["a", "b", None, "3"]), pd.Series([3, "a", "b", None]))
    assert a[0] == b[1] and a[1] == b[2] and a[2] == b[3] and a[3] == b[0]
    assert len({*a, *b}) == 4


def test_block_codes_and_summary_against_pandas():
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 4, size=(500, 3))
    b = block_codes(keys)
    sizes = pd.DataFrame(keys).value_counts()
    s = block_summary(b)
    assert s["blocks"] == len(sizes)
    assert s["unique_share"] == pytest.approx(100 * (sizes == 1).sum() / 500)
    assert s["random_guess"] == pytest.approx(100 * len(sizes) / 500)
    same = (keys[:, None, :] == keys[None, :, :]).all(axis=2)
    assert np.array_equal(same, b[:, None] == b[None, :])


def test_mixed_distance_is_squared_numeric_plus_weighted_mismatches():
    rng = np.random.default_rng(1)
    num, cat = rng.normal(size=(50, 2)), rng.integers(0, 3, size=(50, 2))
    m = mixed_matrix(num, cat, [3, 3])
    z = (num - num.mean(0)) / num.std(0, ddof=1)
    for i, j in [(0, 1), (3, 7), (10, 40)]:
        expected = ((z[i] - z[j]) ** 2).sum() + MISMATCH_WEIGHT * (cat[i] != cat[j]).sum()
        assert ((m[i] - m[j]) ** 2).sum() == pytest.approx(expected)


def test_blocked_links_stay_in_blocks_and_singletons_are_found():
    rng = np.random.default_rng(2)
    n = 40
    bx = rng.integers(0, 8, n)
    bx[0] = 99  # a block of one record
    perm = rng.permutation(n)
    truth = np.empty(n, dtype=np.int64)
    truth[perm] = np.arange(n)
    x = rng.normal(size=(n, 2))
    y = x[perm]

    def attack(xb, yb, tb):  # nearest record, no ties on continuous data
        d = ((xb[:, None, :] - yb[None, :, :]) ** 2).sum(axis=2)
        links = d.argmin(axis=1)
        return LinkResult(links=links, credit=(links == tb).astype(float))

    out = blocked(attack, x, y, truth, bx, bx[perm])
    assert (bx[perm][out.links] == bx).all()
    assert out.credit[0] == 1.0 and out.credit.sum() == n  # unmasked: every record found


def test_split_columns_text_and_named():
    x, _ = _mixed()
    assert split_columns(x, list(x.columns), ["sex"]) == ["region", "sex"]


def test_pair_files_finds_keys_and_changed_categoricals():
    x, y = _mixed()
    pair = pair_files(x, y, categorical=["sex", "status"])
    assert pair.categorical == ["region", "sex", "status"] and pair.keys == ["region", "sex"]
    assert pair.numeric == ["income", "rent", "age"]


def test_assess_blocks_on_keys_and_reports_their_summary():
    x, y = _mixed()
    res = sdcrisk.assess(x, y, categorical=["sex", "status"], attacks=["DBRL", "RBRL-Sum", "GDBRL"])
    blocking = res.attrs["blocking"]
    sizes = x.groupby(["region", "sex"]).size()
    assert blocking["keys"] == ["region", "sex"] and blocking["blocks"] == len(sizes)
    risk = res[res.kind == "disclosure risk"].set_index("measure")
    assert np.allclose(risk.baseline, 100 * len(sizes) / len(x))
    assert "changed categorical" in risk.loc["RBRL-Sum", "note"]
    assert (risk.percent >= risk.baseline).all()
    loss = res[res.kind == "information loss"].set_index("measure")
    assert loss.loc["IL-cat", "percent"] == pytest.approx(100 * (x.status != y.status).mean() / 3)


def test_keys_unique_per_record_link_everything():
    x, y = _mixed(n=60)
    x["code"] = [f"c{i}" for i in range(60)]
    x["code2"] = x["code"].str.upper()
    y["code"], y["code2"] = x["code"], x["code2"]
    res = sdcrisk.assess(x.drop(columns="code"), y.drop(columns="code"), categorical=["sex"],
                         attacks=["DBRL", "RBRL-Max", "GDBRL"])
    # code2 is unique and identical: an identifier, left out with a warning
    assert any("code2" in w for w in res.attrs["warnings"])


def test_text_column_without_flag_is_categorical_not_an_error():
    x, y = _mixed(n=80)
    res = sdcrisk.assess(x, y, attacks=["DBRL"], information_loss=False)
    assert res.attrs["categorical"] == ["region"]


def test_unknown_categorical_name_is_refused():
    x, y = _mixed(n=30)
    with pytest.raises(AssessError, match="categorical"):
        pair_files(x, y, categorical=["nope"])


def test_mixed_example_files(tmp_path):
    from conftest import mirror_dir
    from sdcrisk.assess.mixed_example import CATEGORICAL, KEYS, write_example

    if not (mirror_dir() / "testdata.RData").is_file():
        pytest.skip(f"data mirror {mirror_dir()} not available")
    paths = write_example(tmp_path, mirror=mirror_dir())
    original = pd.read_csv(paths[0])
    assert original.shape == (4580, 13)
    for p in paths[1:]:
        m = pd.read_csv(p).set_index("rid").loc[original.rid]
        assert all((m[k].to_numpy() == original[k].to_numpy()).all() for k in KEYS)
        pair = pair_files(original, m.reset_index(), id="rid", categorical=list(CATEGORICAL))
        assert pair.keys == list(KEYS)


def test_mixed_example_end_to_end_through_the_command(tmp_path):
    """The README's mixed-type example as written: the example's files, then ``sdcrisk assess``
    with its categorical keys; the report gives the keys' blocks and every attack's interval."""
    import json
    import subprocess
    import sys

    from conftest import mirror_dir
    from sdcrisk.assess.mixed_example import KEYS, command, write_example

    if not (mirror_dir() / "testdata.RData").is_file():
        pytest.skip(f"data mirror {mirror_dir()} not available")
    paths = write_example(tmp_path, mirror=mirror_dir())
    cmd = command(paths).split()
    done = subprocess.run([sys.executable, "-m", "sdcrisk.cli", *cmd[1:], "--quiet"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    rows = pd.DataFrame(report["results"])
    original = pd.read_csv(paths[0])
    sizes = original.groupby(list(KEYS)).size()
    risk = rows[(rows.kind == "disclosure risk") & (rows.measure != "ID")]
    assert np.allclose(risk.baseline, 100 * len(sizes) / len(original))
    assert ((risk.low <= risk.percent) & (risk.percent <= risk.high)).all()
    swap = risk[risk.masked.str.contains("rankswap")].set_index("measure")
    assert swap.loc["PRL-graded", "percent"] > swap.loc["PRL", "percent"]


def test_a_stray_text_value_in_a_numeric_column_is_warned_about():
    x, y = _mixed(n=50)
    x["rent"] = np.round(x["rent"] / x["rent"].std()).astype(object)  # a few repeated values: categories make sense
    x.loc[3, "rent"] = "n/a"
    res = sdcrisk.assess(x, y, attacks=["DBRL"], information_loss=False)
    assert any("'rent' is mostly numbers" in w and "record 4" in w for w in res.attrs["warnings"])
    assert "rent" in res.attrs["categorical"]


def test_a_stray_text_value_in_a_column_of_distinct_numbers_is_refused_naming_it():
    """As a category, a column of 50 distinct values compares nothing: refused, naming the typo."""
    x, y = _mixed(n=50)
    x["rent"] = x["rent"].astype(object)
    x.loc[3, "rent"] = "n/a"
    with pytest.raises(AssessError, match=r"'rent' is categorical .* different value in each of its 50 records.*"
                                          r"mostly numbers but has 1 text value.*'n/a' in record 4"):
        sdcrisk.assess(x, y, attacks=["DBRL"], information_loss=False)
