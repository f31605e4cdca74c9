"""Probabilistic record linkage: coincidence rules, EM on pattern counts, weights, assignment."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from sdcrisk.linkage import assignment
from sdcrisk.linkage.assignment import PATHS_MIN, _flow_links, _units
from sdcrisk.resources import MemoryLimitError

from sdcrisk.linkage.probabilistic import (
    COINCIDENCE_RULES,
    FellegiSunter,
    assign_max_weight,
    coincidence_codes,
    em_fellegi_sunter,
    pattern_matrix,
    prl,
)


def _brute_codes(z, lo, hi) -> np.ndarray:
    """Every pair's pattern code straight from the definition (independent of the kernels)."""
    bits = (lo[:, None, :] <= z[None, :, :]) & (z[None, :, :] <= hi[:, None, :])
    return (bits.astype(np.int64) << np.arange(lo.shape[1])).sum(axis=2)


def _sorted_groups_ma(col: np.ndarray, k: int) -> np.ndarray:
    """Stand-in univariate microaggregation: consecutive groups of k in sorted order, group means."""
    order = np.argsort(col, kind="stable")
    out = np.empty_like(col)
    n = col.size
    starts = list(range(0, n - n % k if n % k else n, k))
    for g, s in enumerate(starts):
        stop = n if g == len(starts) - 1 else s + k
        out[order[s:stop]] = col[order[s:stop]].mean()
    return out


@pytest.fixture
def small():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(60, 4)) * [1.0, 10.0, 0.1, 3.0] + [0.0, 100.0, 5.0, -2.0]
    return x


# --- coincidence vectors and weights, by hand -------------------------------------------------------

def test_coincidence_codes_hand_example():
    x = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]])
    y = np.array([[1.0, 21.0], [2.4, 30.0], [2.6, 10.0]])
    # exact: a0 agrees with b0 on attr 0 (1 == 1) and with b2 on attr 1 (10 == 10); a2 with b1 on attr 1
    exact = coincidence_codes(x, y, "exact")
    assert exact.tolist() == [[1, 0, 2], [0, 0, 0], [0, 2, 0]]
    # nearest (1 neighbour): attr 0 nearest masked to 1 -> 1.0 (b0); to 2 -> 2.4 (b1, |0.4| < |0.6|);
    # to 3 -> 2.6 (b2). attr 1 nearest to 10 -> 10 (b2); to 20 -> 21 (b0); to 30 -> 30 (b1).
    near = coincidence_codes(x, y, "nearest")
    assert near.tolist() == [[1, 0, 2], [2, 1, 0], [0, 2, 1]]
    # value rule with t*sd: sd of attr 0 is 1, of attr 1 is 10; t = 0.5 -> half widths 0.5 and 5
    val = coincidence_codes(x, y, "value", t=0.5)
    expect = np.zeros((3, 3), int)
    for i, l in itertools.product(range(3), range(3)):
        expect[i, l] = (abs(x[i, 0] - y[l, 0]) <= 0.5) + 2 * (abs(x[i, 1] - y[l, 1]) <= 5.0)
    assert val.tolist() == expect.tolist()
    # rank rule, window 40 % of n = 1.2 ranks: ranks x attr0 1,2,3 vs y 1,2,3; attr1 1,2,3 vs y 2,3,1
    rank = coincidence_codes(x, y, "rank", window=40.0)
    rx = np.array([[1, 1], [2, 2], [3, 3]])
    ry = np.array([[1, 2], [2, 3], [3, 1]])
    expect = (np.abs(rx[:, None, 0] - ry[None, :, 0]) <= 1.2) + 2 * (np.abs(rx[:, None, 1] - ry[None, :, 1]) <= 1.2)
    assert rank.tolist() == expect.tolist()


def test_nearest_ties_and_several_neighbours():
    x = np.array([[0.0], [5.0], [9.0]])
    y = np.array([[1.0], [-1.0], [4.0], [6.0], [10.0]])
    codes = coincidence_codes(x, y, "nearest")
    # 0 is equidistant from 1 and -1 (both coincide); 5 from 4 and 6; 9 -> 10
    assert codes[:, :].tolist() == [[1, 1, 0, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 0, 1]]
    two = coincidence_codes(x, y, "nearest", neighbours=2)
    assert two.tolist() == [[1, 1, 0, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 1, 1]]
    # boundary: the 2 nearest to 9 are 10 and 6, never a duplicated edge value
    three = coincidence_codes(np.array([[-5.0], [0.0], [20.0]]), y[:3], "nearest", neighbours=2)
    assert three.tolist() == [[1, 1, 0], [1, 1, 0], [1, 0, 1]]


