"""An attack settled by its upper bound (:data:`sdcrisk.attacks.BOUNDS`): the default set of
``sdcrisk assess`` hands such an attack out after every other one and runs it only where its bound
exceeds their best result (:func:`bounded_row`). Used by the attack workers' schedule
(:mod:`sdcrisk.assess.workers`) and by the attacks run in one process (:mod:`sdcrisk.assess.assessment`).
"""

from __future__ import annotations

import math

import numpy as np

from ..measures.units import linkage_percent


#: the start of the note of a row an attack's bound settled (:func:`bounded_row`; sdcrisk.assess.report)
BOUNDED = "at most"


def best_result(rows: list[tuple[dict, str, int]]) -> tuple[float, str] | None:
    """The most correct links among finished attacks ``[(row, name, known attributes)]`` and a
    label of the attack, or None when none has a result."""
    done = [(row["linked"], f"{name} ({m} known attribute(s))") for row, name, m in rows
            if row.get("linked") is not None and np.isfinite(row["linked"])]
    return max(done) if done else None


def bounded_row(name, reach: float | None, n: int, best: tuple[float, str] | None, seconds: float) -> dict | None:
    """The row of an attack settled by its bound: where ``reach`` (the bound, :func:`sdcrisk.assess.rows.attack_bound`)
    does not exceed ``best`` (:func:`best_result` over every other attack) the attack cannot link
    more records than that one, so it cannot raise the headline, and the row states the bound
    instead of a result (``percent`` missing, the note starting :data:`BOUNDED`). None where the
    attack must run. The decision waits for every other attack, so that it does not depend on
    which finished first."""
    if reach is None or best is None or reach > best[0]:
        return None
    top, who = best
    return {"linked": math.nan, "percent": math.nan, "low": math.nan, "high": math.nan,
            "baseline": 100.0 / n, "draws_low": math.nan, "draws_high": math.nan, "seconds": seconds,
            "note": (f"{BOUNDED} {linkage_percent(reach, n):.3g} % ({reach:,.0f} records agree with their own masked "
                     f"record on a known attribute: the only records {name} can link correctly); {who} linked "
                     f"{linkage_percent(top, n):.2f} %, so {name}'s assignment was not run (name it, --attacks "
                     f"{name}, to run it)")}
