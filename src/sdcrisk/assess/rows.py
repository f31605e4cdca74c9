"""One attack's row of :func:`sdcrisk.assess.assessment.assess` (:func:`_attack_row`: the attack
on a scenario, its expected correct links, interval, notes), an attack settled by its bound
(:func:`bounded_row`), and the rows of interval disclosure and information loss. Below
:mod:`sdcrisk.assess.assessment` (which schedules the rows) and :mod:`sdcrisk.assess.sample`
(which reuses them for a release of every record in another order).
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..attacks import BOUNDS, not_applicable, run_attack
from .categorical import block_codes, block_summary, blocked, mixed_matrix
from ..linkage.probabilistic import prl
from ..linkage.base import NotApplicable, checked_links
from ..linkage.distance import dbrl
from ..linkage.global_distance import gdbrl
from ..measures.information_loss import covariances, il_components, il_s_components
from ..measures.interval_disclosure import interval_disclosure_by_attribute
from ..measures.uncertainty import wilson_interval
from ..measures.units import linkage_percent
from ..resources import MemoryLimitError, WorkLimitError, check_memory, out_of_memory
from ..validation import prepare
from .bounds import BOUNDED, best_result, bounded_row  # noqa: F401 (this module's API)
from .pairing import Pair


COLUMNS = ["measure", "kind", "scenario", "known", "n_known", "n", "linked", "percent", "low", "high", "baseline",
           "draws_low", "draws_high", "seconds", "note"]


RISK, LOSS = "disclosure risk", "information loss"


LINKS = "_links"  # an attack row's links, in the original's order (_own_order), until assess takes them


def _scenario_label(cols: list[int], columns: list[str]) -> str:
    return "all" if len(cols) == len(columns) else f"first {len(cols)}" if cols == list(range(len(cols))) \
        else "given"


def _mixed_distance_attack(name: str, rng: np.random.Generator):
    """DBRL or GDBRL on coordinates already under the mixed distance (:mod:`sdcrisk.assess.categorical`):
    no further standardisation, so a block is measured with the whole file's scale."""
    if name == "DBRL":
        return lambda xb, yb, tb: checked_links(dbrl(xb, yb, standardise="none", truth=tb), name, *_sizes(xb, yb))
    return lambda xb, yb, tb: checked_links(gdbrl(xb, yb, standardise="none", rng=rng, truth=tb), name,
                                            *_sizes(xb, yb))


def _sizes(xb, yb):
    return xb.shape[0], yb.shape[0]


MIXED_DISTANCE = ("DBRL", "GDBRL")  # attacks that compare changed categorical attributes by the mixed distance


def _rows(z: np.ndarray, perm: np.ndarray, cols: list[int]) -> np.ndarray:
    """``z[perm][:, cols]`` (column-major, as that expression gives) in one allocation instead of
    two: column by column."""
    out = np.empty((perm.size, len(cols)), order="F")
    for j, c in enumerate(cols):
        np.take(z[:, c], perm, out=out[:, j])
    return out


