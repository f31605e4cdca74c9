"""Sample releases: the masked file holds a subset of the original's records (a 1-50 % sample of a
register or census, masked or not). The custodian knows which (the ``--id`` column of both files);
the intruder does not: they hold the whole original (the population) and link each released record
to an original record (:mod:`sdcrisk.linkage.sample`, the direction from the smaller file to the
larger).

Release type: ``--id`` present in both files with fewer released records than original ones, every
released id an id of the original: ``"sample"`` (:func:`pair_sample`; stated in the report's first
line and as ``release_type`` in report.json). A released id the original does not have, or more
released records than original ones, is bad input (exit 2, one line).

Per scenario and attack the row gives the % of *released* records linked to their own original
record (``n`` the released records), its 95 % Wilson interval and the random guess, ``100 / N``
or, with categorical keys, the mean over released records of ``100 / N_b`` (``N_b`` the original
records of the record's block). Attacks:

* DBRL, RBRL-Sum, RBRL-Max and GDBRL by :mod:`sdcrisk.linkage.sample` (DBRL and GDBRL on the
  mixed distance when categorical attributes changed, as in the one-to-one attacks);
* PRL, PRL-graded, RS-RL and L-RL: "not applicable" with their reason (:data:`NOT_FOR_SAMPLES`).

By default the sample assessment runs DBRL too: the one-to-one default leaves it out because GDBRL
linked at least as many records on a corpus of one-to-one releases
(:mod:`sdcrisk.assess.default_attacks`), a result that says nothing of samples.

Cost: per scenario one exact k-d tree over the original (the larger file, the tree's side; the
released records are the queries, the block code one more coordinate) lists each released
record's 8 nearest original records, which give DBRL's link and ties, its distance ratio and
GDBRL's candidate graph; RBRL-Sum and RBRL-Max share the rank coordinates and one tree over them,
each listing the 2 nearest in its metric; only records whose list is full of equally near
records get a longer one (:mod:`sdcrisk.linkage.sample`).

Precision and recall (``attrs["sample"]["precision_recall"]``), per attack over its own confidence
(:data:`CONFIDENCE`, smaller is surer): DBRL the ratio of the distance to the nearest original
record over the distance to the second nearest, RBRL-Sum / RBRL-Max the same ratio of rank
distances, GDBRL the distance of its assigned link over that of the nearest other original record.
For each threshold, the links an intruder keeps (ratio at most the threshold), their share, the %
of them correct (precision, Wilson interval) and the % of all released records correctly linked
and kept (recall); at threshold 1 every link is kept and the recall is the row's %. The attacks
without a confidence here (not run on a sample) are named in the report.

Sample uniques (``attrs["sample"]["uniques"]``), per scenario with categorical keys, with the
original as the population: ``f_k`` and ``F_k`` the released and original records in key cell
``k``, ``SU = #{k : f_k = 1}`` the sample uniques. Skinner & Holmes (1998) and Skinner & Elliot
(2002, section 2) measure

    tau_1 = sum_k I(f_k = 1) I(F_k = 1)      sample uniques that are population uniques,
    tau_2 = sum_k I(f_k = 1) / F_k           expected correct matches of sample uniques, each
                                             matched to a random population record of its cell,
    theta = sum_k I(f_k = 1) / sum_k F_k I(f_k = 1)   (Skinner & Elliot 2002) the probability
                                             that a match of a population record to a sample
                                             unique is correct,

and ``Pr(PU | SU) = tau_1 / SU``, the share of sample uniques that are population uniques.
Computed exactly from the two frequency tables (``numpy.bincount`` over the cells), no model.

Information loss and interval disclosure (ID) compare each released record with its own original
record (the ``n`` paired records), as for a one-to-one release.

A release of every original record in another order (same size; reached by calling
:func:`pair_sample` and :func:`assess_sample`) runs DBRL and RBRL with the one-to-one direction
(each original record linked to a released one) and gives the one-to-one numbers exactly
(``tests/test_sample_release.py``); the other attacks (GDBRL with its tie draws among them) then
run the one-to-one code itself. On a sample, GDBRL solves once, on the original records in an
order drawn from the seed (no average over tie draws).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..linkage.distance import standardise
from ..linkage.sample import (GDBRL_CANDIDATES, RANK_NEAREST, OriginalSearch, precision_recall, ranks_in_original,
                              sample_dbrl, sample_gdbrl, sample_ranks, sample_rbrl)
from ..measures.uncertainty import wilson_interval
from ..resources import MemoryLimitError
from ..measures.units import linkage_percent
from .categorical import block_codes, block_summary, mixed_matrix
from .default_attacks import ALL_ATTACKS
from .pairing import Pair, pair_sample  # noqa: F401 (pair_sample: this module's API)
from .rows import COLUMNS, LOSS, RISK, _attack_row, _interval_disclosure_row, _loss_rows, _scenario_label

RELEASE_TYPE = "sample"
#: whose records the percentages of a sample assessment count (column ``records``)
RECORDS = "released"
SAMPLE_ATTACKS = ("DBRL", "RBRL-Sum", "RBRL-Max", "GDBRL")
#: each sample attack's own per-link confidence (smaller is surer; its precision-recall table)
CONFIDENCE = {
    "DBRL": "distance ratio: nearest / second-nearest original record (keep at most)",
    "RBRL-Sum": "rank-distance ratio: nearest / second-nearest original record, L1 on ranks (keep at most)",
    "RBRL-Max": "rank-distance ratio: nearest / second-nearest original record, L-infinity on ranks (keep at most)",
    "GDBRL": "distance ratio: assigned / nearest other original record, at most 1 (keep at most)",
}
#: why the other attacks do not apply to a sample release (the row's note)
NOT_FOR_SAMPLES = {
    "PRL": "its EM learns agreement weights over pairs of two files of the same records and assigns them one to one "
           "(Nin, Herranz & Torra 2008); a sample leaves most original records without a released record, which "
           "that model has no place for",
    "PRL-graded": "its agreement levels are bands of rank distance, each value ranked within its own file "
                  "(sdcrisk.linkage.graded); in a sample the released ranks run to n and the original ones to N, so "
                  "its bands would compare ranks on different scales, and it has no version on a common rank scale "
                  "(the ranks among the original's values RBRL uses here): not run rather than run on wrong levels",
    "RS-RL(p<=20%)": "its candidate window (p % of the records around each rank) is a window of a file rank-swapped "
                     "as a whole; a sample's ranks do not say which original records were within p % of it",
    "L-RL(MA)": "its candidates are records whose value can be the mean of a microaggregation group; a sample "
                "breaks the groups (a released mean's group is mostly unreleased)",
}




def sample_attacks(todo: Sequence[str], attacks) -> list[str]:
    """The attacks of a sample assessment: the requested ones, and DBRL with the default set (module docstring)."""
    if attacks is None and "DBRL" not in todo:
        return [a for a in ALL_ATTACKS if a in todo or a == "DBRL"]
    return list(todo)


def uniques(cx_keys: np.ndarray, rows: np.ndarray) -> dict:
    """Skinner & Holmes (1998) / Skinner & Elliot (2002) measures of the sample uniques on the key
    codes ``cx_keys`` (original records x keys) with ``rows`` the released records (module docstring)."""
    cells = block_codes(cx_keys)
    big = np.bincount(cells)
    small = np.bincount(cells[rows], minlength=big.size)
    su = small == 1
    n_su = int(su.sum())
    tau1 = int((su & (big == 1)).sum())
    tau2 = float(np.sum(1.0 / big[su]))
    population_in_su = int(big[su].sum())
    return {"cells_original": int((big > 0).sum()), "cells_released": int((small > 0).sum()),
            "sample_uniques": n_su, "population_uniques": int((big == 1).sum()),
            "tau1_sample_uniques_population_unique": tau1,
            "share_sample_uniques_population_unique": 100.0 * tau1 / n_su if n_su else math.nan,
            "tau2_expected_correct_matches": tau2,
            "theta_match_correct": 100.0 * n_su / population_in_su if n_su else math.nan,
            "released_records": int(rows.size)}


def assess_sample(pair, sets: list[list[int]], todo: Sequence[str], *, attacks=None, information_loss: bool = True,
                  seed: int = 0, say: Callable[[str], None] = lambda m: None, names=("original", "masked"),
                  idle: Callable[[], None] | None = None) -> pd.DataFrame:
    """:func:`sdcrisk.assess.assessment.assess` for a sample release (module docstring): the same
    table and ``attrs``, with ``attrs["release_type"] = "sample"`` and ``attrs["sample"]``."""
    rows = pair.rows
    n, big = rows.size, pair.x.shape[0]
    sub = Pair(pair.x[rows], pair.y, pair.cx[rows], pair.cy, pair.columns, pair.numeric, pair.categorical, pair.keys,
               pair.pairing, pair.warnings)  # each released record beside its own original record
    todo = sample_attacks(todo, attacks)
    for w in pair.warnings:
        say(f"warning: {w}")
    say(f"sample release: {n:,} of {big:,} original records; {len(todo)} measure(s) per scenario")
    out, pr, unique = [], [], []
    id_by_attribute = None
    for cols in sets:
        label, known_names = _scenario_label(cols, pair.columns), ",".join(pair.columns[c] for c in cols)
        keys = [pair.columns[c] for c in cols if pair.columns[c] in pair.keys]
        if keys:
            unique.append({"scenario": label, "keys": keys,
                           **uniques(pair.cx[:, [pair.categorical.index(k) for k in keys]], rows)})
        shared = {}  # the scenario's blocks, ranks and one nearest-original search, for every attack
        for name in todo:
            base = {"measure": name, "kind": RISK, "scenario": label, "known": known_names, "n_known": len(cols)}
            if name == "ID":
                r = _interval_disclosure_row(sub, cols, label, known_names, id_by_attribute)
                id_by_attribute = r.pop("by_attribute")
                out.append(r)
                continue
            t0 = time.perf_counter()
            try:
                r = {**base, "n": n, **_sample_row(name, pair, cols, seed, pr, label, shared)}
            except MemoryLimitError as exc:  # refused before the allocation: the row says so, the others run
                r = {**base, "n": n, "note": f"not run: {exc}"}
            r["seconds"] = time.perf_counter() - t0
            say(f"{name}, {len(cols)} known attribute(s): {r['seconds']:.1f} s")
            out.append(r)
    if information_loss:
        say("information loss (each released record against its own original record)")
        out.extend(_loss_rows(sub))
    if idle is not None:
        idle()
    table = pd.DataFrame(out).reindex(columns=COLUMNS)
    table["records"] = RECORDS  # the risk rows count released records (the report's headline says so)
    assert set(table.kind) <= {RISK, LOSS}
    table.attrs.update(pairing=pair.pairing, warnings=list(pair.warnings),
                       files={"original": names[0], "masked": names[1]}, categorical=list(pair.categorical),
                       left_out={}, release_type=RELEASE_TYPE, blocking=_blocking(pair, sets),
                       sample={"n_original": big, "n_released": n, "sampling_percent": 100.0 * n / big,
                               "precision_recall": pr, "uniques": unique,
                               "no_confidence": [a for a in todo if a not in CONFIDENCE and a != "ID"]})
    return table


def _blocking(pair, sets) -> dict:
    """The widest scenario's blocking keys with their blocks over the original records."""
    widest = max(sets, key=len)
    keys = [pair.columns[c] for c in widest if pair.columns[c] in pair.keys]
    if not keys:
        return {"keys": []}
    return {"keys": keys, **block_summary(block_codes(pair.cx[:, [pair.categorical.index(c) for c in keys]]))}


