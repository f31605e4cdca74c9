"""The custodian's numbers on mixed-type and unusual files, against independent reference code.

Every reference here is written from the documented definitions (docs/assess.md; the module
docstring of :mod:`sdcrisk.assess.categorical`), not from the package's code: the mixed distance
``sum_numeric (z_a - z_b)^2 + 2 * #{categorical attributes that differ}`` with ``z`` each file's
values standardised by its own mean and sample sd over the whole file, the nearest masked record
of the same block of equal keys, ties counted ``1/t``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sdcrisk
from sdcrisk.assess.assessment import AssessError
from sdcrisk.measures.uncertainty import wilson_interval



def _z(values: np.ndarray) -> np.ndarray:
    return (values - values.mean(axis=0)) / values.std(axis=0, ddof=1)


def reference_dbrl(original: pd.DataFrame, masked: pd.DataFrame, numeric, changed, keys) -> float:
    """Expected correct links of DBRL under the documented mixed distance (brute force over all pairs)."""
    zx = _z(original[numeric].to_numpy(float)) if numeric else np.zeros((len(original), 0))
    zy = _z(masked[numeric].to_numpy(float)) if numeric else np.zeros((len(masked), 0))
    cx = original[changed].astype(str).to_numpy()
    cy = masked[changed].astype(str).to_numpy()
    kx = original[keys].astype(str).agg("|".join, axis=1).to_numpy() if keys else np.zeros(len(original), str)
    ky = masked[keys].astype(str).agg("|".join, axis=1).to_numpy() if keys else np.zeros(len(masked), str)
    linked = 0.0
    for i in range(len(original)):
        d = ((zx[i] - zy) ** 2).sum(axis=1) + 2.0 * (cx[i] != cy).sum(axis=1)
        d = np.where(ky == kx[i], d, np.inf)
        best = np.flatnonzero(np.isclose(d, d.min(), rtol=0, atol=1e-9))
        linked += (i in best) / best.size
    return linked


def _mixed_release(n: int, seed: int):
    """An original with two keys, a changed categorical (ages recoded to ten-year groups: groups
    that no original of a block may hold) and two incomes; a hand-written masking (numpy noise)."""
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({"region": rng.integers(0, 3, n), "sex": rng.integers(1, 3, n),
                      "age": rng.integers(18, 80, n),
                      "income": np.round(rng.lognormal(10, 1, n)), "assets": np.round(rng.lognormal(11, 1.5, n))})
    y = x.copy()
    y["age"] = (x["age"] // 10) * 10 + 5  # recoded: 27 -> 25, 35 -> 35
    y["income"] = x["income"] + rng.normal(0, 0.4 * x["income"].std(), n)
    y["assets"] = x["assets"] + rng.normal(0, 0.4 * x["assets"].std(), n)
    return x, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dbrl_on_mixed_blocks_equals_the_documented_distance(seed):
    x, y = _mixed_release(300, seed)
    res = sdcrisk.assess(x, y, attacks=["DBRL"], categorical=["region", "sex", "age"], information_loss=False)
    row = res.set_index("measure").loc["DBRL"]
    expected = reference_dbrl(x, y, ["income", "assets"], ["age"], ["region", "sex"])
    assert row["linked"] == pytest.approx(expected, abs=1e-9)
    assert row["percent"] == pytest.approx(100 * expected / len(x), abs=1e-9)


def _two_blocks(ages, released_ages, incomes, released_incomes):
    """Six records in two blocks of sex (three each): an age recoded in the release, an income masked."""
    x = pd.DataFrame({"sex": [1, 1, 1, 2, 2, 2], "age": ages, "income": incomes})
    return x, x.assign(age=released_ages, income=released_incomes)


def test_six_records_a_category_absent_from_the_block_costs_a_full_mismatch():
    """Two blocks (sex); ages released as ten-year groups. In the first block no original is in
    group 25 or 45, so the indicator columns of those groups are constant among the block's
    originals: leaving them out made a mismatch to group 25 cost 1 instead of 2 and pulled
    records toward it (4 links instead of the documented distance's 5)."""
    x, y = _two_blocks([28, 44, 20, 49, 21, 45], [25, 45, 25, 45, 25, 45],
                       [227.0, 394.0, 392.0, 251.0, 326.0, 374.0], [188.0, 437.0, 406.0, 240.0, 319.0, 358.0])
    res = sdcrisk.assess(x, y, attacks=["DBRL"], categorical=["sex", "age"], information_loss=False)
    expected = reference_dbrl(x, y, ["income"], ["age"], ["sex"])
    assert expected == 5
    assert res.set_index("measure").loc["DBRL", "linked"] == pytest.approx(expected)


def test_gdbrl_uses_the_same_distance_in_blocks():
    """GDBRL on blocks whose one-to-one assignment is forced by the documented distance: equal to it."""
    x, y = _two_blocks([27, 33, 41, 30, 50, 62], [25, 35, 45, 30, 50, 62],
                       [100.0, 200.0, 300.0, 150.0, 250.0, 350.0], [120.0, 185.0, 290.0, 150.0, 250.0, 350.0])
    res = sdcrisk.assess(x, y, attacks=["GDBRL"], categorical=["sex", "age"], information_loss=False)
    assert res.set_index("measure").loc["GDBRL", "linked"] == pytest.approx(6)


@pytest.mark.slow
def test_more_than_twenty_attributes_every_other_attack_reported():
    """PRL's model stops at 20 known attributes: its row says why, PRL-graded (any number) and the
    others run, and the command does not end."""
    rng = np.random.default_rng(3)
    n, m = 200, 30
    x = pd.DataFrame(rng.normal(size=(n, m)) * 10 + 50, columns=[f"a{j}" for j in range(m)])
    y = x + rng.normal(scale=3, size=(n, m))
    res = sdcrisk.assess(x, y, attacks=["DBRL", "PRL", "PRL-graded"], information_loss=False)
    rows = res.set_index("measure")
    assert np.isnan(rows.loc["PRL", "percent"]) and rows.loc["PRL", "note"].startswith("not run: ")
    assert "at most 20 attributes" in rows.loc["PRL", "note"]
    assert rows.loc["PRL-graded", "percent"] > 50 and rows.loc["DBRL", "percent"] > 50


def test_prl_graded_codes_patterns_of_any_number_of_attributes_alike():
    """Splitting the attributes into several 64-bit code groups gives the links of one code."""
    from sdcrisk.linkage import graded

    rng = np.random.default_rng(4)
    x = rng.normal(size=(300, 6))
    y = x + rng.normal(scale=0.6, size=x.shape)
    one = graded.prl_graded(x, y, rng=np.random.default_rng(0))
    original = graded._code_groups
    try:
        graded._code_groups = lambda c, nlev: [np.arange(s, min(s + 2, c)) for s in range(0, c, 2)]
        three = graded.prl_graded(x, y, rng=np.random.default_rng(0))
    finally:
        graded._code_groups = original
    assert np.array_equal(one.links, three.links)
    assert one.info["patterns"] == three.info["patterns"]
    assert [len(g) for g in graded._code_groups(40, 5)] == [26, 14]


def test_thousands_separators_are_read_as_numbers_and_said():
    x, y = _mixed_release(200, 5)
    plain = sdcrisk.assess(x, y, attacks=["DBRL"], categorical=["region", "sex", "age"], information_loss=False)
    tx, ty = x.copy(), y.copy()
    for t in (tx, ty):
        for c in ("income", "assets"):
            t[c] = [f"{v:,.1f}" for v in t[c]]
    text = sdcrisk.assess(tx, ty, attacks=["DBRL"], categorical=["region", "sex", "age"], information_loss=False)
    assert "income" not in text.attrs["categorical"] and "assets" not in text.attrs["categorical"]
    assert text.set_index("measure").loc["DBRL", "linked"] == pytest.approx(
        plain.set_index("measure").loc["DBRL", "linked"], abs=1.0)  # values rounded to one decimal in the text
    said = [w for w in text.attrs["warnings"] if "thousands separators" in w]
    assert len(said) == 4 and any("'income'" in w and "read as numbers" in w for w in said)


def test_a_text_column_with_a_category_per_record_is_refused():
    x, y = _mixed_release(100, 6)
    x["name"] = [f"person {i}" for i in range(100)]
    y["name"] = [f"p{i}" for i in range(100)]
    with pytest.raises(AssessError, match=r"original: column 'name' is categorical .* each of its 100 records"):
        sdcrisk.assess(x, y, attacks=["DBRL"], information_loss=False)


def test_a_nested_column_is_refused(tmp_path):
    x, y = _mixed_release(50, 7)
    x["tags"] = [[1, 2]] * 50
    y["tags"] = [[1, 2]] * 50
    with pytest.raises(AssessError, match=r"column 'tags' holds nested values"):
        sdcrisk.assess(x, y, attacks=["DBRL"], information_loss=False)


def test_one_numeric_attribute_beside_categorical_keys():
    """An income beside unchanged keys: IL5 and the means over it are not applicable, the rest computed."""
    x, y = _mixed_release(200, 8)
    x, y = x.drop(columns="assets"), y.drop(columns="assets")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = sdcrisk.assess(x, y, categorical=["region", "sex", "age"], attacks=["DBRL"])
    rows = res.set_index("measure")
    for m in ("IL5", "IL", "IL-s"):
        assert np.isnan(rows.loc[m, "percent"]) and rows.loc[m, "note"].startswith("not applicable")
    xi, yi = x["income"].to_numpy(), y["income"].to_numpy()
    assert rows.loc["IL1s", "percent"] == pytest.approx(100 * np.mean(np.abs(xi - yi)) / (np.sqrt(2) * xi.std(ddof=1)))
    assert rows.loc["IL4", "percent"] == pytest.approx(100 * abs(xi.var(ddof=1) - yi.var(ddof=1)) / xi.var(ddof=1))


def test_categorical_attributes_only_no_runtime_warning():
    x, y = _mixed_release(200, 9)
    x, y = x[["region", "sex", "age"]], y[["region", "sex", "age"]]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = sdcrisk.assess(x, y, categorical=["region", "sex", "age"], attacks=["DBRL"])
    assert res.set_index("measure").loc["DBRL", "percent"] > 0


def test_blocking_section_counts_the_keys_the_intruder_knows():
    x, y = _mixed_release(300, 10)
    res = sdcrisk.assess(x, y, categorical=["region", "sex", "age"], known=["region", "income", "assets"],
                         attacks=["DBRL"], information_loss=False)
    b = res.attrs["blocking"]
    assert b["keys"] == ["region"]
    sizes = x.groupby("region").size()
    assert b["blocks"] == sizes.size
    assert b["unique_share"] == pytest.approx(100.0 * (sizes == 1).sum() / len(x))
    both = sdcrisk.assess(x, y, categorical=["region", "sex", "age"], attacks=["DBRL"], information_loss=False)
    assert both.attrs["blocking"]["keys"] == ["region", "sex"]
    assert both.attrs["blocking"]["blocks"] == x.groupby(["region", "sex"]).ngroups


def test_interval_disclosure_interval_counts_records():
    rng = np.random.default_rng(11)
    x = pd.DataFrame(rng.normal(50, 10, size=(400, 5)), columns=list("abcde"))
    y = x + rng.normal(0, 3, size=x.shape)
    row = sdcrisk.assess(x, y, attacks=["ID"], information_loss=False).set_index("measure").loc["ID"]
    low, high = wilson_interval(row["percent"] / 100 * 400, 400)
    assert (row["low"], row["high"]) == pytest.approx((low, high))
    assert high - low > 2 * 1.96 * np.sqrt(row["percent"] * (100 - row["percent"]) / 400) * 0.95
