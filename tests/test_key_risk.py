"""sdcrisk.criteria.key_risk: the agencies' measures on categorical keys.

Reference values are derived here independently: brute-force loops over pairs of records for the
frequencies (the matching rule for missing keys written out record by record), the closed forms of
Franconi & Polettini (2004) per record for the individual risk, Counter-based l-diversity per key
cell (Machanavajjhala et al. 2007), and small cases computed by hand. The comparison with sdcMicro
itself runs research/peer/compare_key_risk.py (skipped where R and sdcMicro are not installed).
"""

import math
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sdcrisk.criteria.key_risk import (check_weights, frequencies, individual_risk, k_anonymity, key_risk,
                                       l_diversity)

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ brute-force references

def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def brute_frequencies(rows: list[tuple], w: list[float]) -> tuple[list[float], list[float]]:
    """fk, Fk record by record: j counts for i when they agree on every key both have; a record
    with every key missing has fk = n; with two or more keys a complete record does not count a
    record with every key missing."""
    n, K = len(rows), len(rows[0])
    fk, Fk = [], []
    for i in range(n):
        if all(_missing(v) for v in rows[i]):
            fk.append(float(n))
            Fk.append(float(sum(w)))
            continue
        complete_i = not any(_missing(v) for v in rows[i])
        f = F = 0.0
        for j in range(n):
            if K >= 2 and complete_i and all(_missing(v) for v in rows[j]):
                continue
            if all(_missing(a) or _missing(b) or a == b for a, b in zip(rows[i], rows[j])):
                f += 1
                F += w[j]
        fk.append(f)
        Fk.append(F)
    return fk, Fk


def brute_risk(f: float, F: float) -> float:
    if f == F:
        return 1.0 / f
    p = f / F
    if f == 1:
        return p / (1 - p) * math.log(1 / p)
    if f == 2:
        return p / (1 - p) - (p / (1 - p)) ** 2 * math.log(1 / p)
    return p / (f - (1 - p))


def brute_ldiversity(keys: list[tuple], values: list, c: float = 2.0, code=-999) -> list[tuple]:
    """(distinct, entropy, recursive) per record: the cell is the records with the same key
    tuple (a missing key equal to a missing key); a NaN value is a category of its own, the
    missing code one category counted only beside another value."""
    def same(a, b):
        return all((_missing(x) and _missing(y)) or (not _missing(x) and not _missing(y) and x == y)
                   for x, y in zip(a, b))
    out = []
    for i in range(len(keys)):
        vals = [values[j] for j in range(len(keys)) if same(keys[i], keys[j])]
        size = len(vals)
        counts = Counter()
        nan_count = 0
        n_code = 0
        for v in vals:
            if _missing(v):
                nan_count += 1
                counts[("nan", nan_count)] += 1
            elif v == code:
                n_code += 1
            else:
                counts[v] += 1
        freqs = list(counts.values())
        if n_code and freqs:
            freqs_all = freqs + [n_code]
        else:
            freqs_all = freqs
        distinct = len(freqs_all)
        entropy = math.exp(-sum(q / size * math.log(q / size) for q in freqs_all))
        r = sorted(freqs, reverse=True)
        if not r:
            recursive = float("nan")
        else:
            recursive = 1
            for l in range(2, len(r) + 1):
                if r[0] < c * sum(r[l - 1:]):
                    recursive = l
        out.append((float(distinct), entropy, float(recursive)))
    return out


def random_file(seed: int, n: int, K: int, p_missing: float, p_all_missing: float = 0.05):
    rng = np.random.default_rng(seed)
    data = {f"k{j}": rng.integers(0, 3 + j, n).astype(float) for j in range(K)}
    df = pd.DataFrame(data)
    for j in range(K):
        df.loc[rng.random(n) < p_missing, f"k{j}"] = np.nan
    df.loc[rng.random(n) < p_all_missing, [f"k{j}" for j in range(K)]] = np.nan
    df["w"] = rng.uniform(1.0, 30.0, n)
    s = rng.integers(0, 4, n).astype(float)
    s[rng.random(n) < 0.1] = -999
    s[rng.random(n) < 0.1] = np.nan
    df["s"] = s
    df["t"] = rng.choice(["a", "b", "c"], n)
    return df


