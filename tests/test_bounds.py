"""An attack's upper bound (sdcrisk.attacks.BOUNDS): never below what the attack links, and the
default set of ``sdcrisk assess`` skips the attack only where the bound cannot raise the headline."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sdcrisk.assess import assess, report
from sdcrisk.linkage.probabilistic import prl, prl_bound


def _hand_swap(x: np.ndarray, rng: np.random.Generator, window: int) -> np.ndarray:
    """A rank swap written here (not the package's): each value trades places with one at most
    ``window`` ranks above it."""
    y = x.copy()
    n = x.shape[0]
    for j in range(x.shape[1]):
        o = np.argsort(x[:, j], kind="stable")
        v = x[o, j].copy()
        for i in range(n):
            k = min(n - 1, i + int(rng.integers(0, window + 1)))
            v[i], v[k] = v[k], v[i]
        y[o, j] = v
    return y


def _hand_groups(x: np.ndarray, k: int) -> np.ndarray:
    """Univariate microaggregation written here: each attribute's sorted values replaced by the
    mean of consecutive groups of ``k`` (many equal masked values: PRL's ties)."""
    y = np.empty_like(x)
    for j in range(x.shape[1]):
        o = np.argsort(x[:, j], kind="stable")
        v = x[o, j]
        means = np.repeat([g.mean() for g in np.array_split(v, max(1, len(v) // k))],
                          [len(g) for g in np.array_split(v, max(1, len(v) // k))])
        y[o, j] = means
    return y


@pytest.mark.parametrize("masking", ["swap", "groups", "noise", "identity"])
@pytest.mark.parametrize("coincidence", ["nearest", "rank", "value"])
def test_prl_links_correctly_only_where_the_bound_allows(masking, coincidence):
    rng = np.random.default_rng([7, len(masking), len(coincidence)])
    n = 300
    x = np.round(rng.standard_normal((n, 4)), 1)
    y = {"swap": lambda: _hand_swap(x, rng, 15), "groups": lambda: _hand_groups(x, 3),
         "noise": lambda: x + 0.3 * rng.standard_normal(x.shape), "identity": lambda: x.copy()}[masking]()
    perm = rng.permutation(n)
    truth = np.empty(n, dtype=np.int64)
    truth[perm] = np.arange(n)
    res = prl(x, y[perm], coincidence=coincidence, rng=np.random.default_rng(1))
    bound = prl_bound(x, y[perm], truth, coincidence=coincidence)
    assert set(np.unique(bound)) <= {0.0, 1.0}
    correct = res.links == truth
    assert not np.any(correct & (bound == 0)), "PRL linked a record the bound said it could not"
    assert bound.sum() >= correct.sum()
    if coincidence == "value":  # agreement within 0.05 sd of the original column, by hand
        sd = x.std(axis=0, ddof=1)
        by_hand = (np.abs(x - y) <= 0.05 * sd).any(axis=1)
        assert np.array_equal(bound.astype(bool), by_hand)
    if masking == "identity":
        assert bound.sum() == n


@pytest.mark.slow
def test_default_set_skips_prl_only_below_the_headline(monkeypatch):
    from sdcrisk.assess import assessment

    monkeypatch.setenv("SDCRISK_WORKER_MIN", "400")  # the workers on a small file
    monkeypatch.setattr(assessment, "BOUND_MIN", 400)  # and the bound
    rng = np.random.default_rng(11)
    n = 600
    x = np.round(rng.standard_normal((n, 5)), 2)
    y = _hand_swap(x, rng, 30)
    cols = [f"v{j}" for j in range(5)]
    X, Y = pd.DataFrame(x, columns=cols), pd.DataFrame(y, columns=cols)
    default = assess(X, Y, information_loss=False)
    every = assess(X, Y, attacks=["all"], information_loss=False)
    prl_row = default[default.measure == "PRL"].iloc[0]
    assert np.isnan(prl_row.percent) and prl_row.note.startswith("at most")
    truth = np.arange(n)
    bound_pct = 100 * prl_bound(x, y, truth).sum() / n
    assert f"at most {bound_pct:.3g} %" in prl_row.note
    full = every[every.measure == "PRL"].iloc[0]
    assert full.percent <= bound_pct  # the bound holds against the full attack
    top = report.headline(default).iloc[0]
    top_all = report.headline(every).iloc[0]
    assert top.max_linked_percent == top_all.max_linked_percent and top.worst_attack == top_all.worst_attack
    assert bound_pct <= top.max_linked_percent
    status = report.missing_rows(default).set_index("measure").status
    assert status["PRL"] == report.BOUNDED
    # the gate decides: a bounded attack never leaves it undecided
    assert report.gate(default, top.max_linked_percent + 1)["status"] == report.PASS
    assert report.gate(default, top.max_linked_percent - 1)["status"] == report.FAIL
    named = assess(X, Y, attacks=["PRL", "RBRL-Max"], information_loss=False)
    assert np.isfinite(named[named.measure == "PRL"].iloc[0].percent)  # named: run to the end
    monkeypatch.delenv("SDCRISK_WORKER_MIN")  # in this process: the same rows
    local = assess(X, Y, information_loss=False)
    pd.testing.assert_frame_equal(default.drop(columns="seconds"), local.drop(columns="seconds"))
    monkeypatch.setattr(assessment, "BOUND_MIN", n + 1)  # a smaller file than the bound's: run to the end
    small = assess(X, Y, information_loss=False)
    assert np.isfinite(small[small.measure == "PRL"].iloc[0].percent)


@pytest.mark.parametrize("decimals", [0, 1, 2, None])
def test_prl_memory_counts_the_entries_prl_walks(decimals):
    from sdcrisk.linkage.probabilistic import _BYTES_PER_EDGE, CandidatePairs, coincidence_intervals, prl_memory

    rng = np.random.default_rng(3)
    x = rng.standard_normal((2000, 3))
    y = x + 0.5 * rng.standard_normal(x.shape)
    if decimals is not None:
        x, y = np.round(x, decimals), np.round(y, decimals)
    z, lo, hi = coincidence_intervals(x, y)
    pairs = CandidatePairs(np.ascontiguousarray(z), lo, hi)
    entries = float((pairs.e - pairs.s).sum())
    assert prl_memory(x, y) == pytest.approx(_BYTES_PER_EDGE * entries)


def test_the_workers_schedule_prl_by_its_tied_memory():
    from sdcrisk.assess.assessment import _data_bytes, pair_files
    from sdcrisk.linkage.probabilistic import prl_memory

    rng = np.random.default_rng(4)
    x = np.round(rng.standard_normal((3000, 3)), 1)
    y = np.round(x + 0.5 * rng.standard_normal(x.shape), 1)
    cols = ["a", "b", "c"]
    pair = pair_files(pd.DataFrame(x, columns=cols), pd.DataFrame(y, columns=cols))
    tasks = [("RBRL-Max", [0, 1, 2]), ("PRL", [0, 1, 2]), ("PRL", [0, 2])]
    got = _data_bytes(tasks, pair)
    assert set(got) == {1, 2}
    assert got[1] == prl_memory(x, y) and got[2] == prl_memory(x[:, [0, 2]], y[:, [0, 2]])
    assert got[1] > 2380.0 * 3000  # tied: far above the per-record figure measured on untied values
