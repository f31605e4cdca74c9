"""The criteria other than linkability in ``sdcrisk assess``: inference of the secrets, singling
out and the agencies' measures on the release's keys, as result-table rows (kind = the criterion,
:data:`CRITERION_COLUMNS` besides :data:`sdcrisk.assess.rows.COLUMNS`) and records at risk, for a
one-to-one release (:func:`criteria_results`, after its linkage attacks) and a sample release
(:func:`sample_criteria`). The attacks themselves are :mod:`sdcrisk.criteria`'s; this module
hands them the paired files and turns their results into rows.

Inference on a sample release (:func:`sample_inference`). The intruder knows a person's known
attributes and looks the person up in the release; the release holds a sample of the original's
records. Every original record is a target, as on a one-to-one release
(:func:`sdcrisk.criteria.inference.infer`: the nearest release record on the known attributes and
the key cell; the linked-record attack, whose links run from released records to original ones
on a sample, is not used), on the numeric attributes standardised by the original's mean and sd in
both files, as the sample's linkage attacks compare them (:mod:`sdcrisk.assess.sample`). The released records' originals are the targets whose own data the
release holds; the originals left out of the sample are targets of the same population whose data
it does not hold, a control set drawn by the sampling itself. The row's rate is the released
targets' and its baseline the unreleased targets' rate; the excess, released minus unreleased,
with Newcombe's (1998, method 10) interval for the difference of two independent proportions,
is what the release reveals about the people in it beyond what it reveals about anyone (as a
synthetic release's excess over its control set, :mod:`sdcrisk.assess.synthetic`). The released
targets' best constant guess (the release's mode or median) is in the row's note. A sample of
every original record (no unreleased one) keeps the constant guess as baseline.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .pairing import Pair
from .rows import _scenario_label


def _evidence(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The records at risk of every criterion, one table (its columns when no record is at risk)."""
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=EVIDENCE_COLUMNS)


EVIDENCE_COLUMNS = ["record", "criterion", "attack", "evidence"]


def _singled(pair: Pair, cols: list[int], seed: int, record_ids, say) -> tuple[list, list[pd.DataFrame]]:
    """The singling-out rows (:func:`_singling_out`, :func:`singling_out_predicates` predicates)
    and their records at risk, each record by its id (else its row number from 1)."""
    say("singling out")
    found, proof = _singling_out(pair, cols, seed, singling_out_predicates(pair.n))
    if not len(proof):
        return found, []
    return found, [proof.assign(record=record_ids[proof.record] if record_ids is not None else proof.record + 1)]


def criteria_results(pair: Pair, sets: list[list[int]], secrets: list[str], links: dict, *, tolerance: float,
                     record_ids, labels: dict, singled, singling_out: bool, seed: int, weights, say) -> dict:
    """The criteria other than linkability of a one-to-one release, after its linkage attacks
    (``links``: each attack's link per original record, in the attacks' order): the records each
    attack links to their own masked record, inference of every secret, singling out (``singled``:
    already computed by :func:`_singled`, else computed here) and the agencies' measures.
    ``{"rows", "evidence", "diversity", "key_risk"}``; :func:`assess` and the criteria job of
    :mod:`sdcrisk.assess.jobs` both call it, so the workflow's rows are the command's."""
    columns = pair.columns
    rows, evidence, diversity = [], [], {}
    own = np.arange(pair.n)
    for name, link in links.items():  # linkability's records at risk: linked to their own masked record
        hit = np.flatnonzero(link == own)
        evidence.append(pd.DataFrame({"record": record_ids[hit] if record_ids is not None else hit + 1,
                                      "criterion": "linkability", "attack": name,
                                      "evidence": "linked to its own masked record"}))
    label, known = _scenario_label(sets[0], columns), ",".join(columns[c] for c in sets[0])
    for s in secrets:
        say(f"inference of {s}")
        found = _inference(pair, s, sets[0], links, tolerance)
        rows.extend(_criterion_table_rows(found.rows, label, known, len(sets[0])))
        diversity[s] = found.diversity
        true = pair.cx[:, pair.categorical.index(s)] if found.categorical else pair.x[:, pair.numeric.index(s)]
        evidence.append(found.evidence(record_ids, labels.get(s), true))
    if singling_out:
        found, proof = singled if singled is not None else _singled(pair, sets[0], seed, record_ids, say)
        rows.extend(_criterion_table_rows(found, label, known, len(sets[0])))
        evidence.extend(proof)
    key_risk = _key_risk(pair, sets[0], secrets, weights) if singling_out or weights is not None else None
    return {"rows": rows, "evidence": evidence, "diversity": diversity, "key_risk": key_risk}