# ------------------------------------------------------------------ frequencies and risk

@pytest.mark.parametrize("seed,K,p_missing", [(1, 1, 0.0), (2, 1, 0.2), (3, 2, 0.0), (4, 2, 0.25),
                                              (5, 3, 0.15), (6, 4, 0.3), (7, 3, 0.6)])
def test_frequencies_and_risk_equal_brute_force(seed, K, p_missing):
    df = random_file(seed, 150, K, p_missing)
    keys = [f"k{j}" for j in range(K)]
    fk, Fk = frequencies(df, keys, "w")
    rows = list(df[keys].itertuples(index=False, name=None))
    bf, bF = brute_frequencies(rows, list(df["w"]))
    np.testing.assert_array_equal(fk, bf)
    np.testing.assert_allclose(Fk, bF, rtol=1e-12)
    r = key_risk(df, keys, weights="w")
    expected = [brute_risk(f, F) for f, F in zip(fk, Fk)]
    np.testing.assert_allclose(r.records["risk"], expected, rtol=1e-12)
    assert r.risk_ER == pytest.approx(sum(expected), rel=1e-12)
    assert r.risk == pytest.approx(sum(expected) / len(df), rel=1e-12)
    assert r.risk_pct == pytest.approx(100 * sum(expected) / len(df), rel=1e-12)
    for k, v, pct in r.k_anonymity.itertuples(index=False):
        assert v == sum(1 for f in bf if f < k)
        assert pct == pytest.approx(100 * v / len(df))


def test_unweighted_risk_is_one_over_fk_and_fk_equals_Fk():
    df = pd.DataFrame({"a": [1, 1, 1, 2, 2, 3], "b": ["x", "x", "y", "x", "x", "x"]})
    r = key_risk(df, ["a", "b"])
    np.testing.assert_array_equal(r.records["fk"], [2, 2, 1, 2, 2, 1])
    np.testing.assert_array_equal(r.records["Fk"], r.records["fk"])
    np.testing.assert_allclose(r.records["risk"], [0.5, 0.5, 1, 0.5, 0.5, 1])
    assert r.risk_ER == pytest.approx(4.0)
    assert list(r.k_anonymity["violations"]) == [2, 6, 6]


def test_hand_computed_weighted_risks():
    # cells: A (one record, weight 4), B (two records, weights 2 + 2), C (three records of weight 1:
    # the whole population sampled), D (four records of weight 2)
    df = pd.DataFrame({"key": list("ABBCCCDDDD"), "w": [4, 2, 2, 1, 1, 1, 2, 2, 2, 2]})
    r = key_risk(df, ["key"], weights="w")
    expected = [math.log(4) / 3,                        # fk=1, p=1/4: (p/(1-p)) log(1/p)
                1 - math.log(2), 1 - math.log(2),       # fk=2, p=1/2: 1 - 1^2 log 2
                1 / 3, 1 / 3, 1 / 3,                    # Fk = fk: 1/fk
                1 / 7, 1 / 7, 1 / 7, 1 / 7]             # fk=4, p=1/2: 0.5 / (4 - 0.5)
    np.testing.assert_allclose(r.records["risk"], expected, rtol=1e-14)
    np.testing.assert_array_equal(r.records["Fk"], [4, 4, 4, 3, 3, 3, 8, 8, 8, 8])
    assert r.risk_ER == pytest.approx(math.log(4) / 3 + 2 - 2 * math.log(2) + 1 + 4 / 7)


