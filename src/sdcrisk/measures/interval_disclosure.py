"""Interval disclosure ID (Nin, Herranz & Torra (2007) §3: "the average percentage of original values falling into
the intervals around their corresponding masked values"; Domingo-Ferrer, Mateo-Sanz & Torra 2001;
Domingo-Ferrer & Torra 2001).

For every attribute and every p in ``percents`` (default 1..10 %), an interval is built around each
masked value and ID is the percentage of original values inside their record's interval, averaged
over p, attributes and records. Interval rules (``rule``):

* ``"rank"`` - rank intervals: the interval spans ``w`` ranks either side of the masked value's
  rank, where ``w = floor(p/100 * n / 2)`` if ``width="total"`` (the interval covers p % of the
  records) or ``floor(p/100 * n)`` if ``width="each_side"``. ``ranks="original"`` locates the
  masked value in the sorted *original* attribute (bounds are original values);
  ``ranks="masked"`` uses the record's position in the sorted *masked* attribute (stable order)
  and masked values as bounds.
* ``"sd"`` - standard-deviation intervals ``x' -/+ a * sd_j`` with ``a = p/200`` (``"total"``)
  or ``p/100`` (``"each_side"``) and sd_j of the original (``sd_of="original"``) or masked
  attribute (sdcMicro ``dRisk``).

An unmasked file gives ID = 100 under every rule. Defaults: see ``docs/replication_measures.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..validation import prepare
from ..validation import check_columns

RULES = ("rank", "sd")
WIDTHS = ("total", "each_side")
RANKS = ("original", "masked")
SD_OF = ("original", "masked")

DEFAULTS = {"rule": "rank", "width": "each_side", "ranks": "masked", "sd_of": "original"}


def _choice(name: str, value, allowed) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def _percents(percents) -> np.ndarray:
    p = np.atleast_1d(np.asarray(list(percents) if not np.isscalar(percents) else [percents], dtype=np.float64))
    if p.size == 0 or not np.isfinite(p).all() or (p <= 0).any() or (p > 100).any():
        raise ValueError(f"percents must be a non-empty list of numbers in (0, 100], got {percents!r}")
    return p


def _inside_rank(xj: np.ndarray, yj: np.ndarray, ws: np.ndarray, ranks: str) -> np.ndarray:
    """Fraction (per w) of records whose original value lies in its rank interval. The records are
    taken in the masked values' sorted order, where the interval centres ascend, so the binary
    searches and the reads of the interval ends walk the sorted column in one direction (fewer
    cache misses; docs/benchmarks.md); the fractions are counts, the same in any order."""
    n = xj.size
    order = np.argsort(yj, kind="stable")
    yo, xo = yj[order], xj[order]
    if ranks == "original":
        s = np.sort(xj)
        centre = np.clip(np.searchsorted(s, yo, side="left"), 0, n - 1)
        # a masked value between two original values: take the nearer neighbour as centre
        below = np.clip(centre - 1, 0, n - 1)
        centre = np.where(np.abs(s[below] - yo) < np.abs(s[centre] - yo), below, centre)
    else:
        s = yo
        centre = np.arange(n)
    out = np.empty(ws.size)
    for t, w in enumerate(ws):
        lo = s[np.clip(centre - w, 0, n - 1)]
        hi = s[np.clip(centre + w, 0, n - 1)]
        out[t] = np.mean((xo >= lo) & (xo <= hi))
    return out


def interval_disclosure_by_attribute(original, masked, *, percents: Sequence[float] = range(1, 11),
                                     rule: str = DEFAULTS["rule"], width: str = DEFAULTS["width"],
                                     ranks: str = DEFAULTS["ranks"], sd_of: str = DEFAULTS["sd_of"]) -> np.ndarray:
    """Per attribute, the percentage of original values inside their interval, averaged over p."""
    _choice("rule", rule, RULES)
    _choice("width", width, WIDTHS)
    _choice("ranks", ranks, RANKS)
    _choice("sd_of", sd_of, SD_OF)
    p = _percents(percents)
    x, y = prepare(original, masked)
    n, m = x.shape
    frac = p / 100.0 / (2.0 if width == "total" else 1.0)
    res = np.empty(m)
    if rule == "rank":
        ws = np.floor(frac * n + 1e-9).astype(np.int64)
        for j in range(m):
            res[j] = _inside_rank(x[:, j], y[:, j], ws, ranks).mean()
    else:
        sd = (x if sd_of == "original" else y).std(axis=0, ddof=1)
        err = np.abs(x - y)
        for j in range(m):
            res[j] = np.mean(err[:, j][None, :] <= (frac * sd[j])[:, None])
    return 100.0 * res


def interval_disclosure(original, masked, *, columns: Sequence[int] | None = None, **options) -> float:
    """ID in percent: :func:`interval_disclosure_by_attribute` averaged over ``columns`` (default all)."""
    per = interval_disclosure_by_attribute(original, masked, **options)
    if columns is None:
        return float(per.mean())
    return float(per[check_columns("columns", columns, per.size)].mean())


__all__ = ["interval_disclosure", "interval_disclosure_by_attribute", "RULES", "WIDTHS", "RANKS",
           "SD_OF", "DEFAULTS"]
