"""Noise masking (Muralidhar & Domingo-Ferrer 2016, Muralidhar & Domingo-Ferrer (2016) §4).

* independent additive noise  y_ij = x_ij + e_ij,  e_ij ~ N(0, (a sigma_j)^2)
  (a scales the *standard deviation*: only this reading reproduces Table 1; scaling the variance
  links up to 49 points fewer, ``research/noise_scale.py``);
* correlated noise  y_i = x_i + e_i,  e_i ~ N(0, a Sigma)  (covariance a times Sigma_XX);
* multiplicative noise  y_ij = x_ij * e_ij,  e_ij ~ U(1 - b, 1 + b).

sigma_j and Sigma use the sample (n - 1) normalisation.
"""
# The published rows the choices recorded in this module's docstrings were compared with
# (docs/calibration.yaml; the check makes them calibration rows):
# compares: [{paper: muralidhar2016_rank_rl, tables: [T1]}]


from __future__ import annotations

import numpy as np

from ..fixed_order import covariance, jacobi_eigh, rowdot
from .registry import Param, per_value, register

_A = Param("a", "real", low=0.0, high=10.0, low_open=True, doc="perturbation level a > 0")
_B = Param("b", "real", low=0.0, high=1.0, low_open=True, doc="perturbation level b in (0, 1]")


@register("additive_noise", _A, family="noise", randomised=True, memory=per_value(17, 16))
def additive_noise(x: np.ndarray, rng: np.random.Generator, *, a: float) -> np.ndarray:
    """Independent additive noise N(0, a*sigma_j) per attribute (Muralidhar & Domingo-Ferrer (2016) §4, Table 1)."""
    sigma = x.std(axis=0, ddof=1)
    return x + rng.standard_normal(x.shape) * (a * sigma)


@register("correlated_noise", _A, family="noise", randomised=True, memory=per_value(27, 16))
def correlated_noise(x: np.ndarray, rng: np.random.Generator, *, a: float) -> np.ndarray:
    """Correlated additive noise N(0, a*Sigma_XX) (Muralidhar & Domingo-Ferrer (2016) §4, text after Table 1).

    Drawn as ``numpy.random.Generator.multivariate_normal(..., method="eigh")`` does (one block
    of n x m standard normals ``g``, noise ``g @ (U sqrt(Lambda))^T`` with ``a Sigma = U Lambda U^T``),
    but without BLAS/LAPACK, whose rounding and eigenvector signs depend on the CPU kernel: the
    covariance from correctly rounded sums, ``U`` and ``Lambda`` from the Jacobi solver (each
    eigenvector's largest component positive), the products summed in a fixed order
    (:mod:`sdcrisk.fixed_order`). Negative rounding-level eigenvalues count as 0."""
    m = x.shape[1]
    values, vectors = jacobi_eigh(a * covariance(x))
    factor = vectors * np.sqrt(np.maximum(values, 0.0))  # column j: sqrt(lambda_j) u_j
    g = rng.standard_normal((x.shape[0], m))
    noise = np.column_stack([rowdot(g, factor[k]) for k in range(m)])
    return x + noise


@register("multiplicative_noise", _B, family="noise", randomised=True, memory=per_value(17, 8))
def multiplicative_noise(x: np.ndarray, rng: np.random.Generator, *, b: float) -> np.ndarray:
    """Multiplicative noise x * U(1-b, 1+b), independent per value (Muralidhar & Domingo-Ferrer (2016) §4, Table 4)."""
    return x * rng.uniform(1.0 - b, 1.0 + b, size=x.shape)