def test_weights_hand_computed():
    model = FellegiSunter(m=np.array([0.9, 0.8]), u=np.array([0.1, 0.4]), p=0.01, iterations=0, converged=True)
    w = model.weights(pattern_matrix(2))
    # pattern code = c0 + 2 c1
    expect = [np.log(0.1 / 0.9) + np.log(0.2 / 0.6), np.log(0.9 / 0.1) + np.log(0.2 / 0.6),
              np.log(0.1 / 0.9) + np.log(0.8 / 0.4), np.log(0.9 / 0.1) + np.log(0.8 / 0.4)]
    assert np.allclose(w, expect)


def test_pattern_matrix_bits():
    g = pattern_matrix(3)
    assert g.shape == (8, 3)
    assert g[5].tolist() == [1, 0, 1]  # 5 = 0b101


# --- EM -------------------------------------------------------------------------------------------

def test_em_recovers_m_u_from_synthetic_counts():
    rng = np.random.default_rng(11)
    m_true = np.array([0.95, 0.85, 0.9, 0.7, 0.8])
    u_true = np.array([0.05, 0.2, 0.1, 0.3, 0.15])
    n_match, n_unmatch = 4000, 400_000
    c = m_true.size
    matched = rng.random((n_match, c)) < m_true
    unmatched = rng.random((n_unmatch, c)) < u_true
    codes = np.concatenate([matched, unmatched]) @ (1 << np.arange(c))
    counts = np.bincount(codes, minlength=2**c)
    fit = em_fellegi_sunter(counts, c)
    assert fit.converged
    assert np.allclose(fit.m, m_true, atol=0.03)
    assert np.allclose(fit.u, u_true, atol=0.01)
    assert fit.p == pytest.approx(n_match / (n_match + n_unmatch), rel=0.1)


def test_em_bad_counts():
    with pytest.raises(ValueError, match="counts"):
        em_fellegi_sunter(np.zeros(4), 2)
    with pytest.raises(ValueError, match="counts"):
        em_fellegi_sunter(np.ones(3), 2)


# --- assignment -----------------------------------------------------------------------------------

def test_assignment_matches_dense_lsa_optimum():
    rng = np.random.default_rng(3)
    n = 30
    dense = np.where(rng.random((n, n)) < 0.15, rng.integers(1, 6, (n, n)), 0).astype(float)
    rows, cols = np.nonzero(dense)
    links = assign_max_weight(rows, cols, dense[rows, cols], n)
    r, c = linear_sum_assignment(dense, maximize=True)
    ours = sum(dense[i, links[i]] for i in range(n) if links[i] >= 0)
    assert ours == pytest.approx(dense[r, c].sum())
    used = links[links >= 0]
    assert used.size == np.unique(used).size  # one-to-one


def _total(rows, cols, gain, links) -> float:
    on = dict(zip(zip(rows.tolist(), cols.tolist()), gain.tolist()))
    linked = np.flatnonzero(links >= 0)
    assert all((i, links[i]) in on for i in linked)  # links only along edges
    used = links[linked]
    assert used.size == np.unique(used).size  # one-to-one
    return sum(on[(i, links[i])] for i in linked)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12), st.integers(-3, 4), st.floats(0.1, 0.9), st.sampled_from([2, 4, 1000]),
       st.integers(0, 2**32 - 1))