#: singling out's multivariate predicates (:func:`sdcrisk.criteria.singling_out.singling_out`'s
#: ``predicates``) in ``assess``: 1000 up to 10^5 records, then fewer, at least 100. Each predicate
#: drawn is counted in both files, so the draws cost grows as predicates x records; the cap keeps
#: singling out small beside the linkage attacks at 10^6 records (docs/assess.md, Singling out).
SINGLING_OUT_PREDICATES = (100, 1000)
SINGLING_OUT_WORK = 10 ** 8  # predicates x records


def singling_out_predicates(n: int) -> int:
    """The multivariate singling-out predicates :func:`assess` tries on ``n`` original records."""
    low, high = SINGLING_OUT_PREDICATES
    return int(min(high, max(low, SINGLING_OUT_WORK // max(int(n), 1))))


# ----------------------------------------------------------------------------- inference
CRITERION_COLUMNS = ["criterion", "target", "baseline_kind", "baseline_linked", "baseline_trials", "excess",
                     "excess_low", "excess_high", "difference", "difference_low", "difference_high"]
INFERENCE_KIND = "inference"  # the ``kind`` of an inference row




def records_at_risk(results: pd.DataFrame) -> pd.DataFrame:
    """The per-record evidence of :func:`assess`'s result: ``record`` (the id, else the row number
    from 1), ``criterion``, ``attack``, ``evidence`` (empty without a secret)."""
    held = results.attrs.get("records_at_risk")
    return held.table if held is not None else pd.DataFrame(columns=["record", "criterion", "attack", "evidence"])


def criterion_rows(results: pd.DataFrame) -> list:
    """The rows of :func:`assess`'s result measured under a criterion other than linkability, as
    :class:`sdcrisk.criteria.CriterionRow` (the same numbers: successes, trials, baseline)."""
    from ..criteria import CriterionRow

    if "criterion" not in results.columns:
        return []
    r = results[results.criterion.notna() & (results.criterion != "")]
    return [CriterionRow(criterion=x.criterion, attack=x.measure, successes=float(x.linked), trials=int(x.n),
                         baseline=x.baseline_kind, baseline_successes=float(x.baseline_linked),
                         baseline_trials=int(x.baseline_trials), target=x.target, note=x.note or "")
            for x in r.itertuples()]




def _labels(column: pd.Series, codes: np.ndarray) -> np.ndarray:
    """The label of each category code (``codes``: the column's codes, record by record; codes
    only the release has are shown as ``code K``)."""
    out = np.array([f"code {k}" for k in range(int(codes.max(initial=0)) + 1)], dtype=object)
    out[codes] = column.astype(str).to_numpy()
    return out


def _inference(pair: Pair, secret: str, cols: list[int], links: dict, tolerance: float, sample: bool = False):
    """The inference attacks on ``secret`` knowing the scenario ``cols`` (:func:`sdcrisk.criteria.inference.infer`)."""
    from ..criteria.inference import infer

    known = [pair.columns[c] for c in cols]
    kn = [pair.numeric.index(c) for c in known if c in pair.numeric]
    kc = [c for c in known if c in pair.categorical]
    jc = [pair.categorical.index(c) for c in kc]
    categorical = secret in pair.categorical
    if categorical:
        j = pair.categorical.index(secret)
        sx, sy = pair.cx[:, j], pair.cy[:, j]
    else:
        j = pair.numeric.index(secret)
        sx, sy = pair.x[:, j], pair.y[:, j]
    xn, yn = pair.x[:, kn], pair.y[:, kn]
    if sample:  # the numeric attributes on the scale the sample's linkage attacks use
        from .sample import _on_the_distance_scale

        xn, yn = _on_the_distance_scale(pair, kn, [], [], equal=False)
    return infer(secret, sx, sy, categorical=categorical, xn=xn, yn=yn, xc=pair.cx[:, jc], yc=pair.cy[:, jc],
                 blocking=[c in pair.keys for c in kc], ncat=pair.ncat(kc), links=links, tolerance=tolerance,
                 scaled=sample)


def _singling_out(pair: Pair, cols: list[int], seed: int, predicates: int = 1000):
    """The singling-out attacks on the scenario ``cols`` (:func:`sdcrisk.criteria.singling_out.singling_out`),
    on the values as the attacks see them (categorical attributes by their common codes)."""
    from ..criteria.singling_out import singling_out

    known = [pair.columns[c] for c in cols]
    frames = []
    for x, cx in ((pair.x, pair.cx), (pair.y, pair.cy)):
        frames.append(pd.DataFrame({c: (cx[:, pair.categorical.index(c)] if c in pair.categorical
                                        else x[:, pair.numeric.index(c)]) for c in known}))
    rows, proof = singling_out(frames[0], frames[1], known, categorical=[c for c in known if c in pair.categorical],
                               seed=seed, predicates=predicates)
    return rows, proof


def _key_risk(pair: Pair, cols: list[int], secrets: list[str], weights: np.ndarray | None) -> dict | None:
    """The agencies' measures on the release's known categorical attributes (:func:`sdcrisk.criteria.key_risk.key_risk`),
    the categorical secrets as sensitive attributes; None without a known categorical attribute."""
    from ..criteria.key_risk import key_risk

    keys = [pair.columns[c] for c in cols if pair.columns[c] in pair.categorical]
    if not keys:
        return None
    sensitive = [s for s in secrets if s in pair.categorical]
    table = pd.DataFrame({c: pair.cy[:, pair.categorical.index(c)] for c in keys + sensitive})
    if weights is not None:
        table["__weights__"] = weights
    found = key_risk(table, keys, weights="__weights__" if weights is not None else None, sensitive=sensitive)
    out = {"keys": keys, "weights": weights is not None, "records": found.n,
           "k_anonymity": found.k_anonymity.to_dict(orient="records"),
           "expected_reidentifications": found.risk_ER, "global_risk_percent": found.risk_pct}
    if sensitive:
        lowest = {s: int(found.records[f"{s}_Distinct_Ldiversity"].min()) for s in sensitive}
        out["l_diversity"] = {s: {"lowest_distinct_l": lowest[s], "records_with_l_1": int(
            (found.records[f"{s}_Distinct_Ldiversity"] <= 1).sum())} for s in sensitive}
    return out


def _criterion_table_rows(found: list, label: str, known: str, n_known: int) -> list[dict]:
    """The result table's rows of :class:`sdcrisk.criteria.CriterionRow` results (inference,
    singling out): kind = the criterion, the success in ``linked`` out of ``n`` trials."""
    out = []
    for r in found:
        low, high = r.interval
        excess, e_low, e_high = r.excess
        difference, d_low, d_high = r.difference
        out.append({"measure": r.attack, "kind": r.criterion, "scenario": label, "known": known,
                    "n_known": n_known, "n": r.trials, "linked": r.successes, "percent": r.percent, "low": low,
                    "high": high, "baseline": r.baseline_percent, "note": r.note, "criterion": r.criterion,
                    "target": r.target, "baseline_kind": r.baseline,
                    # the baseline's own trials (a sample's: the unreleased originals)
                    "baseline_linked": r.baseline_successes, "baseline_trials": r.baseline_trials,
                    "excess": excess, "excess_low": e_low, "excess_high": e_high, "difference": difference,
                    "difference_low": d_low, "difference_high": d_high})
    return out


def sample_inference(pair: Pair, secret: str, cols: list[int], tolerance: float, record_ids=None, labels=None):
    """Inference of ``secret`` on a sample release (module docstring): ``(rows, evidence,
    diversity)``, the rows :class:`sdcrisk.criteria.CriterionRow` (released targets against
    unreleased ones), the evidence the released targets' records at risk."""
    from ..criteria import CriterionRow

    found = _inference(pair, secret, cols, {}, tolerance, sample=True)
    big = pair.x.shape[0]
    inside = np.zeros(big, dtype=bool)
    inside[pair.rows] = True
    n, rest = int(inside.sum()), int(big - inside.sum())
    rows = []
    for r in found.rows:
        credit = found.credit[r.attack]
        constant = 100.0 * float(found.baseline_credit[inside].sum()) / n
        note = "; ".join(filter(None, [r.note, f"best constant guess ({r.baseline}) on the released targets: {constant:.2f} %"]))
        if rest:
            rows.append(CriterionRow(criterion=r.criterion, attack=r.attack, successes=float(credit[inside].sum()),
                                     trials=n, baseline=f"unreleased originals ({rest:,} targets)",
                                     baseline_successes=float(credit[~inside].sum()), baseline_trials=rest,
                                     target=r.target, note=note))
        else:
            rows.append(CriterionRow(criterion=r.criterion, attack=r.attack, successes=float(credit.sum()),
                                     trials=n, baseline=r.baseline,
                                     baseline_successes=float(found.baseline_credit.sum()), baseline_trials=n,
                                     target=r.target, note=r.note))
    true = pair.cx[:, pair.categorical.index(secret)] if found.categorical else pair.x[:, pair.numeric.index(secret)]
    ev = found.evidence(np.arange(big), labels, true)
    ev = ev[inside[ev.record.to_numpy(dtype=np.int64)]].reset_index(drop=True)
    pos = ev.record.to_numpy(dtype=np.int64)
    ev["record"] = np.asarray(record_ids)[pos] if record_ids is not None else pos + 1
    return rows, ev, found.diversity


def sample_criteria(pair: Pair, sets: list[list[int]], secrets: list[str], *, tolerance: float, record_ids,
                    labels: dict, singling_out: bool, seed: int, weights, say) -> dict:
    """The criteria other than linkability of a sample release (``pair.rows``: the released
    records' originals), as :func:`criteria_results` gives them for a one-to-one release:
    inference of every secret (:func:`sample_inference`), singling out with every original
    record as the originals (a predicate succeeds when exactly one record of the whole original
    satisfies it), the agencies' measures on the release's keys. ``{"rows", "evidence",
    "diversity", "key_risk"}``; the command and the criteria job of :mod:`sdcrisk.assess.jobs`
    both call it."""
    columns = pair.columns
    label, known = _scenario_label(sets[0], columns), ",".join(columns[c] for c in sets[0])
    rows, evidence, diversity = [], [], {}
    for s in secrets:
        say(f"inference of {s} (released against unreleased originals)")
        found, ev, diversity[s] = sample_inference(pair, s, sets[0], tolerance, record_ids, labels.get(s))
        rows.extend(_criterion_table_rows(found, label, known, len(sets[0])))
        evidence.append(ev)
    if singling_out:
        found, proof = _singled(pair, sets[0], seed, record_ids, say)
        rows.extend(_criterion_table_rows(found, label, known, len(sets[0])))
        evidence.extend(proof)
    key_risk = _key_risk(pair, sets[0], secrets, weights) if singling_out or weights is not None else None
    return {"rows": rows, "evidence": evidence, "diversity": diversity, "key_risk": key_risk}


def criteria_attrs(crit: dict, secrets: list[str], tolerance: float) -> dict:
    """The result's ``attrs`` of :func:`criteria_results` / :func:`sample_criteria`'s output: the
    inference settings with the l-diversity per secret, and the agencies' measures."""
    out = {}
    if secrets:
        out["inference"] = {"tolerance": tolerance, "secrets": secrets, "l_diversity": crit["diversity"]}
    if crit["key_risk"] is not None:
        out["key_risk"] = crit["key_risk"]
    return out


def sample_criterion_rows(rows: list[dict]) -> pd.DataFrame | None:
    """A sample's criterion rows as a table: the inference rows count released records (column
    ``records``, as the sample's linkage rows); singling out's trials are predicates."""
    if not rows:
        return None
    from .sample import RECORDS

    table = pd.DataFrame(rows)
    table["records"] = pd.Series(RECORDS, index=table.index).where(table["kind"] == INFERENCE_KIND)
    return table


__all__ = ["criteria_results", "criteria_attrs", "sample_criteria", "sample_criterion_rows", "sample_inference", "records_at_risk", "criterion_rows",
           "singling_out_predicates", "CRITERION_COLUMNS", "INFERENCE_KIND", "EVIDENCE_COLUMNS",
           "SINGLING_OUT_PREDICATES", "SINGLING_OUT_WORK"]
