"""Scores: the trade-off between information loss IL and disclosure risk DR (all in percent).

The standard score (Domingo-Ferrer & Torra 2001; Nin, Herranz & Torra (2008, rank swapping) §2.2, Nin, Herranz & Torra (2008, multivariate microaggregation) §2.3, Nin, Herranz & Torra (2007) §3):
``DR = 0.25 DLD + 0.25 PLD + 0.5 ID`` and ``score = 0.5 IL + 0.5 DR``. The papers' variants
replace the linkage half of DR:

* Nin, Herranz & Torra (2007) §4 Score1 = ``0.5 IL + 0.125 DLD + 0.125 PLD + 0.25 ID`` (the standard score) and
  Score2 = ``0.5 IL + 0.25 (DLD + PLD + LLD)/3 + 0.25 ID`` (with location linkage LLD);
* Nin, Herranz & Torra (2008, rank swapping) §5.3: ``DR = 0.166 RSLD + 0.166 DLD + 0.166 PLD + 0.5 ID`` (rank-swapping linkage);
  the printed weight 0.166 is kept as ``rsld_weight="paper"``; ``"exact"`` uses 1/6 (the intended
  equal split of the linkage half); the two differ by ``0.0007 * (RSLD + DLD + PLD) <= 0.2``;
* Nin, Herranz & Torra (2008, multivariate microaggregation) §4.2 ScoreNew: DR "again" the average of ID and the record-linkage risk, the latter now
  averaging DLD, PLD and ProLD, where ProLD is the larger of the projected linkage rates with PCP
  and with Zscores ("the maximum is obtained by using PCP ... / Zscores"):
  ``DR = 0.5 ID + 0.5 (DLD + PLD + ProLD)/3``;
* Nin, Herranz & Torra (2008, multivariate microaggregation) §4.2 ScoreMax: the intruder uses the best attack, linkage risk
  ``max(DLD, PLD, ProLD)``: ``DR = 0.5 ID + 0.5 max(DLD, PLD, ProLD)``.
"""

from __future__ import annotations

import numpy as np

RSLD_WEIGHTS = {"paper": 0.166, "exact": 1.0 / 6.0}


def _pct(name: str, value) -> float | np.ndarray:
    v = np.asarray(value, dtype=np.float64)
    if not np.isfinite(v).all() or (v < 0).any():
        raise ValueError(f"{name} must be a finite non-negative percentage, got {value!r}")
    return v if v.ndim else float(v)


def _named(**values):
    """Validate each value under its own name (for the error message), in order."""
    return [_pct(k, v) for k, v in values.items()]


def score(il, dr):
    """``0.5 IL + 0.5 DR`` (Nin, Herranz & Torra (2008, rank swapping) §2.2)."""
    return 0.5 * _pct("il", il) + 0.5 * _pct("dr", dr)


def disclosure_risk(id_, *linkage, combine: str = "mean"):
    """``0.5 ID + 0.5 L`` with L the mean (``combine="mean"``) or maximum (``"max"``) of the
    linkage risks given (DLD, PLD, ... in percent)."""
    if not linkage:
        raise ValueError("linkage: give at least one linkage disclosure risk (DLD, PLD, ...)")
    risks = np.array([np.asarray(_pct(f"linkage[{i}]", r)) for i, r in enumerate(linkage)])
    if combine == "mean":
        lk = risks.mean(axis=0)
    elif combine == "max":
        lk = risks.max(axis=0)
    else:
        raise ValueError(f"combine must be 'mean' or 'max', got {combine!r}")
    out = 0.5 * _pct("id_", id_) + 0.5 * lk
    return out if np.ndim(out) else float(out)


def dr_standard(dld, pld, id_):
    """``DR = 0.25 DLD + 0.25 PLD + 0.5 ID`` (Nin, Herranz & Torra (2008, multivariate microaggregation) §2.3, Nin, Herranz & Torra (2007) §3)."""
    return disclosure_risk(id_, *_named(dld=dld, pld=pld))


def score_standard(il, dld, pld, id_):
    """Standard score ``0.5 IL + 0.5 (0.25 DLD + 0.25 PLD + 0.5 ID)``; equals Score1."""
    return score(il, dr_standard(dld, pld, id_))


def score1(il, dld, pld, id_):
    """Nin, Herranz & Torra (2007) §4 Score1 = ``0.5 IL + 0.125 DLD + 0.125 PLD + 0.25 ID``."""
    return score_standard(il, dld, pld, id_)


def score2(il, dld, pld, lld, id_):
    """Nin, Herranz & Torra (2007) §4 Score2 = ``0.5 IL + 0.25 (DLD + PLD + LLD)/3 + 0.25 ID``."""
    return score(il, disclosure_risk(id_, *_named(dld=dld, pld=pld, lld=lld)))


def dr_rsld(rsld, dld, pld, id_, rsld_weight: str = "paper"):
    """Nin, Herranz & Torra (2008, rank swapping) §5.3 ``DR = w RSLD + w DLD + w PLD + 0.5 ID``, w = 0.166 (``"paper"``) or 1/6."""
    if rsld_weight not in RSLD_WEIGHTS:
        raise ValueError(f"rsld_weight must be one of {', '.join(map(repr, RSLD_WEIGHTS))}, got {rsld_weight!r}")
    w = RSLD_WEIGHTS[rsld_weight]
    return w * (_pct("rsld", rsld) + _pct("dld", dld) + _pct("pld", pld)) + 0.5 * _pct("id_", id_)


def score_rsld(il, rsld, dld, pld, id_, rsld_weight: str = "paper"):
    """Nin, Herranz & Torra (2008, rank swapping) §5.3 score ``0.5 IL + 0.5 DR_RSLD``."""
    return score(il, dr_rsld(rsld, dld, pld, id_, rsld_weight))


def prold(prold_pcp, prold_zscore):
    """ProLD of Nin, Herranz & Torra (2008, multivariate microaggregation) §4.2: the larger of the projected-linkage rates with PCP and Zscores."""
    return np.maximum(_pct("prold_pcp", prold_pcp), _pct("prold_zscore", prold_zscore)) * 1.0


def score_new(il, dld, pld, prold_, id_):
    """Nin, Herranz & Torra (2008, multivariate microaggregation) §4.2 ScoreNew: ``0.5 IL + 0.5 (0.5 ID + 0.5 (DLD + PLD + ProLD)/3)``."""
    return score(il, disclosure_risk(id_, *_named(dld=dld, pld=pld, prold=prold_)))


def score_max(il, dld, pld, prold_, id_):
    """Nin, Herranz & Torra (2008, multivariate microaggregation) §4.2 ScoreMax: ``0.5 IL + 0.5 (0.5 ID + 0.5 max(DLD, PLD, ProLD))``."""
    return score(il, disclosure_risk(id_, *_named(dld=dld, pld=pld, prold=prold_), combine="max"))


__all__ = ["score", "disclosure_risk", "dr_standard", "score_standard", "score1", "score2",
           "dr_rsld", "score_rsld", "prold", "score_new", "score_max", "RSLD_WEIGHTS"]
