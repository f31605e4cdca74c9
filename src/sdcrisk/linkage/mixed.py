"""The mixed distance's coordinates: numeric attributes standardised, categorical ones one-hot.

::

    d^2(a, b) = sum_numeric (z_a - z_b)^2  +  w * #{categorical attributes where a and b differ}

with ``z`` each file's values standardised by its own mean and sample sd over the whole file
(Muralidhar & Domingo-Ferrer 2016, section 2) and ``w = 2``: the expected squared difference of two
independent records on a standardised attribute, so a categorical mismatch costs what an
unrelated record costs on a numeric attribute on average, every attribute weighing alike as in
Gower's (1971) coefficient. It is the squared Euclidean distance after one-hot coding (a mismatch
flips two indicators), so the exact k-d tree of :mod:`sdcrisk.linkage.neighbours` serves it.
Used by ``sdcrisk assess``'s DBRL and GDBRL on mixed files (:mod:`sdcrisk.assess.categorical`)
and by the nearest-record inference attack (:mod:`sdcrisk.criteria.inference`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MISMATCH_WEIGHT = 2.0  # w of the mixed distance (module docstring)


def standardised(z: np.ndarray) -> np.ndarray:
    """Columns scaled by the file's own mean and sample sd (a constant column: 0)."""
    from .distance import standardise

    return standardise(z, z, "own")[0]


def mixed_matrix(numeric: np.ndarray, cats: np.ndarray, ncat: Sequence[int]) -> np.ndarray:
    """One file's coordinates under the mixed distance: standardised numeric columns, then one
    indicator column per category of each categorical attribute (codes ``cats``, ``ncat[j]``
    categories), scaled so that a mismatch adds :data:`MISMATCH_WEIGHT`."""
    parts = [standardised(numeric)] if numeric.shape[1] else []
    scale = np.sqrt(MISMATCH_WEIGHT / 2.0)
    for j, k in enumerate(ncat):
        onehot = np.zeros((cats.shape[0], k))
        onehot[np.arange(cats.shape[0]), cats[:, j]] = scale
        parts.append(onehot)
    return np.hstack(parts) if parts else np.zeros((numeric.shape[0], 0))


__all__ = ["MISMATCH_WEIGHT", "standardised", "mixed_matrix"]
