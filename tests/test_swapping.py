"""Rank swapping, p-distribution and p-buckets (sdcrisk.masking.swapping)."""

from __future__ import annotations

import math
import time
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from sdcrisk.masking import get_method, mask
from sdcrisk.masking.swapping import (
    PDIST_VARIANTS,
    RANKSWAP_DEFAULT,
    RANKSWAP_VARIANTS,
    apply_partners,
    bucket_bounds,
    bucket_probabilities,
    pbuckets_partners,
    pdist_partners,
    rank_distance,
    rankswap_partners,
    sorted_order,
)

METHODS = [
    ("rankswap", {"p": 5}),
    ("rankswap", {"p": 5, "variant": "moore"}),
    ("rankswap", {"p": 5, "variant": "argus"}),
    ("rankswap_pdist", {"p": 5}),
    ("rankswap_pdist", {"p": 5, "variant": "window"}),
    ("rankswap_pdist", {"p": 5, "variant": "direct"}),
    ("rankswap_pbuckets", {"buckets": 20}),
]


def stable_ranks(col: np.ndarray) -> np.ndarray:
    """0-based rank of every record, ties broken by record index."""
    r = np.empty(col.size, dtype=np.int64)
    r[np.argsort(col, kind="stable")] = np.arange(col.size)
    return r


def rank_gap(original: np.ndarray, masked: np.ndarray) -> np.ndarray:
    """Per cell, the smallest |origin rank - destination rank| consistent with the values: the masked
    value of record i came from some sorted position holding that value (an interval with ties)."""
    gaps = np.empty(original.shape, dtype=np.int64)
    for j in range(original.shape[1]):
        s = np.sort(original[:, j])
        lo = np.searchsorted(s, masked[:, j], side="left")
        hi = np.searchsorted(s, masked[:, j], side="right") - 1
        pos = stable_ranks(original[:, j])
        gaps[:, j] = np.maximum(0, np.maximum(lo - pos, pos - hi))
    return gaps


def rbrl_max_correct(x: np.ndarray, y: np.ndarray, block: int = 256) -> int:
    """Records whose masked version minimises max_j |rank diff| (average ranks, first argmin)."""
    from scipy.stats import rankdata

    r, s = rankdata(x, axis=0), rankdata(y, axis=0)
    hits = 0
    for a in range(0, len(x), block):
        d = np.abs(r[a:a + block, None, :] - s[None, :, :]).max(axis=2)
        hits += int(np.sum(d.argmin(axis=1) == np.arange(a, min(a + block, len(x)))))
    return hits


# ---------------------------------------------------------------------------- rank distance


def test_rank_distance_hand_values():
    assert rank_distance(10, 1080) == 108
    assert rank_distance(2.5, 1080) == 27
    assert [rank_distance(1, 4092, r) for r in ("floor", "round", "ceil")] == [40, 41, 41]
    assert [rank_distance(1.5, 1090, r) for r in ("floor", "round", "ceil")] == [16, 16, 17]
    assert rank_distance(35, 1080, "ceil") == 378  # 1080 * 0.35 is 377.99999999999994 in floats
    assert rank_distance(0.01, 100) == 1  # at least one rank
    assert rank_distance(100, 1080) == 1079  # at most n - 1


@pytest.mark.parametrize("p", [0, -1, 100.5, float("nan"), float("inf"), "a"])
def test_rank_distance_bad_p(p):
    with pytest.raises(ValueError, match="p must be"):
        rank_distance(p, 100)


def test_rank_distance_bad_rounding_and_n():
    with pytest.raises(ValueError, match="rounding"):
        rank_distance(5, 100, "trunc")
    with pytest.raises(ValueError, match="n must be"):
        rank_distance(5, 1)


# ---------------------------------------------------------------------------- hand-checkable


