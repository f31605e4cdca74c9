"""PRL-graded (sdcrisk.linkage.graded): Fellegi-Sunter with graded levels, properties only."""

from __future__ import annotations

import numpy as np
import pytest

from sdcrisk.attacks import ATTACKS, KNOWN_ATTRIBUTE_ATTACKS, run_attack
from sdcrisk.linkage import prl, prl_graded
from sdcrisk.linkage.base import checked_links
from sdcrisk.linkage.graded import _all_pair_margins, _pair_codes, decode
from sdcrisk.linkage.probabilistic import ConvergenceWarning
from sdcrisk.masking import mask
from sdcrisk.resources import MemoryLimitError


def synthetic(n: int = 600, c: int = 6, seed: int = 1) -> np.ndarray:
    """Correlated lognormal attributes, 3 decimals (some ties)."""
    rng = np.random.default_rng(seed)
    chol = np.linalg.cholesky(0.5 * np.eye(c) + 0.5)
    return np.round(np.exp(rng.standard_normal((n, c)) @ chol.T), 3)


def test_links_valid_and_identity_links_everything():
    x = synthetic()
    res = checked_links(prl_graded(x, x.copy()), "PRL-graded", x.shape[0], x.shape[0])
    assert res.links.dtype == np.int64
    assert res.percent_correct > 99.0
    assert res.info["converged"] is True and res.info["iterations"] >= 1
    linked = res.links >= 0
    assert np.isfinite(res.score[linked]).all()
    assert np.unique(res.links[linked]).size == linked.sum()  # one-to-one


def test_rank_swapping_links_far_more_than_binary_prl():
    x = synthetic(800)
    y = mask("rankswap", x, np.random.default_rng(3), p=5)
    graded = prl_graded(x, y)
    binary = prl(x, y)  # the papers' rule: nearest value
    assert graded.percent_correct > binary.percent_correct + 50.0
    assert graded.percent_correct > 80.0


@pytest.mark.parametrize("method, params", [("mdav", {"v": 3, "k": 3}), ("additive_noise", {"a": 0.1}),
                                            ("individual_ranking_ma", {"k": 3})])
def test_other_maskings_link_well_above_chance(method, params):
    x = synthetic(600)
    y = mask(method, x, np.random.default_rng(4), **params)
    res = prl_graded(x, y)
    assert res.info["converged"]
    assert res.percent_correct > 30.0  # chance: 1 / 600


def test_not_converged_is_flagged():
    x = synthetic(300)
    y = mask("rankswap", x, np.random.default_rng(3), p=5)
    with pytest.warns(ConvergenceWarning):
        res = prl_graded(x, y, max_iter=1)
    assert res.info["converged"] is False and res.info["iterations"] == 1


def test_blocks_restrict_links_to_equal_codes():
    x = synthetic(600)
    y = mask("rankswap", x, np.random.default_rng(5), p=5)
    rng = np.random.default_rng(6)
    bx = rng.integers(0, 4, x.shape[0])
    by = bx.copy()
    flip = rng.random(by.size) < 0.1  # the masked file's codes differ for some records
    by[flip] = rng.integers(0, 4, flip.sum())
    res = prl_graded(x, y, blocks=(bx, by))
    linked = res.links >= 0
    assert np.all(bx[linked] == by[res.links[linked]])
    assert res.info["comparison_pairs"] == sum(int((bx == b).sum()) * int((by == b).sum()) for b in range(4))
    same = prl_graded(x, y, blocks=np.vstack([bx, by]))
    assert np.array_equal(same.links, res.links)
    assert res.correct[~flip].mean() > 0.8 and not res.correct[flip & (bx != by)].any()