def _attack_row(name, pair: Pair, perm, cols, seed, prl_candidates=None, expected: float | None = None) -> dict:
    """One attack on the scenario ``cols`` (indices of ``pair.columns``); the masked file is seen in
    order ``perm``. Returns the row's ``linked`` (expected correct links, ties broken uniformly at
    random), ``percent``, ``low``/``high`` (95 % interval), ``baseline`` (random guess),
    ``draws_low``/``draws_high`` (GDBRL's tie draws), ``note`` and ``seconds``. ``expected``: the
    attack's expected peak memory (the workers' estimate, :func:`sdcrisk.assess.workers.expected_bytes`),
    refused up front when above the memory limit."""
    rng = np.random.Generator(np.random.PCG64(seed))
    known = [pair.columns[c] for c in cols]
    kn = [pair.numeric.index(c) for c in known if c in pair.numeric]
    keys = [c for c in known if c in pair.keys]
    changed = [c for c in known if c in pair.categorical and c not in pair.keys]
    n = pair.n
    truth = np.empty(n, dtype=np.int64)
    truth[perm] = np.arange(n)
    bx = block_codes(pair.cx[:, [pair.categorical.index(c) for c in keys]])
    by = bx[perm]
    blocks = block_summary(bx)
    row = {"linked": math.nan, "percent": math.nan, "low": math.nan, "high": math.nan,
           "baseline": blocks["random_guess"], "draws_low": math.nan, "draws_high": math.nan, "note": ""}
    notes = []
    jc = [pair.categorical.index(c) for c in changed]
    t0 = time.perf_counter()
    try:
        if expected is not None:
            check_memory(f"{name} on {n:,} records: its expected peak (measured per record at 10^6, "
                         "sdcrisk.assess.workers)", expected)
        if name in MIXED_DISTANCE and (keys or changed):
            ncat = pair.ncat(changed)
            xm = mixed_matrix(pair.x[:, kn], pair.cx[:, jc], ncat)
            ym = mixed_matrix(pair.y[:, kn], pair.cy[:, jc], ncat)[perm]
            attack = _mixed_distance_attack(name, rng)
            if changed:
                notes.append(f"mixed distance on {len(changed)} changed categorical attribute(s)")
        elif name == "PRL-graded" and (keys or changed):
            from ..linkage.graded import prl_graded

            xm = np.hstack([pair.x[:, kn], pair.cx[:, jc]])
            ym = np.hstack([pair.y[:, kn], pair.cy[:, jc]])[perm]
            mask = np.r_[np.zeros(len(kn), bool), np.ones(len(jc), bool)]
            res = checked_links(prl_graded(xm, ym, categorical=mask, blocks=(bx, by) if keys else None, rng=rng),
                                name, n, n)
            credit = (res.links == truth).astype(np.float64)
            if keys:
                notes.append(f"within {blocks['blocks']} blocks of equal {', '.join(keys)}")
            if changed:
                notes.append(f"agreement on {len(changed)} changed categorical attribute(s)")
            return _finish(row, name, res.info, credit, None, 0, n, notes, prl_candidates, t0,
                           _own_order(res.links, perm))
        else:
            # on the whole file: blocks may hide what the attack needs
            reason = not_applicable(name, pair.y, kn) if kn else \
                "no numeric known attribute (the attack compares ordered values only)"
            if reason:
                row["note"] = f"not applicable: {reason}"
                row["seconds"] = time.perf_counter() - t0
                return row
            if changed:
                notes.append(f"compares ordered values only: leaves out the changed categorical attribute(s) "
                             f"{', '.join(changed)}")
            # every column: the array itself (at 10^7 x 10 a copy costs 0.8 GB)
            xm = pair.x if kn == list(range(pair.x.shape[1])) else pair.x[:, kn]
            ym = _rows(pair.y, perm, kn)

            def attack(xb, yb, tb):
                if name == "PRL" and prl_candidates is not None:
                    return checked_links(prl(xb, yb, rng=rng, max_candidates=prl_candidates), name, *_sizes(xb, yb))
                return run_attack(name, xb, yb, np.arange(xb.shape[1]), 2, rng, truth=tb)
        if keys:
            out = blocked(attack, xm, ym, truth, bx, by, keep_constant=name in MIXED_DISTANCE)
            info = out.info[0] if out.info else {}
            failed = sum(i.get("converged") is False for i in out.info)
            info = {**info, "converged": not failed, "unconverged_blocks": (failed, len(out.info)),
                    "tied_records": sum(i.get("tied_records", 0) for i in out.info),
                    "approximate": any(i.get("approximate", False) for i in out.info)}
            notes.insert(0, f"within {blocks['blocks']} blocks of equal {', '.join(keys)}")
            return _finish(row, name, info, out.credit, out.draws, out.guessed, n, notes, prl_candidates, t0,
                           _own_order(out.links, perm))
        res = attack(xm, ym, truth)
        credit = res.credit if res.credit is not None else (res.links == truth).astype(np.float64)
        draws = res.info.get("draws")
        return _finish(row, name, res.info, credit, draws, 0, n, notes, prl_candidates, t0, _own_order(res.links, perm))
    except NotApplicable as exc:  # the attack's model does not fit this file: the others go on
        row["note"] = f"not run: {exc}"
        row["seconds"] = time.perf_counter() - t0
        return row
    except MemoryLimitError as exc:
        hint = " (sdcrisk assess: --prl-candidates K)" if name == "PRL" and not isinstance(exc, WorkLimitError) else ""
        row["note"] = f"not run: {exc}{hint}"
        row["seconds"] = time.perf_counter() - t0
        return row
    except MemoryError:  # an allocation the estimate did not foresee failed: this attack only
        row["note"] = f"not run: {out_of_memory(f'{name} on {n:,} records')}"
        row["seconds"] = time.perf_counter() - t0
        return row