def test_shortest_paths_reach_the_flow_optimum(n, extra, density, levels, seed):
    """Shortest augmenting paths (assign_max_weight from PATHS_MIN originals) and the flow reach the
    same total gain, on few distinct gains (ties), with fewer or more masked records than
    originals, originals without edges and where leaving originals unlinked is optimal; edges in
    any order."""
    rng = np.random.default_rng(seed)
    edges = rng.random((n, max(1, n + extra))) < density
    rows, cols = np.nonzero(edges)
    assume(rows.size > 0)
    gain = rng.integers(1, levels, size=rows.size) / 1e3 + 1e-3
    flow = assign_max_weight(rows, cols, gain, n, paths_min=n + 1)
    paths = assign_max_weight(rows, cols, gain, n, paths_min=0)
    assert _total(rows, cols, gain, paths) == pytest.approx(_total(rows, cols, gain, flow), abs=1e-9)
    shuffled = rng.permutation(rows.size)
    again = assign_max_weight(rows[shuffled], cols[shuffled], gain[shuffled], n, paths_min=0)
    assert _total(rows, cols, gain, again) == pytest.approx(_total(rows, cols, gain, flow), abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10), st.integers(1, 10), st.integers(1, 8), st.sampled_from([2, 3, 1000]),
       st.integers(0, 2**32 - 1))
def test_single_blocks_as_edges_keep_the_optimum(n, ny, nblocks, levels, seed):
    """A block network solved as given and with its blocks of one original or one member as
    direct edges (single_blocks_as_edges) reaches the total gain of the pair network it stands
    for (every pair at its best route), solved by the flow."""
    rng = np.random.default_rng(seed)
    size_e, size_m = rng.integers(1, 4, size=nblocks), rng.integers(1, 4, size=nblocks)
    eblock, mblock = np.repeat(np.arange(nblocks), size_e), np.repeat(np.arange(nblocks), size_m)
    erow, mcol = rng.integers(0, n, size=eblock.size), rng.integers(0, ny, size=mblock.size)
    bgain = rng.integers(1, levels, size=nblocks) / 1e3 + 1e-3
    nd = int(rng.integers(0, 4))
    direct = (rng.integers(0, n, size=nd), rng.integers(0, ny, size=nd), rng.integers(1, levels, size=nd) / 1e3 + 2e-3)
    best = {}
    for (r, c), g in zip(zip(*direct[:2]), direct[2]):
        best[r, c] = max(best.get((r, c), 0.0), g)
    for r, b in zip(erow, eblock):
        for c in mcol[mblock == b]:
            best[r, c] = max(best.get((r, c), 0.0), bgain[b])
    pairs = np.array(list(best), dtype=np.int64).reshape(-1, 2)
    gain = np.array(list(best.values()))
    flow = assign_max_weight(pairs[:, 0], pairs[:, 1], gain, n, paths_min=None)
    expected = _total(pairs[:, 0], pairs[:, 1], gain, flow)
    network = (direct, (erow, eblock, bgain[eblock]), (mblock, mcol))
    for parts in (network, assignment.single_blocks_as_edges(*network)):
        links = assignment.assign_max_weight_blocks(n, ny, list(parts))
        used = links[links >= 0]
        assert used.size == np.unique(used).size
        got = sum(best[i, int(k)] for i, k in enumerate(links) if k >= 0 and (i, int(k)) in best)
        assert all(k < 0 or (i, int(k)) in best for i, k in enumerate(links))
        assert got == pytest.approx(expected, abs=1e-9)


def test_shortest_paths_leave_an_original_unlinked_where_that_gains_more():
    """Original 0 gains 10 with masked 0 or 1 with masked 1, original 1 gains 1 with masked 0:
    linking both (total 2) loses to linking original 0 alone (10); with 9.5 for original 1, linking
    both (10.5) wins."""
    rows, cols = np.array([0, 0, 1]), np.array([0, 1, 0])
    assert assign_max_weight(rows, cols, np.array([10.0, 1.0, 1.0]), 2, paths_min=0).tolist() == [0, -1]
    assert assign_max_weight(rows, cols, np.array([10.0, 1.0, 9.5]), 2, paths_min=0).tolist() == [1, 0]


def test_shortest_paths_hand_over_to_the_flow_beyond_their_work_bound(monkeypatch):
    """With no work allowed, the paths give up and the flow's links are returned unchanged."""
    rng = np.random.default_rng(5)
    n = 300
    rows, cols = np.nonzero(rng.random((n, n)) < 0.03)
    gain = rng.integers(1, 4, size=rows.size).astype(float)
    monkeypatch.setattr(assignment, "PATHS_WORK", 0)
    assert np.array_equal(assign_max_weight(rows, cols, gain, n, paths_min=0),
                          _flow_links(rows, cols, [_units(gain)], n))


