"""Projected record linkage (Pro-RL), Nin, Herranz & Torra (2008, multivariate microaggregation) Sec. 4.1, Algorithm 3.

The masked file is read as r blocks of attributes, the blocks of projection-based
microaggregation (Nin, Herranz & Torra (2008, multivariate microaggregation) Algorithm 2; :func:`sdcrisk.masking.microaggregation.attribute_blocks`).
For every block the intruder knows, the original block and the masked block are reduced to one
coordinate by the same projection the masking used (PCP: first principal component score of the
standardised block; Zscore: sum of z-scores; :func:`sdcrisk.masking.microaggregation.project`),
and every original record is linked to the masked record nearest in Euclidean distance over the
projected coordinates of the known blocks (first argmin, :func:`sdcrisk.linkage.distance.nearest`).

``standardise`` says how the masked block is projected:

``"own"``      (default) each file is projected on its own: ``project(masked block)`` with the
               masked file's own standardisation and principal axis. The sign of a principal
               axis is arbitrary, so each projection is oriented to correlate positively with the
               block's sum of z-scores (uses one file only, never the pairing).
``"original"`` the masked block goes through the *original* block's projection
               (the original's means, standard deviations, principal axis and orientation;
               :func:`sdcrisk.masking.projection.project_as`). Both files then live on one scale, as in the
               masking itself, which projects and sorts the original values.

Default evidence (Census, stand-in Zscore microaggregation v = 4, k = 25, blocks known 2..all):
"own" gives a ProLD near the published one (Nin, Herranz & Torra (2008, multivariate
microaggregation) Sec. 4.2), "original" several times higher: a linear projection maps group means
to the mean of the group's original projections, which the published figures do not show (the
figures: REPLICATION.md, Pro-RL).
"""
# The published rows the choices recorded in this module's docstrings were compared with
# (docs/calibration.yaml; the check makes them calibration rows):
# compares: [{paper: nin2008_multivariate_ma, tables: ["Fig. 1-3 (text of Sec. 4.2)"], measures: [ProLD]}]


from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..validation import check_int
from ..validation import prepare
from .base import LinkResult
from .distance import nearest

PROJECTIONS = ("pcp", "zscore")
STANDARDISE = ("original", "own")


def _microaggregation():
    # imported lazily: the masking package registers every method on import
    from ..masking import microaggregation

    return microaggregation.attribute_blocks, microaggregation.project


def _zsum(block: np.ndarray) -> np.ndarray:
    sd = block.std(axis=0, ddof=1)
    sd = np.where(sd > 0, sd, 1.0)
    return ((block - block.mean(axis=0)) / sd).sum(axis=1)


def _orientation(scores: np.ndarray, block: np.ndarray) -> float:
    """The sign (1.0 or -1.0) fixing the arbitrary sign of a projection: positive covariance with
    the sum of z-scores, or, when that vanishes (loadings summing to zero), with the block's first
    varying column. The inner products are correctly rounded sums (``math.fsum``), not BLAS dots,
    so the decision does not depend on the CPU (:mod:`sdcrisk.fixed_order`)."""
    from ..fixed_order import dot

    s = scores - scores.mean()
    scale = math.sqrt(dot(s, s)) * block.shape[0] * block.shape[1]
    c = dot(s, _zsum(block))
    if abs(c) <= 1e-9 * scale:
        varying = np.flatnonzero(np.ptp(block, axis=0) > 0)
        c = dot(s, block[:, varying[0]] - block[:, varying[0]].mean()) if varying.size else 0.0
    return -1.0 if c < 0 else 1.0


def _oriented(scores: np.ndarray, block: np.ndarray) -> np.ndarray:
    """``scores`` times :func:`_orientation`."""
    return -scores if _orientation(scores, block) < 0 else scores


def projected_coordinates(x: np.ndarray, y: np.ndarray, blocks: Sequence[np.ndarray],
                          projection: str = "pcp", standardise: str = "own"):
    """Projected values (n x len(blocks)) of the original ``x`` and masked ``y`` per block.

    With ``standardise="original"`` the masked block goes through the original block's projection
    (:func:`sdcrisk.masking.projection.project_as`: the original's means, sds and principal axis,
    and the original's orientation), computed directly rather than fitted, without BLAS/LAPACK."""
    if projection not in PROJECTIONS:
        raise ValueError(f"projection must be one of {list(PROJECTIONS)}, got {projection!r}")
    if standardise not in STANDARDISE:
        raise ValueError(f"standardise must be one of {list(STANDARDISE)}, got {standardise!r}")
    _, project = _microaggregation()
    from ..masking.projection import project_as

    px = np.empty((x.shape[0], len(blocks)))
    py = np.empty_like(px)
    for b, cols in enumerate(blocks):
        xb, yb = x[:, cols], y[:, cols]
        px[:, b] = _oriented(np.asarray(project(xb, projection), dtype=np.float64).ravel(), xb)
        if standardise == "original":
            # the original's projection map, oriented as the original's own scores are
            sign = _orientation(project_as(xb, xb, projection), xb)
            sy = project_as(yb, xb, projection)
            py[:, b] = -sy if sign < 0 else sy
        elif np.ptp(yb, axis=0).max() == 0:
            py[:, b] = 0.0  # a fully aggregated (constant) masked block carries no information
        else:
            py[:, b] = _oriented(np.asarray(project(yb, projection), dtype=np.float64).ravel(), yb)
    return px, py


def projected_rl(original, masked, known_blocks: Sequence[int] | None = None, v: int = 2,
                 projection: str = "pcp", standardise: str = "own") -> LinkResult:
    """Projected record linkage (Nin, Herranz & Torra (2008, multivariate microaggregation) Sec. 4.1, Algorithm 3).

    ``v``: block size of the masking (blocks from ``attribute_blocks(m, v)``); ``known_blocks``:
    indices of the blocks the intruder knows (default all); ``projection``: ``"pcp"`` or
    ``"zscore"``. ``score`` holds each link's squared distance in projected space.
    """
    x, y = prepare(original, masked)
    m = x.shape[1]
    v = check_int("v", v, 1, m)
    attribute_blocks, _ = _microaggregation()
    blocks = [np.asarray(b, dtype=np.int64) for b in attribute_blocks(m, v)]
    r = len(blocks)
    if known_blocks is None:
        known = np.arange(r)
    else:
        known = np.asarray(list(known_blocks))
        if (known.size == 0 or known.ndim != 1 or not np.issubdtype(known.dtype, np.integer)
                or known.min() < 0 or known.max() >= r or np.unique(known).size != known.size):
            raise ValueError(f"known_blocks must be distinct block indices in [0, {r - 1}], got {known_blocks!r}")
    px, py = projected_coordinates(x, y, [blocks[b] for b in known], projection, standardise)
    links, d2 = nearest(px, py)
    return LinkResult(links=links, score=d2)


def block_scenarios(m: int, v: int, first: int = 2) -> list[list[int]]:
    """The known-block scenarios of Nin, Herranz & Torra (2008, multivariate microaggregation) Figs. 1-3: the first j blocks, j = ``first`` .. r."""
    from ..measures.scenarios import known_block_scenarios

    r = len(_microaggregation()[0](check_int("m", m, 1), check_int("v", v, 1, m)))
    return [b.tolist() for b in known_block_scenarios(r, first=min(first, r))]


__all__ = ["projected_rl", "projected_coordinates", "block_scenarios", "PROJECTIONS", "STANDARDISE"]
