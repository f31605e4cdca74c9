"""The sample attacks' search pieces (sdcrisk.linkage.sample): the rank kernel, and the short first
lists widened only for the records whose list is full of ties. Every number is checked against a
brute force written here (naive loops over the records)."""

import numpy as np
import pytest

from sdcrisk.linkage.sample import (GDBRL_CANDIDATES, NEAREST, RANK_NEAREST, OriginalSearch, _block_ranks,
                                    _ranks_by_keys, ranks_in_original, sample_dbrl, sample_rbrl)


def _brute_doubled_ranks(z, blocks):
    """Twice the average rank within the block: 2 x (values below) + (values equal) + 1."""
    n, m = z.shape
    b = np.zeros(n, dtype=np.int64) if blocks is None else blocks
    out = np.empty((n, m), dtype=np.int64)
    for i in range(n):
        same = b == b[i]
        for j in range(m):
            col = z[same, j]
            out[i, j] = 2 * int((col < z[i, j]).sum()) + int((col == z[i, j]).sum()) + 1
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("keys", [False, True])
def test_block_ranks_are_the_brute_force(seed, keys):
    """Doubled average ranks within blocks (unused block codes among them), with ties, -0.0 beside
    0.0 (equal values) and a constant column."""
    rng = np.random.Generator(np.random.PCG64(seed))
    n = int(rng.integers(1, 300))
    z = np.column_stack([rng.integers(-3, 4, size=n).astype(float), rng.normal(size=n), np.full(n, 2.5),
                         rng.choice([0.0, -0.0, 1.0], size=n)])
    blocks = rng.choice([0, 2, 5, 6], size=n) if keys else None
    got = _block_ranks(z, blocks)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, _brute_doubled_ranks(z, blocks))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("keys", [False, True])
def test_ranks_in_original_are_the_brute_force(seed, keys):
    """Released values ranked among the original's values of their block: original values their
    doubled average ranks, released ones ``(below) + (at or below) + 1`` counted by brute force,
    with ties, copies of original values, values outside the original's range (infinities among
    them), -0.0 beside 0.0, and released records of a block the original lacks (rank 1)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    big, n = int(rng.integers(1, 300)), int(rng.integers(1, 80))
    x = np.column_stack([rng.integers(-3, 4, size=big).astype(float), rng.normal(size=big), np.full(big, 2.5),
                         rng.choice([0.0, -0.0, 1.0, np.inf], size=big)])
    y = np.column_stack([rng.integers(-5, 6, size=n).astype(float), rng.normal(size=n),
                         rng.choice([2.5, 2.0, 3.0], size=n), rng.choice([-0.0, 0.0, 0.5, -np.inf, np.inf], size=n)])
    copies = rng.integers(0, big, size=n // 2)
    y[:copies.size] = x[copies]
    bx = rng.choice([0, 2, 5], size=big) if keys else np.zeros(big, np.int64)
    by = rng.choice([0, 2, 5, 6], size=n) if keys else np.zeros(n, np.int64)
    xo, yo = ranks_in_original(x, y, (bx, by) if keys else None)
    assert xo.dtype == yo.dtype == np.float64
    np.testing.assert_array_equal(xo, _brute_doubled_ranks(x, bx if keys else None))
    for i in range(n):
        col = x[bx == by[i]]
        for j in range(x.shape[1]):
            assert yo[i, j] == int((col[:, j] < y[i, j]).sum()) + int((col[:, j] <= y[i, j]).sum()) + 1
    assert (yo[by == 6] == 1).all()


def test_ranks_in_original_with_nan_keep_the_integer_keys():
    """Values with NaN go through the integer keys over both files' values (:func:`_ranks_by_keys`)."""
    rng = np.random.Generator(np.random.PCG64(3))
    x, y = rng.integers(0, 5, size=(50, 2)).astype(float), rng.integers(0, 5, size=(10, 2)).astype(float)
    y[0, 1] = np.nan
    blocks = (rng.integers(0, 2, size=50), rng.integers(0, 2, size=10))
    for got, want in zip(ranks_in_original(x, y, blocks), _ranks_by_keys(x, y, blocks)):
        np.testing.assert_array_equal(got, want)


def _equal_records_files(seed, equal):
    """An original of 200 records in 2 blocks, ``equal`` of them identical (block 0), and a release of
    30 records with noise, 6 of them exact copies of the identical record (their lists are full)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    x = rng.integers(0, 5, size=(200, 3)).astype(float)
    bx = np.r_[np.zeros(100, np.int64), np.ones(100, np.int64)]
    x[:equal] = [2.5, 2.5, 2.5]  # no other record equals it
    rows = np.r_[rng.choice(equal, size=6, replace=False), rng.choice(np.arange(equal, 200), size=24, replace=False)]
    y = x[rows] + np.r_[np.zeros((6, 3)), rng.integers(-1, 2, size=(24, 3))]
    return x, y, rows, (bx, bx[rows])


@pytest.mark.parametrize("equal", [GDBRL_CANDIDATES + 3, NEAREST + 5])
def test_dbrl_short_list_widened_is_the_brute_force(equal):
    """A first list of GDBRL_CANDIDATES (8) full of equal records: listed again with NEAREST, and
    beyond that searched by the box query; link, 1/t credit and ratio as the brute force's."""
    x, y, rows, blocks = _equal_records_files(1, equal)
    search = OriginalSearch(x, y, blocks)
    res = sample_dbrl(x, y, rows, blocks, near=search.knn(GDBRL_CANDIDATES), search=search)
    assert res.info["searched_again"] == (6 if equal > NEAREST else 0)
    for i in range(rows.size):
        allowed = np.flatnonzero(blocks[0] == blocks[1][i])
        dist = ((y[i] - x[allowed]) ** 2).sum(axis=1)
        best = allowed[dist == dist.min()]
        assert res.links[i] == best[0]
        assert res.credit[i] == pytest.approx(1.0 / best.size if rows[i] in best else 0.0)
        two = np.sqrt(np.sort(dist)[:2])
        assert res.ratio[i] == pytest.approx(1.0 if two[1] == 0 else two[0] / two[1])
    assert np.all(res.credit[:6] == pytest.approx(1.0 / equal))


