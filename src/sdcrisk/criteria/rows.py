"""The three anonymisation criteria and one row type for every risk measured under them.

Data-protection guidance judges a release by whether an intruder can *single out* a person,
*link* records about a person, or *infer* a person's attribute (Article 29 Working Party,
opinion 05/2014 on anonymisation techniques). Each attack under a criterion yields a
:class:`CriterionRow`: its successes out of its trials, beside a baseline's successes out of the
baseline's trials. The risk is the success rate with Wilson's interval
(:func:`sdcrisk.measures.uncertainty.wilson_interval`); what the release itself gives away is the *excess* over
the baseline: the *difference* of the two rates with Newcombe's (1998) interval for a difference
of two proportions (:func:`sdcrisk.measures.uncertainty.newcombe_difference`), floored at 0 with
its interval (:func:`sdcrisk.measures.uncertainty.advantage`: an attack worse than its baseline
adds no risk, since the intruder holds the baseline too). The trials are the attack's own (records targeted,
predicates generated), never a sample.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..measures.uncertainty import advantage, newcombe_difference, wilson_interval

LINKABILITY = "linkability"
SINGLING_OUT = "singling out"
INFERENCE = "inference"
CRITERIA = (SINGLING_OUT, LINKABILITY, INFERENCE)


@dataclass(frozen=True)
class CriterionRow:
    """One attack's result under one criterion.

    ``successes`` (possibly fractional: expected successes under random tie-breaking) out of
    ``trials``; the baseline (``baseline``: what it is, e.g. "release's mode", "random
    predicate") had ``baseline_successes`` out of ``baseline_trials``. ``target`` names what was
    attacked where that matters (the secret attribute of an inference); ``note`` says anything a
    reader needs to read the row (what was left out, why it did not apply).
    """

    criterion: str
    attack: str
    successes: float
    trials: int
    baseline: str
    baseline_successes: float
    baseline_trials: int
    target: str = ""
    note: str = ""

    def __post_init__(self):
        if self.criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {CRITERIA}, got {self.criterion!r}")
        for what, k, n in (("successes", self.successes, self.trials),
                           ("baseline_successes", self.baseline_successes, self.baseline_trials)):
            if not (n >= 1 and 0 <= k <= n):
                raise ValueError(f"{self.attack}: {what} must lie in [0, trials] with trials >= 1, got {k} of {n}")

    @property
    def percent(self) -> float:
        return 100.0 * self.successes / self.trials

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.successes, self.trials)

    @property
    def baseline_percent(self) -> float:
        return 100.0 * self.baseline_successes / self.baseline_trials

    @property
    def difference(self) -> tuple[float, float, float]:
        """``(difference, low, high)`` in percentage points: success minus baseline, Newcombe's interval."""
        return newcombe_difference(self.successes, self.trials, self.baseline_successes, self.baseline_trials)

    @property
    def excess(self) -> tuple[float, float, float]:
        """``(excess, low, high)`` in percentage points: the risk the attack adds over its baseline,
        :attr:`difference` floored at 0 with its interval (:func:`sdcrisk.measures.uncertainty.advantage`)."""
        return advantage(*self.difference)

    def as_dict(self) -> dict:
        """Every field and derived figure, as the report's JSON and the API's table carry them."""
        low, high = self.interval
        excess, excess_low, excess_high = self.excess
        difference, difference_low, difference_high = self.difference
        return {**asdict(self), "percent": self.percent, "low": low, "high": high,
                "baseline_percent": self.baseline_percent, "excess": excess,
                "excess_low": excess_low, "excess_high": excess_high, "difference": difference,
                "difference_low": difference_low, "difference_high": difference_high}


__all__ = ["CriterionRow", "CRITERIA", "LINKABILITY", "SINGLING_OUT", "INFERENCE"]