def _sample_row(name, pair, cols, seed, pr, label, shared=None) -> dict:
    """One attack's row on a sample release (``linked``, ``percent``, ``low``/``high``,
    ``baseline``, ``note``); appends the attack's precision-recall table over its own confidence
    (:data:`CONFIDENCE`) to ``pr``. ``shared``: the scenario's nearest-original search
    (:func:`sdcrisk.linkage.sample.nearest_originals`), made by the first of DBRL and GDBRL, its
    blocks and its rank coordinates."""
    shared = {} if shared is None else shared
    rows = pair.rows
    n, big = rows.size, pair.x.shape[0]
    known = [pair.columns[c] for c in cols]
    kn = [pair.numeric.index(c) for c in known if c in pair.numeric]
    keys = [c for c in known if c in pair.keys]
    changed = [c for c in known if c in pair.categorical and c not in pair.keys]
    jc = [pair.categorical.index(c) for c in changed]
    if "blocks" not in shared:  # the scenario's blocks, once for every attack
        codes = block_codes(pair.cx[:, [pair.categorical.index(c) for c in keys]])
        shared["blocks"] = (codes, codes[rows], np.bincount(codes))
    bx, by, sizes = shared["blocks"]
    row = {"linked": math.nan, "percent": math.nan, "low": math.nan, "high": math.nan,
           "baseline": 100.0 * float(np.mean(1.0 / sizes[by])), "draws_low": math.nan, "draws_high": math.nan}
    notes = [f"within {int((sizes > 0).sum())} blocks of equal {', '.join(keys)}"] if keys else []
    if name not in SAMPLE_ATTACKS and n != big:
        reason = NOT_FOR_SAMPLES.get(name, "not defined for a sample release")
        return {**row, "note": f"not applicable: {reason}"}
    equal = n == big  # every record released in another order: the one-to-one direction
    if equal and name not in ("DBRL", "RBRL-Sum", "RBRL-Max"):  # GDBRL: the square solver with its tie draws
        return _one_to_one_row(name, pair, cols, seed)
    inverse = np.full(big, -1, dtype=np.int64)  # the released record of each original one (equal sizes)
    inverse[rows] = np.arange(n)
    blocks = (bx, by) if keys else None
    if name in ("DBRL", "GDBRL"):
        shared.pop("rank_search", None)  # RBRL's tree, done with, before the distance matrices
        if not kn and not jc:
            return {**row, "note": "not applicable: no known attribute besides the blocking keys"}
        xm, ym = _on_the_distance_scale(pair, kn, jc, pair.ncat(changed), equal)
        if changed:
            notes.append(f"mixed distance on {len(changed)} changed categorical attribute(s)")
        ref, query, truth, qblocks = (ym, xm, inverse, (by, bx) if keys else None) if equal else \
            (xm, ym, rows, blocks)
        if "near" not in shared:  # GDBRL's first candidates, DBRL's list and ratio
            shared["search"] = OriginalSearch(ref, query, qblocks)
            shared["near"] = shared["search"].knn(GDBRL_CANDIDATES)
        if name == "DBRL":
            res = sample_dbrl(ref, query, truth, qblocks, near=shared["near"], search=shared.get("search"))
        else:
            rng = np.random.Generator(np.random.PCG64(seed))
            order = rng.permutation(ref.shape[0])  # the solver's tie rule cannot favour the files' own order
            try:
                res = sample_gdbrl(ref, query, truth, qblocks, near=shared["near"], order=order,
                                   search=shared.get("search"))
            except ValueError as exc:
                return {**row, "note": f"not run: {exc}"}
            notes.append(f"rectangular assignment on each released record's {res.info['candidates']} nearest "
                         "original records (exact on that candidate graph)")
    else:
        if not kn:
            return {**row, "note": "not applicable: no numeric known attribute (the attack compares ordered "
                                   "values only)"}
        if changed:
            notes.append(f"compares ordered values only: leaves out the changed categorical attribute(s) "
                         f"{', '.join(changed)}")
        if equal:
            yo, xo = sample_ranks(pair.y[:, kn], pair.x[:, kn], (by, bx) if keys else None)
            res = sample_rbrl(yo, xo, inverse, "sum" if name == "RBRL-Sum" else "max", (by, bx) if keys else None)
        else:
            shared.pop("search", None)  # the distance tree's memory first (GDBRL rebuilds it if it needs more)
            if "ranks" not in shared:  # RBRL-Sum and RBRL-Max compare the same ranks in one tree
                shared["ranks"] = ranks_in_original(pair.x[:, kn], pair.y[:, kn], blocks)
            if "rank_search" not in shared:
                shared["rank_search"] = OriginalSearch(*shared["ranks"], blocks)
            xo, yo = shared["ranks"]
            metric = "l1" if name == "RBRL-Sum" else "linf"
            res = sample_rbrl(xo, yo, rows, "sum" if name == "RBRL-Sum" else "max", blocks,
                              near=shared["rank_search"].knn(RANK_NEAREST, metric), search=shared["rank_search"])
        notes.append("released values ranked within the release, on the original's rank scale" if equal else
                     "released values ranked among the original's values")
    if res.ratio is not None and name in CONFIDENCE:
        pr.append({"attack": name, "scenario": label, "known": ",".join(known), "confidence": CONFIDENCE[name],
                   "rows": precision_recall(res.credit, res.ratio)})
    linked = float(res.credit.sum())
    total = res.credit.size
    row["linked"], row["percent"] = linked, linkage_percent(linked, total)
    row["low"], row["high"] = wilson_interval(linked, total)
    tied = res.info.get("tied_records")
    if tied:
        notes.append(f"{tied} record(s) tie: counted 1/t each among t equally close")
    return {**row, "note": "; ".join(notes)}