def test_hand_computed_missing_keys():
    nan = np.nan
    df = pd.DataFrame({"a": [1, 1, 1, 2, 2, nan, nan], "b": [1, 1, 2, 1, nan, 1, nan],
                       "w": [10, 20, 5, 3, 4, 2, 1.5]})
    fk, Fk = frequencies(df, ["a", "b"], "w")
    # (1,1): itself twice + (NA,1); (1,2): alone; (2,1): + (2,NA) + (NA,1); (2,NA): (2,1), itself,
    # (NA,1), (NA,NA); (NA,1): (1,1) x2, (2,1), (2,NA), itself, (NA,NA); (NA,NA): everything
    np.testing.assert_array_equal(fk, [3, 3, 1, 3, 4, 6, 7])
    np.testing.assert_allclose(Fk, [32, 32, 5, 9, 10.5, 40.5, 45.5])


def test_one_key_missing_values_count_for_every_cell():
    df = pd.DataFrame({"a": ["x", "x", "y", None]})
    fk, Fk = frequencies(df, ["a"])
    np.testing.assert_array_equal(fk, [3, 3, 2, 4])


def test_row_order_does_not_matter():
    df = random_file(11, 200, 3, 0.2)
    perm = np.random.default_rng(12).permutation(len(df))
    a = key_risk(df, ["k0", "k1", "k2"], weights="w", sensitive=["s", "t"]).records
    b = key_risk(df.iloc[perm], ["k0", "k1", "k2"], weights="w", sensitive=["s", "t"]).records
    pd.testing.assert_frame_equal(a.loc[b.index], b)


def test_string_and_categorical_keys_group_by_value():
    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": pd.Categorical(["u", "u", "u", "v"]), "w": [3.0, 1, 2, 2]})
    fk, Fk = frequencies(df, ["a", "b"], "w")
    np.testing.assert_array_equal(fk, [2, 2, 1, 1])
    np.testing.assert_array_equal(Fk, [4, 4, 2, 2])


def test_individual_risk_without_weights():
    np.testing.assert_allclose(individual_risk(np.array([1.0, 2, 4])), [1, 0.5, 0.25])


def test_k_anonymity_levels():
    t = k_anonymity(np.array([1, 1, 2, 3, 4, 5, 6]), ks=(2, 3, 5))
    assert list(t["violations"]) == [2, 3, 5]
    np.testing.assert_allclose(t["percent"], [200 / 7, 300 / 7, 500 / 7])


# ------------------------------------------------------------------ l-diversity

@pytest.mark.parametrize("seed,K,c", [(21, 1, 2.0), (22, 2, 2.0), (23, 3, 3.0), (24, 2, 0.5)])
def test_l_diversity_equals_brute_force(seed, K, c):
    df = random_file(seed, 160, K, 0.1)
    keys = [f"k{j}" for j in range(K)]
    got = l_diversity(df, keys, ["s", "t"], c=c)
    rows = list(df[keys].itertuples(index=False, name=None))
    for s in ["s", "t"]:
        ref = np.array(brute_ldiversity(rows, list(df[s]), c=c))
        np.testing.assert_array_equal(got[f"{s}_Distinct_Ldiversity"], ref[:, 0])
        np.testing.assert_allclose(got[f"{s}_Entropy_Ldiversity"], ref[:, 1], rtol=1e-12)
        np.testing.assert_array_equal(got[f"{s}_Recursive_Ldiversity"], ref[:, 2])