@pytest.mark.parametrize("criterion,combine", [("sum", np.sum), ("max", np.max)])
@pytest.mark.parametrize("equal", [RANK_NEAREST + 5, NEAREST + 5])
def test_rbrl_short_list_widened_is_the_brute_force(criterion, combine, equal):
    """A first list of RANK_NEAREST (2) tied records, one search shared by both criteria: widened to
    NEAREST, and beyond that the box query; link, 1/t credit and ratio as the brute force's."""
    x, y, rows, blocks = _equal_records_files(2, equal)
    metric = "l1" if criterion == "sum" else "linf"
    search = OriginalSearch(x, y, blocks)
    res = sample_rbrl(x, y, rows, criterion, blocks, near=search.knn(RANK_NEAREST, metric), search=search)
    for i in range(rows.size):
        allowed = np.flatnonzero(blocks[0] == blocks[1][i])
        dist = np.array([combine(np.abs(y[i] - x[j])) for j in allowed])
        best = allowed[dist == dist.min()]
        assert res.links[i] == best[0]
        assert res.credit[i] == pytest.approx(1.0 / best.size if rows[i] in best else 0.0)
        two = np.sort(dist)[:2]
        assert res.ratio[i] == pytest.approx(1.0 if two[1] == 0 else two[0] / two[1])
    assert res.info["searched_again"] >= (6 if equal > NEAREST else 0)


def test_shared_trees_give_the_same_rows_in_any_attack_order():
    """The scenario's trees are shared and let go between attacks (sdcrisk.assess.sample): RBRL
    between DBRL and GDBRL, or RBRL-Sum and RBRL-Max apart, give every attack the row and the
    precision-recall table it has alone."""
    import pandas as pd

    from sdcrisk.assess.pairing import pair_sample
    from sdcrisk.assess.sample import assess_sample

    rng = np.random.Generator(np.random.PCG64(9))
    o = pd.DataFrame(rng.integers(0, 6, size=(300, 3)).astype(float), columns=["a", "b", "c"])
    o.insert(0, "rid", np.arange(300))
    o["k"] = rng.choice(["p", "q", "r"], size=300)
    rows = rng.choice(300, size=60, replace=False)
    m = o.iloc[rows].reset_index(drop=True)
    m[["a", "b", "c"]] += np.round(rng.normal(scale=0.5, size=(60, 3)), 1)
    pair = pair_sample(o, m, o["rid"], m["rid"], "rid", ["a", "b", "c", "k"], None, ("original", "masked"))
    sets = [[0, 1, 2, 3]]
    cols = ["measure", "linked", "percent", "note"]
    alone = {a: assess_sample(pair, sets, [a], attacks=[a], information_loss=False) for a in
             ("DBRL", "RBRL-Sum", "RBRL-Max", "GDBRL")}
    for order in (["RBRL-Sum", "DBRL", "RBRL-Max", "GDBRL"], ["GDBRL", "RBRL-Max", "DBRL", "RBRL-Sum"]):
        got = assess_sample(pair, sets, order, attacks=order, information_loss=False)
        for a in order:
            want = alone[a]
            pd.testing.assert_frame_equal(got[got.measure == a][cols].reset_index(drop=True),
                                          want[cols].reset_index(drop=True))
            pr = [pd.DataFrame(p["rows"]) for p in got.attrs["sample"]["precision_recall"] if p["attack"] == a]
            wpr = [pd.DataFrame(p["rows"]) for p in want.attrs["sample"]["precision_recall"]]
            assert len(pr) == len(wpr) == 1 and pr[0].equals(wpr[0])  # NaN precision where none kept


@pytest.mark.parametrize("seed", range(6))
def test_lapjvsp_is_scipys_matching(seed):
    """The sparse assignment solver gives scipy's matching itself on rectangular graphs, with tied
    integer costs (where the order in which columns are taken decides among equal optima) and
    with real costs; a graph without a full matching raises as scipy does."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    from sdcrisk.linkage.sample import _full_matching

    rng = np.random.Generator(np.random.PCG64(seed))
    for _ in range(20):
        nr = int(rng.integers(1, 60))
        nc = nr + int(rng.integers(1, 40))
        k = int(rng.integers(1, 6))
        rows = np.repeat(np.arange(nr), k)
        cols = rng.integers(0, nc, size=rows.size)
        cost = rng.integers(1, 4, size=rows.size).astype(float) if seed % 2 else 1.0 + rng.random(rows.size)
        sub = csr_matrix((cost, (rows, cols)), shape=(nr, nc))
        try:
            want = min_weight_full_bipartite_matching(sub)
        except ValueError:
            with pytest.raises(ValueError):
                _full_matching(sub)
            continue
        got = _full_matching(sub)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
