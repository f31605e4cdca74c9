"""Information loss, interval disclosure, known-attribute scenarios and the papers' scores.

Modules: :mod:`.information_loss` (IL1..IL5, IL), :mod:`.interval_disclosure` (ID),
:mod:`.scenarios` (which attributes the intruder knows), :mod:`.scores` (Score, Score1/2,
the RSLD score, ScoreNew, ScoreMax).
"""

from . import information_loss, interval_disclosure, scenarios, scores

__all__ = ["information_loss", "interval_disclosure", "scenarios", "scores"]
