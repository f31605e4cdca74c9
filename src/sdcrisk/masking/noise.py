"""Noise masking (Muralidhar & Domingo-Ferrer 2016, Muralidhar & Domingo-Ferrer (2016) §4).

* independent additive noise  y_ij = x_ij + e_ij,  e_ij ~ N(0, (a sigma_j)^2)
  (a scales the *standard deviation*: REPLICATION.md measured this to match Table 1);
* correlated noise  y_i = x_i + e_i,  e_i ~ N(0, a Sigma)  (covariance a times Sigma_XX);
* multiplicative noise  y_ij = x_ij * e_ij,  e_ij ~ U(1 - b, 1 + b).

sigma_j and Sigma use the sample (n - 1) normalisation.
"""

from __future__ import annotations

import numpy as np

from .registry import Param, register

_A = Param("a", "real", low=0.0, high=10.0, low_open=True, doc="perturbation level a > 0")
_B = Param("b", "real", low=0.0, high=1.0, low_open=True, doc="perturbation level b in (0, 1]")


@register("additive_noise", _A, family="noise", randomised=True)
def additive_noise(x: np.ndarray, rng: np.random.Generator, *, a: float) -> np.ndarray:
    """Independent additive noise N(0, a*sigma_j) per attribute (Muralidhar & Domingo-Ferrer (2016) §4, Table 1)."""
    sigma = x.std(axis=0, ddof=1)
    return x + rng.standard_normal(x.shape) * (a * sigma)


@register("correlated_noise", _A, family="noise", randomised=True)
def correlated_noise(x: np.ndarray, rng: np.random.Generator, *, a: float) -> np.ndarray:
    """Correlated additive noise N(0, a*Sigma_XX) (Muralidhar & Domingo-Ferrer (2016) §4, text after Table 1)."""
    cov = np.cov(x, rowvar=False)
    noise = rng.multivariate_normal(np.zeros(x.shape[1]), a * cov, size=x.shape[0], method="eigh")
    return x + noise


@register("multiplicative_noise", _B, family="noise", randomised=True)
def multiplicative_noise(x: np.ndarray, rng: np.random.Generator, *, b: float) -> np.ndarray:
    """Multiplicative noise x * U(1-b, 1+b), independent per value (Muralidhar & Domingo-Ferrer (2016) §4, Table 4)."""
    return x * rng.uniform(1.0 - b, 1.0 + b, size=x.shape)