def _on_the_distance_scale(pair, kn: list[int], jc: list[int], ncat: list[int], equal: bool):
    """Both files' coordinates under the mixed distance (:func:`sdcrisk.linkage.mixed.mixed_matrix`).
    A sample's numeric attributes are standardised by the original's mean and sample sd, both
    files alike (:func:`sdcrisk.linkage.distance.standardise`, ``"original"``): the intruder holds
    the original, and a sample's own mean and sd differ from it by sampling error alone, a shift
    of about ``sd / sqrt(n)`` that moves every released record off its own original record (an
    unmasked 10 % sample of 10^5 bivariate records linked 10 % of its records by its own moments).
    A release of every original record (``equal``) keeps the one-to-one convention, each file by
    its own (Muralidhar & Domingo-Ferrer 2016, section 2), so it gives the one-to-one numbers."""
    if equal:
        return mixed_matrix(pair.x[:, kn], pair.cx[:, jc], ncat), mixed_matrix(pair.y[:, kn], pair.cy[:, jc], ncat)
    xs, ys = standardise(pair.x[:, kn], pair.y[:, kn], "original")
    return (np.hstack([xs, mixed_matrix(xs[:, :0], pair.cx[:, jc], ncat)]),
            np.hstack([ys, mixed_matrix(ys[:, :0], pair.cy[:, jc], ncat)]))


