"""The report of ``sdcrisk assess``: report.json, report.md and a self-contained report.html
(inline CSS, figures embedded as PNG).

Input: the tidy tables of :func:`sdcrisk.assess.assessment.assess`, one per masked file, concatenated
with a ``masked`` column naming the file (columns in ``docs/assess.md``, "Output").

Parts, in order: the headline (per masked file the highest risk over the record-linkage attacks,
with its 95 % interval and the random-guess rate); what the intruder knows and does under each
attack (:data:`INTRUDER`); the blocking keys, when there are any; the risk-utility map (IL-s
against % linked, one colour per file, one marker per attack, 95 % error bars); the per-attack
chart (95 % intervals, GDBRL's range over its tie draws, the random-guess rate); the tables of
every result; the units.

Headline rule: the highest point estimate ``percent`` over the record-linkage rows (every attack
and scenario; not ID, which counts values inside an interval, not records re-identified); on
equal percentages the first row in the table's order. ``sdcrisk assess --max-risk P`` gates on
the same number (:func:`over_limit`).

The figures carry no text next to their markers or bars (values are in the tables): with any
number of files no label is printed over another (``tests/test_report.py`` checks the drawn text
boxes with 1, 3 and 12 files).
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__

# the ``kind`` values of :mod:`sdcrisk.assess.assessment` (not imported from it: assessment reads INTRUDER here)
RISK, LOSS = "disclosure risk", "information loss"
FILES = ("report.json", "report.md", "report.html")
RECORDS_FILE = "records_at_risk.csv"  # with --secret: record, criterion, attack, evidence, masked
RESULT_COLUMNS = ["measure", "kind", "scenario", "known", "n_known", "n", "linked", "percent", "low", "high",
                  "baseline", "draws_low", "draws_high", "seconds", "note"]
LOSS_ORDER = ["IL1", "IL2", "IL3", "IL4", "IL5", "IL", "IL1s", "IL-s"]
MARKERS = "osD^vP*Xh<>pd"

#: What the intruder knows and does under each measure: one line each, in the report and in
#: ``assess``'s ``attrs["intruder"]``. Every attack knows the scenario's attributes of every
#: original record (``known``) and the whole masked file; within blocks when there are keys.
INTRUDER = {
    "DBRL": "knows the known attributes of the original records; links each to the masked record nearest in "
            "Euclidean distance on standardised values (Muralidhar & Domingo-Ferrer 2016).",
    "RBRL-Sum": "knows the same; ranks every attribute in both files and links each record to the masked record "
                "with the smallest sum of rank differences (Muralidhar & Domingo-Ferrer 2016).",
    "RBRL-Max": "knows the same; links each record to the masked record with the smallest largest rank "
                "difference over the attributes (Muralidhar & Domingo-Ferrer 2016).",
    "PRL": "knows the same; learns Fellegi-Sunter agreement weights by EM (a masked value agrees when it is the "
           "nearest to the original value) and assigns records one-to-one by total weight (Nin, Herranz & "
           "Torra 2008).",
    "PRL-graded": "knows the same; compares each pair on graded levels (equal, then rank distance within "
                  "0.1, 1, 5 or 20 % of the records; categorical attributes equal or not), learns Fellegi-Sunter "
                  "weights of the levels by EM and assigns records one-to-one (the project's extension of PRL).",
    "RS-RL(p<=20%)": "knows the same and that the file was rank-swapped with p at most 20 %; keeps the masked "
                     "records within 20 % of the ranks of every known value and takes the nearest among them "
                     "(Nin, Herranz & Torra 2008).",
    "L-RL(MA)": "knows the same and that every attribute was microaggregated (group size unknown); keeps the "
                "masked records whose values could be the mean of a group holding the original value and "
                "takes the nearest among them (Nin, Herranz & Torra 2007).",
    "GDBRL": "knows the same for all records at once; assigns them to the masked records one-to-one with the "
             "least total distance (Herranz, Nin, Rodriguez & Tassa 2015); equal-distance choices drawn at "
             "random (range over the draws shown).",
    "ID": "no linkage: the share of original values lying inside the rank interval (p = 1..10 % of the "
          "records) around their masked value (Domingo-Ferrer & Torra 2001).",
}

UNITS_TEXT = (
    "Attacks: % of original records linked to their own masked record; where an attack's choice is tied the "
    "expected share under a uniform random choice among the tied records. 95 % interval: Wilson's (1927) score "
    "interval with the records as trials. Random guess: the % a guess among the masked records of the same "
    "block (all records when there are no blocking keys) links, 100 x blocks / records. ID: % of original "
    "values inside the interval around their masked value (ranks within p = 1..10 % of the records). "
    "IL = (IL1 + ... + IL5) / 5 of Domingo-Ferrer & Torra (2001): mean relative errors of the values, means, "
    "covariances and variances, and the mean absolute error of the correlations, in percent; it explodes for "
    "values, means or covariances near zero. IL1s (Yancey, Winkler & Creecy 2002): mean |x - x'| / (sqrt(2) "
    "sd), sd of the original attribute. IL-s = (IL1s + IL2s + IL3s + IL4 + IL5) / 5 with the means' and "
    "covariances' changes in units of the original standard deviations (sdcrisk.measures.information_loss."
    "il_s): it does not depend on where the values lie. Every IL is 0 for no loss and not bounded by 100.")


# ----------------------------------------------------------------------------- tables
def _complete(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` with every column of the contract (missing ones NaN) and a ``masked`` column."""
    out = results.copy()
    for c in RESULT_COLUMNS:
        if c not in out.columns:
            out[c] = math.nan
    if "masked" not in out.columns:
        out["masked"] = results.attrs.get("files", {}).get("masked", "masked")
    return out


def _fmt(v, digits=2) -> str:
    if v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and math.isnan(v)):
        return ""
    if isinstance(v, (float, np.floating)):
        return f"{v:.{digits}f}"
    return str(v)


def _interval(low, high, digits=1) -> str:
    if any(v is None or v is pd.NA or not np.isfinite(float(v)) for v in (low, high)):
        return ""
    return f"{float(low):.{digits}f}-{float(high):.{digits}f}"


def linkage_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The record-linkage rows (every attack, not ID) that have a result."""
    r = _complete(results)
    return r[(r.kind == RISK) & (r.measure != "ID") & r.percent.notna()]


def risk_table(results: pd.DataFrame) -> pd.DataFrame:
    """Disclosure risk, one row per masked file, attack and scenario, with the 95 % interval,
    the random-guess rate and GDBRL's range over its tie draws."""
    r = _complete(results)
    r = r[r.kind == RISK]
    return pd.DataFrame({
        "masked": r.masked, "measure": r.measure, "scenario": r.scenario, "n_known": r.n_known, "n": r.n,
        "linked": pd.to_numeric(r.linked, errors="coerce").astype(float), "percent": r.percent,
        "95% interval": [_interval(a, b) for a, b in zip(r.low, r.high)],
        "random guess %": r.baseline.astype(float),
        "tie draws %": [_interval(a, b, 2) for a, b in zip(r.draws_low, r.draws_high)],
        "seconds": r.seconds, "note": r.note.fillna("")})