def test_below_paths_min_the_flow_alone_decides():
    """Files under PATHS_MIN originals (the replication's) keep the flow's choice among ties."""
    rng = np.random.default_rng(4)
    n = 200
    rows, cols = np.nonzero(rng.random((n, n)) < 0.05)
    gain = rng.integers(1, 3, size=rows.size).astype(float)
    assert n < PATHS_MIN
    assert np.array_equal(assign_max_weight(rows, cols, gain, n), _flow_links(rows, cols, [_units(gain)], n))


def test_prl_is_one_to_one(small):
    rng = np.random.default_rng(2)
    y = small + rng.normal(scale=0.3, size=small.shape) * small.std(axis=0)
    for rule in COINCIDENCE_RULES:
        res = prl(small, y, coincidence=rule, t=0.2)
        used = res.links[res.links >= 0]
        assert used.size == np.unique(used).size, rule


# --- end to end -----------------------------------------------------------------------------------

@pytest.mark.parametrize("rule", COINCIDENCE_RULES)
def test_unmasked_file_fully_linked(small, rule):
    assert prl(small, small.copy(), coincidence=rule).percent_correct == 100.0


def test_unmasked_eia_fully_linked(eia):
    # EIA holds 8 groups of identical records (26 rows): ties are broken at random among them,
    # so every record links to a record identical to it, not necessarily to itself
    res = prl(eia, eia.copy(), coincidence="nearest")
    assert (res.links >= 0).all() and (eia[res.links] == eia).all()


def test_permuting_masked_records_permutes_links(small):
    rng = np.random.default_rng(8)
    y = small + rng.normal(scale=0.2, size=small.shape) * small.std(axis=0)
    base = prl(small, y, coincidence="nearest")
    perm = rng.permutation(small.shape[0])
    inv = np.argsort(perm)
    moved = prl(small, y[perm], coincidence="nearest")
    # masked record l of y sits at position inv[l] of y[perm]; compare the linked *records*
    a = np.where(base.links >= 0, base.links, -1)
    b = np.where(moved.links >= 0, perm[np.maximum(moved.links, 0)], -1)
    # ties among equal-weight assignments may resolve differently: the total weight must agree
    assert base.score.sum() == pytest.approx(moved.score.sum())
    assert (a == b).mean() > 0.8
    # without ties (unmasked file) the links are exactly the inverse permutation
    exact = prl(small, small[perm], coincidence="nearest")
    assert np.array_equal(exact.links, inv)


def test_microaggregated_links_with_random_tie_break(small):
    y = np.column_stack([_sorted_groups_ma(small[:, j], 3) for j in range(small.shape[1])])
    res = prl(small, y, coincidence="nearest", rng=np.random.default_rng(0))
    assert res.percent_correct > 50.0  # 4 independently aggregated attributes identify most records
    assert prl(small, y, coincidence="exact").n_correct == 0  # group means never equal originals


def test_known_subset_and_scores(small):
    res = prl(small, small, known=[1, 3], coincidence="exact")
    assert res.percent_correct == 100.0
    assert np.all(res.candidates == 1)
    assert np.all(res.score > 0)


@pytest.mark.parametrize("kwargs, word", [
    ({"coincidence": "fuzzy"}, "coincidence"),
    ({"coincidence": "rank", "window": -1.0}, "window"),
    ({"coincidence": "rank", "window": 101.0}, "window"),
    ({"coincidence": "value", "t": -0.5}, "t"),
    ({"coincidence": "nearest", "neighbours": 0}, "neighbours"),
    ({"coincidence": "nearest", "neighbours": 1.5}, "neighbours"),
    ({"known": [0, 9]}, "known"),
    ({"rng": 3}, "rng"),
])
def test_bad_parameters(small, kwargs, word):
    with pytest.raises(ValueError, match=word):
        prl(small, small, **kwargs)


def test_bad_shapes(small):
    with pytest.raises(ValueError, match="masked"):
        prl(small, small[:-1])


