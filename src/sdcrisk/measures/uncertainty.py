"""Uncertainty of a disclosure-risk figure: the Wilson score interval and the random-guess rate.

An attack's result is ``k`` correctly linked records out of ``n`` original records; the report
gives ``100 k / n`` with a 95 % interval that treats the records as ``n`` Bernoulli trials with a
common success probability. The interval is Wilson's (1927) score interval, the one anonymeter
(Giomi et al. 2023) reports for its attack success rates: unlike the
normal ("Wald") interval it stays inside [0, 100] %, is not empty at ``k = 0`` or ``k = n``, and
keeps close to its nominal coverage for small ``n`` (Brown, Cai & DasGupta 2001).

``k`` may be fractional: with uniform random tie-breaking an attack's result is the *expected*
number of correct links (a record tied between ``t`` candidates counts ``1/t``), and the score
interval is evaluated at ``p = k / n`` as it stands (the formula is continuous in ``p``).

The interval says how far the rate could move if the same attack met another file of ``n``
records masked the same way (sampling variation); it does not cover the choice of attack, of
the intruder's knowledge or of the tie draws (the report shows GDBRL's draws separately).

Random guess: an intruder who links each record to a uniformly drawn masked record of its block
(the masked records sharing its categorical keys; without keys, the whole file) is right with
probability ``1 / b`` in a block of ``b`` records, so ``b * (1 / b) = 1`` expected correct link per
block (the same for a random one-to-one assignment: a random permutation has one fixed point on
average), and ``100 * blocks / n`` percent over the file (:func:`random_guess_percent`).
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np


def _z(level: float) -> float:
    if not (isinstance(level, (int, float)) and 0.0 < float(level) < 1.0):
        raise ValueError(f"level must be a number strictly between 0 and 1, got {level!r}")
    return NormalDist().inv_cdf(0.5 + float(level) / 2.0)


def wilson_interval(k, n, level: float = 0.95):
    """Wilson (1927) score interval, in percent, for ``k`` successes out of ``n`` trials.

    ``k`` (possibly fractional: an expected number of correct links) and ``n`` broadcast against
    each other (scalars or arrays); a NaN ``k`` (an attack that did not run) gives NaN bounds.
    With ``p = k / n`` and ``z`` the standard normal quantile of ``(1 + level) / 2``::

        centre    = (p + z^2 / (2n)) / (1 + z^2 / n)
        halfwidth = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / (4 n^2))

    Returns ``(low, high)``: ``100 * (centre -+ halfwidth)``, floats for scalar input, arrays
    otherwise; ``low`` is exactly 0 at ``k = 0`` and ``high`` exactly 100 at ``k = n``.
    Raises ``ValueError`` for ``n < 1``, ``k`` outside ``[0, n]`` or ``level`` outside (0, 1).
    """
    z = _z(level)
    k_arr, n_arr = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    if np.any(~np.isfinite(n_arr) | (n_arr < 1)):
        raise ValueError(f"n must be a finite number of trials >= 1, got {n!r}")
    known = ~np.isnan(k_arr)
    if np.any(known & ((k_arr < 0) | (k_arr > n_arr))):
        raise ValueError(f"k must lie in [0, n], got k={k!r}, n={n!r}")
    with np.errstate(invalid="ignore"):
        p = k_arr / n_arr
        z2n = z * z / n_arr
        centre = (p + z2n / 2.0) / (1.0 + z2n)
        half = z / (1.0 + z2n) * np.sqrt(p * (1.0 - p) / n_arr + z2n / (4.0 * n_arr))
        low = np.clip(100.0 * (centre - half), 0.0, 100.0)
        high = np.clip(100.0 * (centre + half), 0.0, 100.0)
    low = np.where(known & (k_arr == 0), 0.0, low)
    high = np.where(known & (k_arr == n_arr), 100.0, high)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def newcombe_difference(k1, n1, k2, n2, level: float = 0.95):
    """Newcombe (1998, method 10) interval, in percentage points, for ``p1 - p2``.

    The hybrid score interval for a difference of two independent proportions: with
    ``p_i = k_i / n_i`` and ``(l_i, u_i)`` their Wilson intervals (:func:`wilson_interval`, as
    fractions)::

        low  = (p1 - p2) - sqrt((p1 - l1)^2 + (u2 - p2)^2)
        high = (p1 - p2) + sqrt((u1 - p1)^2 + (p2 - l2)^2)

    It stays inside [-100, 100], is defined at ``k = 0`` and ``k = n``, and keeps close to its
    nominal coverage with unequal ``n1`` and ``n2`` (Newcombe 1998, Table II), which is why the
    excess risk (an attack's success minus a baseline's, or training minus control targets) is
    reported with it and no fitted correction for the sizes. Arguments broadcast as in
    :func:`wilson_interval`. Returns ``(difference, low, high)`` in percentage points.
    """
    l1, u1 = wilson_interval(k1, n1, level)
    l2, u2 = wilson_interval(k2, n2, level)
    p1 = 100.0 * np.asarray(k1, dtype=np.float64) / np.asarray(n1, dtype=np.float64)
    p2 = 100.0 * np.asarray(k2, dtype=np.float64) / np.asarray(n2, dtype=np.float64)
    d = p1 - p2
    low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    if np.ndim(d) == 0:
        return float(d), float(low), float(high)
    return d, low, high


def advantage(difference, low, high):
    """The excess risk an attack adds over its baseline, ``max(0, difference)``, with its interval.

    ``difference``, ``low``, ``high``: :func:`newcombe_difference`'s result (attack minus
    baseline). An intruder who holds the baseline (the release's mode or median, a random
    predicate) can always use it, so an attack that does worse than the baseline adds no risk:
    the risk is ``max(0, d)``. Its interval is the image of Newcombe's under that monotone map,
    ``[max(0, low), max(0, high)]``, which covers ``max(0, d)`` whenever Newcombe's covers ``d``:
    its coverage is at least Newcombe's. For a release that tells nothing about the targets the
    risk is 0 whether the attack's difference is 0 (a uniform secret) or below 0 (a guess copied
    from a release record against the best constant guess of a skewed secret, where
    ``sum p_i^2 < max p_i``), and the interval contains it. The signed difference stays in the
    report's details. Broadcasts like its arguments; returns ``(risk, low, high)``.
    """
    d, lo, hi = (np.maximum(np.asarray(v, dtype=np.float64), 0.0) for v in (difference, low, high))
    if np.ndim(d) == 0:
        return float(d), float(lo), float(hi)
    return d, lo, hi


def random_guess_percent(block_sizes) -> float:
    """Percent of records a random guess links correctly: ``100 * blocks / n``.

    ``block_sizes``: the number of records in each block of equal categorical keys (a single
    number, or a one-element list, for a file without keys: then ``100 / n``). Empty blocks are
    ignored. See the module docstring for the derivation.
    """
    sizes = np.atleast_1d(np.asarray(block_sizes, dtype=np.float64))
    if sizes.ndim != 1 or np.any(~np.isfinite(sizes)) or np.any(sizes < 0) or np.any(sizes != np.round(sizes)):
        raise ValueError(f"block_sizes must be whole numbers >= 0, got {block_sizes!r}")
    sizes = sizes[sizes > 0]
    if sizes.size == 0:
        raise ValueError("block_sizes: no records")
    return float(100.0 * sizes.size / sizes.sum())


__all__ = ["wilson_interval", "newcombe_difference", "random_guess_percent"]