def loss_table(results: pd.DataFrame) -> pd.DataFrame:
    """Information loss, one column per measure (IL1..IL5, IL, IL1s, IL-s), one row per masked file."""
    r = _complete(results)
    r = r[r.kind == LOSS]
    if r.empty:
        return pd.DataFrame({"masked": []})
    wide = r.pivot_table(index="masked", columns="measure", values="percent", sort=False)
    order = [c for c in LOSS_ORDER if c in wide.columns] + [c for c in wide.columns if c not in LOSS_ORDER]
    return wide[order].reset_index().rename_axis(columns=None)


def headline(results: pd.DataFrame) -> pd.DataFrame:
    """Per masked file: the highest risk over the record-linkage attacks and scenarios (module
    docstring: the headline rule), its attack, scenario, 95 % interval and random-guess rate,
    and the information loss IL and IL-s."""
    r = _complete(results)
    rows = []
    for masked, g in r.groupby("masked", sort=False):
        links = linkage_rows(g)
        top = links.loc[links.percent.idxmax()] if len(links) else None
        loss = g[g.kind == LOSS].set_index("measure").percent

        def pick(col):
            return float(top[col]) if top is not None and pd.notna(top[col]) else math.nan

        rows.append({"masked": masked, "max_linked_percent": pick("percent"), "low": pick("low"),
                     "high": pick("high"), "baseline": pick("baseline"),
                     "worst_attack": top.measure if top is not None else "",
                     "worst_scenario": top.scenario if top is not None else "",
                     "records": _records_word(top),
                     "IL": float(loss["IL"]) if "IL" in loss else math.nan,
                     "IL-s": float(loss["IL-s"]) if "IL-s" in loss else math.nan})
    return pd.DataFrame(rows, columns=["masked", "max_linked_percent", "low", "high", "baseline", "worst_attack",
                                       "worst_scenario", "IL", "IL-s", "records"])


def _records_word(top) -> str:
    """Whose records a linkage percentage counts: the ``records`` column of a sample release's rows
    ("released", sdcrisk.assess.sample), else the original's."""
    word = top.get("records") if top is not None else None
    return word if isinstance(word, str) and word else "original"


def headline_text(results: pd.DataFrame) -> str:
    """One sentence: the highest risk over every file, attack and scenario, with its interval and
    the random-guess rate (empty when no attack ran)."""
    top = headline(results).dropna(subset=["max_linked_percent"])
    if top.empty:
        return ""
    t = top.loc[top.max_linked_percent.idxmax()]
    ci = _interval(t.low, t.high)
    guess = f"; a random guess links {t.baseline:.2f} %" if np.isfinite(t.baseline) else ""
    return (f"Highest risk: {t.worst_attack} links {t.max_linked_percent:.1f} % of the {t.records} records"
            + (f" (95 % interval {ci} %)" if ci else "") + f" in {Path(str(t.masked)).name}"
            + (f", scenario {t.worst_scenario}" if t.worst_scenario else "") + guess + ".")


def _exact(value: float) -> str:
    """``value`` as the user would write it: the shortest text that reads back as the same number."""
    text = f"{value:g}"
    return text if float(text) == value else repr(float(value))


def _above(value: float, limit: float) -> str:
    """``value`` with 2 decimals, or as many more as it takes to show that it exceeds ``limit``
    (32.8400001 against 32.84 would otherwise print as 32.84)."""
    for digits in range(2, 16):
        if float(f"{value:.{digits}f}") > limit:
            return f"{value:.{digits}f}"
    return repr(float(value))


def over_limit(results: pd.DataFrame, limit: float) -> list[str]:
    """The ``--max-risk`` gate: one line per masked file whose headline (highest point estimate
    over the record-linkage attacks) exceeds ``limit`` percent, naming the attack and file; the
    percentage has as many decimals as it takes to differ from ``limit``."""
    out = []
    for t in headline(results).itertuples():
        if np.isfinite(t.max_linked_percent) and t.max_linked_percent > limit:
            ci = _interval(t.low, t.high)
            out.append(f"{t.worst_attack} links {_above(t.max_linked_percent, limit)} % of the records of {t.masked}"
                       + (f" (95 % interval {ci} %)" if ci else "")
                       + (f", scenario {t.worst_scenario}" if t.worst_scenario else "")
                       + f": above --max-risk {_exact(limit)}")
    return out


#: The start of a row's ``note`` for a measure that does not apply to the file by design (it could
#: link nothing there: e.g. L-RL(MA) on a release that is not microaggregated); such a row does not
#: hold the ``--max-risk`` gate back. The second form is :mod:`sdcrisk.assess.assessment`'s for an
#: attack that compares ordered values when the scenario knows no numeric attribute.
NOT_APPLICABLE_NOTES = ("not applicable",)
#: The part of :func:`sdcrisk.assess.assessment.assess`'s warning saying that row order does not pair the records.
UNPAIRED_WARNING = "no closer than random pairs"
#: The start of the note of an attack the default set did not run to the end because its upper
#: bound (sdcrisk.attacks.BOUNDS) does not exceed another attack's result: it cannot raise the
#: headline, so it does not hold the gate back either (sdcrisk.assess.assessment.BOUNDED).
BOUNDED_NOTE = "at most"
BOUNDED = "bounded"
PASS, FAIL, UNDECIDED = "pass", "fail", "undecided"


def _status_of(note: str) -> str:
    """The status of a risk row without a result, from its note (:func:`missing_rows`)."""
    return ("not applicable" if note.startswith(NOT_APPLICABLE_NOTES) else BOUNDED if note.startswith(BOUNDED_NOTE)
            else "not run")


def missing_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The risk rows without a result (``percent`` missing): ``masked``, ``measure``,
    ``scenario``, ``status`` ("not applicable": the measure does not apply to the file by design,
    :data:`NOT_APPLICABLE_NOTES`; "bounded": an upper bound that another attack's result already
    reaches, :data:`BOUNDED_NOTE`; else "not run": refused, e.g. by the memory limit) and
    ``reason`` (the note without its "not run: " / "not applicable: " start)."""
    r = _complete(results)
    r = r[(r.kind == RISK) & r.percent.isna()]
    notes = r.note.fillna("").astype(str)
    status = [_status_of(n) for n in notes]
    reason = []
    for n in notes:
        for start in ("not applicable: ", "not run: "):
            if n.startswith(start):
                n = n[len(start):]
                break
        reason.append(n or "no result (no reason given)")
    return pd.DataFrame({"masked": r.masked.to_numpy(), "measure": r.measure.to_numpy(),
                         "scenario": r.scenario.fillna("").to_numpy(), "status": status, "reason": reason})


def missing_text(results: pd.DataFrame) -> list[str]:
    """One line per risk row without a result: what was not run (or does not apply) and why."""
    return [f"{x.measure} on {Path(str(x.masked)).name}" + (f", scenario {x.scenario}" if x.scenario else "")
            + f": {x.status} ({x.reason})" for x in missing_rows(results).itertuples()]


def unpaired_files(warnings: list[str] | tuple = ()) -> list[str]:
    """The warnings saying that paired records are no closer than random pairs (a shuffled
    release without ``--id``): the attacks' percentages then measure nothing."""
    return [w for w in warnings or () if UNPAIRED_WARNING in str(w)]


