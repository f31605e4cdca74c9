"""The default attack set of ``sdcrisk assess`` (:mod:`sdcrisk.assess.default_attacks`): the dominance
rule on hand-made tables (ties, attacks not run), the committed corpus result it holds, and how
``attacks=None`` / ``"all"`` / a named attack select what runs."""

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sdcrisk
from sdcrisk.assess.assessment import AssessError, attack_names
from sdcrisk.assess.default_attacks import (ALL_ATTACKS, CORPUS_RELEASES, DEFAULT_ATTACKS, LEFT_OUT, NOT_LINKAGE, dominance,
                                     dominates, left_out, left_out_reasons)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "research" / "dominance" / "results"
NAN = math.nan


# ----------------------------------------------------------------------------- the rule, by hand
def test_dominates_needs_at_least_as_many_wherever_the_other_ran():
    assert dominates([3, 5, 1], [3, 4, 0])
    assert not dominates([3, 5, 1], [3, 6, 0])
    assert dominates([3, 5, 1], [3, 5, 1])  # equal everywhere: each dominates the other
    assert dominates([3, 5, 1], [NAN, 5, NAN])  # releases where B did not run ask nothing of A
    assert not dominates([NAN, 5, 1], [2, 5, 1])  # A not run where B ran: A cannot stand in for B
    assert not dominates([3, 5, 1], [NAN, NAN, NAN])  # B never ran: no evidence either way
    assert dominates([1.0 - 1e-9], [1.0])  # within the tolerance (sums of 1/t)
    with pytest.raises(ValueError, match="one count per release"):
        dominates([1, 2], [1])


def test_mutual_dominance_keeps_the_earlier_attack():
    table = {"A": [4, 2, 7], "B": [4, 2, 7], "C": [1, 9, 0]}
    assert left_out(table, ["A", "B", "C"]) == {"B": ["A"]}
    assert left_out(table, ["B", "A", "C"]) == {"A": ["B"]}
    assert dominance(table) == {"A": ["B"], "B": ["A"], "C": []}


def test_a_chain_names_the_kept_dominators_only():
    table = {"A": [5, 5, 5], "B": [4, 5, 3], "C": [4, 1, 3], "D": [0, 0, 9]}
    assert dominance(table)["C"] == ["A", "B"]
    assert left_out(table) == {"B": ["A"], "C": ["A"]}  # B is out too, so only A is named for C


def test_not_run_counts_against_the_attack_that_did_not_run():
    table = {"A": [10, NAN, 10], "B": [1, 1, 1], "C": [NAN, NAN, 2]}
    # A did not run on the second release where B did: B stays; C ran on the third only, A beats it there
    assert left_out(table) == {"C": ["A"]}


def test_an_order_missing_an_attack_is_refused():
    with pytest.raises(ValueError, match="not in the order"):
        left_out({"A": [1], "B": [2]}, ["A"])


def _brute(table: dict, order: list) -> dict:
    """Reference: A beats B when A >= B wherever B ran (A ran there too; B ran somewhere), and not
    the other way round or A first; B is out when anything beats it; kept = the rest."""
    def geq(a, b):
        ran = [not math.isnan(v) for v in table[b]]
        return any(ran) and all(r is False or (not math.isnan(x) and x >= y - 1e-6)
                                for x, y, r in zip(table[a], table[b], ran))

    beats = {(a, b) for a, b in itertools.permutations(table, 2)
             if geq(a, b) and (not geq(b, a) or order.index(a) < order.index(b))}
    out = {b for b in table if any((a, b) in beats for a in table)}
    kept = [a for a in table if a not in out]
    return {b: [a for a in kept if geq(a, b)] for b in order if b in out}


counts = st.one_of(st.just(NAN), st.integers(0, 4).map(float), st.integers(0, 8).map(lambda v: v / 2))


@st.composite
def tables(draw):
    k = draw(st.integers(1, 5))
    r = draw(st.integers(1, 5))
    names = [f"a{i}" for i in range(k)]
    table = {a: [draw(counts) for _ in range(r)] for a in names}
    order = draw(st.permutations(names))
    return table, list(order)


