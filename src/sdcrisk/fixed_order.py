"""Small linear algebra in a fixed order of floating-point operations, the same on every CPU.

Numpy's ``@``/``dot``/``cov`` go through BLAS and ``numpy.linalg`` through LAPACK, whose rounding
depends on the kernel OpenBLAS picks for the CPU (AVX-512, AVX2, SSE3, ...): the summation order
and blocking of ``gemm``/``gemv`` and the Householder steps of ``syevd`` differ between kernels.
A last-bit difference is harmless for a value but not for a decision: in PCP microaggregation
(Nin, Herranz & Torra (2008, multivariate microaggregation) §3, Algorithm 2) the records are
sorted by their projection on the first principal component, and with v = 2 that component is
exactly (1, 1)/sqrt(2), so projections of different records tie and the kernel's last bit
reordered them (EIA, v = 2, k = 5 gave 129 or 131 linked records depending on the CPU).

Everything here is written with IEEE operations whose result does not depend on the CPU:
elementwise numpy arithmetic (one correctly rounded operation per element), correctly rounded
sums (:func:`fsum`, compiled, ``math.fsum``'s result) and plain Python float arithmetic, each in a
fixed order. Nothing goes
through BLAS or LAPACK. The matrices are small (m x m, m the number of attributes), so the
Python loops cost microseconds; the per-record work (:func:`rowdot`, :func:`solve_lower`) is a
fixed sequence of elementwise vector operations.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_MAX_SWEEPS = 100


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """``sum_i a_i b_i`` of two vectors: elementwise products, correctly rounded sum (:func:`fsum`)."""
    return fsum(np.multiply(a, b, dtype=np.float64))


def fsum(values: np.ndarray) -> float:
    """``math.fsum`` of a float64 array: the correctly rounded sum, so the same float as
    ``math.fsum`` (:func:`_msum`, 8 times faster on 10^6 values: the information loss's
    covariances at 1,000,000 x 10 took 8 s); non-finite values or an intermediate overflow go to
    ``math.fsum`` itself."""
    v = np.ascontiguousarray(values, dtype=np.float64).ravel()
    total = _msum(v, np.empty(_PARTIALS))
    return total if math.isfinite(total) else math.fsum(v.tolist())


_PARTIALS = 64  # non-overlapping partials of finite doubles: at most about 2098 / 53 = 40


@njit(cache=True, nogil=True)
def _msum(v, partials):
    """Shewchuk's exact summation into non-overlapping partials, then their correctly rounded
    total, as CPython's ``math.fsum`` does (its ``msum`` and final half-even correction); NaN
    where an input or a partial is not finite (the caller then asks ``math.fsum``)."""
    n = 0
    for t in range(v.shape[0]):
        x = v[t]
        if not np.isfinite(x):
            return np.nan
        i = 0
        for k in range(n):
            y = partials[k]
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo != 0.0:
                partials[i] = lo
                i += 1
            x = hi
        if not np.isfinite(x):
            return np.nan
        n = i
        if x != 0.0:  # as CPython: no zero partial (so the sum of -0.0 alone is 0.0)
            partials[n] = x
            n += 1
    if n == 0:
        return 0.0
    n -= 1
    hi = partials[n]
    lo = 0.0
    while n > 0:
        x = hi
        n -= 1
        y = partials[n]
        hi = x + y
        yr = hi - x
        lo = y - yr
        if lo != 0.0:
            break
    if n > 0 and ((lo < 0.0 and partials[n - 1] < 0.0) or (lo > 0.0 and partials[n - 1] > 0.0)):
        y = lo * 2.0
        x = hi + y
        yr = x - hi
        if y == yr:
            hi = x
    return hi


def rowdot(x: np.ndarray, w) -> np.ndarray:
    """``x @ w`` for ``x`` (n x m) and ``w`` (m,) without BLAS: per record
    ``(...((x_i0 w_0 + x_i1 w_1) + x_i2 w_2) + ...)``, columns in ascending order, one elementwise
    product and one elementwise sum per column."""
    x = np.asarray(x, dtype=np.float64)
    w = [float(c) for c in np.asarray(w, dtype=np.float64).ravel()]
    if x.ndim != 2 or x.shape[1] != len(w):
        raise ValueError(f"x must be (n, {len(w)}), got shape {x.shape}")
    if not w:
        return np.zeros(x.shape[0])
    out = x[:, 0] * w[0]
    for j in range(1, len(w)):
        out = out + x[:, j] * w[j]
    return out


def gram(x: np.ndarray) -> np.ndarray:
    """``x.T @ x`` (m x m) without BLAS: entry (i, j) is ``math.fsum`` of the elementwise products
    of columns i and j (correctly rounded, so independent of any summation order)."""
    x = np.asarray(x, dtype=np.float64)
    m = x.shape[1]
    cols = [np.ascontiguousarray(x[:, j]) for j in range(m)]
    g = np.empty((m, m))
    for i in range(m):
        for j in range(i, m):
            g[i, j] = g[j, i] = dot(cols[i], cols[j])
    return g


def covariance(x: np.ndarray, ddof: int = 1) -> np.ndarray:
    """Covariance matrix of the columns of ``x`` (n x m), ``np.cov(x, rowvar=False, ddof=ddof)``
    computed without BLAS (:func:`gram` of the centred columns divided by ``n - ddof``)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    return gram(x - x.mean(axis=0)) / (x.shape[0] - ddof)


