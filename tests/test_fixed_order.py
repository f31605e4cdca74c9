"""Kernel-independent linear algebra (sdcrisk.fixed_order) and the PCP projection built on it
(Nin, Herranz & Torra (2008, multivariate microaggregation) §3): results that cannot depend on the
BLAS/LAPACK kernel of the CPU."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sdcrisk.linkage.distance import dbrl
from sdcrisk.linkage.projected import projected_coordinates
from sdcrisk import fixed_order as fo
from sdcrisk.masking import mask
from sdcrisk.masking.projection import first_component, project, project_as, standardise


def _symmetric(rng, m):
    b = rng.standard_normal((m, m)) * rng.uniform(0.1, 10.0)
    return (b + b.T) / 2


@pytest.mark.parametrize("seed", range(40))
def test_jacobi_matches_lapack_on_random_symmetric_matrices(seed):
    rng = np.random.default_rng(seed)
    a = _symmetric(rng, int(rng.integers(1, 14)))
    values, vectors = fo.jacobi_eigh(a)
    ref_values, ref_vectors = np.linalg.eigh(a)
    scale = np.abs(ref_values).max()
    np.testing.assert_allclose(values, ref_values, rtol=1e-12, atol=1e-12 * scale)
    assert np.all(np.diff(values) >= 0)
    # eigenvectors equal up to sign (random spectra have no repeated eigenvalues)
    for j in range(a.shape[0]):
        v, r = vectors[:, j], ref_vectors[:, j]
        np.testing.assert_allclose(v * np.sign(v @ r), r, atol=1e-9)
    # orthonormal eigenvectors that diagonalise a
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(a.shape[0]), atol=1e-13)
    np.testing.assert_allclose(a @ vectors, vectors * values, atol=1e-12 * scale)


def test_jacobi_on_correlation_matrices_of_psd_data():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((200, 6)) @ rng.standard_normal((6, 6))
    r = fo.correlation(standardise(x))
    values, _ = fo.jacobi_eigh(r)
    np.testing.assert_allclose(values, np.linalg.eigvalsh(np.corrcoef(x, rowvar=False)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("r", [0.3, 0.999, 1e-8, -0.4])
def test_two_variables_give_exactly_one_over_sqrt_two(r):
    """With a unit diagonal the single rotation has theta = 0: both loadings are bit for bit
    equal in magnitude, 1/sqrt(2), whatever the correlation."""
    values, vectors = fo.jacobi_eigh([[1.0, r], [r, 1.0]])
    assert values.tolist() == [1.0 - abs(r), 1.0 + abs(r)]
    top = vectors[:, 1]
    c = 1.0 / math.sqrt(2.0)
    assert top[0] == c and abs(top[1]) == c
    assert top[1] == math.copysign(c, r)


def test_pcp_axis_of_two_columns_is_exact():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((500, 2)) @ np.array([[1.0, 0.7], [0.0, 1.3]])
    z = standardise(x)
    r = fo.correlation(z)
    assert r[0, 0] == r[1, 1] == 1.0 and r[0, 1] == r[1, 0]
    c = 1.0 / math.sqrt(2.0)
    assert first_component(z).tolist() == [c, c]
    assert first_component(z * np.array([1.0, -1.0])).tolist() == [c, -c]  # negative correlation


def test_canonical_sign():
    assert fo.canonical_sign([0.1, -0.9, 0.3]).tolist() == [-0.1, 0.9, -0.3]
    assert fo.canonical_sign([0.1, 0.9, -0.3]).tolist() == [0.1, 0.9, -0.3]
    # equal largest magnitudes: the lowest index decides
    assert fo.canonical_sign([-0.5, 0.5, 0.1]).tolist() == [0.5, -0.5, -0.1]
    assert fo.canonical_sign([0.0, -0.5, 0.5]).tolist() == [0.0, 0.5, -0.5]
    assert fo.canonical_sign([0.0, 0.0]).tolist() == [0.0, 0.0]
    # every eigenvector comes out canonical, whatever sign the rotations left it with
    rng = np.random.default_rng(11)
    _, vectors = fo.jacobi_eigh(_symmetric(rng, 7))
    for j in range(7):
        assert vectors[:, j].tolist() == fo.canonical_sign(vectors[:, j]).tolist()
        assert fo.canonical_sign(-vectors[:, j]).tolist() == vectors[:, j].tolist()


def test_first_component_sign_and_ties():
    rng = np.random.default_rng(5)
    z = standardise(rng.standard_normal((300, 4)) @ rng.standard_normal((4, 4)))
    a = first_component(z)
    assert math.fsum(a.tolist()) > 0
    # equal largest eigenvalues (uncorrelated identical spreads): the first position wins
    z = standardise(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]]))
    assert first_component(z).tolist() == [1.0, 0.0]


def test_projection_is_the_fixed_order_sum_bit_for_bit():
    rng = np.random.default_rng(2)
    block = rng.standard_normal((1000, 4)) @ rng.standard_normal((4, 4)) * 1e3
    z = standardise(block)
    a = first_component(z).tolist()
    by_hand = np.empty(z.shape[0])
    for i in range(z.shape[0]):
        s = z[i, 0] * a[0]
        for j in range(1, 4):
            s = s + z[i, j] * a[j]  # plain float arithmetic, columns ascending
        by_hand[i] = s
    p = project(block, "pcp")
    assert p.tobytes() == by_hand.tobytes()
    assert fo.rowdot(z, a).tobytes() == by_hand.tobytes()


def test_gram_covariance_and_dot_are_correctly_rounded():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((300, 3)) * np.array([1.0, 1e6, 1e-6])
    g = fo.gram(x)
    for i in range(3):
        for j in range(3):
            assert g[i, j] == math.fsum((x[:, i] * x[:, j]).tolist())
    np.testing.assert_allclose(fo.covariance(x), np.cov(x, rowvar=False), rtol=1e-12)
    assert fo.dot([1e16, 1.0, -1e16], [1.0, 1.0, 1.0]) == 1.0


def test_cholesky_and_forward_substitution():
    rng = np.random.default_rng(9)
    b = rng.standard_normal((6, 6))
    a = b @ b.T + 6 * np.eye(6)
    L = fo.cholesky(a)
    np.testing.assert_allclose(L, np.linalg.cholesky(a), rtol=1e-12, atol=1e-12)
    x = rng.standard_normal((50, 6))
    np.testing.assert_allclose(fo.solve_lower(L, x), np.linalg.solve(L, x.T).T, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="positive definite"):
        fo.cholesky([[1.0, 2.0], [2.0, 1.0]])


def test_project_as_uses_the_reference_scale_and_axis():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((200, 3)) @ rng.standard_normal((3, 3))
    y = x + rng.standard_normal(x.shape) * 0.1
    for method in ("pcp", "zscore"):
        np.testing.assert_allclose(project_as(x, x, method), project(x, method), rtol=0, atol=1e-12)
    mean, sd = x.mean(axis=0), x.std(axis=0, ddof=1)
    expected = fo.rowdot((y - mean) / sd, first_component(standardise(x)))
    assert project_as(y, x, "pcp").tobytes() == expected.tobytes()
    # the "original" Pro-RL coordinates: the masked block through the original's oriented projection
    cols = np.arange(3)
    px, py = projected_coordinates(x, y, [cols], "pcp", "original")
    xb, yb = x[:, cols], y[:, cols]  # the same slices (their layout decides numpy's summation order)
    sign = 1.0 if px[:, 0] @ project(xb, "pcp") > 0 else -1.0
    assert py[:, 0].tobytes() == (sign * project_as(yb, xb, "pcp")).tobytes()


def test_correlated_noise_has_the_requested_covariance():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20000, 3)) @ np.array([[2.0, 0.5, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 0.5]])
    y = mask("correlated_noise", x, rng=np.random.default_rng(1), a=0.5)
    np.testing.assert_allclose(np.cov(y - x, rowvar=False), 0.5 * np.cov(x, rowvar=False), atol=0.05)
    again = mask("correlated_noise", x, rng=np.random.default_rng(1), a=0.5)
    assert again.tobytes() == y.tobytes()


def test_mahalanobis_dbrl_whitens_without_lapack():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((300, 3)) @ np.array([[1.0, 0.8, 0.1], [0.0, 1.0, 0.4], [0.0, 0.0, 1.0]])
    y = x + rng.standard_normal(x.shape) * 0.2
    res = dbrl(x, y, metric="mahalanobis")
    xs, ys = standardise(x), standardise(y)
    inv = np.linalg.inv(np.cov(xs, rowvar=False))
    d = np.einsum("ikj,jl,ikl->ik", xs[:, None] - ys[None], inv, xs[:, None] - ys[None])
    assert (res.links == d.argmin(axis=1)).mean() > 0.99
    np.testing.assert_allclose(res.score, d.min(axis=1), rtol=1e-9)
    with pytest.raises(ValueError, match="singular"):
        dbrl(np.column_stack([x, x[:, 0] + x[:, 1]]), np.column_stack([y, y[:, 0]]), metric="mahalanobis")


def test_fsum_is_math_fsum():
    """The compiled correctly rounded sum gives ``math.fsum``'s float, sign of zero included, on
    sums with cancellation across the whole exponent range; it overflows where ``math.fsum`` does."""
    import math

    from sdcrisk.fixed_order import fsum

    g = np.random.default_rng(7)
    cases = [np.array([]), np.array([-0.0]), np.array([0.0, -0.0]), np.array([1e100, 1.0, -1e100, 1e-100]),
             np.array([1.0, 2.0**-53, 2.0**-106]), np.array([0.1] * 10), g.normal(size=100_000)]
    for _ in range(500):
        m = int(g.integers(1, 40))
        a = g.normal(size=m) * 10.0 ** g.integers(-300, 300, size=m)
        b = np.round(g.normal(size=m) * 2.0 ** g.integers(-60, 60, size=m), 3)
        cases += [np.concatenate([a, -a[: m // 2] * (1 + 2**-52)]), np.concatenate([b, -b, b[:3] * 2**-54])]
    for c in cases:
        got, want = fsum(c), math.fsum(c.tolist())
        assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
    with pytest.raises(OverflowError):
        fsum(np.array([1e308, 1e308, -1e308]))
    assert math.isnan(fsum(np.array([1.0, np.nan]))) and fsum(np.array([np.inf, 1.0])) == math.inf
