"""Projections of a block of attributes onto one coordinate (Nin, Herranz & Torra (2008, multivariate microaggregation) §3, Algorithm 2).

* ``"zscore"``: the sum of the block's z-scores, ``sum_j (x_ij - mean_j) / sd_j``;
* ``"pcp"``: the score on the first principal component of the standardised block,
  ``z_i . a_1`` with ``a_1`` the unit eigenvector of the block's correlation matrix for its
  largest eigenvalue (Nin, Herranz & Torra (2008, multivariate microaggregation) §3, Eqs. 1-4).

Standardisation uses the block's own means and sample (n - 1) standard deviations; a column
with zero spread (possible in a masked block) contributes z = 0 instead of failing.

Sign of ``a_1`` (an eigenvector is defined up to sign): ``a_1`` is oriented so that the sum of its
loadings is positive, i.e. the score correlates positively with the Zscore projection; when that
sum vanishes (|sum| <= 1e-9, e.g. v = 2 with a negative correlation), the loading of largest
magnitude is made positive (the lowest index among equal magnitudes). Microaggregation does not
depend on the sign up to ties (the optimal partition of a reversed sequence is the reversed
partition).

The same on every CPU: ``a_1`` and the scores decide the order of the records, and with v = 2
``a_1`` is exactly (1, 1)/sqrt(2) (or (1, -1)/sqrt(2)), so the scores of different records tie
(records whose z-scores have equal sums) and a last-bit difference reorders them. None of it goes
through BLAS or LAPACK, whose rounding depends on the CPU kernel (EIA, v = 2, k = 5 linked 129 or
131 records depending on the CPU with ``numpy.linalg.eigh`` and ``z @ a``): the correlation matrix
is built from correctly rounded sums with an exactly unit diagonal, ``a_1`` comes from a cyclic
Jacobi solver in plain float arithmetic, ties among the largest eigenvalues go to the lowest
position, and the scores are summed over the columns in ascending order (:mod:`sdcrisk.fixed_order`).
"""

from __future__ import annotations

import math

import numpy as np

from ..fixed_order import canonical_sign, correlation, jacobi_eigh, rowdot

PROJECTIONS = ("pcp", "zscore")


def _moments(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and sample sds of ``b`` (n x v), zero sds replaced by 1."""
    sd = b.std(axis=0, ddof=1)
    return b.mean(axis=0), np.where(sd > 0, sd, 1.0)


def _as_block(block) -> np.ndarray:
    b = np.asarray(block, dtype=np.float64)
    return b[:, None] if b.ndim == 1 else b


def standardise(block: np.ndarray) -> np.ndarray:
    """Z-scores of each column (sample sd); zero-spread columns map to 0."""
    b = _as_block(block)
    mean, sd = _moments(b)
    return (b - mean) / sd


def first_component(z: np.ndarray) -> np.ndarray:
    """Unit first principal axis of standardised data ``z`` (eigenvector of the correlation
    matrix of the raw block for its largest eigenvalue; Nin, Herranz & Torra (2008, multivariate
    microaggregation) §3, Eqs. 1-4), sign as in the module doc. Computed without BLAS/LAPACK
    (:func:`sdcrisk.fixed_order.correlation`, :func:`sdcrisk.fixed_order.jacobi_eigh`): the same bits on every CPU."""
    v = z.shape[1]
    if v == 1:
        return np.ones(1)
    values, vectors = jacobi_eigh(correlation(z))
    top = int(np.flatnonzero(values == values[-1])[0])  # equal largest eigenvalues: the first
    a = vectors[:, top].copy()
    s = math.fsum(a.tolist())
    if abs(s) > 1e-9:
        return a if s > 0 else -a
    return canonical_sign(a)


def scores(z: np.ndarray, a) -> np.ndarray:
    """``z @ a`` summed over the columns in ascending order without BLAS (:func:`sdcrisk.fixed_order.rowdot`)."""
    return rowdot(z, a)


def project(block: np.ndarray, method: str) -> np.ndarray:
    """One projected value per record of ``block`` (n x v): ``method`` in ``{"pcp", "zscore"}``
    (Nin, Herranz & Torra (2008, multivariate microaggregation) §3). Returns a length-n float64 vector."""
    if method not in PROJECTIONS:
        raise ValueError(f"method must be one of {list(PROJECTIONS)}, got {method!r}")
    z = standardise(block)
    if method == "zscore":
        return z.sum(axis=1)
    return scores(z, first_component(z))


def project_as(block: np.ndarray, reference: np.ndarray, method: str) -> np.ndarray:
    """``block`` (n x v) through the projection of ``reference`` (n' x v): the reference's means,
    sample sds and, for ``"pcp"``, its first principal axis (Nin, Herranz & Torra (2008,
    multivariate microaggregation) §3), so both files live on one scale. A column with zero spread
    in ``reference`` contributes 0. ``project_as(x, x, method)`` equals ``project(x, method)``
    except that a zero-spread column of ``x`` counts exactly 0. No BLAS/LAPACK (module doc)."""
    if method not in PROJECTIONS:
        raise ValueError(f"method must be one of {list(PROJECTIONS)}, got {method!r}")
    ref, b = _as_block(reference), _as_block(block)
    if b.shape[1] != ref.shape[1]:
        raise ValueError(f"block has {b.shape[1]} columns, reference {ref.shape[1]}")
    mean, sd = _moments(ref)
    z = (b - mean) / sd
    z[:, ref.std(axis=0, ddof=1) == 0] = 0.0
    if method == "zscore":
        return z.sum(axis=1)
    return scores(z, first_component(standardise(ref)))


__all__ = ["PROJECTIONS", "project", "project_as", "standardise", "first_component", "scores"]