def test_candidate_pairs_are_the_pairs_with_an_agreement(small):
    """The blocked enumeration finds exactly the pairs with a non-zero pattern, with their codes."""
    from sdcrisk.linkage.probabilistic import candidate_pairs, coincidence_intervals

    rng = np.random.default_rng(4)
    y = np.round(small + rng.normal(scale=0.3, size=small.shape) * small.std(axis=0), 1)
    for rule, kw in [("nearest", {}), ("rank", {"window": 5.0}), ("value", {"t": 0.1}), ("exact", {})]:
        z, lo, hi = coincidence_intervals(small, y, rule, **kw)
        dense = _brute_codes(z, lo, hi)
        rows, cols, codes = candidate_pairs(z, lo, hi)
        r, c = np.nonzero(dense)
        assert np.array_equal(rows, r) and np.array_equal(cols, c), rule
        assert np.array_equal(codes, dense[r, c]), rule


def test_too_many_candidate_pairs_refused_before_allocating(small, monkeypatch):
    from sdcrisk.resources import MemoryLimitError

    monkeypatch.setenv("SDCRISK_MEMORY_LIMIT", "64K")
    with pytest.raises(MemoryLimitError, match=r"candidate pairs.*needs about .* GiB, more than the limit of 0\.00 GiB"):
        prl(small, small, coincidence="rank", window=50.0)
    monkeypatch.setenv("SDCRISK_MEMORY_LIMIT", "lots")
    with pytest.raises(ValueError, match="SDCRISK_MEMORY_LIMIT"):
        prl(small, small)


def test_unconverged_em_warns_and_is_recorded(small):
    from sdcrisk.linkage.probabilistic import ConvergenceWarning

    y = small + np.random.default_rng(1).normal(size=small.shape) * small.std(axis=0)
    with pytest.warns(ConvergenceWarning, match="did not converge in 2 iterations"):
        res = prl(small, y, max_iter=2)
    assert res.info["converged"] is False and res.info["iterations"] == 2
    assert prl(small, small.copy()).info["converged"] is True


def _pairs_only(monkeypatch):
    """PRL on the network of pairs even where the block network would apply."""
    import sdcrisk.linkage.probabilistic as probabilistic

    monkeypatch.setattr(probabilistic, "block_network", lambda *args: None)


def test_max_candidates_keeps_the_best_and_counts_truncation(small, monkeypatch):
    y = np.column_stack([_sorted_groups_ma(small[:, j], 6) for j in range(small.shape[1])])
    _pairs_only(monkeypatch)
    full = prl(small, y)
    assert full.info["truncated"] == 0 and full.info["network"] == "pairs"
    capped = prl(small, y, max_candidates=2)
    assert capped.info["truncated"] > 0 and capped.info["edges"] <= 2 * small.shape[0]
    # the EM sees every pair either way: same fit
    assert capped.info["p"] == full.info["p"] and capped.info["pairs"] == full.info["pairs"]
    roomy = prl(small, y, max_candidates=small.shape[0])
    assert np.array_equal(roomy.links, full.links) and roomy.info["truncated"] == 0
    with pytest.raises(ValueError, match="max_candidates"):
        prl(small, y, max_candidates=0)


# --- the block network (tied agreement) -----------------------------------------------------------