def test_hand_computed_l_diversity():
    df = pd.DataFrame({"k": [1, 1, 1, 2, 2, 3, 3], "s": ["a", "a", "b", "c", "d", "e", "e"],
                       "m": [5, 5, -999, -999, -999, 7, np.nan]})
    got = l_diversity(df, ["k"], ["s", "m"], c=2)
    h = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    np.testing.assert_array_equal(got["s_Distinct_Ldiversity"], [2, 2, 2, 2, 2, 1, 1])
    np.testing.assert_allclose(got["s_Entropy_Ldiversity"], [math.exp(h)] * 3 + [2, 2, 1, 1])
    # cell 1: counts (2, 1): 2 < 2 * 1 fails -> 1; cell 2: (1, 1): 1 < 2 * 1 -> 2
    np.testing.assert_array_equal(got["s_Recursive_Ldiversity"], [1, 1, 1, 2, 2, 1, 1])
    # m: cell 1 has 5, 5 and the missing code (two categories); cell 2 only the code (0; entropy
    # 1; recursive undefined); cell 3 has 7 and a NaN (a category of its own)
    np.testing.assert_array_equal(got["m_Distinct_Ldiversity"], [2, 2, 2, 0, 0, 2, 2])
    np.testing.assert_allclose(got["m_Entropy_Ldiversity"], [math.exp(h)] * 3 + [1, 1, 2, 2])
    assert np.isnan(got["m_Recursive_Ldiversity"][3:5]).all()
    c3 = l_diversity(df, ["k"], ["s"], c=3)["s_Recursive_Ldiversity"]
    assert list(c3[:3]) == [2, 2, 2]  # 2 < 3 * 1


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("values,what", [([1.0, 0.0, 2.0], "0.0"), ([1.0, -3.0, 2.0], "-3.0"),
                                         ([1.0, np.nan, 2.0], "nan"), ([1.0, np.inf, 2.0], "inf"),
                                         (["1", "x", "2"], "'x'"), ([True, False, True], "bool")])
def test_bad_weights_raise_one_line_naming_the_column(values, what):
    df = pd.DataFrame({"k": [1, 1, 2], "wt": values})
    with pytest.raises(ValueError) as e:
        key_risk(df, ["k"], weights="wt")
    msg = str(e.value)
    assert "'wt'" in msg and "\n" not in msg and what in msg


def test_missing_columns_and_sensitive_keys_are_refused():
    df = pd.DataFrame({"k": [1, 2], "w": [1.0, 2.0], "s": [1, 2]})
    with pytest.raises(ValueError, match="'nope'"):
        check_weights(df, "nope")
    with pytest.raises(ValueError, match="key column"):
        key_risk(df, ["k", "z"])
    with pytest.raises(ValueError, match="also keys"):
        l_diversity(df, ["k"], ["k"])
    with pytest.raises(ValueError, match="sensitive column"):
        key_risk(df, ["k"], sensitive=["q"])


# ------------------------------------------------------------------ sdcMicro itself

def _sdcmicro_installed() -> bool:
    if shutil.which("Rscript") is None:
        return False
    r = subprocess.run(["Rscript", "-e", "quit(status = !requireNamespace('sdcMicro', quietly = TRUE))"],
                       capture_output=True)
    return r.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _sdcmicro_installed(), reason="R and sdcMicro not installed (research/peer/install_sdcmicro.sh)")
def test_equal_to_sdcmicro(tmp_path):
    """Recomputes the comparison with sdcMicro (research/peer/compare_key_risk.py): every
    measure on every case within 1e-6 relative."""
    r = subprocess.run([sys.executable, str(ROOT / "research/peer/compare_key_risk.py"), "--work",
                        str(tmp_path / "work"), "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    table = pd.read_csv(tmp_path / "out" / "key_risk.csv")
    assert table["pass"].all() and (table["max_rel_diff"] <= 1e-6).all()
    assert {"testdata", "free1", "testdata_na"} <= set(table["case"])


def test_missing_patterns_whose_common_keys_are_no_pattern_of_the_file():
    # patterns (a, b, -) and (-, b, c) share only b, and no record has b alone
    nan = np.nan
    df = pd.DataFrame({"a": [1, 1, nan, 2, 1], "b": [1, 1, 1, 1, 2], "c": [nan, nan, 5, 5, 5]})
    fk, _ = frequencies(df, ["a", "b", "c"])
    rows = list(df.itertuples(index=False, name=None))
    np.testing.assert_array_equal(fk, brute_frequencies(rows, [1.0] * 5)[0])