def _one_to_one_row(name, pair, cols, seed) -> dict:
    """A release of every original record (another order): the one-to-one attack itself."""
    one = Pair(pair.x, pair.y[np.argsort(pair.rows)], pair.cx, pair.cy[np.argsort(pair.rows)], pair.columns,
               pair.numeric, pair.categorical, pair.keys, pair.pairing, pair.warnings)
    perm = np.random.Generator(np.random.PCG64(seed)).permutation(one.n)
    out = _attack_row(name, one, perm, cols, seed)
    out.pop("seconds", None)
    return out


# ----------------------------------------------------------------------------- report
def release_line(meta: dict) -> str:
    """The report's first line's release type, chosen from the files (module docstring): " (one to
    one release)", " (sample release)", or each file's when they differ."""
    if meta.get("release_type") == "mixed" and meta.get("release_types"):
        return " (releases: " + "; ".join(f"{Path(str(p)).name} {k}" for p, k in meta["release_types"].items()) + ")"
    return f" ({meta.get('release_type', 'one to one')} release)"


def sample_markdown(meta: dict) -> list[str]:
    """The report's section on a sample release: sizes, precision-recall per attack, sample uniques."""
    lines = []
    for path, s in (meta.get("sample") or {}).items():
        lines += [f"## Sample release: `{path}`", "",
                  f"{s['n_released']:,} of the {s['n_original']:,} original records ({s['sampling_percent']:.3g} %). "
                  "Attacks: % of the released records linked to their own original record; the intruder holds the "
                  "whole original and links each released record to it (docs/assess.md, Sample releases).", ""]
        for p in s["precision_recall"]:
            lines += [f"Precision and recall of {p['attack']} ({p['scenario']}; confidence: {p['confidence']}; "
                      "precision: % of the links kept that are correct; recall: % of the released records correctly "
                      "linked and kept):", "",
                      "| ratio at most | links kept | kept % | correct | precision % | 95 % interval | recall % |",
                      "|---|---|---|---|---|---|---|"]
            for r in p["rows"]:
                ok = r["kept"] > 0
                lines.append(f"| {r['threshold']:.1f} | {r['kept']:,} | {r['kept_percent']:.2f} | {r['correct']:.1f} | "
                             + (f"{r['precision']:.2f} | {r['precision_low']:.1f}-{r['precision_high']:.1f}" if ok
                                else " | ") + f" | {r['recall']:.2f} |")
            lines.append("")
        if s.get("no_confidence"):
            lines += ["No precision-recall table (no per-link confidence of their own on this release; their rows say "
                      f"why they were not run on a sample): {', '.join(s['no_confidence'])}.", ""]
        for u in s["uniques"]:
            lines += [f"Sample uniques on {', '.join(u['keys'])} ({u['scenario']}; the original as the population; "
                      "Skinner & Holmes 1998, Skinner & Elliot 2002): "
                      f"{u['sample_uniques']:,} sample uniques, {u['tau1_sample_uniques_population_unique']:,} of them "
                      f"population uniques ({_pct(u['share_sample_uniques_population_unique'])} %); expected correct "
                      f"matches of sample uniques tau2 = {u['tau2_expected_correct_matches']:.1f}; probability that a "
                      f"match to a sample unique is correct theta = {_pct(u['theta_match_correct'])} %.", ""]
    return lines


def _pct(v) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


__all__ = ["pair_sample", "assess_sample", "uniques", "sample_attacks", "release_line", "sample_markdown",
           "NOT_FOR_SAMPLES", "RELEASE_TYPE"]