@settings(max_examples=300, deadline=None)
@given(tables())
def test_left_out_agrees_with_brute_force_and_keeps_every_headline(case):
    table, order = case
    out = left_out(table, order)
    assert out == _brute(table, order)
    kept = [a for a in table if a not in out]
    assert kept, "at least one attack is always kept"
    for b, by in out.items():
        assert by and all(a in kept and dominates(table[a], table[b]) for a in by)
    for a, b in itertools.permutations(kept, 2):  # the kept ones: none dominates another
        assert not dominates(table[a], table[b])
    for r in range(len(next(iter(table.values())))):
        every = [table[a][r] for a in table if not math.isnan(table[a][r])]
        default = [table[a][r] for a in kept if not math.isnan(table[a][r])]
        assert max(every, default=-1) == max(default, default=-1)  # the headline is unchanged


# ----------------------------------------------------------------------------- the committed result
def _committed():
    return json.loads((RESULTS / "dominance.json").read_text())


def test_the_default_leaves_out_exactly_the_attacks_the_committed_result_says():
    res = _committed()
    assert {b: tuple(a) for b, a in res["left_out"].items()} == LEFT_OUT
    assert CORPUS_RELEASES == res["releases"] >= 30
    assert tuple(res["default"]) == DEFAULT_ATTACKS
    assert attack_names(None) == list(DEFAULT_ATTACKS)
    assert set(DEFAULT_ATTACKS) | set(LEFT_OUT) == set(ALL_ATTACKS) and not set(DEFAULT_ATTACKS) & set(LEFT_OUT)
    assert set(NOT_LINKAGE) <= set(DEFAULT_ATTACKS)  # ID is always run


def test_the_committed_table_gives_the_committed_result():
    """Recomputed from the committed per-release counts with the brute-force reference."""
    linked = pd.read_csv(RESULTS / "linked.csv")
    manifest = pd.read_csv(RESULTS / "manifest.csv")
    attacks = [a for a in ALL_ATTACKS if a not in NOT_LINKAGE]
    releases = list(manifest["release"])
    assert len(releases) == len(set(releases)) == CORPUS_RELEASES
    assert set(linked["release"]) == set(releases)
    assert {"package", "hand"} == set(manifest["made_by"].str.split(" ").str[0])
    wide = linked.pivot(index="release", columns="attack", values="linked").reindex(releases)
    table = {a: wide[a].astype(float).tolist() for a in attacks}
    assert {b: tuple(a) for b, a in _brute(table, attacks).items()} == LEFT_OUT
    kept = [a for a in attacks if a not in LEFT_OUT]
    assert np.allclose(wide[kept].max(axis=1), wide[attacks].max(axis=1), rtol=0, atol=1e-6)  # every headline


# ----------------------------------------------------------------------------- what runs
@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(4)
    x = pd.DataFrame(rng.lognormal(size=(80, 3)), columns=["a", "b", "c"])
    return x, x * np.exp(rng.normal(scale=0.2, size=x.shape))


def test_default_runs_the_default_set_and_says_what_it_left_out(pair):
    res = sdcrisk.assess(*pair, information_loss=False)
    assert list(res.measure[res.criterion.isna()]) == list(DEFAULT_ATTACKS)  # the linkage rows
    assert set(res.attrs["left_out"]) == set(LEFT_OUT)
    for b, why in res.attrs["left_out"].items():
        assert all(a in why for a in LEFT_OUT[b]) and f"all {CORPUS_RELEASES} corpus releases" in why
        assert "docs/assess.md#default-attacks" in why


def test_all_runs_every_attack(pair):
    assert attack_names(["all"]) == list(ALL_ATTACKS) == attack_names(["ALL", "DBRL"])
    res = sdcrisk.assess(*pair, attacks=["all"], information_loss=False)
    assert list(res.measure[res.criterion.isna()]) == list(ALL_ATTACKS)
    assert res.attrs["left_out"] == {}


def test_a_named_dominated_attack_still_runs(pair):
    assert LEFT_OUT, "the committed corpus leaves some attack out"
    for b in LEFT_OUT:
        res = sdcrisk.assess(*pair, attacks=[b], information_loss=False)
        res = res[res.criterion.isna()]  # the linkage rows (singling out runs beside them)
        assert list(res.measure) == [b] and res.linked.notna().all()
        assert res.attrs["left_out"] == {}
    assert left_out_reasons(["DBRL"]) == {}


def test_unknown_attack_names_all_in_the_choices():
    with pytest.raises(AssessError, match="or all"):
        attack_names(["nope"])