@pytest.mark.parametrize("variant", ["moore", "argus"])
def test_tiny_standard_cases_are_forced(variant):
    rng = np.random.default_rng(0)
    # n = 3, P = 1: positions 0<->1 must swap, position 2 has an empty window and stays.
    x = np.array([[30.0], [10.0], [20.0]])
    for _ in range(5):
        assert mask("rankswap", x, rng, p=34, variant=variant).tolist() == [[30.0], [20.0], [10.0]]
    # ties are broken by record index: sorted = rec2 (1), rec0 (5), rec1 (5)
    x = np.array([[5.0], [5.0], [1.0]])
    assert mask("rankswap", x, rng, p=34, variant=variant).ravel().tolist() == [1.0, 5.0, 5.0]
    # n = 4, P = 1: adjacent pairs
    x = np.array([[4.0, 1.0], [3.0, 2.0], [2.0, 3.0], [1.0, 4.0]])
    assert (mask("rankswap", x, rng, p=25, variant=variant).tolist()
            == [[3.0, 2.0], [4.0, 1.0], [1.0, 4.0], [2.0, 3.0]])


def exact_partner_distribution(n: int, P: int, variant: str) -> dict[tuple, Fraction]:
    """Brute-force law of the partner involution: every branch of the random choices, exact."""
    out: dict[tuple, Fraction] = {}
    stack = [(0, tuple(range(n)), (True,) * n, Fraction(1))]
    while stack:
        i, partner, avail, pr = stack.pop()
        while i < n and not avail[i]:
            i += 1
        if i == n:
            out[partner] = out.get(partner, Fraction(0)) + pr
            continue
        hi = min(i + P, n - 1)
        if variant == "inclusive":
            targets = [l for l in range(i, hi + 1) if avail[l]]
            weights = [Fraction(1, len(targets))] * len(targets)
        elif variant == "moore":
            targets = [l for l in range(i + 1, hi + 1) if avail[l]] or [i]
            weights = [Fraction(1, len(targets))] * len(targets)
        else:  # argus: target k = i + 1 + r, r uniform in 0..P-1; nearest free below, else above
            targets, weights = [], []
            for r in range(P):
                k = min(i + 1 + r, n - 1)
                free_below = [l for l in range(i + 1, k + 1) if avail[l]]
                free_above = [l for l in range(k, hi + 1) if avail[l]]
                l = free_below[-1] if free_below else (free_above[0] if free_above else i)
                targets.append(l)
                weights.append(Fraction(1, P))
        for l, w in zip(targets, weights):
            pa, av = list(partner), list(avail)
            pa[i], pa[l] = l, i
            av[i] = av[l] = False
            stack.append((i + 1, tuple(pa), tuple(av), pr * w))
    return out


def test_exact_distribution_hand_values():
    inc = exact_partner_distribution(3, 2, "inclusive")
    assert inc == {(0, 1, 2): Fraction(1, 6), (0, 2, 1): Fraction(1, 6),
                   (1, 0, 2): Fraction(1, 3), (2, 1, 0): Fraction(1, 3)}
    assert exact_partner_distribution(2, 1, "inclusive") == {(0, 1): Fraction(1, 2), (1, 0): Fraction(1, 2)}
    assert exact_partner_distribution(3, 2, "moore") == {(1, 0, 2): Fraction(1, 2), (2, 1, 0): Fraction(1, 2)}
    # argus, n = 5, P = 3: after 0<->2 (1/3), position 1 meets targets 2, 3, 4; target 2 is taken and
    # nothing free lies below it above 1, so it goes up to 3: 1<->3 with 2/3 (moore: 1/2).
    arg = exact_partner_distribution(5, 3, "argus")
    assert arg[(2, 3, 0, 1, 4)] == Fraction(2, 9)
    assert exact_partner_distribution(5, 3, "moore")[(2, 3, 0, 1, 4)] == Fraction(1, 6)
    for v in RANKSWAP_VARIANTS:
        assert sum(exact_partner_distribution(6, 3, v).values()) == 1