def _tied(n=400, c=4, seed=8):
    """Rounded values and a value-permuting mask: the "nearest" rule's tie groups are blocks."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.lognormal(size=(n, c)) * 3, 0)
    y = x.copy()
    for j in range(c):  # swap values within small windows of the sorted order
        o = np.argsort(x[:, j], kind="stable")
        w = o.reshape(-1, 8)
        y[w, j] = x[rng.permuted(w, axis=1), j]
    return x, y


def _total_gain(res):
    linked = res.links >= 0
    return (res.score[linked] - res.score.min()).sum()


@pytest.mark.parametrize("rule", COINCIDENCE_RULES)
def test_block_network_reaches_the_optimum_of_the_pair_network(rule, monkeypatch):
    x, y = _tied()
    blocks = prl(x, y, coincidence=rule, t=0.2, window=3.0, rng=np.random.default_rng(1))
    _pairs_only(monkeypatch)
    pairs = prl(x, y, coincidence=rule, t=0.2, window=3.0, rng=np.random.default_rng(1))
    assert pairs.info["network"] == "pairs" and pairs.info["truncated"] == 0
    if rule == "nearest":
        assert blocks.info["network"] == "blocks" and blocks.info["arcs"] < pairs.info["arcs"]
    assert _total_gain(blocks) == pytest.approx(_total_gain(pairs), abs=1e-6)
    used = blocks.links[blocks.links >= 0]
    assert used.size == np.unique(used).size
    np.testing.assert_array_equal(blocks.candidates, pairs.candidates)


def test_prl_with_single_blocks_as_edges_reaches_the_same_optimum(monkeypatch):
    """From PATHS_MIN originals PRL's block network has its blocks of one original or one member
    as direct edges: fewer arcs, the same total gain (here with PATHS_MIN lowered to 1)."""
    from sdcrisk.linkage import probabilistic

    x, y = _tied()
    plain = prl(x, y, rng=np.random.default_rng(1))
    monkeypatch.setattr(probabilistic, "PATHS_MIN", 1)
    reduced = prl(x, y, rng=np.random.default_rng(1))
    assert plain.info["network"] == reduced.info["network"] == "blocks"
    assert reduced.info["arcs"] < plain.info["arcs"]
    assert _total_gain(reduced) == pytest.approx(_total_gain(plain), abs=1e-6)
    used = reduced.links[reduced.links >= 0]
    assert used.size == np.unique(used).size


def _direct_by_hand(z, lo, hi, gain_of, route, cap):
    """Each original's pairs whose gain exceeds their block route, the ``cap`` best by gain then
    column, in row and column order, from the brute-force codes."""
    codes = _brute_codes(z, lo, hi)
    out = []
    for i in range(codes.shape[0]):
        cols = [l for l in range(codes.shape[1]) if gain_of[codes[i, l]] > route[codes[i, l]]]
        best = sorted(cols, key=lambda l: (-gain_of[codes[i, l]], l))[:cap]
        out += [(i, l, codes[i, l]) for l in sorted(best)]
    return out


@pytest.mark.parametrize("cap", [1, 2, None])
def test_capped_block_network_keeps_each_records_best_direct_edges(cap):
    """``max_candidates`` on the block network caps the direct edges only: from the counting
    pass's pairs or from a capped pass (when that pass kept none), the same edges as by hand."""
    from sdcrisk.linkage.probabilistic import CandidatePairs, coincidence_intervals, direct_edges, route_gains

    x, y = _tied(n=160, c=3)
    z, lo, hi = coincidence_intervals(x, y, "nearest")
    gain_of = np.array([0.0, 1.0, 2.0, 3.5, 1.5, 2.5, 2.5, 6.0])
    route = route_gains(gain_of, 3)
    want = _direct_by_hand(z, lo, hi, gain_of, route, cap)
    per_row = np.bincount([i for i, _, _ in _direct_by_hand(z, lo, hi, gain_of, route, None)], minlength=1)
    assert max(per_row) > 2  # some originals lose direct edges to the cap
    for kept in (True, False):
        cp = CandidatePairs(np.ascontiguousarray(z), lo, hi)
        cp.counts()
        if not kept:
            if cap is None:
                continue
            cp._multi = None  # as if the counting pass had found too many to keep
        (rows, cols, codes), _, truncated = direct_edges(cp, gain_of, route, cap)
        assert list(zip(rows.tolist(), cols.tolist(), codes.tolist())) == want
        assert truncated == (0 if cap is None else int((per_row > cap).sum()))


def test_capped_prl_on_blocks_is_exact_where_no_record_loses_a_direct_edge():
    x, y = _tied()
    full = prl(x, y, rng=np.random.default_rng(1))
    roomy = prl(x, y, rng=np.random.default_rng(1), max_candidates=x.shape[0])
    assert full.info["network"] == roomy.info["network"] == "blocks" and roomy.info["truncated"] == 0
    np.testing.assert_array_equal(roomy.links, full.links)
    np.testing.assert_array_equal(roomy.candidates, full.candidates)
    tight = prl(x, y, rng=np.random.default_rng(1), max_candidates=1)
    assert tight.info["network"] == "blocks" and tight.info["truncated"] > 0
    assert tight.info["arcs"] < full.info["arcs"] and tight.info["p"] == full.info["p"]
    assert _total_gain(tight) <= _total_gain(full) + 1e-9


