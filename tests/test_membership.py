"""Membership inference (:mod:`sdcrisk.criteria.membership`) against brute-force references.

Every figure is checked against code written here from the definitions: the AUC against a
pairwise count, DeLong's variance against its structural components summed pair by pair, TPR at a
false-positive rate against a scan of every threshold, the exact bootstrap against resampling the
records, the scores against all pairwise distances, the density attack's jackknife against
rescoring with each control removed. Calibration: a release that is the members with 1 % noise is
found (AUC near 1); a release drawn independently of members and controls gives AUC intervals that
contain 0.5 in at least 94 % of 200 simulations.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import digamma
from scipy.spatial.distance import cdist

from sdcrisk.criteria.membership import (
    DCR_ATTACK,
    DENSITY_ATTACK,
    auc_delong,
    density_jackknife,
    membership_inference,
    score_membership,
    tpr_at_fpr,
    tpr_at_fpr_bootstrap,
)


def _h(a, b):
    return 1.0 if a > b else 0.5 if a == b else 0.0


def _pairs(pos, neg):
    return np.array([[_h(a, b) for b in neg] for a in pos])


@pytest.mark.parametrize("seed", range(5))
def test_auc_equals_pairwise_count(seed):
    rng = np.random.default_rng(seed)
    pos = np.round(rng.normal(0.3, 1, 37), 1)  # rounded: many ties, within and across the groups
    neg = np.round(rng.normal(0, 1, 23), 1)
    auc, low, high, _ = auc_delong(pos, neg)
    assert auc == pytest.approx(_pairs(pos, neg).mean(), abs=1e-12)
    assert 0 <= low <= auc <= high <= 1


@pytest.mark.parametrize("seed", range(5))
def test_delong_variance_equals_structural_components(seed):
    rng = np.random.default_rng(100 + seed)
    pos = np.round(rng.normal(0.5, 1, 29), 1)
    neg = np.round(rng.normal(0, 1, 41), 1)
    h = _pairs(pos, neg)
    v10, v01 = h.mean(axis=1), h.mean(axis=0)  # DeLong, DeLong & Clarke-Pearson (1988), eq. (2)-(4)
    s10 = ((v10 - v10.mean()) ** 2).sum() / (len(pos) - 1)
    s01 = ((v01 - v01.mean()) ** 2).sum() / (len(neg) - 1)
    auc, low, high, var = auc_delong(pos, neg)
    assert var == pytest.approx(s10 / len(pos) + s01 / len(neg), rel=1e-12)
    assert (low, high) == pytest.approx((auc - 1.959963984540054 * var ** 0.5, auc + 1.959963984540054 * var ** 0.5))


def _tpr_brute(pos, neg, alpha):
    best = 0.0
    for t in np.concatenate([[-np.inf], pos, neg]):
        if np.sum(neg > t) <= alpha * len(neg) + 1e-9:
            best = max(best, np.mean(pos > t))
    return best


@pytest.mark.parametrize("alpha", [0.001, 0.01, 0.05, 0.2])
@pytest.mark.parametrize("seed", range(3))
def test_tpr_at_fpr_is_the_best_threshold(alpha, seed):
    rng = np.random.default_rng(200 + seed)
    pos = np.round(rng.normal(1, 1, 150), 1)
    neg = np.round(rng.normal(0, 1, 300), 1)
    assert tpr_at_fpr(pos, neg, alpha) == _tpr_brute(pos, neg, alpha)


def test_exact_bootstrap_matches_resampling():
    rng = np.random.default_rng(7)
    pos = np.round(rng.normal(1.5, 1, 300), 2)
    neg = np.round(rng.normal(0, 1, 400), 2)
    exact = tpr_at_fpr_bootstrap(pos, neg, 0.01, 20000, np.random.default_rng(1))
    r = np.random.default_rng(2)
    resampled = np.array([tpr_at_fpr(r.choice(pos, pos.size), r.choice(neg, neg.size), 0.01) for _ in range(4000)])
    assert exact.mean() == pytest.approx(resampled.mean(), abs=0.01)
    assert exact.std() == pytest.approx(resampled.std(), rel=0.08)
    assert np.percentile(exact, [2.5, 97.5]) == pytest.approx(np.percentile(resampled, [2.5, 97.5]), abs=0.03)


def _brute_scores(m, c, r, k):
    pooled = np.concatenate([m, c])
    mean, sd = pooled.mean(axis=0), pooled.std(axis=0)
    m, c, r = (m - mean) / sd, (c - mean) / sd, (r - mean) / sd
    q = np.concatenate([m, c])
    n1, n0, d = len(m), len(c), m.shape[1]
    to_r = np.sort(cdist(q, r), axis=1)
    to_c = cdist(q, c)
    to_c[np.arange(n1, n1 + n0), np.arange(n0)] = np.inf  # a control is not its own reference
    to_c = np.sort(to_c, axis=1)
    ref = np.r_[np.full(n1, n0), np.full(n0, n0 - 1)]
    const = digamma(ref + 1.0) - digamma(len(r) + 1.0)
    density = d * (np.log(to_c[:, k - 1]) - np.log(to_r[:, k - 1])) + const
    return to_r[:, 0], to_r[:, 0] / to_r[:, 1], density, const


@pytest.mark.parametrize("k", [1, 3])
def test_scores_equal_brute_force(k):
    rng = np.random.default_rng(11)
    m, c, r = rng.normal(size=(60, 4)), rng.normal(size=(45, 4)), rng.normal(size=(70, 4)) * 1.3
    s = score_membership(m, c, r, k=k)
    dcr, nndr, density, _ = _brute_scores(m, c, r, k)
    np.testing.assert_allclose(s.dcr, dcr, rtol=1e-9)
    np.testing.assert_allclose(-s.attack[DCR_ATTACK], dcr, rtol=1e-9)
    np.testing.assert_allclose(s.nndr, nndr, rtol=1e-9)
    np.testing.assert_allclose(s.attack[DENSITY_ATTACK], density, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("k", [1, 2])
def test_density_jackknife_equals_rescoring(k):
    """Each control left out in turn, every score recomputed from the distances (the size term of
    the full files kept, as documented), the AUC recounted; members left out likewise."""
    rng = np.random.default_rng(12 + k)
    m, c, r = rng.normal(size=(25, 3)), rng.normal(size=(20, 3)), rng.normal(size=(30, 3))
    pooled = np.concatenate([m, c])
    mean, sd = pooled.mean(axis=0), pooled.std(axis=0)
    zm, zc, zr = (m - mean) / sd, (c - mean) / sd, (r - mean) / sd
    n1, n0, d = len(m), len(c), 3
    _, _, density, const = _brute_scores(m, c, r, k)
    log_rr = np.log(np.sort(cdist(np.concatenate([zm, zc]), zr), axis=1)[:, k - 1])
    auc = _pairs(density[:n1], density[n1:]).mean()
    a0 = []
    for j in range(n0):
        keep = np.arange(n0) != j
        dc = cdist(np.concatenate([zm, zc[keep]]), zc[keep])
        dc[np.arange(n1, n1 + n0 - 1), np.arange(n0 - 1)] = np.inf
        rows = np.r_[np.arange(n1), n1 + np.flatnonzero(keep)]
        s = d * (np.log(np.sort(dc, axis=1)[:, k - 1]) - log_rr[rows]) + const[rows]
        a0.append(_pairs(s[:n1], s[n1:]).mean())
    a1 = [_pairs(np.delete(density[:n1], i), density[n1:]).mean() for i in range(n1)]
    a0, a1 = np.array(a0), np.array(a1)
    var = (n1 - 1) / n1 * ((a1 - a1.mean()) ** 2).sum() + (n0 - 1) / n0 * ((a0 - a0.mean()) ** 2).sum()
    got_auc, _, _, got_var = density_jackknife(score_membership(m, c, r, k=k))
    assert got_auc == pytest.approx(auc, abs=1e-12)
    assert got_var == pytest.approx(var, rel=1e-9)


def test_release_of_noisy_members_is_found():
    rng = np.random.default_rng(21)
    m, c = rng.normal(size=(2000, 6)), rng.normal(size=(1000, 6))
    release = m + 0.01 * rng.normal(size=m.shape)  # the members, 1 % noise (standard-normal columns)
    res = membership_inference(m, c, release, bootstrap=200)
    for row in res.rows:
        assert row.auc > 0.99 and row.auc_low > 0.98, row
        assert row.tpr_1pct > 0.9 and row.tpr_01pct > 0.9, row
    dcr = res.diagnostics[0]
    assert dcr.label == "diagnostic only" and dcr.members_median < dcr.controls_median / 10


@pytest.mark.slow
@pytest.mark.parametrize("n_controls", [100, 200])
def test_independent_release_auc_interval_covers_half(n_controls):
    """200 simulations, 200 members, 200 release records drawn independently of both groups."""
    rng = np.random.default_rng(31 + n_controls)
    n1, nr, sims = 200, 200, 200
    covered = np.zeros(2)
    for s in range(sims):
        x = rng.normal(size=(n1 + n_controls + nr, 4))
        res = membership_inference(x[:n1], x[n1:n1 + n_controls], x[n1 + n_controls:], bootstrap=50, seed=s)
        covered += [row.auc_low <= 0.5 <= row.auc_high for row in res.rows]
    assert np.all(covered / sims >= 0.94), covered / sims


def _good(rng, n=20, m=3):
    return rng.normal(size=(n, m))


@pytest.mark.parametrize("case,match", [
    ("columns", "same columns; members has 3, controls 4, release 3"),
    ("nan", "controls has a NaN or infinite value"),
    ("one", "release must hold at least 2 records"),
    ("constant", "column 1 is constant over members and controls"),
    ("shape", "members must be a 2-d array"),
    ("text", "members must be a numeric array"),
    ("k", "k = 5 needs at least 7 controls"),
])
def test_bad_inputs_raise_one_line(case, match):
    rng = np.random.default_rng(0)
    m, c, r = _good(rng), _good(rng), _good(rng)
    kw = {}
    if case == "columns":
        c = _good(rng, m=4)
    elif case == "nan":
        c[3, 2] = np.nan
    elif case == "one":
        r = r[:1]
    elif case == "constant":
        m[:, 1] = 2.0
        c[:, 1] = 2.0
    elif case == "shape":
        m = m[:, 0]
    elif case == "text":
        m = [["a", "b", "c"], ["d", "e", "f"]]
    elif case == "k":
        c, kw = c[:6], {"k": 5}
    with pytest.raises(ValueError, match=match) as e:
        membership_inference(m, c, r, **kw)
    assert "\n" not in str(e.value)