@pytest.mark.parametrize("variant", RANKSWAP_VARIANTS)
@pytest.mark.parametrize("n,P", [(5, 2), (6, 3), (7, 6)])
def test_partner_law_matches_brute_force(variant, n, P):
    exact = exact_partner_distribution(n, P, variant)
    rng = np.random.default_rng(100 * n + P)
    reps = 12000
    seen = Counter(tuple(rankswap_partners(n, P, rng, variant).tolist()) for _ in range(reps))
    assert set(seen) <= set(exact)
    for outcome, pr in exact.items():
        pr = float(pr)
        assert abs(seen[outcome] / reps - pr) < 4.5 * math.sqrt(pr * (1 - pr) / reps) + 1e-3, outcome


def test_standard_choice_is_uniform_among_unswapped():
    # n = 3, P = 2: position 0 takes 1 or 2 with probability 1/2 each; then nothing else can swap.
    rng = np.random.default_rng(1)
    draws = np.array([rankswap_partners(3, 2, rng, "moore") for _ in range(4000)])
    firsts = draws[:, 0]
    assert set(np.unique(firsts)) == {1, 2}
    assert abs(np.mean(firsts == 1) - 0.5) < 4 * math.sqrt(0.25 / 4000)
    assert all(sorted(np.flatnonzero(row != np.arange(3)).tolist()) in ([0, 1], [0, 2]) for row in draws)


@pytest.mark.parametrize("variant", PDIST_VARIANTS)
def test_pdist_draws_again_until_swapped(variant):
    # n = 2, P = 1: position 0 fails only when m = rint(N(1/2, 1/2)) < 0 (clipped to 0), and then
    # draws again, so the two values are always swapped (one draw alone fails with Pr ~ 0.04).
    rng = np.random.default_rng(2)
    assert all(pdist_partners(2, 1, rng, variant)[0] == 1 for _ in range(5000))


@pytest.mark.parametrize("variant", PDIST_VARIANTS)
def test_pdist_three_records_partner_distribution(variant):
    # n = 3, P = 2: m = rint(N(1, 1)) != 0; for position 0, m < 0 clips to 0 and is drawn again,
    # so m = 1 with Pr a = (Phi(.5) - Phi(-.5)) / (1 - Phi(-.5)), else m >= 2, clipped to 2.
    # distance: partner = m; window / direct: uniform in 1..m. Position 0 always swaps.
    phi = lambda z: 0.5 * math.erfc(-z / math.sqrt(2))  # noqa: E731
    a = (phi(0.5) - phi(-0.5)) / (1 - phi(-0.5))
    expected = a if variant == "distance" else a + (1 - a) / 2
    rng = np.random.default_rng(5)
    reps = 20000
    first = np.array([pdist_partners(3, 2, rng, variant)[0] for _ in range(reps)])
    assert (first != 0).all()
    assert abs(np.mean(first == 1) - expected) < 4 * math.sqrt(expected * (1 - expected) / reps)


def test_pbuckets_two_records_probability():
    # n = 2, two buckets of one value: position 0 swaps iff it picks B_2 (1/3); otherwise position 1
    # swaps iff it picks B_1 (1/3). Pr(swap) = 1/3 + 2/3 * 1/3 = 5/9.
    rng = np.random.default_rng(3)
    reps = 20000
    swapped = np.mean([pbuckets_partners(2, 2, rng)[0] == 1 for _ in range(reps)])
    assert abs(swapped - 5 / 9) < 4 * math.sqrt(5 / 9 * 4 / 9 / reps)


