"""Projected record linkage (Pro-RL, Nin, Herranz & Torra (2008, multivariate microaggregation) Sec. 4.1)."""

from __future__ import annotations

import numpy as np
import pytest

from sdcrisk.linkage.projected import block_scenarios, projected_coordinates, projected_rl
from sdcrisk.masking import microaggregation as ma


def _blocks_stand_in(m: int, v: int) -> list[np.ndarray]:
    """Consecutive blocks of v attributes (the last one shorter)."""
    return [np.arange(s, min(s + v, m)) for s in range(0, m, v)]


def _project_stand_in(block: np.ndarray, method: str) -> np.ndarray:
    z = (block - block.mean(axis=0)) / block.std(axis=0, ddof=1)
    if method == "zscore":
        return z.sum(axis=1)
    _, vecs = np.linalg.eigh(np.atleast_2d(np.corrcoef(z, rowvar=False)))
    return z @ vecs[:, -1]


@pytest.fixture(autouse=True)
def microaggregation_helpers(monkeypatch):
    """Use the masking module's helpers once they exist; small stand-ins until then."""
    if not hasattr(ma, "attribute_blocks"):
        monkeypatch.setattr(ma, "attribute_blocks", _blocks_stand_in, raising=False)
    if not hasattr(ma, "project"):
        monkeypatch.setattr(ma, "project", _project_stand_in, raising=False)


@pytest.fixture
def six():
    """Six records, two blocks of two attributes; every column is a permutation of 1..6."""
    a = np.arange(1.0, 7.0)
    b = np.array([4.0, 1.0, 6.0, 2.0, 3.0, 5.0])
    c = np.array([2.0, 5.0, 1.0, 6.0, 4.0, 3.0])
    d = np.array([6.0, 4.0, 3.0, 1.0, 2.0, 5.0])
    return np.column_stack([a, b, c, d])


def test_hand_example_zscore_projection_sees_through_swaps(six):
    x = six
    # masked: the two attributes of each block exchanged within every record. Column means and
    # sds are unchanged, so each record's z-score sum per block is unchanged (block 0 sums
    # a + b = 5, 3, 9, 6, 8, 11 are distinct), while raw values move far.
    y = x[:, [1, 0, 3, 2]]
    for standardise in ("own", "original"):
        res = projected_rl(x, y, known_blocks=[0], v=2, projection="zscore", standardise=standardise)
        assert res.percent_correct == 100.0
    assert np.allclose(res.score, 0.0)
    # by hand: block 0 projected values are (a + b - 7) / sd with sd = sqrt(3.5)
    px, py = projected_coordinates(x, y, [np.array([0, 1])], "zscore", "original")
    sd = np.sqrt(3.5)
    assert np.allclose(px[:, 0], (x[:, 0] + x[:, 1] - 7.0) / sd)
    assert np.allclose(py[:, 0], px[:, 0])


def test_hand_example_nearest_projected_value(six):
    x = six
    y = x[:, [1, 0, 3, 2]].copy()
    # move masked record 0 of block 0 from sum 5 to sum 8.4. Sums of the masked file are then
    # 8.4, 3, 9, 6, 8, 11; original record 0 (sum 5) is nearest to masked record 3 (sum 6),
    # every other original keeps its exact partner (8 -> record 4 at 0, not 8.4).
    y[0, 0] += 3.4
    # the original's projection keeps the original scale: compare sums directly
    res = projected_rl(x, y, known_blocks=[0], v=2, projection="zscore", standardise="original")
    sums_x = x[:, 0] + x[:, 1]
    sums_y = y[:, 0] + y[:, 1]
    brute = np.array([np.argmin(np.abs(sums_y - s)) for s in sums_x])  # first argmin
    assert np.array_equal(res.links, brute)
    assert res.links.tolist() == [3, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("projection", ["pcp", "zscore"])
@pytest.mark.parametrize("standardise", ["original", "own"])
def test_unmasked_file_fully_linked(census, projection, standardise):
    res = projected_rl(census, census.copy(), v=3, projection=projection, standardise=standardise)
    assert res.percent_correct == 100.0


def test_permuting_masked_records_permutes_links(six):
    rng = np.random.default_rng(4)
    x = np.vstack([six, six * 1.5 + 0.3])  # 12 records
    y = x + rng.normal(scale=0.05, size=x.shape)
    perm = rng.permutation(x.shape[0])
    for standardise in ("own", "original"):
        base = projected_rl(x, y, v=2, projection="pcp", standardise=standardise)
        moved = projected_rl(x, y[perm], v=2, projection="pcp", standardise=standardise)
        assert np.array_equal(perm[moved.links], base.links)


def test_own_standardisation_orients_pcp_sign(six, monkeypatch):
    # a principal axis has an arbitrary sign: a projection that flips it on every other call must
    # not change the links
    inner = ma.project
    calls = []

    def flipping(block, method):
        calls.append(1)
        out = np.asarray(inner(block, method), dtype=float)
        return -out if len(calls) % 2 else out

    monkeypatch.setattr(ma, "project", flipping)
    for standardise in ("own", "original"):
        res = projected_rl(six, six.copy(), v=2, projection="pcp", standardise=standardise)
        assert res.percent_correct == 100.0


def test_block_scenarios():
    assert block_scenarios(13, 3) == [list(range(j)) for j in range(2, len(ma.attribute_blocks(13, 3)) + 1)]


@pytest.mark.parametrize("kwargs, word", [
    ({"v": 0}, "v"),
    ({"v": 5}, "v"),
    ({"v": 2, "known_blocks": [2]}, "known_blocks"),
    ({"v": 2, "known_blocks": []}, "known_blocks"),
    ({"v": 2, "known_blocks": [0, 0]}, "known_blocks"),
    ({"v": 2, "projection": "pca"}, "projection"),
    ({"v": 2, "standardise": "both"}, "standardise"),
])
def test_bad_parameters(six, kwargs, word):
    with pytest.raises(ValueError, match=word):
        projected_rl(six, six, **kwargs)