def test_categorical_compared_by_agreement():
    rng = np.random.default_rng(7)
    x = synthetic(500, c=4)
    code = rng.integers(0, 5, x.shape[0]).astype(float)
    xc = np.column_stack([x, code])
    y = mask("additive_noise", x, np.random.default_rng(8), a=0.5)
    yc = np.column_stack([y, code])
    cat = np.array([False] * 4 + [True])
    res = prl_graded(xc, yc, categorical=cat)
    assert res.info["converged"]
    m, u = res.info["m"], res.info["u"]
    assert m[4, 0] > 0.9 and u[4, 0] < 0.5  # agreement on the code: matches agree, non-matches rarely
    assert np.all(m[4, 1:-1] <= 1e-8)  # no intermediate levels for a categorical attribute
    without = prl_graded(x, y)
    assert res.percent_correct > without.percent_correct
    with pytest.raises(ValueError, match="categorical"):
        prl_graded(xc + 0.5, yc + 0.5, categorical=cat)


def test_margins_exact_against_brute_force():
    x = synthetic(120, c=3)
    y = mask("rankswap", x, np.random.default_rng(9), p=10)
    y[:10, 0] = x[:10, 0]
    from scipy.stats import rankdata

    r2x = np.rint(2 * rankdata(x, axis=0)).astype(np.int64)
    r2y = np.rint(2 * rankdata(y, axis=0)).astype(np.int64)
    thr = np.floor(2 * np.array([1.0, 5.0, 20.0]) * 120 / 100).astype(np.int64)
    rng = np.random.default_rng(10)
    bx, by = rng.integers(0, 3, 120), rng.integers(0, 3, 120)
    cat = np.zeros(3, dtype=bool)
    margin, total, _ = _all_pair_margins(x, y, r2x, r2y, bx, by, cat, thr, 5)
    rows, cols = np.nonzero(bx[:, None] == by[None, :])
    codes = np.empty(rows.size, dtype=np.int64)
    _pair_codes(rows, cols, x, y, r2x, r2y, cat, thr, 5, codes)
    g = decode(codes, 3, 5)
    assert total == rows.size
    for j in range(3):
        assert np.array_equal(margin[j], np.bincount(g[:, j], minlength=5))


def test_memory_refusal(monkeypatch):
    x = synthetic(300)
    monkeypatch.setenv("SDCRISK_MEMORY_LIMIT", "64K")
    with pytest.raises(MemoryLimitError, match="PRL-graded"):
        prl_graded(x, x.copy())


def test_deterministic_and_rng_checked():
    x = synthetic(400)
    y = mask("mdav", x, None, v=3, k=3)
    a, b = prl_graded(x, y), prl_graded(x, y)
    assert np.array_equal(a.links, b.links) and np.array_equal(a.score, b.score)
    with pytest.raises(ValueError, match="rng"):
        prl_graded(x, y, rng=1)
    with pytest.raises(ValueError, match="levels"):
        prl_graded(x, y, levels=(5.0, 1.0))


def test_registered_attack():
    assert "PRL-graded" in ATTACKS and "PRL-graded" in KNOWN_ATTRIBUTE_ATTACKS
    x = synthetic(300)
    y = mask("rankswap", x, np.random.default_rng(3), p=5)
    res = run_attack("PRL-graded", x, y, np.arange(3), 2, np.random.Generator(np.random.PCG64(0)))
    assert res.links.shape == (300,)


def test_shortest_paths_reach_the_flows_total_weight(monkeypatch):
    """From PATHS_MIN originals the assignment runs by shortest augmenting paths: the same total
    weight as the flow's on one rank-swapped file (links may differ among equal-weight optima)."""
    from sdcrisk.linkage import assignment

    x = synthetic(assignment.PATHS_MIN, 4, seed=3)
    y = mask("rankswap", x, np.random.default_rng(2), p=5)
    paths = prl_graded(x, y, neighbours=4)
    monkeypatch.setattr(assignment, "PATHS_MIN", x.shape[0] + 1)
    flow = prl_graded(x, y, neighbours=4)
    w_else = flow.score[flow.links < 0].max(initial=paths.score[paths.links < 0].max(initial=0.0))

    def total(res):
        linked = res.links >= 0
        assert np.unique(res.links[linked]).size == linked.sum()
        return np.rint((res.score[linked] - w_else) * 1e6).sum()

    assert (paths.links < 0).any() or (flow.links < 0).any()  # w_else is read off an unlinked record
    assert total(paths) == total(flow)
    assert np.mean(paths.links == flow.links) > 0.99