def test_bucket_helpers():
    assert bucket_bounds(10, 3).tolist() == [0, 4, 7, 10]
    assert bucket_bounds(1080, 75)[-1] == 1080
    sizes = np.diff(bucket_bounds(1080, 75))
    assert sizes.max() - sizes.min() <= 1
    pr = bucket_probabilities(5)
    assert np.allclose(pr.sum(axis=1), 1.0)
    assert np.allclose(pr[2, [1, 0]] / pr[2, [2, 1]], 0.5)  # halves at each bucket step
    assert np.allclose(pr, pr[::-1, ::-1])
    # B_1 of 3 buckets: weights 1/2, 1/4, 1/8 normalised
    assert np.allclose(bucket_probabilities(3)[0], np.array([4, 2, 1]) / 7)


# ---------------------------------------------------------------------------- partner arrays


@pytest.mark.parametrize("variant", RANKSWAP_VARIANTS)
@pytest.mark.parametrize("n,P", [(2, 1), (3, 2), (101, 1), (1080, 21), (1080, 1079), (4092, 409)])
def test_rankswap_partners_involution_within_P(n, P, variant):
    pa = rankswap_partners(n, P, np.random.default_rng(n + P), variant)
    q = np.arange(n)
    assert np.array_equal(pa[pa], q)
    assert np.abs(pa - q).max() <= P
    if n % 2 == 0 and (P >= 21 or variant != "inclusive"):
        assert np.mean(pa != q) > 0.95


def test_inclusive_keeps_some_values_at_small_p(census):
    # Census columns 0..6 have no ties: a cell equal to its original value was kept in place.
    cols = [j for j in range(census.shape[1]) if np.unique(census[:, j]).size == len(census)]
    assert len(cols) >= 5
    rng = np.random.default_rng(21)
    kept = {}
    for v in RANKSWAP_VARIANTS:
        for p in (2, 20):
            y = mask("rankswap", census[:, cols], rng, p=p, variant=v)
            kept[v, p] = int(np.sum(y == census[:, cols]))
    assert kept["inclusive", 2] > kept["inclusive", 20] > 0
    # about one value in P/2 stays (its own draw among ~P/2 free candidates): a loose bracket
    P = rank_distance(2, len(census))
    cells = len(census) * len(cols)
    assert cells / (4 * P) < kept["inclusive", 2] < 4 * cells / P
    # the exclusive rules keep a value only when its whole window is used up: never here
    assert kept["moore", 2] == kept["argus", 2] == 0


@pytest.mark.parametrize("variant", PDIST_VARIANTS)
def test_pdist_partners_involution_and_mostly_swapped(variant):
    n, P = 1080, rank_distance(5, 1080)
    pa = pdist_partners(n, P, np.random.default_rng(4), variant)
    assert np.array_equal(pa[pa], np.arange(n))
    assert np.mean(pa != np.arange(n)) > 0.8


def test_pbuckets_partners_involution_and_mostly_swapped():
    for b in (75, 20, 5):
        pa = pbuckets_partners(1080, b, np.random.default_rng(b))
        assert np.array_equal(pa[pa], np.arange(1080))
        assert np.mean(pa != np.arange(1080)) > 0.9


def reference_partners(n: int, P: int, mode: int, rng: np.random.Generator) -> np.ndarray:
    """Standard rank swapping written out (mode 0 = moore, 1 = inclusive): the still-unswapped
    positions of the window listed, one uniform draw among them, in the kernel's order of draws."""
    avail = np.ones(n, dtype=bool)
    partner = np.arange(n)
    for i in range(n):
        if not avail[i]:
            continue
        lo = i if mode == 1 else i + 1
        hi = min(i + P, n - 1)
        free = np.flatnonzero(avail[lo:hi + 1]) + lo
        free = free[free != i] if mode == 0 else free
        avail[i] = False
        l = int(free[rng.integers(0, free.size)]) if free.size else -1
        if l > i:
            avail[l] = False
            partner[i], partner[l] = l, i
    return partner


