"""The work the attacks share on one pair of files (:mod:`sdcrisk.linkage.shared`): the
nearest-record search of DBRL, RS-RL and L-RL, the masked file's sorted columns and k-d tree of
RS-RL and L-RL, the ranks of RBRL-Sum, RBRL-Max and PRL-graded and the rank tree of RBRL: the same
links, scores and tie credits whether each attack computes for itself or reads what another wrote,
on continuous and heavily tied files; one entry per pair of arrays; the search's exact tie count
against a brute force."""

from __future__ import annotations

import numpy as np
import pytest

from sdcrisk.attacks import run_attack
from sdcrisk.linkage import neighbours, shared
from sdcrisk.linkage.neighbours import KDTree

SHARERS = ("RS-RL(p<=20%)", "L-RL(MA)", "DBRL")


def _files(n: int, m: int, decimals: int | None, seed: int = 0):
    g = np.random.default_rng(seed)
    x = g.lognormal(size=(n, m)) @ (np.eye(m) + 0.3)
    y = x + g.normal(scale=0.3, size=x.shape)
    if decimals is not None:
        x, y = np.round(x, decimals), np.round(y, decimals)
    perm = g.permutation(n)
    truth = np.empty(n, dtype=np.int64)
    truth[perm] = np.arange(n)
    return x, y[perm], truth


@pytest.fixture
def directory(tmp_path, monkeypatch):
    monkeypatch.setattr(shared, "SHARE_MIN", 1)
    shared.use_directory(tmp_path / "shared")
    yield tmp_path / "shared"
    shared.use_directory(None)


def _attacks(x, y, truth, known):
    return {name: run_attack(name, x, y, known, 2, np.random.default_rng(1), truth=truth) for name in SHARERS}


@pytest.mark.parametrize("decimals", [None, 1])
@pytest.mark.parametrize("known", [[0, 1, 2, 3], [1, 3]])
def test_shared_search_gives_each_attack_its_own_result(directory, monkeypatch, decimals, known):
    x, y, truth = _files(600, 4, decimals)
    known = np.array(known)
    shared.use_directory(None)
    alone = _attacks(x, y, truth, known)
    shared.use_directory(directory)
    searches = []
    real = KDTree.search
    monkeypatch.setattr(KDTree, "search", lambda self, a: searches.append(1) or real(self, a))
    together = _attacks(x, y, truth, known)
    assert len(searches) == 1  # the first attack searched, the other two read its result
    assert len(list(directory.glob("nearest-*[!k]"))) == 1
    for name in SHARERS:
        a, b = alone[name], together[name]
        np.testing.assert_array_equal(a.links, b.links)
        np.testing.assert_array_equal(a.score.view(np.int64), b.score.view(np.int64))
        np.testing.assert_array_equal(a.credit, b.credit)


RANKERS = ("RBRL-Sum", "RBRL-Max", "PRL-graded")


@pytest.mark.parametrize("decimals", [None, 1])
def test_shared_ranks_and_trees_give_each_attack_its_own_result(directory, monkeypatch, decimals):
    """Each file ranked once and each tree built once for all the attacks that use it."""
    x, y, truth = _files(500, 4, decimals, seed=3)
    known = np.arange(4)
    names = RANKERS + SHARERS
    shared.use_directory(None)
    alone = {name: run_attack(name, x, y, known, 2, np.random.default_rng(1), truth=truth) for name in names}
    shared.use_directory(directory)
    builds = []
    real = KDTree.__init__
    monkeypatch.setattr(KDTree, "__init__", lambda self, b, *args, **kw: builds.append(b.shape) or real(self, b, *args, **kw))
    together = {name: run_attack(name, x, y, known, 2, np.random.default_rng(1), truth=truth) for name in names}
    assert len(list(directory.glob("ranks-average-*[!k]"))) == 2  # the two files, ranked once each
    assert len(list(directory.glob("sorted-*[!k]"))) == 1
    # built: the rank tree (once for both RBRL), PRL-graded's own, and RS-RL's and L-RL's, one
    # tree here as both attacks' keys coincide (their bounds are all boundaries of runs of ties)
    assert len(builds) == 3
    for name in names:
        a, b = alone[name], together[name]
        np.testing.assert_array_equal(a.links, b.links)
        np.testing.assert_array_equal(np.asarray(a.score).view(np.int64), np.asarray(b.score).view(np.int64))
        np.testing.assert_array_equal(a.credit, b.credit)


