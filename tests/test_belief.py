"""Tests of sdcrisk.replication.belief and sdcrisk.replication.experiments_belief (Torra, Stokes et al. (compatible probabilities), Torra & Stokes)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdcrisk.replication import experiments_belief as eb
from sdcrisk.replication.belief import (
    MassAssignment,
    all_subsets,
    belief_from_candidate_sets,
    is_compatible,
    mass_from_candidate_sets,
    max_pignistic_outside,
    shannon_entropy,
    summarise,
    support_contains_true_support,
    uniform_on,
)


# ----------------------------------------------------------------------------- helpers
def random_mass(rng: np.random.Generator, n: int, k: int) -> MassAssignment:
    """Random assignment with up to ``k`` random non-empty focal sets."""
    sets = []
    while len(sets) < k:
        s = rng.random(n) < rng.uniform(0.2, 0.8)
        if s.any():
            sets.append(s)
    w = rng.dirichlet(np.ones(k))
    return MassAssignment.from_sets(sets, w)


def random_allocation(rng: np.random.Generator, m: MassAssignment) -> np.ndarray:
    """A probability in the credal set of ``m``: each focal mass split at random over its set."""
    p = np.zeros(m.n)
    for f, w in zip(m.focal, m.masses):
        p[f] += w * rng.dirichlet(np.ones(f.size))
    return p


def brute_bel(d: dict[frozenset, float], a: frozenset) -> float:
    return sum(w for b, w in d.items() if b <= a)


def brute_pl(d: dict[frozenset, float], a: frozenset) -> float:
    return sum(w for b, w in d.items() if b & a)


@st.composite
def small_masses(draw, n_max=6, k_max=4):
    n = draw(st.integers(2, n_max))
    k = draw(st.integers(1, k_max))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_mass(np.random.default_rng(seed), n, k), seed


# ----------------------------------------------------------------------------- validation
def test_invalid_masses_raise_naming_argument():
    with pytest.raises(ValueError, match="masses"):
        MassAssignment.from_sets([[0], [1]], [0.5, 0.6], 3)
    with pytest.raises(ValueError, match="masses"):
        MassAssignment.from_sets([[0], [1]], [1.2, -0.2], 3)
    with pytest.raises(ValueError, match="masses"):
        MassAssignment.from_sets([[0], [1]], [1.0], 3)
    with pytest.raises(ValueError, match=r"sets\[1\]"):
        MassAssignment.from_sets([[0], []], [0.5, 0.5], 3)
    with pytest.raises(ValueError, match=r"sets\[0\].*\[0, 2\]"):
        MassAssignment.from_sets([[3]], [1.0], 3)
    with pytest.raises(ValueError, match="p"):
        is_compatible(MassAssignment.vacuous(3), [0.5, 0.6, 0.0])
    with pytest.raises(ValueError, match="target"):
        MassAssignment.vacuous(3).transfer([0, 1, 2], [0, 1, 2], 0.1)
    with pytest.raises(ValueError, match="amount"):
        MassAssignment.vacuous(3).transfer([0, 1, 2], [0], 1.5)


def test_duplicate_focal_sets_merge_and_masses_sum_to_one():
    m = MassAssignment.from_sets([[0, 1], [1, 0], [2]], [0.25, 0.25, 0.5], 4)
    assert m.as_dict() == {frozenset({0, 1}): 0.5, frozenset({2}): 0.5}
    assert math.isclose(m.masses.sum(), 1.0)


# ----------------------------------------------------------------------------- set functions
@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(small_masses())
def test_bel_betp_pl_exhaustive(case):
    m, _ = case
    d = m.as_dict()
    bet = m.pignistic()
    assert math.isclose(bet.sum(), 1.0)
    full = frozenset(range(m.n))
    for mask in all_subsets(m.n):
        a = frozenset(np.flatnonzero(mask).tolist())
        bel, pl = m.belief(mask), m.plausibility(mask)
        assert math.isclose(bel, brute_bel(d, a), abs_tol=1e-12)
        assert math.isclose(pl, brute_pl(d, a), abs_tol=1e-12)
        assert bel <= bet[mask].sum() + 1e-12 <= pl + 2e-12
        assert math.isclose(bel, 1.0 - m.plausibility(~mask), abs_tol=1e-12)
        assert math.isclose(brute_bel(d, a), 1.0 - brute_pl(d, full - a), abs_tol=1e-12)


def test_pignistic_by_hand():
    # m({0}) = 0.2, m({0,1}) = 0.3, m({0,1,2,3}) = 0.5 -> BetP(0) = 0.2 + 0.15 + 0.125.
    m = MassAssignment.from_dict({frozenset({0}): 0.2, frozenset({0, 1}): 0.3, frozenset(range(4)): 0.5}, 4)
    np.testing.assert_allclose(m.pignistic(), [0.475, 0.275, 0.125, 0.125])
    assert math.isclose(m.nonspecificity(), 0.3 * 1 + 0.5 * 2)
    assert math.isclose(m.belief([0, 1]), 0.5) and math.isclose(m.plausibility([2]), 0.5)


def test_bayesian_and_vacuous():
    p = np.array([0.1, 0.0, 0.6, 0.3])
    m = MassAssignment.bayesian(p)
    assert m.is_bayesian()
    np.testing.assert_allclose(m.pignistic(), p)
    assert m.nonspecificity() == 0.0
    assert math.isclose(m.entropy(), -sum(x * math.log(x) for x in p if x > 0))
    for n in (1, 2, 5, 1080):
        v = MassAssignment.vacuous(n)
        assert math.isclose(v.nonspecificity(), math.log2(n))
        assert math.isclose(v.entropy(), math.log(n))
        np.testing.assert_allclose(v.pignistic(), np.full(n, 1 / n))


# ----------------------------------------------------------------------------- compatibility
def test_compatibility_methods_agree_on_random_small_frames():
    rng = np.random.default_rng(4)
    verdicts = []
    for _ in range(60):
        n = int(rng.integers(2, 8))
        m = random_mass(rng, n, int(rng.integers(1, 4)))
        p = random_allocation(rng, m) if rng.random() < 0.5 else rng.dirichlet(np.ones(n) * 0.5)
        ex = is_compatible(m, p, method="exhaustive")
        assert is_compatible(m, p, method="flow") == ex
        assert is_compatible(m, p) == ex
        verdicts.append(ex)
    assert any(verdicts) and not all(verdicts)


def test_compatibility_large_frame_uses_flow():
    n = 1080
    # m({0,1}) = m({0}) = 0.5: p = (0.7, 0.3) is compatible (0.5 + 0.2 to record 0) though the
    # proportional split does not reproduce it; p = (0.4, 0.6) is not (Bel({0}) = 0.5 > 0.4).
    m = MassAssignment.from_sets([[0, 1], [0]], [0.5, 0.5], n)
    p = np.zeros(n)
    p[:2] = [0.7, 0.3]
    assert is_compatible(m, p)
    p[:2] = [0.4, 0.6]
    assert not is_compatible(m, p)
    cand = np.arange(100, 400)
    assert is_compatible(MassAssignment.from_sets([cand], [1.0], n), uniform_on(cand[::7], n))
    assert not is_compatible(MassAssignment.from_sets([cand], [1.0], n), uniform_on([0, 150], n))


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(small_masses(n_max=7))
def test_prop16_support_of_compatible_pignistic_contains_true_support(case):
    m, seed = case
    p = random_allocation(np.random.default_rng(seed + 1), m)
    assert is_compatible(m, p, method="exhaustive")
    assert support_contains_true_support(m, p)
    # and BetP itself is compatible with Bel (it is an allocation of the focal masses)
    assert is_compatible(m, m.pignistic(), method="exhaustive")


def test_missing_candidate_breaks_compatibility():
    # Lemma of Sec. 4: m(B) = 1 with B missing a record of the true candidate set.
    p = uniform_on([1, 2, 3], 6)
    assert is_compatible(MassAssignment.from_sets([[1, 2, 3, 4]], n=6), p)
    assert not is_compatible(MassAssignment.from_sets([[1, 2, 4]], n=6), p, method="exhaustive")
    assert not is_compatible(MassAssignment.from_sets([[1, 2, 4]], n=6), p)


@settings(max_examples=30, deadline=None, database=None, derandomize=True)
@given(st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_dirac_lemma_and_peak(n, seed):
    # Lemma bel.i.p.singleton / Prop. p.singleton: compatible with the Dirac at x0 iff every
    # focal set contains x0; then BetP is maximal at x0.
    rng = np.random.default_rng(seed)
    x0 = int(rng.integers(n))
    sets = []
    for _ in range(int(rng.integers(1, 4))):
        s = rng.random(n) < 0.5
        s[x0] = True
        sets.append(s)
    m = MassAssignment.from_sets(sets, rng.dirichlet(np.ones(len(sets))))
    dirac = np.eye(n)[x0]
    assert is_compatible(m, dirac, method="exhaustive")
    bet = m.pignistic()
    assert bet[x0] >= bet.max() - 1e-12
    bad = sets + [np.eye(n, dtype=bool)[(x0 + 1) % n]]
    m_bad = MassAssignment.from_sets(bad, np.full(len(bad), 1 / len(bad)))
    assert not is_compatible(m_bad, dirac, method="exhaustive")


def test_max_pignistic_outside_candidate_set():
    for n, k in [(3, 2), (6, 3), (10, 5)]:
        a = list(range(k))
        m = max_pignistic_outside(n, a, n - 1)
        p = uniform_on(a, n)
        assert is_compatible(m, p, method="exhaustive")
        bet = m.pignistic()
        # by hand: BetP(x0) = k * (1/k)/2 = 1/2, BetP(a) = 1/(2k)
        assert math.isclose(bet[n - 1], 0.5)
        np.testing.assert_allclose(bet[:k], 1 / (2 * k))
        assert int(np.argmax(bet)) == n - 1 and p[n - 1] == 0


# ----------------------------------------------------------------------------- uncertainty measures
@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(small_masses(), st.floats(0.0, 1.0))
def test_nonspecificity_decreases_under_transfer(case, frac):
    m, seed = case
    rng = np.random.default_rng(seed)
    big = [f for f in m.focal if f.size >= 2]
    if not big:
        return
    b = big[int(rng.integers(len(big)))]
    a = np.sort(rng.choice(b, size=int(rng.integers(1, b.size)), replace=False))
    d = frac * m.as_dict()[frozenset(b.tolist())]
    m2 = m.transfer(b, a, d)
    drop = d * (math.log2(b.size) - math.log2(a.size))  # Prop. beliefs.nonspecificity, by hand
    assert math.isclose(m.nonspecificity() - m2.nonspecificity(), drop, abs_tol=1e-10)
    assert m2.nonspecificity() <= m.nonspecificity() + 1e-12
    # the transfer keeps a valid assignment and Bel only grows on sets containing a
    assert math.isclose(m2.masses.sum(), 1.0)
    assert m2.belief(a) >= m.belief(a) - 1e-12


def _h(probs_counts):
    return -sum(c * float(p) * math.log(float(p)) for p, c in probs_counts)


def test_entropy_example_decreasing_by_hand():
    r = eb.entropy_example_decreasing()
    # BetP before: 5/13/5 + 8/13/8 = 2/13 on {0..4}, 1/13 on {5,6,7}
    # after (m({0,1}) = 4/13, m({0..4}) = 5/13, m(X) = 4/13): 7/26 on {0,1}, 3/26 on {2,3,4}, 1/26 else
    before = [Fraction(2, 13)] * 5 + [Fraction(1, 13)] * 3
    after = [Fraction(7, 26)] * 2 + [Fraction(3, 26)] * 3 + [Fraction(1, 26)] * 3
    np.testing.assert_allclose(r["before"]["pignistic"], [float(x) for x in before])
    np.testing.assert_allclose(r["after"]["pignistic"], [float(x) for x in after])
    h0 = _h([(Fraction(2, 13), 5), (Fraction(1, 13), 3)])
    h1 = _h([(Fraction(7, 26), 2), (Fraction(3, 26), 3), (Fraction(1, 26), 3)])
    assert math.isclose(r["before"]["entropy_nats"], h0) and math.isclose(r["after"]["entropy_nats"], h1)
    assert r["after"]["entropy_nats"] < r["before"]["entropy_nats"]
    assert r["after"]["nonspecificity_bits"] < r["before"]["nonspecificity_bits"]
    # reconstruction check against the worked example's printed entropies (Sec. 5, 7 decimals)
    assert abs(h0 - 2.0317593) < 5e-7 and abs(h1 - 1.8300099) < 5e-7


def test_entropy_example_increasing_by_hand():
    r = eb.entropy_example_increasing()
    # before: 1/3/4 + 2/3/8 = 1/6 on {2,3}; 1/12 elsewhere. After (m({4..9}) = 1/2,
    # m({2..9}) = 1/6): 1/12 on {0,1}; 1/12 + 1/48 = 5/48 on {2,3}; 1/48 + 1/12 = 5/48 on {4..9}.
    np.testing.assert_allclose(r["before"]["pignistic"], [1 / 12] * 2 + [1 / 6] * 2 + [1 / 12] * 6)
    np.testing.assert_allclose(r["after"]["pignistic"], [1 / 12] * 2 + [5 / 48] * 8)
    h0 = _h([(Fraction(1, 6), 2), (Fraction(1, 12), 8)])
    h1 = _h([(Fraction(1, 12), 2), (Fraction(5, 48), 8)])
    assert math.isclose(r["before"]["entropy_nats"], h0) and math.isclose(r["after"]["entropy_nats"], h1)
    assert r["after"]["entropy_nats"] > r["before"]["entropy_nats"]
    assert r["after"]["nonspecificity_bits"] < r["before"]["nonspecificity_bits"]
    assert abs(h0 - 2.2538579) < 5e-7 and abs(h1 - 2.2989538) < 5e-7


def test_entropy_moves_both_ways_on_random_transfers():
    # The point of Sec. 5: entropy of BetP is not monotone under transfers, nonspecificity is.
    rng = np.random.default_rng(7)
    signs = set()
    for _ in range(300):
        m = random_mass(rng, 6, 3)
        big = [f for f in m.focal if f.size >= 2]
        if not big:
            continue
        b = big[0]
        a = b[: int(rng.integers(1, b.size))]
        m2 = m.transfer(b, a, m.as_dict()[frozenset(b.tolist())] * rng.uniform(0.1, 1))
        de = m2.entropy() - m.entropy()
        if abs(de) > 1e-9:
            signs.add(np.sign(de))
        assert m2.nonspecificity() < m.nonspecificity()
    assert signs == {-1.0, 1.0}


def test_shannon_entropy_base():
    assert math.isclose(shannon_entropy([0.5, 0.5], 2), 1.0)
    assert math.isclose(shannon_entropy([0.25] * 4), math.log(4))


# ----------------------------------------------------------------------------- candidate sets
def test_belief_from_candidate_sets_and_summarise_by_hand():
    cand = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 0, 0]], dtype=bool)
    ms = belief_from_candidate_sets(cand)
    assert [m.as_dict() for m in ms] == [{frozenset(np.flatnonzero(r).tolist()): 1.0} for r in cand]
    ms_list = belief_from_candidate_sets([[0], [0, 1], [2, 3], [1, 0]], n=4)
    assert [m.as_dict() for m in ms_list] == [m.as_dict() for m in ms]
    s = summarise(ms)  # true record of row i is i; record 3 is missed by its candidate set
    assert s["n_records"] == 4
    assert math.isclose(s["mean_nonspecificity"], (0 + 1 + 1 + 1) / 4)
    assert math.isclose(s["mean_pignistic_entropy"], 3 * math.log(2) / 4)
    assert math.isclose(s["fraction_true_positive"], 3 / 4)
    assert math.isclose(s["fraction_compatible"], 3 / 4)
    assert math.isclose(s["mean_true_pignistic"], (1 + 0.5 + 0.5 + 0) / 4)
    assert math.isclose(s["mean_focal_size"], (1 + 2 + 2 + 2) / 4)
    with pytest.raises(ValueError, match=r"candidates\[1\]"):
        belief_from_candidate_sets([[0], []], n=4)
    v = belief_from_candidate_sets([[0], []], n=4, empty="vacuous")
    assert math.isclose(v[1].nonspecificity(), 2.0)
    with pytest.raises(ValueError, match="true_index"):
        summarise(ms, [0, 1])


def test_mixture_of_candidate_sets_is_compatible_when_all_contain_truth():
    n = 12
    truth = [3, 4]
    m = mass_from_candidate_sets([[3, 4, 5], [1, 3, 4, 7, 9], [3, 4]], n, weights=[0.5, 0.3, 0.2])
    assert is_compatible(m, uniform_on(truth, n))
    assert math.isclose(m.nonspecificity(), 0.5 * math.log2(3) + 0.3 * math.log2(5) + 0.2 * 1)
    # A set missing a true candidate is tolerated in a mixture only while the allocation
    # exists: {3,5} must hand all its mass to record 3, which has P = 1/2.
    assert is_compatible(mass_from_candidate_sets([[3, 4, 5], [3, 5]], n, [0.5, 0.5]), uniform_on(truth, n))
    assert not is_compatible(mass_from_candidate_sets([[3, 4, 5], [3, 5]], n, [0.4, 0.6]), uniform_on(truth, n))
    assert not is_compatible(mass_from_candidate_sets([[3, 4, 5], [5, 6]], n), uniform_on(truth, n))


def test_summarise_census_scale_is_fast():
    import time

    rng = np.random.default_rng(0)
    n = 1080
    cand = rng.random((n, n)) < 0.05
    cand[np.arange(n), np.arange(n)] = True
    t0 = time.perf_counter()
    s = summarise(belief_from_candidate_sets(cand))
    assert time.perf_counter() - t0 < 5.0
    sizes = cand.sum(axis=1)
    assert math.isclose(s["mean_nonspecificity"], np.log2(sizes).mean())
    assert math.isclose(s["mean_true_pignistic"], (1 / sizes).mean())
    assert s["fraction_true_positive"] == 1.0


def test_applied_example_groups_pooled_blocks():
    # two known-attribute groups on a 3-record frame; group 2 pools two attribute subsets
    g1 = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 1]], dtype=bool)
    g2 = np.array([[1, 0, 0], [0, 1, 1], [0, 1, 1], [1, 1, 0], [1, 1, 0], [1, 0, 0]], dtype=bool)
    rows = eb.applied_example({1: g1, 2: g2})
    assert [r["group"] for r in rows] == [1, 2]
    assert math.isclose(rows[0]["mean_nonspecificity"], math.log2(3))
    assert math.isclose(rows[1]["mean_nonspecificity"], 4 / 6)
    assert math.isclose(rows[1]["fraction_true_positive"], 5 / 6)  # row 5 (record 2) is missed
    assert rows[1]["mean_nonspecificity"] < rows[0]["mean_nonspecificity"]


# ----------------------------------------------------------------------------- running example
def test_kanonymity_running_example():
    r = eb.kanonymity_running_example()
    rows = {row["attributes"]: row for row in r["rows"]}
    # Sec. 2.2: 18,16,19 -> [15,19]; 22,24,24 -> [20,25]
    assert rows["V1"]["candidate_sets"][0] == (0, 1, 2) and rows["V1"]["candidate_sets"][3] == (3, 4, 5)
    for row in rows.values():
        assert row["all_compatible"] and row["prop16_holds"] and row["pignistic_inequalities_hold"]
    assert math.isclose(rows["V1"]["mean_nonspecificity_bits"], math.log2(3))
    # both attributes: cells {0}, {1,2}, {1,2}, {3,5}, {4}, {3,5} -> (0+1+1+1+0+1)/6
    assert math.isclose(rows["V1,V2"]["mean_nonspecificity_bits"], 4 / 6)
    assert r["missing_record_sets_compatible"] and not any(r["missing_record_sets_compatible"])


def test_max_pignistic_example_function():
    r = eb.max_pignistic_example(6, 3)
    assert r["argmax"] == 5 and r["true_probability"][5] == 0
    assert r["compatible"] and r["compatible_exhaustive"]


# ----------------------------------------------------------------------------- applied example (Census)
def test_rsrl_candidate_sets_on_census(census):
    from sdcrisk.linkage.location import rsrl
    from sdcrisk.masking.swapping import rankswap

    y = rankswap(census, np.random.default_rng(11), p=10)
    known = [0, 1, 2]
    cand = eb.rsrl_candidate_masks(census, y, known, p=10)
    # same candidate sets as the RS-RL attack itself, and (same p) they always hold the truth
    np.testing.assert_array_equal(cand.sum(axis=1), rsrl(census, y, known, p=10).candidates)
    assert cand[np.arange(census.shape[0]), np.arange(census.shape[0])].all()
    rows = eb.rsrl_belief_table(census, y, {1: [0], 3: known}, p=10)
    assert [r["fraction_true_positive"] for r in rows] == [1.0, 1.0]
    assert [r["fraction_compatible"] for r in rows] == [1.0, 1.0]
    # categorical masses: entropy (nats) = ln|B| = nonspecificity (bits) * ln 2
    for r in rows:
        assert math.isclose(r["mean_pignistic_entropy"], r["mean_nonspecificity"] * math.log(2))
    assert rows[1]["mean_nonspecificity"] < rows[0]["mean_nonspecificity"]