# ----------------------------------------------------------------------------- the three criteria
LINKABILITY = "linkability"  # sdcrisk.criteria's names (not imported: the report reads only its tables)


def criterion_table(results: pd.DataFrame) -> pd.DataFrame:
    """The rows measured under a criterion other than linkability (inference; singling out where a
    measure adds such rows): every row whose ``criterion`` column is set, with its ``masked`` file."""
    r = _complete(results)
    if "criterion" not in r.columns:
        return r.iloc[0:0].assign(criterion=[], target=[], excess=[], excess_low=[], excess_high=[], difference=[],
                                  difference_low=[], difference_high=[],
                                  baseline_kind=[])
    return r[r.criterion.notna() & (r.criterion.astype(str) != "") & r.percent.notna()]


def _top_criterion_rows(results: pd.DataFrame) -> dict[str, pd.Series]:
    """Per criterion other than linkability, its row of highest excess over the baseline (first on
    equal excesses), over every masked file, target and attack."""
    rows = criterion_table(results)
    out = {}
    for criterion, g in rows.groupby("criterion", sort=False):
        out[str(criterion)] = g.loc[_highest_excess(g)]
    return out


def _highest_excess(rows: pd.DataFrame):
    """The index of the row of highest excess; among equal excesses (several at 0: no attack beat
    its baseline) the one of highest signed difference, then the first."""
    excess, difference = rows.excess.astype(float), rows.difference.astype(float)
    order = np.lexsort((np.arange(len(rows)), -difference.to_numpy(), -excess.to_numpy()))
    return rows.index[order[0]]


def _criterion_sentence(x: pd.Series) -> str:
    what = f"infers {x.target} for" if x.criterion == "inference" else f"({x.target})" if x.target else "reaches"
    return (f"{x.criterion}: {x.measure} {what} {x.percent:.1f} % of the records (95 % interval "
            f"{_interval(x.low, x.high)} %) in {Path(str(x.masked)).name}; the {x.baseline_kind} {x.baseline:.1f} %: "
            f"excess {x.excess:+.1f} points (95 % interval {x.excess_low:+.1f} to {x.excess_high:+.1f})"
            + _below_baseline(x))


def _below_baseline(x: pd.Series) -> str:
    """Where the attack did worse than its baseline (the excess is then 0: the intruder holds the
    baseline too), the signed difference with its interval."""
    d = float(x.difference)
    if not d < 0:
        return ""
    return (f"; the attack did {-d:.1f} points worse than the {x.baseline_kind} (difference {d:+.1f}, "
            f"95 % interval {float(x.difference_low):+.1f} to {float(x.difference_high):+.1f})")


INFERENCE, SINGLING_OUT = "inference", "singling out"
NOT_ASSESSED = "not assessed"


def _unmeasured(criterion: str, text: str) -> dict:
    return {"criterion": criterion, "status": NOT_ASSESSED, "attack": None, "target": None, "masked": None,
            "percent": math.nan, "low": math.nan, "high": math.nan, "baseline": None, "baseline_percent": math.nan,
            "excess": math.nan, "excess_low": math.nan, "excess_high": math.nan, "text": f"{criterion}: {text}"}


def criteria_lines(results: pd.DataFrame, meta: dict | None = None) -> list[dict]:
    """One entry per criterion (linkability from the linkage headline, then inference and singling
    out by their highest excess): ``criterion``, ``status`` ("assessed" or "not assessed"),
    ``attack``, ``target``, ``masked``, ``percent``, ``low``, ``high``, ``baseline`` (what the
    attack is measured against), ``baseline_percent``, ``excess`` (points; linkability: over the
    random guess), ``excess_low``, ``excess_high`` (Newcombe's interval; none for linkability) and
    ``text``, the line the report opens with. With ``meta`` (the report's) a criterion without rows
    still has its line: inference "not assessed: name --secret" (it runs only on a secret the
    custodian names), singling out "not assessed (--no-singling-out)" or, when it ran, that no
    predicate isolated a release record."""
    out = []
    top = headline(results).dropna(subset=["max_linked_percent"])
    if len(top):
        t = top.loc[top.max_linked_percent.idxmax()]
        text = headline_text(results).removeprefix("Highest risk: ").rstrip(".")
        out.append({"criterion": LINKABILITY, "status": "assessed", "attack": t.worst_attack, "target": "",
                    "masked": t.masked, "percent": t.max_linked_percent, "low": t.low, "high": t.high,
                    "baseline": "random guess", "baseline_percent": t.baseline,
                    "excess": t.max_linked_percent - t.baseline, "excess_low": math.nan, "excess_high": math.nan,
                    "text": f"{LINKABILITY}: {text}"})
    found = _top_criterion_rows(results)
    order = [INFERENCE, SINGLING_OUT] + [c for c in found if c not in (INFERENCE, SINGLING_OUT)]
    for criterion in order:
        x = found.get(criterion)
        if x is None:
            if meta is None:
                continue
            if criterion == INFERENCE:
                out.append(_unmeasured(INFERENCE, f"{NOT_ASSESSED}: name --secret (the attribute the intruder "
                                                  "tries to learn; a secret is the custodian's choice)"))
            elif not meta.get("singling_out"):
                out.append(_unmeasured(SINGLING_OUT, f"{NOT_ASSESSED} (--no-singling-out)"))
            else:
                out.append({**_unmeasured(SINGLING_OUT, "no predicate on the known attributes isolated a release "
                                                        "record: nothing to try, no record singled out"),
                            "status": "assessed"})
            continue
        out.append({"criterion": criterion, "status": "assessed", "attack": x.measure, "target": x.target,
                    "masked": x.masked, "percent": float(x.percent), "low": float(x.low), "high": float(x.high),
                    "baseline": x.baseline_kind, "baseline_percent": float(x.baseline), "excess": float(x.excess),
                    "excess_low": float(x.excess_low), "excess_high": float(x.excess_high),
                    "text": _criterion_sentence(x)})
    return out


def criteria_display(results: pd.DataFrame, timings: bool = True) -> pd.DataFrame:
    """The criterion rows (inference) as the report shows them, one per file, target and attack."""
    r = criterion_table(results)
    return pd.DataFrame({"masked": r.masked, "criterion": r.criterion, "target": r.target, "attack": r.measure,
                         "n": r.n, "%": r.percent, "95% interval": [_interval(a, b) for a, b in zip(r.low, r.high)],
                         "baseline": r.baseline_kind, "baseline %": r.baseline, "excess (points)": r.excess,
                         "excess 95% interval": [f"{a:+.1f} to {b:+.1f}" for a, b in zip(r.excess_low, r.excess_high)],
                         "attack - baseline (points)": r.difference,
                         "its 95% interval": [f"{a:+.1f} to {b:+.1f}" for a, b in zip(r.difference_low, r.difference_high)],
                         "note": r.note.fillna("")})


