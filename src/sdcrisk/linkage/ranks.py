"""Column-wise ranks, doubled so that average ranks are integers (``scipy.stats.rankdata``).

``scipy.stats`` is imported on the first call: it takes about 0.5 s, which the ``sdcrisk assess``
process spares (its attack workers import it before their first attack).

RBRL-Sum, RBRL-Max and PRL-graded rank the same two files: where the attacks share a directory
(:mod:`.shared`), the first computes each file's ranks and the others read them (1.7-1.9 s per
file of 1,000,000 x 10).
"""

from __future__ import annotations

import numpy as np

from . import shared

RANK_METHODS = ("average", "min", "max", "dense", "ordinal")


def rank_matrix(z: np.ndarray, method: str = "average") -> np.ndarray:
    """Twice the column-wise ranks of ``z`` (``scipy.stats.rankdata``) as int64."""
    if method not in RANK_METHODS:
        raise ValueError(f"ranks must be one of {list(RANK_METHODS)}, got {method!r}")
    z = np.asarray(z)

    def ranks():
        from scipy.stats import rankdata

        return {"ranks": np.rint(2.0 * rankdata(z, method=method, axis=0)).astype(np.int64)}
    return shared.kept(f"ranks-{method}", (z,), ("ranks",), ranks)["ranks"]