@pytest.mark.parametrize("variant", ["moore", "inclusive"])
def test_ring_window_draws_as_written(variant):
    """The kernel counts the window's positions in a ring of W >= P + 1 slots (wrapping whenever
    n > W): the same partners and the same draws from the generator as the rule written out."""
    rs = np.random.default_rng(7)
    cases = [(2, 1), (3, 2), (17, 16), (100, 7), (300, 1), (300, 63), (300, 64), (1000, 127), (1000, 128)]
    cases += [(int(n), int(rs.integers(1, n))) for n in rs.integers(2, 600, size=30)]
    for n, P in cases:
        seed = int(rs.integers(1 << 30))
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        got = rankswap_partners(n, P, a, variant)
        want = reference_partners(n, P, 1 if variant == "inclusive" else 0, b)
        assert np.array_equal(got, want), (n, P)
        assert a.bit_generator.state == b.bit_generator.state, (n, P)


@pytest.mark.parametrize("name,params", METHODS)
def test_sorting_thread_changes_nothing(monkeypatch, name, params):
    """From PIPELINE_MIN records a second thread sorts and swaps the columns: the same values."""
    import sdcrisk.masking.swapping as swapping

    x = np.round(np.random.default_rng(3).lognormal(size=(3000, 4)), 1)
    serial = mask(name, x, np.random.default_rng(11), **params)
    monkeypatch.setattr(swapping, "PIPELINE_MIN", 0)
    assert np.array_equal(mask(name, x, np.random.default_rng(11), **params), serial)


def test_apply_partners_matches_definition():
    col = np.array([3.0, 1.0, 2.0, 5.0])
    order = sorted_order(col)  # [1, 2, 0, 3]
    out = apply_partners(col, np.array([2, 1, 0, 3]))  # swap sorted positions 0 and 2
    assert out.tolist() == [1.0, 3.0, 2.0, 5.0] and order.tolist() == [1, 2, 0, 3]


# ---------------------------------------------------------------------------- on the data


@pytest.mark.parametrize("name,params", METHODS)
def test_columns_are_permutations(census, name, params):
    y = mask(name, census, np.random.default_rng(5), **params)
    assert y.shape == census.shape
    assert np.array_equal(np.sort(y, axis=0), np.sort(census, axis=0))
    # most cells receive another record's value (ties aside)
    assert np.mean(rank_gap(census, y) > 0) > 0.5


@pytest.mark.parametrize("name,params", METHODS)
def test_same_seed_same_output_other_seed_differs(census, name, params):
    a = mask(name, census, np.random.default_rng(11), **params)
    b = mask(name, census, np.random.default_rng(11), **params)
    c = mask(name, census, np.random.default_rng(12), **params)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    rng = np.random.default_rng(11)  # the caller's generator advances
    assert not np.array_equal(mask(name, census, rng, **params), mask(name, census, rng, **params))


@pytest.mark.parametrize("variant", RANKSWAP_VARIANTS)
@pytest.mark.parametrize("p", [1, 5, 25, 100])
def test_standard_never_beyond_P_no_ties(p, variant):
    x = np.random.default_rng(6).standard_normal((500, 3))
    P = rank_distance(p, 500)
    for seed in range(3):
        y = mask("rankswap", x, np.random.default_rng(seed), p=p, variant=variant)
        gap = rank_gap(x, y)
        assert gap.max() <= P
        if p < 100:
            assert gap.max() >= P // 2  # the window is used, not only neighbours


@pytest.mark.parametrize("variant", RANKSWAP_VARIANTS)
@pytest.mark.parametrize("p", [2, 10])
def test_standard_never_beyond_P_with_ties(census, p, variant):
    rng = np.random.default_rng(7)
    x = np.random.default_rng(8).integers(0, 12, size=(400, 4)).astype(float)
    for data in (x, census):
        P = rank_distance(p, len(data))
        for rounding in ("floor", "ceil"):
            y = mask("rankswap", data, rng, p=p, rounding=rounding, variant=variant)
            assert rank_gap(data, y).max() <= rank_distance(p, len(data), rounding)
        assert rank_gap(data, mask("rankswap", data, rng, p=p, variant=variant)).max() <= P