def key_risk_lines(meta: dict) -> list[str]:
    """One line per masked file and measure of the agencies' measures on the categorical keys
    (``meta["key_risk"]``, :func:`sdcrisk.assess.assessment.assess`'s ``attrs["key_risk"]``)."""
    out = []
    for path, k in (meta.get("key_risk") or {}).items():
        name = Path(str(path)).name
        viol = ", ".join(f"k = {r['k']}: {r['violations']:,} ({r['percent']:.2f} %)" for r in k["k_anonymity"])
        out.append(f"{name}: keys {', '.join(k['keys'])}; records violating k-anonymity: {viol}")
        out.append(f"{name}: expected re-identifications {k['expected_reidentifications']:,.1f} "
                   f"({k['global_risk_percent']:.2f} % of {k['records']:,} records; individual risk "
                   + ("under the super-population model with the sampling weights)" if k["weights"]
                      else "1 / sample frequency: no sampling weights given)"))
        for s, d in (k.get("l_diversity") or {}).items():
            out.append(f"{name}: l-diversity of {s}: lowest distinct l {d['lowest_distinct_l']}, "
                       f"{d['records_with_l_1']:,} records in key cells with a single value")
    return out


def _limit_of(limit, criterion: str) -> float | None:
    """The --max-risk of ``criterion``: one number for all, or the criterion's entry (None: no gate)."""
    if isinstance(limit, dict):
        value = limit.get(criterion)
        return None if value is None else float(value)
    return None if limit is None else float(limit)


def _limit_text(limit) -> str:
    if isinstance(limit, dict):
        return ",".join(f"{k}={_exact(float(v))}" for k, v in limit.items())
    return _exact(float(limit))


def criterion_over_limit(results: pd.DataFrame, limit) -> list[str]:
    """The ``--max-risk`` gate of the criteria other than linkability: one line per masked file and
    criterion whose highest excess over the baseline (point estimate, in points) exceeds its limit."""
    out = []
    rows = criterion_table(results)
    for (masked, criterion), g in rows.groupby(["masked", "criterion"], sort=False):
        cap = _limit_of(limit, str(criterion))
        if cap is None:
            continue
        x = g.loc[_highest_excess(g)]
        if float(x.excess) > cap:
            out.append(f"{criterion}: {x.measure}" + (f" on {x.target}" if x.target else "")
                       + f" exceeds the {x.baseline_kind} by {_above(float(x.excess), cap)} points in {masked} "
                       f"({x.percent:.1f} % against {x.baseline:.1f} %): above --max-risk {criterion}={_exact(cap)}")
    return out


def gate(results: pd.DataFrame, limit, warnings: list[str] | tuple = ()) -> dict:
    """The ``--max-risk`` verdict: ``status`` :data:`FAIL` when a file's headline exceeds
    ``limit`` (``failed``: :func:`over_limit`'s lines), else :data:`UNDECIDED` when the gate cannot
    vouch for the files (``undecided``: one line per reason: a record-linkage attack requested but
    not run, e.g. refused by the memory limit, could link more than the limit; records paired by
    row order no closer than random pairs make every percentage meaningless), else :data:`PASS`.
    An attack that does not apply to a file by design (:data:`NOT_APPLICABLE_NOTES`) links
    nothing and does not hold the gate back; ID never gates (module docstring). ``lines``: the
    verdict as the report prints it.

    ``limit``: one number for every criterion, or ``{criterion: limit}`` (``--max-risk
    linkability=5,inference=10``; a criterion not named is not gated). Linkability gates on the
    percent of records linked; the other criteria (:func:`criterion_over_limit`) on their excess
    over the baseline, in points."""
    link_cap = _limit_of(limit, LINKABILITY)
    failed = over_limit(results, link_cap) if link_cap is not None else []
    failed += criterion_over_limit(results, limit)
    missing = missing_rows(results)
    refused = missing[(missing.status == "not run") & (missing.measure != "ID")]
    undecided = [f"the pairing could not be verified: {w[:w.index(UNPAIRED_WARNING) + len(UNPAIRED_WARNING)]} "
                 "(pair them by an id column, --id)" for w in unpaired_files(warnings)]
    if link_cap is None:
        refused = refused.iloc[0:0]
    undecided += [f"{x.measure} was not run on {x.masked}" + (f", scenario {x.scenario}" if x.scenario else "")
                  + f" ({x.reason})" for x in refused.itertuples()]
    status = FAIL if failed else UNDECIDED if undecided else PASS
    if status == PASS:
        lines = ([f"every attack at or below --max-risk {_exact(float(limit))} %"] if not isinstance(limit, dict)
                 else [f"every criterion at or below its --max-risk ({_limit_text(limit)})"])
    else:
        lines = failed + [f"undecided: {u}" for u in undecided]
        if status == UNDECIDED:
            why = (["an attack not run could link more"] if len(refused) else []) + \
                  (["the percentages of records that row order may not pair mean nothing"]
                   if len(undecided) > len(refused) else [])
            ran = len(linkage_rows(results)) > 0
            lines.append((f"no attack that ran links more than --max-risk {_limit_text(limit)} %, but" if ran else
                          "no record-linkage attack ran:") + f" the gate cannot pass: {' and '.join(why)}")
    return {"status": status, "limit": limit, "failed": failed, "undecided": undecided, "lines": lines}


def draws_text(results: pd.DataFrame) -> list[str]:
    """One line per row with a range over tie draws (GDBRL): how far the draws moved the result."""
    r = _complete(results)
    r = r[(r.kind == RISK) & r.draws_low.notna() & r.draws_high.notna()]
    return [f"{x.measure} on {Path(str(x.masked)).name}, scenario {x.scenario}: {x.percent:.2f} % expected, "
            f"{x.draws_low:.2f}-{x.draws_high:.2f} % over its tie draws" for x in r.itertuples()]


def _blocking_items(meta: dict) -> list[tuple[str, dict]]:
    """(label, summary) pairs of the blocking keys: one pair when every file has the same."""
    info = meta.get("blocking") or {}
    if not info:
        return []
    per_file = info if all(isinstance(v, dict) for v in info.values()) and "keys" not in info else {"": info}
    per_file = {k: v for k, v in per_file.items() if v and v.get("keys")}
    if not per_file:
        return []
    values = list(per_file.values())
    if all(v == values[0] for v in values):
        return [("", values[0])]
    return [(Path(str(k)).name, v) for k, v in per_file.items()]


def blocking_text(meta: dict) -> list[str]:
    """The blocking summary: keys, number of blocks, share of records unique on the keys."""
    lines = []
    for label, b in _blocking_items(meta):
        share = b.get("unique_share", math.nan)
        lines.append((f"{label}: " if label else "")
                     + f"blocking keys {', '.join(map(str, b['keys']))} (categorical attributes released unchanged; "
                     "an intruder who knows them attacks within blocks of equal keys): "
                     + f"{b.get('blocks', '?')} blocks; "
                     + (f"{share:.2f} % of the records are unique on the keys alone (found without any attack)"
                        if isinstance(share, (int, float)) and np.isfinite(share) else ""))
    return lines