def test_capped_prl_falls_back_to_capped_pairs_where_blocks_do_not_fit(monkeypatch):
    import sdcrisk.linkage.probabilistic as probabilistic

    x, y = _tied()
    limit = 100 * 4 * x.shape[0]  # below the block network's estimate, above 2 candidates per record
    monkeypatch.setattr(probabilistic, "check_memory",
                        lambda what, nbytes, hint="": (_ for _ in ()).throw(MemoryLimitError(what))
                        if nbytes > limit else None)
    capped = prl(x, y, rng=np.random.default_rng(1), max_candidates=2)
    assert capped.info["network"] == "pairs" and capped.info["arcs"] <= 2 * x.shape[0]
    with pytest.raises(MemoryLimitError):
        prl(x, y, rng=np.random.default_rng(1))


def test_agreement_blocks_cover_each_agreeing_pair_once():
    from sdcrisk.linkage.probabilistic import CandidatePairs, agreement_blocks, coincidence_intervals

    x, y = _tied(n=120, c=3)
    z, lo, hi = coincidence_intervals(x, y, "nearest")
    cp = CandidatePairs(np.ascontiguousarray(z), lo, hi)
    (rows, blocks, attr), (mblocks, mcols) = agreement_blocks(cp.order, cp.s, cp.e, [0, 1, 2])
    codes = _brute_codes(z, lo, hi)
    for j in range(3):
        got = [(int(i), int(l)) for i, b in zip(rows[attr == j], blocks[attr == j]) for l in mcols[mblocks == b]]
        assert len(got) == len(set(got))
        want = {(int(i), int(l)) for i, l in zip(*np.nonzero(codes & (1 << j)))}
        assert set(got) == want


def test_block_network_refused_where_a_block_would_overstate_a_pair():
    from sdcrisk.linkage.probabilistic import CandidatePairs, block_network, coincidence_intervals

    x, y = _tied(n=200, c=2)
    z, lo, hi = coincidence_intervals(x, y, "nearest")
    cp = CandidatePairs(np.ascontiguousarray(z), lo, hi)
    counts = cp.counts()
    assert counts[3] > 0  # some pairs agree on both attributes
    assert block_network(cp, counts, np.array([0.0, 2.0, 3.0, 5.0])) is not None
    # agreeing on attribute 0 lowers the weight: a pair agreeing on both is worth less than
    # attribute 1's block would give it
    assert block_network(cp, counts, np.array([0.0, -1.0, 3.0, 2.0])) is None


def test_prl_same_links_on_one_thread():
    import numba

    x, y = _tied(n=4096 * 3, c=3)
    runs = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        try:
            runs.append(prl(x, y, rng=np.random.default_rng(4)))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert runs[0].info["network"] == "blocks"
    np.testing.assert_array_equal(runs[0].links, runs[1].links)
    assert runs[0].info == runs[1].info


def test_pairs_agreeing_on_several_attributes_kept_or_found_by_a_second_pass():
    from sdcrisk.linkage.probabilistic import CandidatePairs, coincidence_intervals

    x, y = _tied(n=200, c=3)
    z, lo, hi = coincidence_intervals(x, y, "value", t=0.3)
    cp = CandidatePairs(np.ascontiguousarray(z), lo, hi)
    counts = cp.counts()
    codes = _brute_codes(z, lo, hi)
    rows, cols = np.nonzero((codes & (codes - 1)) != 0)  # two or more agreements, row-major
    assert rows.size == counts[[k for k in range(8) if bin(k).count("1") >= 2]].sum() > 0
    for _ in range(2):
        r, l, k = cp.multi
        np.testing.assert_array_equal(r, rows)
        np.testing.assert_array_equal(l, cols)
        np.testing.assert_array_equal(k, codes[rows, cols])
        cp._multi = None  # as if the counting pass had found too many to keep: a second pass


def test_heavily_tied_file_is_refused_up_front_with_the_estimate():
    """Values rounded to one decimal make every original agree with whole runs of equal masked
    values; above ``max_pairs`` agreement-range entries PRL refuses before walking any pair."""
    import time

    from sdcrisk.resources import MemoryLimitError, WorkLimitError

    rng = np.random.default_rng(5)
    x = np.round(rng.normal(size=(3000, 4)), 1)
    y = np.round(x + rng.normal(scale=0.5, size=x.shape), 1)
    t0 = time.perf_counter()
    with pytest.raises(WorkLimitError, match="refused up front") as info:
        prl(x, y, max_pairs=100_000)
    assert isinstance(info.value, MemoryLimitError) and time.perf_counter() - t0 < 5
    assert prl(x[:300], y[:300], max_pairs=100_000).links.shape == (300,)
