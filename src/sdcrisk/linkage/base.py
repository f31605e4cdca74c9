"""Common result type and helpers of the record-linkage attacks.

Convention: the masked file keeps the record order of the original, so original record ``i``
is correctly linked when ``links[i] == i``. ``links[i] == -1`` means the attack declines to
link record ``i`` (for example an empty candidate set).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..validation import as_data_matrix, check_columns, check_magnitude


@dataclass
class LinkResult:
    """For every original record, the masked record it links to (-1: no link).

    ``candidates`` is, where the method has one, the size of the candidate set from which the
    link was chosen; ``score`` the value of the criterion at the chosen link; ``info`` the
    attack's diagnostics (for probabilistic linkage: whether EM converged, its iterations, the
    number of candidate pairs).
    """

    links: np.ndarray
    candidates: np.ndarray | None = None
    score: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    @property
    def correct(self) -> np.ndarray:
        return self.links == np.arange(self.links.size)

    @property
    def n_correct(self) -> int:
        return int(self.correct.sum())

    @property
    def percent_correct(self) -> float:
        return 100.0 * self.n_correct / self.links.size


def prepare(original, masked, known=None) -> tuple[np.ndarray, np.ndarray]:
    """Check both files and return their ``known`` columns as float64 arrays.

    Constant masked columns are allowed (a microaggregated block may be constant for large k):
    only the original file is checked for constant columns.
    """
    x = as_data_matrix(original, "original")
    y = np.asarray(masked, dtype=np.float64)
    if y.shape != x.shape:
        raise ValueError(f"masked: shape {y.shape} differs from the original's {x.shape}")
    if not np.isfinite(y).all():
        raise ValueError("masked: contains NaN or infinite values; expected finite numbers")
    check_magnitude(y, "masked")
    cols = check_columns("known", known, x.shape[1])
    return x[:, cols], y[:, cols]