def intruder_lines(results: pd.DataFrame) -> list[tuple[str, str]]:
    """(measure, what the intruder knows and does) for every risk measure in ``results``."""
    r = _complete(results)
    names = list(dict.fromkeys(r[r.kind == RISK].measure))
    return [(n, INTRUDER.get(n, "a registered attack (see its docstring).")) for n in names]


#: Column headers of the report's tables, for readers rather than programs (report.json keeps the
#: field names).
HEADERS = {"masked": "masked file", "measure": "attack", "scenario": "scenario", "n_known": "attributes known",
           "n": "records", "linked": "records linked", "percent": "% linked", "95% interval": "95 % interval",
           "random guess %": "random guess %", "tie draws %": "% over tie draws", "seconds": "seconds",
           "note": "notes", "max_linked_percent": "highest % linked", "baseline": "random guess %",
           "worst_attack": "by attack", "worst_scenario": "scenario"}
NOWRAP = {"masked file", "attack", "scenario", "95 % interval", "% over tie draws", "% linked", "by attack"}
TEXT_COLUMNS = {"masked file", "attack", "scenario", "by attack"}  #: left-aligned in the HTML tables
FOOTNOTE_LENGTH = 60  #: notes longer than this (or on more than one row) are given once, under their table


def footnotes(notes) -> tuple[list[str], list[str]]:
    """Each row's note as shown in a table, and the notes given once under it: a note on more than
    one row, or longer than :data:`FOOTNOTE_LENGTH` characters, becomes a mark ``[k]`` pointing to
    the k-th entry of the list (the first time it appears); a short note of one row stays as it is."""
    notes = ["" if not isinstance(v, str) else v for v in notes]
    counts = pd.Series([v for v in notes if v]).value_counts().to_dict() if any(notes) else {}
    listed: list[str] = []
    shown = []
    for v in notes:
        if v and (counts[v] > 1 or len(v) > FOOTNOTE_LENGTH):
            if v not in listed:
                listed.append(v)
            shown.append(f"[{listed.index(v) + 1}]")
        else:
            shown.append(v)
    return shown, listed


def _status_text(results: pd.DataFrame) -> pd.Series:
    """Per row of ``results`` (completed): "not run" / "not applicable" / "bounded" where a risk
    row has no result (:func:`missing_rows`), else ""."""
    r = _complete(results)
    out = pd.Series("", index=r.index, dtype=object)
    missing = (r.kind == RISK) & r.percent.isna()
    notes = r.note.fillna("").astype(str)
    out[missing] = [_status_of(n) for n in notes[missing]]
    return out


def left_out_text(meta: dict) -> list[str]:
    """One line per attack the default set left out (:mod:`sdcrisk.assess.default_attacks`), with why."""
    return [f"{name}: {reason}" for name, reason in (meta.get("left_out") or {}).items()]


def summary_text(results: pd.DataFrame) -> str:
    """The console summary: risk per attack and scenario with its 95 % interval, then IL, per masked
    file; a note on several rows (or a long one) once, under its file's table; then the attacks not
    run (or not applicable) with their reasons and the headline sentence."""
    r = _complete(results)
    status = _status_text(r)
    lines = []
    for masked, g in r.groupby("masked", sort=False):
        lines.append(f"{masked}")
        lines.append(f"  {'attack':<15}{'scenario':<10}{'linked':>9}{'%':>8}  {'95% interval':<13}{'guess %':>8}"
                     f"{'seconds':>9}")
        risk = g[g.kind == RISK]
        shown, listed = footnotes([("" if status[i] else x.note) for i, x in zip(risk.index, risk.itertuples())])
        for i, x, note in zip(risk.index, risk.itertuples(), shown):
            linked = pd.to_numeric(pd.Series([x.linked]), errors="coerce").iloc[0]
            linked = f"{linked:.1f}" if np.isfinite(linked) else ""
            pct = _fmt(x.percent) if not status[i] else {"not applicable": "n/a", BOUNDED: "bound"}.get(status[i], "not run")
            lines.append(f"  {x.measure:<15}{x.scenario:<10}{linked:>9}{pct:>8}  "
                         f"{_interval(x.low, x.high):<13}{_fmt(x.baseline):>8}{_fmt(x.seconds):>9}"
                         + (f"  {note}" if note.startswith("[") else f"  ({note})" if note else ""))
        lines.extend(f"  [{k}] {v}" for k, v in enumerate(listed, start=1))
        il = g[g.kind == LOSS].set_index("measure").percent
        if len(il):
            lines.append("  information loss (%): " + ", ".join(f"{k} {v:.2f}" if np.isfinite(v) else f"{k} n/a"
                                                                for k, v in il.items()))
    missing = missing_text(results)
    if missing:
        lines.append("Attacks without a result:")
        lines.extend(f"  {m}" for m in missing)
    text = headline_text(results)
    criteria = [c["text"] for c in criteria_lines(results) if c["criterion"] != LINKABILITY]
    if criteria:
        lines.append("Inference (and every criterion other than linkability), highest excess over the baseline:")
        lines.extend(f"  {c}" for c in criteria)
    return "\n".join(lines + ([text] if text else []))


# ----------------------------------------------------------------------------- figures
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def preload() -> None:
    """Import the plotting library now (0.4-0.5 s): ``sdcrisk assess`` calls this while its attack
    workers run, so that the report is written sooner after the last attack."""
    _pyplot()


