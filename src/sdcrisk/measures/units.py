"""Units and ranges of every measure the project reports, asserted by the tests.

Percentages of records or values lie in [0, 100]. Information loss IL (and so the scores that
average it with a risk) is a mean *relative* error in percent: 0 means no loss, and it is not
bounded by 100 (IL1..IL4 divide by original values, which may be small). Counts are numbers of
records; belief measures are in bits. The three anonymisation criteria (Article 29 Working Party,
opinion 05/2014) of the attack matrix: a risk, its interval and its baseline in percent, the
excess over the baseline (and its interval) in percentage points, in [-100, 100].
"""

from __future__ import annotations

import math

import pandas as pd

ATTACK_PERCENT = ("DBRL", "RBRL-Sum", "RBRL-Max", "PRL", "RS-RL(p<=20%)", "L-RL(MA)", "Pro-RL-PCP",
                  "Pro-RL-Zscore", "GDBRL", "PRL-graded")
PERCENT = frozenset(ATTACK_PERCENT + ("DLD", "PLD", "LLD", "RSLD", "RSRL_pct", "ProLD_PCP", "ProLD_Zscore",
                                      "ID", "DR_RSLD", "true_support_pct", "IL-cat"))
UNBOUNDED_PERCENT = frozenset(("IL", "IL1", "IL2", "IL3", "IL4", "IL5", "IL1s", "IL-s", "Score", "Score1", "Score2", "ScoreNew",
                               "ScoreMax", "Score_RSLD"))
COUNTS = frozenset(("DBRL_count", "LLD_count", "RSRL_annotated_union_count", "RSRL_annotated_union_half_count"))
BITS = frozenset(("nonspecificity", "pignistic_entropy"))
#: The criteria measured beside the attack matrix (:func:`sdcrisk.replication.evaluation.criteria_rows`).
CRITERIA = ("Linkability", "SinglingOut", "Inference")
CRITERION_PERCENT_PARTS = ("", "_low", "_high", "_baseline")
CRITERION_POINTS_PARTS = ("_excess", "_excess_low", "_excess_high")
PERCENT = PERCENT | {c + part for c in CRITERIA for part in CRITERION_PERCENT_PARTS}
POINTS = frozenset(c + part for c in CRITERIA for part in CRITERION_POINTS_PARTS)


def linkage_percent(correct, records):
    """Correctly linked records as a percentage of the original file's ``records``: the one place
    a linkage percentage is computed (attacks, L-RL counts, ``sdcrisk assess``, the overview
    figure's published counts). Never divided by the number of links an attack returned."""
    return 100.0 * correct / records


def precision_percent(correct, kept):
    """Correct links among the links an intruder keeps, as a percentage of those kept: the
    precision of a confidence threshold (:func:`sdcrisk.linkage.sample.precision_recall`). The
    one linkage figure divided by the links kept instead of the records (the recall at the same
    threshold is :func:`linkage_percent`)."""
    return 100.0 * correct / kept


def out_of_range(measure: str, value: float) -> bool:
    """Whether ``value`` lies outside the range of ``measure`` (see module docstring); a measure
    of unknown unit is out of range, so a new measure must declare its unit here."""
    if isinstance(value, float) and math.isnan(value):
        return False
    if measure in PERCENT:
        return not 0.0 <= value <= 100.0
    if measure in POINTS:
        return not -100.0 <= value <= 100.0
    if measure in UNBOUNDED_PERCENT or measure in COUNTS or measure in BITS or measure.endswith("_unconverged"):
        return not value >= 0.0
    return True


def range_violations(rows: pd.DataFrame, value: str = "mean") -> pd.DataFrame:
    """The rows of a table with ``measure`` and ``value`` columns whose value is out of range."""
    bad = [out_of_range(m, float(v)) for m, v in zip(rows["measure"], rows[value])]
    return rows[bad]