def test_tree_from_its_state_answers_as_the_tree(directory):
    x, y, _ = _files(400, 3, 0, seed=4)
    keys = np.argsort(np.argsort(y, axis=0, kind="stable"), axis=0)
    for k, unique in ((None, True), (keys, True), (None, False)):
        built = KDTree(y, k, unique=unique)
        again = shared.tree(y, k, unique=unique)  # built and written
        mapped = shared.tree(y, k, unique=unique)  # read back
        for t in (again, mapped):
            for f in KDTree.ARRAYS:
                np.testing.assert_array_equal(getattr(t, f), getattr(built, f))
            np.testing.assert_array_equal(t.query(x, "sqeuclidean")[0], built.query(x, "sqeuclidean")[0])
            if not unique:
                np.testing.assert_array_equal(t.knn(x, 3)[1], built.knn(x, 3)[1])


def test_one_entry_per_pair_of_files(directory):
    x, y, truth = _files(300, 3, 1)
    shared.nearest_search(x, y)
    shared.nearest_search(x, y)
    shared.nearest_search(x[:, :2], y[:, :2])
    shared.nearest_search(x, y[::-1])
    assert len([p for p in directory.iterdir() if p.is_dir()]) == 3
    assert not list(directory.glob("*.partial"))


@pytest.mark.parametrize("decimals", [None, 0])
def test_search_counts_every_row_at_the_kernel_minimum(decimals):
    """``counted``: the masked rows at exactly the kernel's minimum (its sequential sum), identical
    rows included, from a brute force with the same arithmetic; ``links`` the lowest of them."""
    x, y, _ = _files(400, 3, decimals, seed=2)
    y = np.vstack([y, y[:50]])  # duplicate rows: stored once, counted with their multiplicity
    found = KDTree(y).search(x)
    d = np.zeros((x.shape[0], y.shape[0]))
    for j in range(x.shape[1]):
        d += (x[:, j, None] - y[None, :, j]) ** 2
    best = d.min(axis=1)
    np.testing.assert_array_equal(found.dist, best)
    np.testing.assert_array_equal(found.counted, (d == best[:, None]).sum(axis=1))
    np.testing.assert_array_equal(found.links, np.argmax(d == best[:, None], axis=1))
    # the candidates for rescoring: every row within the brute force's tolerance
    tol = neighbours.REL_TOL * ((x * x).sum(axis=1) + (y * y).sum(axis=1).max())
    near = d <= (best + tol)[:, None]
    weight = np.zeros(y.shape[0], dtype=np.int64)
    weight[found.cols] = found.weight
    got = np.bincount(found.rows, weights=found.weight, minlength=x.shape[0])
    np.testing.assert_array_equal(got, near.sum(axis=1))


def test_no_room_for_the_entry_leaves_each_attack_its_own_search(directory, monkeypatch):
    x, y, truth = _files(300, 3, None)
    real = np.save

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "save", full)
    first = shared.nearest_search(x, y)
    monkeypatch.setattr(np, "save", real)
    assert [p.suffix for p in directory.iterdir()] == [".lock"]  # neither an entry nor a partial one
    np.testing.assert_array_equal(first.links, KDTree(y).search(x).links)


def test_an_entry_that_would_fill_the_directory_is_not_written(directory, monkeypatch):
    """Every attack computes for itself where an entry would leave less than shared.ROOM free."""
    import collections

    x, y, truth = _files(300, 3, None)
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(shared.shutil, "disk_usage", lambda path: usage(2 * shared.ROOM, shared.ROOM, shared.ROOM))
    first = shared.nearest_search(x, y)
    ranks = shared.kept("ranks", (x,), ("r",), lambda: {"r": np.arange(3)})
    assert not [p for p in directory.iterdir() if p.suffix != ".lock"]
    np.testing.assert_array_equal(first.links, KDTree(y).search(x).links)
    np.testing.assert_array_equal(ranks["r"], np.arange(3))