def _short(name: str, width: int = 36) -> str:
    return name if len(name) <= width else name[: width // 2 - 1] + "…" + name[-(width - width // 2):]


def file_labels(files: list) -> dict:
    """Legend labels of the masked files: their base names, the paths as given where base names
    repeat; long ones shortened in the middle."""
    base = [Path(str(f)).name for f in files]
    full = [str(f) if base.count(b) > 1 else b for f, b in zip(files, base)]
    labels = [_short(t) for t in full]
    for i, t in enumerate(labels):  # shortening made two equal: number them
        if labels.count(t) > 1:
            labels[i] = f"{i + 1}: {t}"
    return dict(zip(files, labels))


def file_colours(n: int) -> list:
    """One colour per file: tab10 up to 10 files, tab20 up to 20, then a continuous map."""
    plt = _pyplot()
    if n <= 10:
        return [plt.get_cmap("tab10")(i) for i in range(n)]
    if n <= 20:
        return [plt.get_cmap("tab20")(i) for i in range(n)]
    return [plt.get_cmap("turbo")(0.05 + 0.9 * i / (n - 1)) for i in range(n)]


def _top_scenario(risk: pd.DataFrame) -> pd.DataFrame:
    """Each file's rows at its scenario with the most known attributes."""
    return risk[risk.n_known == risk.groupby("masked").n_known.transform("max")]


def _errors(r: pd.DataFrame) -> np.ndarray | None:
    low, high, pct = (r[c].to_numpy(dtype=float) for c in ("low", "high", "percent"))
    if not np.isfinite(low).any():
        return None
    return np.vstack([np.where(np.isfinite(low), pct - low, 0.0), np.where(np.isfinite(high), high - pct, 0.0)])


def _file_legend(fig, handles, labels, title):
    ncol = max(1, math.ceil(len(labels) / 24))
    return fig.legend(handles, labels, title=title, loc="outside right upper", fontsize=7, title_fontsize=8,
                      ncols=ncol, frameon=False)


def risk_utility_map(results: pd.DataFrame):
    """IL-s (x; the papers' IL where IL-s is missing) against % correctly linked (y) with 95 %
    error bars: one colour per masked file, one marker per attack, at each file's scenario with
    the most known attributes. No text on the plot: files and attacks are named in two legends.
    The markers of one file are spread sideways over 1.5 % of the axis width around its IL-s so
    that their error bars do not cover one another."""
    plt = _pyplot()
    from matplotlib.lines import Line2D

    r = _complete(results)
    risk = _top_scenario(linkage_rows(r))
    loss = r[r.kind == LOSS]
    measure = "IL-s" if (loss.measure == "IL-s").any() else "IL"
    il = loss[loss.measure == measure].drop_duplicates("masked").set_index("masked").percent
    files = list(dict.fromkeys(r.masked))
    attacks = list(dict.fromkeys(risk.measure))
    labels, colours = file_labels(files), file_colours(len(files))
    fig = plt.figure(figsize=(7.2, max(4.6, 1.8 + 0.15 * min(len(files), 24))), layout="constrained")
    ax = fig.add_subplot()
    xs = il.reindex(files).to_numpy(dtype=float)
    span = np.nanmax(xs) if np.isfinite(xs).any() and np.nanmax(xs) > 0 else 1.0
    right = max(1.0, 1.08 * span)
    step = 0.015 * right / max(1, len(attacks) - 1)
    for f, masked in enumerate(files):
        for a, name in enumerate(attacks):
            row = risk[(risk.masked == masked) & (risk.measure == name)]
            if row.empty or not np.isfinite(xs[f]):
                continue
            x = xs[f] + (a - (len(attacks) - 1) / 2) * step
            ax.errorbar([x], row.percent.to_numpy(dtype=float), yerr=_errors(row), fmt=MARKERS[a % len(MARKERS)],
                        color=colours[f], ms=5, elinewidth=0.8, capsize=2, alpha=0.85)
    ax.set_xlabel(f"information loss {measure} (%; lower is better)")
    ax.set_ylabel("original records correctly linked (%)")
    ax.set_ylim(-2, 102)
    ax.set_xlim(left=0, right=right + 0.01 * right)
    ax.set_title("Risk-utility map (95 % intervals)", fontsize=10)
    if not attacks or not np.isfinite(xs).any():
        ax.text(0.5, 0.5, "no attack or no information loss to show", transform=ax.transAxes, ha="center")
    file_handles = [Line2D([], [], color=c, marker="s", ls="none", ms=6) for c in colours]
    _file_legend(fig, file_handles, [labels[f] for f in files], "masked file")
    attack_handles = [Line2D([], [], color="0.3", marker=MARKERS[a % len(MARKERS)], ls="none", ms=5)
                      for a in range(len(attacks))]
    if attacks:
        fig.legend(attack_handles, attacks, title="attack", loc="outside lower center", fontsize=7, title_fontsize=8,
                   ncols=min(4, len(attacks)), frameon=False)
    return fig


def attack_chart(results: pd.DataFrame):
    """% correctly linked (ID: % of values inside the interval) per attack at each file's scenario
    with the most known attributes: one dot per file with its 95 % interval, GDBRL's range over
    its tie draws as a grey band, the random-guess rate as a dashed line. No value labels (they
    are in the table)."""
    plt = _pyplot()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    r = _complete(results)
    risk = _top_scenario(r[(r.kind == RISK) & r.percent.notna()])
    attacks = list(dict.fromkeys(risk.measure))
    files = list(dict.fromkeys(r.masked))
    labels, colours = file_labels(files), file_colours(len(files))
    band = max(0.3, 0.09 * len(files))
    fig = plt.figure(figsize=(7.2, min(14.0, 1.9 + band * max(1, len(attacks)))), layout="constrained")
    ax = fig.add_subplot()
    h = 0.8 / max(1, len(files))
    drew_draws = False
    for f, masked in enumerate(files):
        g = risk[risk.masked == masked].drop_duplicates("measure").set_index("measure").reindex(attacks)
        pos = np.arange(len(attacks)) - 0.4 + h * (f + 0.5)
        ok = g.percent.notna().to_numpy()
        if not ok.any():
            continue
        lo, hi = g.draws_low.to_numpy(dtype=float), g.draws_high.to_numpy(dtype=float)
        for p, a, b in zip(pos, lo, hi):
            if np.isfinite(a) and np.isfinite(b):
                ax.plot([a, b], [p, p], color="0.6", lw=5, alpha=0.5, solid_capstyle="butt", zorder=1)
                drew_draws = True
        ax.errorbar(g.percent.to_numpy(dtype=float)[ok], pos[ok], xerr=_errors(g[ok]), fmt="o", color=colours[f],
                    ms=4, elinewidth=0.9, capsize=2, zorder=2)
    guesses = sorted({round(float(v), 6) for v in risk.baseline.dropna()})
    for v in guesses:
        ax.axvline(v, color="0.35", ls="--", lw=0.8, zorder=0)
    ax.set_yticks(np.arange(len(attacks)), attacks)
    ax.set_ylim(len(attacks) - 0.5, -0.5)
    ax.set_xlim(-2, 102)
    ax.set_xlabel("original records correctly linked (%; ID: values inside the interval)")
    ax.set_title("Disclosure risk per attack (95 % intervals)", fontsize=10)
    handles = [Line2D([], [], color=c, marker="o", ls="none", ms=5) for c in colours]
    names = [labels[f] for f in files]
    extra_h, extra_l = [], []
    if guesses:
        extra_h.append(Line2D([], [], color="0.35", ls="--", lw=0.8))
        extra_l.append("random guess")
    if drew_draws:
        extra_h.append(Patch(color="0.6", alpha=0.5))
        extra_l.append("range over tie draws")
    if len(files) > 1:
        _file_legend(fig, handles, names, "masked file")
    if extra_h:
        fig.legend(extra_h, extra_l, loc="outside lower center", fontsize=7, ncols=len(extra_h), frameon=False)
    return fig


def text_boxes(fig) -> list:
    """(text, window extent) of every visible, non-empty text of a drawn figure."""
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    hidden = set()  # labels of ticks outside the view limits exist but are not drawn
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - 1e-9 * (hi - lo) <= tick.get_loc() <= hi + 1e-9 * (hi - lo):
                    hidden.update({id(tick.label1), id(tick.label2)})
    out = []
    for t in fig.findobj(Text):
        if (t.get_visible() and t.get_text().strip() and id(t) not in hidden
                and (t.axes is None or t.axes.get_visible())):
            out.append((t.get_text(), t.get_window_extent(renderer)))
    return out


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return base64.b64encode(buf.getvalue()).decode()


# ----------------------------------------------------------------------------- writers
def _markdown_table(df: pd.DataFrame, notes: list[str] = ()) -> str:
    cols = list(df.columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        out.append("| " + " | ".join(_fmt(v).replace("|", "\\|") for v in row) + " |")
    if notes:
        out += ["", "Notes:", "", *[f"[{k}] {v}  " for k, v in enumerate(notes, start=1)]]
    return "\n".join(out)


def _html_table(df: pd.DataFrame, notes: list[str] = (), wide: bool = False) -> str:
    """A table with the columns of :data:`NOWRAP` kept on one line, text columns left-aligned, the
    notes column given room, and the notes given once under it (``notes``, marked ``[k]``)."""
    def cls(c):
        names = ((["nowrap"] if c in NOWRAP else []) + (["text"] if c in TEXT_COLUMNS else [])
                 + (["note"] if c == "notes" else []))
        return f' class="{" ".join(names)}"' if names else ""

    head = "".join(f"<th{cls(c)}>{html.escape(str(c))}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td{cls(c)}>{html.escape(_fmt(v))}</td>" for c, v in zip(df.columns, row))
                   + "</tr>" for row in df.itertuples(index=False))
    listed = ('<ol class="notes">' + "".join(f"<li>{html.escape(v)}</li>" for v in notes) + "</ol>") if notes else ""
    kind = ' class="results"' if wide else ""
    table = f"<table{kind}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="scroll">{table}</div>{listed}'


def headline_display(results: pd.DataFrame) -> pd.DataFrame:
    """The summary table as the report shows it: :func:`headline` with readable headers and the
    interval in one column."""
    top = headline(results)
    return pd.DataFrame({"masked file": top.masked, "highest % linked": top.max_linked_percent,
                         "95 % interval": [_interval(a, b) for a, b in zip(top.low, top.high)],
                         "by attack": top.worst_attack, "scenario": top.worst_scenario,
                         "random guess %": top.baseline, "IL": top.IL, "IL-s": top["IL-s"]})


def risk_display(results: pd.DataFrame, timings: bool = True) -> tuple[pd.DataFrame, list[str]]:
    """The detailed risk table as the report shows it (:func:`risk_table` with readable headers;
    "not run" / "not applicable" in place of a missing percentage, its reason given in the list of
    attacks without a result) and the notes given once under it (:func:`footnotes`)."""
    r = _complete(results)
    status = _status_text(r)[r.kind == RISK].to_numpy()
    table = risk_table(results)
    if not timings:
        table = table.drop(columns="seconds")
    table["percent"] = [s if s else v for s, v in zip(status, table.percent.astype(object))]
    shown, listed = footnotes([("" if s else n) for s, n in zip(status, table.note)])
    table["note"] = shown
    return table.rename(columns=HEADERS), listed


def loss_display(results: pd.DataFrame) -> pd.DataFrame:
    return loss_table(results).rename(columns=HEADERS)


def _meta(meta: dict) -> dict:
    return {"sdcrisk_version": __version__, "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            **meta}


def _plain(value):
    """``value`` with NaN as None and numpy scalars as Python numbers, recursively (for JSON)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _records(df: pd.DataFrame) -> list[dict]:
    """Rows as JSON-ready dicts: NaN / NA as null, numpy scalars as Python numbers."""
    return json.loads(df.astype(object).where(df.notna(), None).to_json(orient="records"))


def write_report(results: pd.DataFrame, out_dir: str | os.PathLike, meta: dict, *,
                 timings: bool = True, records: pd.DataFrame | None = None) -> list[Path]:
    """Write report.json, report.md and report.html into ``out_dir`` (created if needed). The
    files are written to a temporary directory first and moved in only when all three exist, so
    a failure leaves no partial report. ``records``: the records at risk (``record``,
    ``criterion``, ``attack``, ``evidence``, ``masked``), written as records_at_risk.csv beside them.

    ``meta``: ``original``, ``masked`` (paths), ``pairing``, ``warnings``, ``seed``, ``command`` and
    optionally ``blocking`` (``{"keys", "blocks", "unique_share"}``, or one such dict per masked
    file) and ``max_risk`` (the gate's limit); everything in it is copied into report.json.

    ``timings=False`` (``sdcrisk assess --no-timings``) leaves out everything that depends on the
    clock: the ``seconds`` column (results in report.json, the risk tables) and the creation time
    (``meta.created``, the date line); ``meta.timings`` is then ``false``. Two runs on the same
    files and options then write the same bytes (docs/cluster.md, "Several releases on a cluster")."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = _complete(results)
    info = _meta(meta)
    if not timings:
        info.pop("created", None)
        info["timings"] = False
    top = headline(results)
    (risk, risk_notes), loss, summary = risk_display(results, timings), loss_display(results), headline_display(results)
    intruder = intruder_lines(results)
    blocking, draws, sentence = blocking_text(meta), draws_text(results), headline_text(results)
    missing = missing_text(results)
    left_out = left_out_text(meta)
    left_intro = "Attacks left out by default (run them by name, or every attack with --attacks all):"
    plt = _pyplot()
    fig1, fig2 = risk_utility_map(results), attack_chart(results)
    try:
        ru_png, chart_png = _png(fig1), _png(fig2)
    finally:
        plt.close(fig1), plt.close(fig2)
    warned = meta.get("warnings") or []
    verdict = gate(results, meta["max_risk"], warned) if meta.get("max_risk") is not None else None
    criteria = criteria_lines(results, meta)
    crit_table = criteria_display(results)
    key_lines = key_risk_lines(meta)
    crit_intro = ("Singling out: a trial is a predicate (equal categorical keys, or tail conditions on numbers) "
                  "that isolates one release record; success: it matches exactly one original record; baseline: "
                  "the same predicates for originals planted in the release (sdcrisk.criteria.singling_out). "
                  "Inference: every original record a target; success: the guessed category, or a number within "
                  f"{100 * float((meta.get('inference') or {}).get('tolerance', 0.05)):g} % of the true value; "
                  "baseline: the best constant guess from the release (its mode or median); excess: success minus "
                  "baseline in percentage points with Newcombe's (1998) interval.")
    lines = verdict["lines"] if verdict else []
    doc = {"release_type": meta.get("release_type", "one to one"), "meta": _plain(info), "units": UNITS_TEXT,
           "criteria": [_plain({k: v for k, v in c.items()}) for c in criteria],
           "headline_text": sentence, "headline": _records(top),
           "intruder": dict(intruder), "blocking": _plain(meta.get("blocking") or {}), "gate": lines,
           "gate_status": verdict["status"] if verdict else None, "not_run": _records(missing_rows(results)),
           "left_out": dict(meta.get("left_out") or {}),
           "results": _records(results[[*[c for c in RESULT_COLUMNS if timings or c != "seconds"], "masked",
                                        *[c for c in results.columns if c not in RESULT_COLUMNS + ["masked"]]]])}
    stamp = f"sdcrisk {__version__}, " + (f"{info['created']}, " if timings else "") + f"seed {meta.get('seed', 0)}."
    pairing = meta.get("pairing", "")
    gate_title = {PASS: "Gate passed", FAIL: "Gate failed", UNDECIDED: "Gate undecided"}
    gate_head = gate_title[verdict["status"]] if verdict else ""
    missing_intro = ("Attacks without a result (not run: refused, e.g. by the memory limit, they could link more "
                     "than shown, and the --max-risk gate cannot pass; not applicable: the attack does not apply to "
                     "the file and links nothing; bounded: the attack can link at most what another attack already "
                     "linked, so the default set did not run it to the end):")
    from .sample import release_line, sample_markdown

    md = [f"# Disclosure risk and information loss{release_line(meta)}", "",
          f"Original file: `{meta.get('original', '')}`. Records paired by {pairing}.", "",
          stamp, "",
          *[f"**Warning:** {w}\n" for w in warned],
          *(["## Criteria", "", *[f"- **{c['text']}**" for c in criteria], ""] if len(criteria) > 1 else []),
          "## Summary", "", *([f"**{sentence}**", ""] if sentence else []),
          *[f"**{gate_head}:** {g}\n" for g in lines],
          _markdown_table(summary), "",
          *([missing_intro, "", *[f"- {m}" for m in missing], ""] if missing else []),
          *([left_intro, "", *[f"- {m}" for m in left_out], ""] if left_out else []),
          "## What the intruder knows and does", "", *[f"- **{n}**: {t}" for n, t in intruder], "",
          *(["## Blocking", "", *[f"- {b}" for b in blocking], ""] if blocking else []),
          "## Disclosure risk", "", _markdown_table(risk, risk_notes), "", *sample_markdown(meta),
          *(["Tie draws:", "", *[f"- {d}" for d in draws], ""] if draws else []),
          *(["## Singling out and inference", "", crit_intro, "", _markdown_table(crit_table), ""]
            if len(crit_table) else []),
          *(["## Agency measures on the categorical keys", "", *[f"- {k}" for k in key_lines], ""] if key_lines else []),
          "## Information loss (%)", "", _markdown_table(loss), "", "## Units", "", UNITS_TEXT, ""]
    esc = html.escape
    gate_colour = {PASS: "#060", FAIL: "#a00", UNDECIDED: "#a50"}.get(verdict["status"] if verdict else "", "#222")
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>sdcrisk report</title>
<style>body{{font-family:sans-serif;max-width:80em;margin:2em auto;padding:0 1em;color:#222}}
.scroll{{overflow-x:auto}}table{{border-collapse:collapse;margin:1em 0;font-size:0.85em}}table.results{{width:100%}}
td,th{{border:1px solid #bbb;padding:0.25em 0.5em;text-align:right;vertical-align:top}}th{{background:#eee}}
.nowrap{{white-space:nowrap}}.text{{text-align:left}}
td.note,th.note{{text-align:left;min-width:16em;white-space:normal}}
ol.notes{{font-size:0.85em}}img{{max-width:100%}}.headline{{font-size:1.15em;font-weight:bold}}</style></head><body>
<h1>Disclosure risk and information loss{esc(release_line(meta))}</h1>
<p>Original file: <code>{esc(str(meta.get('original', '')))}</code>. Records paired by {esc(pairing)}.</p>
<p>{esc(stamp)}</p>
{"".join(f'<p style="color:#a00"><b>Warning:</b> {esc(w)}</p>' for w in warned)}
{("<h2>Criteria</h2><ul>" + "".join(f'<li class="headline">{esc(c["text"])}</li>' for c in criteria) + "</ul>")
 if len(criteria) > 1 else ""}
<h2>Summary</h2>
{f'<p class="headline">{esc(sentence)}</p>' if sentence else ''}
{"".join(f'<p style="color:{gate_colour}"><b>{esc(gate_head)}:</b> {esc(g)}</p>' for g in lines)}
{_html_table(summary)}
{(f"<p>{esc(missing_intro)}</p><ul>" + "".join(f"<li>{esc(m)}</li>" for m in missing) + "</ul>") if missing else ""}
{(f"<p>{esc(left_intro)}</p><ul>" + "".join(f"<li>{esc(m)}</li>" for m in left_out) + "</ul>") if left_out else ""}
<h2>What the intruder knows and does</h2>
<ul>{"".join(f"<li><b>{esc(n)}</b>: {esc(t)}</li>" for n, t in intruder)}</ul>
{("<h2>Blocking</h2><ul>" + "".join(f"<li>{esc(b)}</li>" for b in blocking) + "</ul>") if blocking else ""}
<h2>Risk-utility map</h2><img alt="risk-utility map" src="data:image/png;base64,{ru_png}">
<h2>Disclosure risk per attack</h2><img alt="disclosure risk per attack" src="data:image/png;base64,{chart_png}">
{_html_table(risk, risk_notes, wide=True)}
{("<p>Tie draws:</p><ul>" + "".join(f"<li>{esc(d)}</li>" for d in draws) + "</ul>") if draws else ""}
{f"<h2>Sample release</h2><pre>{esc(chr(10).join(sample_markdown(meta)))}</pre>" if meta.get("sample") else ""}
{(f"<h2>Singling out and inference</h2><p>{esc(crit_intro)}</p>" + _html_table(crit_table, wide=True)) if len(crit_table) else ""}
{("<h2>Agency measures on the categorical keys</h2><ul>" + "".join(f"<li>{esc(k)}</li>" for k in key_lines) + "</ul>") if key_lines else ""}
<h2>Information loss (%)</h2>{_html_table(loss)}
<h2>Units</h2><p>{esc(UNITS_TEXT)}</p>
</body></html>
"""
    return write_files(out, doc, md, page, records)


def write_files(out: Path, doc: dict, md: list[str], page: str, records: pd.DataFrame | None = None) -> list[Path]:
    """report.json (``doc``), report.md (``md``'s lines), report.html (``page``) and, where given,
    records_at_risk.csv, written beside each other in a temporary directory in ``out`` and moved
    into ``out`` only when all are written: a failure leaves no partial report. Returns the paths."""
    tmp = Path(tempfile.mkdtemp(prefix=".sdcrisk-report-", dir=out))
    try:
        (tmp / "report.json").write_text(json.dumps(doc, indent=1, allow_nan=False) + "\n")
        (tmp / "report.md").write_text("\n".join(md))
        (tmp / "report.html").write_text(page)
        names = list(FILES)
        if records is not None:
            records.to_csv(tmp / RECORDS_FILE, index=False)
            names.append(RECORDS_FILE)
        for name in names:
            os.replace(tmp / name, out / name)
    finally:
        for f in tmp.glob("*"):
            f.unlink()
        tmp.rmdir()
    return [out / name for name in names]
