"""Information loss, interval disclosure, known-attribute scenarios and the papers' scores.

Modules: :mod:`.information_loss` (IL1..IL5, IL), :mod:`.interval_disclosure` (ID),
:mod:`.scenarios` (which attributes the intruder knows), :mod:`.scores` (Score, Score1/2,
the RSLD score, ScoreNew, ScoreMax), :mod:`.units` (the unit and range of every measure).
Submodules are imported when first used, so that reading the units (figures, config checks)
does not load the linkage kernels.
"""

import importlib

__all__ = ["information_loss", "interval_disclosure", "scenarios", "scores", "uncertainty", "units"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
