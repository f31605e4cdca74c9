"""A toy masking method registered the documented way (used by tests/test_extension.py)."""

import numpy as np

from sdcrisk.masking import Param, register


@register("toy_rounding", Param("base", "real", low=0.0, high=1e12, low_open=True), family="toy", randomised=True)
def toy_rounding(x: np.ndarray, rng: np.random.Generator, *, base: float) -> np.ndarray:
    """Round every value to a multiple of ``base``, plus a little noise so replicates differ."""
    return np.round(x / base) * base + rng.normal(scale=base / 10, size=x.shape)