def correlation(z: np.ndarray) -> np.ndarray:
    """Correlation matrix of the columns of ``z`` (n x m, centred, e.g. z-scores):
    ``S_ij / sqrt(S_ii S_jj)`` with ``S`` the :func:`gram` matrix, unit diagonal exactly; a column
    of zeros has a zero row and column (diagonal 0)."""
    s = gram(z)
    m = s.shape[0]
    r = np.zeros((m, m))
    for i in range(m):
        if s[i, i] > 0:
            r[i, i] = 1.0
        for j in range(i + 1, m):
            if s[i, i] > 0 and s[j, j] > 0:
                r[i, j] = r[j, i] = float(s[i, j]) / math.sqrt(float(s[i, i]) * float(s[j, j]))
    return r


def canonical_sign(v) -> np.ndarray:
    """``v`` or ``-v``: the one whose component of largest absolute value is positive (among
    components of equal largest magnitude, the one with the lowest index). The zero vector is
    returned unchanged."""
    v = np.array(v, dtype=np.float64).ravel()
    if v.size == 0:
        return v
    mags = np.abs(v)
    j = int(np.flatnonzero(mags == mags.max())[0])
    return -v if v[j] < 0 else v


def jacobi_eigh(a, sweeps: int = _MAX_SWEEPS) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (ascending) and unit eigenvectors (columns) of the symmetric matrix ``a``, by the
    cyclic Jacobi method in plain Python float arithmetic: the result is the same on every CPU,
    unlike ``numpy.linalg.eigh`` (LAPACK).

    Sweeps rotate the pairs (p, q), p < q, in row order; the rotation annihilating ``a_pq`` has
    ``theta = (a_qq - a_pp) / (2 a_pq)``, ``t = sign(theta) / (|theta| + sqrt(theta^2 + 1))``
    (``sign(0) = +1``, the smaller rotation), ``c = 1 / sqrt(t^2 + 1)``, ``s = t c``. An entry is
    set to zero once it no longer changes either diagonal entry it rotates (100 |a_pq| below half
    an ulp of both). So for ``[[1, r], [r, 1]]`` the single rotation has ``theta = 0``,
    ``c = s = 1 / sqrt(2)`` exactly, and the eigenvectors are ``(c, c)`` and ``(c, -c)`` with
    components of exactly equal magnitude.

    Order: ascending eigenvalues, equal eigenvalues by their diagonal position (a fixed order).
    Sign: each eigenvector by :func:`canonical_sign`.
    """
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"a must be a square matrix, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError("a must be finite")
    if not np.array_equal(a, a.T):
        raise ValueError("a must be symmetric")
    m = a.shape[0]
    A = [[float(a[i, j]) for j in range(m)] for i in range(m)]
    V = [[1.0 if i == j else 0.0 for j in range(m)] for i in range(m)]
    for _ in range(sweeps):
        if all(A[p][q] == 0.0 for p in range(m) for q in range(p + 1, m)):
            break
        for p in range(m - 1):
            for q in range(p + 1, m):
                apq = A[p][q]
                if apq == 0.0:
                    continue
                app, aqq = A[p][p], A[q][q]
                g = 100.0 * abs(apq)
                if abs(app) + g == abs(app) and abs(aqq) + g == abs(aqq):
                    A[p][q] = A[q][p] = 0.0
                    continue
                theta = (aqq - app) / (2.0 * apq)
                if abs(theta) > 1e150:
                    t = 0.5 / theta  # theta^2 would overflow; t = 1 / (2 theta) to full precision
                else:
                    t = 1.0 / (abs(theta) + math.sqrt(theta * theta + 1.0))
                    if theta < 0.0:
                        t = -t
                c = 1.0 / math.sqrt(t * t + 1.0)
                s = t * c
                A[p][p] = app - t * apq
                A[q][q] = aqq + t * apq
                A[p][q] = A[q][p] = 0.0
                for k in range(m):
                    if k != p and k != q:
                        akp, akq = A[k][p], A[k][q]
                        A[k][p] = A[p][k] = c * akp - s * akq
                        A[k][q] = A[q][k] = s * akp + c * akq
                for k in range(m):
                    vkp, vkq = V[k][p], V[k][q]
                    V[k][p] = c * vkp - s * vkq
                    V[k][q] = s * vkp + c * vkq
    else:
        if any(A[p][q] != 0.0 for p in range(m) for q in range(p + 1, m)):
            raise RuntimeError(f"jacobi_eigh: no convergence in {sweeps} sweeps")
    order = sorted(range(m), key=lambda j: (A[j][j], j))
    values = np.array([A[j][j] for j in order])
    vectors = np.empty((m, m))
    for col, j in enumerate(order):
        vectors[:, col] = canonical_sign([V[k][j] for k in range(m)])
    return values, vectors


def cholesky(a) -> np.ndarray:
    """Lower-triangular ``L`` with ``L L^T = a`` (symmetric positive definite ``a``), the
    Cholesky-Banachiewicz recurrence in plain Python floats with ``math.fsum`` for the inner sums.
    Raises ``ValueError`` if a pivot is not positive."""
    a = np.asarray(a, dtype=np.float64)
    m = a.shape[0]
    L = [[0.0] * m for _ in range(m)]
    for i in range(m):
        for j in range(i + 1):
            s = float(a[i, j]) - math.fsum(L[i][k] * L[j][k] for k in range(j))
            if i == j:
                if not s > 0.0:
                    raise ValueError("cholesky: the matrix is not positive definite")
                L[i][i] = math.sqrt(s)
            else:
                L[i][j] = s / L[j][j]
    return np.array(L).reshape(m, m)


def solve_lower(L, x: np.ndarray) -> np.ndarray:
    """``W`` with ``W L^T = x`` for the records (rows) of ``x`` (n x m), i.e. ``w_i = L^-1 x_i``,
    by forward substitution in a fixed order: ``w_k = (x_k - sum_{j<k} L_kj w_j) / L_kk`` with the
    sum taken over ascending j, elementwise over the records."""
    L = np.asarray(L, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    m = L.shape[0]
    if x.ndim != 2 or x.shape[1] != m:
        raise ValueError(f"x must be (n, {m}), got shape {x.shape}")
    w = np.empty_like(x)
    for k in range(m):
        acc = x[:, k].copy()
        for j in range(k):
            acc = acc - float(L[k, j]) * w[:, j]
        w[:, k] = acc / float(L[k, k])
    return w


__all__ = ["dot", "rowdot", "gram", "covariance", "correlation", "canonical_sign", "jacobi_eigh",
           "cholesky", "solve_lower"]
