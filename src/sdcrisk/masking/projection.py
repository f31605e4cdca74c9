"""Projections of a block of attributes onto one coordinate (Nin, Herranz & Torra (2008, multivariate microaggregation) §3, Algorithm 2).

* ``"zscore"``: the sum of the block's z-scores, ``sum_j (x_ij - mean_j) / sd_j``;
* ``"pcp"``: the score on the first principal component of the standardised block,
  ``z_i . a_1`` with ``a_1`` the unit eigenvector of the block's correlation matrix for its
  largest eigenvalue (Nin, Herranz & Torra (2008, multivariate microaggregation) §3, Eqs. 1-4).

Standardisation uses the block's own means and sample (n - 1) standard deviations; a column
with zero spread (possible in a masked block) contributes z = 0 instead of failing.

Sign of ``a_1`` (an eigenvector is defined up to sign): ``a_1`` is oriented so that the sum of its
loadings is positive, i.e. the score correlates positively with the Zscore projection; when that
sum vanishes (|sum| <= 1e-9, e.g. v = 2 with a negative correlation), the first loading with
|a_j| > 1e-9 is made positive. Microaggregation does not depend on the sign up to ties (the
optimal partition of a reversed sequence is the reversed partition).
"""

from __future__ import annotations

import numpy as np

PROJECTIONS = ("pcp", "zscore")


def standardise(block: np.ndarray) -> np.ndarray:
    """Z-scores of each column (sample sd); zero-spread columns map to 0."""
    b = np.asarray(block, dtype=np.float64)
    if b.ndim == 1:
        b = b[:, None]
    sd = b.std(axis=0, ddof=1)
    sd = np.where(sd > 0, sd, 1.0)
    return (b - b.mean(axis=0)) / sd


def first_component(z: np.ndarray) -> np.ndarray:
    """Unit first principal axis of standardised data ``z`` (largest eigenvalue of its
    covariance, i.e. of the correlation matrix of the raw block), sign as in the module doc."""
    v = z.shape[1]
    if v == 1:
        return np.ones(1)
    cov = (z.T @ z) / (z.shape[0] - 1)
    _, vecs = np.linalg.eigh(cov)
    a = vecs[:, -1].copy()
    s = a.sum()
    if abs(s) > 1e-9:
        return a if s > 0 else -a
    first = a[np.flatnonzero(np.abs(a) > 1e-9)[0]]
    return a if first > 0 else -a


def project(block: np.ndarray, method: str) -> np.ndarray:
    """One projected value per record of ``block`` (n x v): ``method`` in ``{"pcp", "zscore"}``
    (Nin, Herranz & Torra (2008, multivariate microaggregation) §3). Returns a length-n float64 vector."""
    if method not in PROJECTIONS:
        raise ValueError(f"method must be one of {list(PROJECTIONS)}, got {method!r}")
    z = standardise(block)
    if method == "zscore":
        return z.sum(axis=1)
    return z @ first_component(z)


__all__ = ["PROJECTIONS", "project", "standardise", "first_component"]
