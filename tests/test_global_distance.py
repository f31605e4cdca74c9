"""Global distance-based record linkage (Herranz, Nin, Rodríguez & Tassa 2015): the exact
solver against a brute force over every permutation, the sparse solver against the exact one,
and its input checks."""

from itertools import permutations

import numpy as np
import pytest

from sdcrisk.linkage import dbrl, gdbrl
from functools import partial

from scipy.optimize import linear_sum_assignment

from sdcrisk.linkage import global_distance
from sdcrisk.linkage.assignment import assign_max_weight
from sdcrisk.linkage.distance import standardise
from sdcrisk.resources import MemoryLimitError


def _files(n, m=3, noise=0.5, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, m))
    return x, x + rng.normal(scale=noise, size=x.shape)


def _total(xs, ys, links, power):
    return float((np.sqrt(((xs - ys[links]) ** 2).sum(axis=1)) ** power).sum())


@pytest.mark.parametrize("cost,power", [("euclidean", 1), ("sqeuclidean", 2)])
def test_exact_is_the_minimum_over_every_permutation(cost, power):
    x, y = _files(7, seed=3)
    xs, ys = standardise(x, y)
    best = min(_total(xs, ys, np.array(p), power) for p in permutations(range(7)))
    res = gdbrl(x, y, cost=cost, method="exact")
    assert sorted(res.links) == list(range(7))
    assert _total(xs, ys, res.links, power) == pytest.approx(best, rel=1e-12)
    assert res.info["total_cost"] == pytest.approx(best, rel=1e-12)


def test_sparse_with_every_candidate_reaches_the_exact_optimum():
    x, y = _files(300, seed=1)
    exact = gdbrl(x, y, method="exact")
    sparse = gdbrl(x, y, method="sparse", candidates=300, approx=0.0)
    assert sparse.info["unmatched"] == 0
    assert sparse.info["total_cost"] == pytest.approx(exact.info["total_cost"], rel=1e-7)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_sparse_is_a_complete_one_to_one_assignment(k):
    x, y = _files(500, noise=1.0, seed=2)
    res = gdbrl(x, y, method="sparse", candidates=k)
    assert np.array_equal(np.sort(res.links), np.arange(500))
    exact = gdbrl(x, y, method="exact")
    assert res.info["total_cost"] >= exact.info["total_cost"] * (1 - 1e-9)


def test_unmasked_file_links_every_record():
    x, _ = _files(400, seed=5)
    assert gdbrl(x, x).percent_correct == 100.0
    assert gdbrl(x, x, method="sparse").percent_correct == 100.0


def test_links_are_one_to_one_unlike_dbrl():
    x, y = _files(400, noise=1.5, seed=5)
    assert np.unique(gdbrl(x, y).links).size == 400
    assert np.unique(dbrl(x, y).links).size < 400  # nearest neighbours collide on noisy data


@pytest.mark.parametrize("paths", [False, True])
def test_priced_assignment_is_the_optimum_of_the_priced_problem(monkeypatch, paths):
    # brute force: scipy's dense solver on every original's candidates at distance - price, its own
    # "no link" column at 0 and every other pair forbidden; the flow (paths False) and the
    # shortest augmenting paths must reach the same total gain, up to the integer units
    if paths:
        monkeypatch.setattr(global_distance, "assign_max_weight", partial(assign_max_weight, paths_min=1))
    x, y = _files(60, noise=1.0, seed=4)
    xs, ys = standardise(x, y)
    k = 4
    links, price = global_distance.priced_links(xs, ys, k, 0.0, "euclidean")
    d = np.sqrt(((xs[:, None, :] - ys[None, :, :]) ** 2).sum(axis=2))
    cand = np.argsort(d, axis=1, kind="stable")[:, :k]
    assert price == pytest.approx(np.median(np.take_along_axis(d, cand, axis=1)[:, -1]))
    big = 1e6
    c = np.full((60, 60 + 60), big)
    rows = np.repeat(np.arange(60), k)
    c[rows, cand.ravel()] = np.minimum(d[rows, cand.ravel()] - price, 0.0)
    c[np.arange(60), 60 + np.arange(60)] = 0.0
    r, col = linear_sum_assignment(c)
    best = -c[r, col].sum()
    linked = np.flatnonzero(links >= 0)
    assert np.unique(links[linked]).size == linked.size
    assert all(links[i] in cand[i] for i in linked)  # only candidate edges
    assert (price - d[linked, links[linked]]).sum() == pytest.approx(best, abs=60 * price * 1e-8)
    assert 0 < linked.size < 60  # the price leaves some unlinked here, and links most


def test_price_is_the_median_kth_distance_or_above_every_edge():
    dist = np.array([[0.1, 0.5], [0.2, 0.9], [0.3, 0.7]])
    assert global_distance.link_price(dist, 10) == pytest.approx(0.7)
    assert global_distance.link_price(dist, 2) > 0.9  # every masked record a candidate
    assert global_distance.link_price(np.full((3, 2), 0.4), 10) > 0.4  # no edge below the median


def test_bad_arguments_are_named(monkeypatch):
    x, y = _files(50)
    with pytest.raises(ValueError, match="method must be one of"):
        gdbrl(x, y, method="hungarian")
    with pytest.raises(ValueError, match="cost must be one of"):
        gdbrl(x, y, cost="manhattan")
    with pytest.raises(ValueError, match="candidates must be an integer"):
        gdbrl(x, y, method="sparse", candidates=0)
    with pytest.raises(ValueError, match="approx must be a number"):
        gdbrl(x, y, method="sparse", approx=-1)
    monkeypatch.setenv("SDCRISK_MEMORY_LIMIT", "10K")
    with pytest.raises(MemoryLimitError, match="exact 50 x 50 cost matrix"):
        gdbrl(x, y, method="exact")


def test_ties_are_broken_at_random_not_by_record_order():
    # groups of 4 identical masked records (univariate microaggregation by hand): every assignment
    # inside a group has the same total distance, so about 1 in 4 links is correct, whatever the
    # (aligned) record order
    x = np.sort(np.random.default_rng(3).normal(size=(400, 1)), axis=0)
    y = np.repeat(x.reshape(100, 4).mean(axis=1), 4)[:, None]
    for method in ("exact", "sparse"):
        res = gdbrl(x, y, method=method, rng=np.random.default_rng(0))
        groups_ok = (res.links // 4 == np.arange(400) // 4).mean()
        assert groups_ok > 0.95  # the optimum keeps records in their group
        assert 10 < res.percent_correct < 45
        again = gdbrl(x, y, method=method, rng=np.random.default_rng(0))
        assert np.array_equal(res.links, again.links)  # a seed gives one answer