@pytest.mark.parametrize("variant", PDIST_VARIANTS)
def test_pdist_sometimes_moves_further_than_P(census, variant):
    P = rank_distance(5, len(census))
    y = mask("rankswap_pdist", census, np.random.default_rng(9), p=5, variant=variant)
    assert rank_gap(census, y).max() > P


def test_pbuckets_sometimes_moves_beyond_neighbouring_buckets(census):
    size = len(census) // 20
    y = mask("rankswap_pbuckets", census, np.random.default_rng(10), buckets=20)
    assert rank_gap(census, y).max() > 2 * size


def test_rbrl_max_links_more_with_small_p(census):
    rng = np.random.default_rng(13)
    small = rbrl_max_correct(census, mask("rankswap", census, rng, p=2))
    large = rbrl_max_correct(census, mask("rankswap", census, rng, p=25))
    assert small > large
    pd_small = rbrl_max_correct(census, mask("rankswap_pdist", census, rng, p=2))
    pd_large = rbrl_max_correct(census, mask("rankswap_pdist", census, rng, p=25))
    assert pd_small > pd_large
    pb_fine = rbrl_max_correct(census, mask("rankswap_pbuckets", census, rng, buckets=75))
    pb_coarse = rbrl_max_correct(census, mask("rankswap_pbuckets", census, rng, buckets=5))
    assert pb_fine > pb_coarse


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("name", ["rankswap", "rankswap_pdist"])
@pytest.mark.parametrize("p", [0, -5, 100.01, float("nan"), None, True])
def test_bad_p(census, name, p):
    with pytest.raises(ValueError, match="parameter p"):
        mask(name, census, np.random.default_rng(0), p=p)


def test_bad_choices_and_buckets(census):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="parameter variant"):
        mask("rankswap_pdist", census, rng, p=5, variant="sideways")
    with pytest.raises(ValueError, match="parameter rounding"):
        mask("rankswap", census, rng, p=5, rounding="trunc")
    with pytest.raises(ValueError, match="parameter variant"):
        mask("rankswap", census, rng, p=5, variant="sdcmicro")
    with pytest.raises(ValueError, match="variant must be one of"):
        rankswap_partners(10, 2, rng, "both")
    for b in (1, 0, len(census) + 1, 2.5):
        with pytest.raises(ValueError, match="parameter buckets"):
            mask("rankswap_pbuckets", census, rng, buckets=b)
    with pytest.raises(ValueError, match="missing parameter"):
        mask("rankswap", census, rng)
    with pytest.raises(ValueError, match="Generator"):
        mask("rankswap", census, None, p=5)


@pytest.mark.parametrize("name,params", METHODS)
def test_bad_data(name, params):
    rng = np.random.default_rng(0)
    x = np.random.default_rng(1).standard_normal((50, 3))
    bad = x.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        mask(name, bad, rng, **params)
    bad = x.copy()
    bad[:, 2] = 7.0
    with pytest.raises(ValueError, match="constant"):
        mask(name, bad, rng, **params)


def test_registry_entries():
    for name in ("rankswap", "rankswap_pdist", "rankswap_pbuckets"):
        m = get_method(name)
        assert m.family == "swapping" and m.randomised
    assert get_method("rankswap").check_params({"p": 2})["rounding"] == "floor"
    assert get_method("rankswap").check_params({"p": 2})["variant"] == RANKSWAP_DEFAULT == "inclusive"
    assert get_method("rankswap_pdist").check_params({"p": 2})["variant"] == "distance"


def test_eia_speed(eia):
    rng = np.random.default_rng(0)
    for name, params in METHODS:
        mask(name, eia, rng, **params)  # warm-up (JIT)
        t = time.perf_counter()
        mask(name, eia, rng, **params)
        assert time.perf_counter() - t < 0.5, name