#: records from which the default set settles an attack by its bound (:func:`bounded_row`): below,
#: every attack runs in seconds and is run to the end. A constant of the file's size, not of the
#: path the attacks take (workers or this process), so that both give the same rows.
BOUND_MIN = 20_000




def attack_bound(name, pair: Pair, perm, cols) -> float | None:
    """The upper bound on attack ``name``'s correct links on the scenario ``cols``
    (:data:`sdcrisk.attacks.BOUNDS`), or None where it has none here: no bound registered, blocks
    of categorical keys (a block the attack cannot run on is linked by random guess, which the
    bound does not count), or the attack does not apply."""
    if name not in BOUNDS:
        return None
    known = [pair.columns[c] for c in cols]
    kn = [pair.numeric.index(c) for c in known if c in pair.numeric]
    if not kn or any(c in pair.keys for c in known) or not_applicable(name, pair.y, kn):
        return None
    truth = np.empty(pair.n, dtype=np.int64)
    truth[perm] = np.arange(pair.n)
    xm = pair.x if kn == list(range(pair.x.shape[1])) else pair.x[:, kn]
    return float(np.sum(BOUNDS[name](xm, _rows(pair.y, perm, kn), np.arange(len(kn)), truth)))






def _own_order(links: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """An attack's links (positions in the masked file as it saw it, order ``perm``; -1: none) as
    masked records in the original's order, compact (int32 below 2^31 records): what the
    linked-record inference attack reads (:mod:`sdcrisk.criteria.inference`)."""
    links = np.asarray(links, dtype=np.int64)
    out = np.where(links >= 0, perm[np.maximum(links, 0)], -1)
    return out.astype(np.int32) if perm.size < 2 ** 31 else out


def _finish(row, name, info, credit, draws, guessed, n, notes, prl_candidates, t0, links=None) -> dict:
    seconds = time.perf_counter() - t0
    if links is not None:
        row[LINKS] = links  # popped by assess (the linked-record inference attack)
    linked = float(np.sum(credit))
    row["linked"], row["percent"] = linked, linkage_percent(linked, n)
    row["low"], row["high"] = wilson_interval(linked, n)
    if draws is not None and len(draws):
        row["draws_low"], row["draws_high"] = (linkage_percent(float(np.min(draws)), n),
                                               linkage_percent(float(np.max(draws)), n))
        if len(draws) > 1:  # one draw: no tie to average over
            notes.append(f"mean of {len(draws)} tie draws")
    tied = info.get("tied_records")
    if tied:
        notes.append(f"{tied} record(s) tie: counted 1/t each among t equally close")
    failed, attacked = info.get("unconverged_blocks", (0, 0))
    if failed:
        notes.append(f"EM did not converge in {failed} of the {attacked} blocks attacked; their weights may be unreliable")
    elif info.get("converged") is False:
        notes.append(f"EM did not converge in {info.get('iterations')} iterations; the weights may be unreliable")
    if info.get("approximate"):
        notes.append("approximate assignment on nearest candidates (docs/assess.md, Ties)")
    elif info.get("solver") == "sparse":
        notes.append(f"sparse assignment on {info['candidates']} nearest candidates")
    if info.get("truncated"):
        kept = "pairs agreeing on several attributes" if info.get("network") == "blocks" else "candidates"
        notes.append(f"assignment on each record's {prl_candidates} best {kept} "
                     f"({info['truncated']} record(s) had more)")
    if guessed:
        notes.append(f"{guessed} block(s) linked by random guess (the attack is undefined on them)")
    row["note"] = "; ".join(notes)
    row["seconds"] = seconds
    return row


def _interval_disclosure_row(pair: Pair, cols, label, known_names, by_attribute) -> dict:
    """Interval disclosure (ID) over the scenario's numeric known attributes: the mean over them of
    the percent of records whose original value lies in its masked value's interval, with a Wilson
    interval over the ``n`` records (a record's attributes are not independent trials)."""
    t0 = time.perf_counter()
    kn = [pair.numeric.index(pair.columns[c]) for c in cols if pair.columns[c] in pair.numeric]
    if by_attribute is None and pair.numeric:
        by_attribute = interval_disclosure_by_attribute(pair.x, pair.y)
    row = {"measure": "ID", "kind": RISK, "scenario": label, "known": known_names, "n_known": len(cols),
           "n": pair.n, "linked": math.nan, "by_attribute": by_attribute}
    if not kn:
        row.update(percent=math.nan, note="not applicable: no numeric known attribute")
    else:
        value = float(by_attribute[kn].mean())
        # the records are the trials (values of one record are not independent draws): n, not n x attributes
        low, high = wilson_interval(value / 100.0 * pair.n, pair.n)
        row.update(percent=value, low=low, high=high, note="")
    row["seconds"] = time.perf_counter() - t0
    return row


def _loss_rows(pair: Pair) -> list[dict]:
    """IL1..IL5 and the papers' IL; IL1s and IL-s, robust near zero (:mod:`sdcrisk.measures.information_loss`);
    IL-cat, the share of categorical values the masking changed."""
    n = pair.n
    rows = []

    def add(measure, value, seconds, note=""):
        rows.append({"measure": measure, "kind": LOSS, "scenario": "", "known": "", "n_known": 0, "n": n,
                     "linked": math.nan, "percent": float(value), "seconds": seconds, "note": note})

    if pair.numeric:
        t0 = time.perf_counter()
        cov = covariances(*prepare(pair.x, pair.y))  # once for both (the slow part at 10^6)
        single = len(pair.numeric) == 1  # no pair of attributes: IL5 (correlations) and the means using it undefined
        parts = 100.0 * il_components(pair.x, pair.y, cov=cov, **({"corr_entries": "upper"} if single else {}))
        robust = 100.0 * il_s_components(pair.x, pair.y, cov=cov)
        seconds = time.perf_counter() - t0
        na = "not applicable: needs at least 2 numeric attributes (correlations)"
        for k, value in enumerate(parts, start=1):
            add(f"IL{k}", math.nan if single and k == 5 else value, seconds, na if single and k == 5 else "")
        add("IL", math.nan if single else parts.mean(), seconds,
            na + " (IL5)" if single else "IL = (IL1 + ... + IL5) / 5, mean relative errors in percent; not bounded by 100")
        add("IL1s", robust[0], seconds, "mean |x - x'| / (sqrt(2) sd) in percent (Yancey, Winkler & Creecy 2002)")
        add("IL-s", math.nan if single else robust.mean(), seconds,
            na + " (IL5)" if single else "(IL1s + IL2s + IL3s + IL4 + IL5) / 5: IL in units of the attributes' "
            "standard deviations, robust near zero")
    if pair.categorical:
        changed = 100.0 * float(np.mean(pair.cx != pair.cy))
        add("IL-cat", changed, 0.0, "share of categorical values the masking changed, in percent")
    return rows
