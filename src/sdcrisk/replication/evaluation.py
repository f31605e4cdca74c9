"""Evaluations: what is measured on one masked file, per experiment family.

An evaluation maps (original x, masked y, cell, options) to rows ``(measure, known, value)``;
``known`` is the number of known attributes (or groups) as a string, ``"all"``, or ``""`` for a
value averaged over the known-attribute scenarios. :func:`run_cell` masks every replicate of a
cell with its own seed and applies the experiment's evaluation.

Scenarios (which attributes the intruder knows) are the first ``c`` attributes in file order
(or the first ``c`` blocks of variables), with ``c`` over the ranges below; see REPLICATION.md.
"""
# The published rows the choices recorded in this module's docstrings were compared with
# (docs/calibration.yaml; the check makes them calibration rows):
# compares: [{paper: nin2007_location_rl, tables: [T1, T2, T3, T4, T5, T7, T8, T9, T10, T11], measures: [LLD_count, LLD, Score2]}]


from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from .config import Cell
from ..attacks import ATTACKS, matrix_attacks, register_attack, run_attack  # noqa: F401  (ATTACKS, register_attack: for plugins)
from ..linkage.distance import dbrl
from ..linkage.location import lrl_mdav, lrl_microaggregation, rsrl, rsrl_annotated_union
from ..linkage.probabilistic import prl
from ..linkage.projected import projected_rl
from ..linkage.rank import rbrl
from ..masking import get_method
from ..masking.microaggregation import attribute_blocks
from ..masking.swapping import rank_distance
from .experiments_belief import rsrl_candidate_masks
from .belief import belief_from_candidate_sets, summarise
from ..measures import scores
from ..measures.information_loss import information_loss
from ..measures.interval_disclosure import interval_disclosure_by_attribute
from ..measures.units import linkage_percent
from ..measures.scenarios import (DEFAULT_RANGE, ScenarioRangeError, half, known_block_scenarios, scenario_average,
                                 scenario_range)

Rows = list[tuple[str, str, float]]


def percent(result) -> float:
    """% of the original records correctly linked (:func:`sdcrisk.measures.units.linkage_percent`)."""
    return result.percent_correct


# ----------------------------------------------------------------------------- generic DLD/PLD/ID/IL
def scenario_sizes(opts, m: int) -> list[int]:
    """Sizes j of the first-j-attributes scenarios over which DLD, PLD and ID are averaged: the
    experiment option ``scenarios`` (:func:`sdcrisk.measures.scenarios.scenario_range`; default
    ``"1..half"``, Nin, Herranz & Torra (2007) §3 "from one to half of the attributes"; ``"2..all"``
    reads Nin, Herranz & Torra (2008, multivariate microaggregation) §3.1 "varies from 2 to the
    total number"). A bound beyond m stops at m."""
    try:
        return scenario_range(opts.get("scenarios", DEFAULT_RANGE), m, clip=True)
    except ScenarioRangeError as exc:
        raise ValueError(f"scenarios: {exc}") from None


def interval_disclosure_known(x, y, opts, sizes) -> float:
    """ID averaged over the same first-j-attributes scenarios as the linkage risks."""
    per_attribute = interval_disclosure_by_attribute(x, y, **opts.get("id", {}))
    return float(scenario_average(per_attribute, [np.arange(j) for j in sizes]))


def prl_percents(x, y, known_sets, opts, rng) -> tuple[list[float], int]:
    """PRL % correct for each known-attribute set, and how many of those EM fits did not
    converge (recorded as the measure ``PRL_unconverged`` next to PLD)."""
    results = [prl(x, y, known=cols, rng=rng, **opts.get("prl", {})) for cols in known_sets]
    return [percent(r) for r in results], sum(not r.info["converged"] for r in results)


def standard_components(x, y, scenario_sizes, opts, rng) -> dict[str, float]:
    """IL, ID and DLD/PLD averaged over the first-j-attributes scenarios of ``scenario_sizes``
    (Nin, Herranz & Torra (2007) §3), and ``PRL_unconverged``, the number of PRL fits that did not converge.

    PRL gets its own Generator: its assignment breaks ties among equal weights at random, since
    the masked file keeps the original record order and index-order ties would favour true links.
    """
    dld = [percent(dbrl(x, y, known=np.arange(j))) for j in scenario_sizes]
    pld, unconverged = prl_percents(x, y, [np.arange(j) for j in scenario_sizes], opts, rng)
    return {
        "IL": information_loss(x, y, **opts.get("il", {})),
        "ID": interval_disclosure_known(x, y, opts, scenario_sizes),
        "DLD": float(np.mean(dld)),
        "PLD": float(np.mean(pld)),
        "PRL_unconverged": float(unconverged),
    }


# ----------------------------------------------------------------------------- families
def rank_linkage(x, y, cell: Cell, opts, rng) -> Rows:
    """Muralidhar & Domingo-Ferrer (2016): DBRL, RBRL-Sum, RBRL-Max with all attributes known (Tables 1-5)."""
    return [("DBRL", "all", percent(dbrl(x, y))),
            ("RBRL-Sum", "all", percent(rbrl(x, y, criterion="sum"))),
            ("RBRL-Max", "all", percent(rbrl(x, y, criterion="max")))]


def _location_attack(x, y, cell: Cell) -> tuple[Callable[[int], float], list[int], list[int]]:
    """The L-RL attack for the cell's method, and its scenario sizes (tables, average)."""
    params = dict(cell.params)
    n, m = x.shape
    if cell.method == "rankswap":
        attack = lambda c: rsrl(x, y, known=np.arange(c), p=params["p"], count=False).n_correct  # noqa: E731
        return attack, list(range(1, m + 1)), scenario_range(DEFAULT_RANGE, m)
    if cell.method == "optimal_univariate_ma":
        attack = lambda c: lrl_microaggregation(x, y, known=np.arange(c), k=params["k"], count=False).n_correct  # noqa: E731
        return attack, list(range(2, 6)), list(range(2, 6))
    if cell.method == "mdav":
        blocks = attribute_blocks(m, int(params["v"]))
        attack = lambda g: lrl_mdav(x, y, blocks, known_blocks=np.arange(g)).n_correct  # noqa: E731
        sizes = list(range(2, len(blocks) + 1))
        return attack, sizes, sizes
    raise ValueError(f"location_scores: no location attack for method {cell.method!r}")


def location_scores(x, y, cell: Cell, opts, rng) -> Rows:
    """Nin, Herranz & Torra (2007): L-RL counts per known attributes/groups (Tables 1, 2, 5, 9) and the score
    components IL, LLD, DLD, PLD, ID, Score1, Score2 (Tables 3, 4, 7, 8, 10, 11)."""
    n, m = x.shape
    attack, table_sizes, avg_sizes = _location_attack(x, y, cell)
    counts = {c: attack(c) for c in sorted(set(table_sizes) | set(avg_sizes))}
    rows: Rows = [("LLD_count", str(c), float(counts[c])) for c in table_sizes]
    comp = standard_components(x, y, scenario_sizes(opts, m), opts, rng)
    comp["LLD"] = linkage_percent(float(np.mean([counts[c] for c in avg_sizes])), n)
    comp["Score1"] = scores.score1(comp["IL"], comp["DLD"], comp["PLD"], comp["ID"])
    comp["Score2"] = scores.score2(comp["IL"], comp["DLD"], comp["PLD"], comp["LLD"], comp["ID"])
    return rows + [(k, "", float(v)) for k, v in comp.items()]


def rsrl_distance(cell: Cell, n: int) -> int:
    """Rank distance the RS-RL intruder assumes (Nin, Herranz & Torra (2008, rank swapping) §5.2): p for standard rank swapping,
    2p for p-distribution, 2 x bucket size for p-buckets."""
    params = dict(cell.params)
    if cell.method == "rankswap":
        return rank_distance(params["p"], n)
    if cell.method == "rankswap_pdist":
        return min(2 * rank_distance(params["p"], n), n - 1)
    if cell.method == "rankswap_pbuckets":
        return min(2 * (n // int(params["buckets"])), n - 1)
    raise ValueError(f"rsrl_scores: no RS-RL parameter for method {cell.method!r}")


def rsrl_scores(x, y, cell: Cell, opts, rng) -> Rows:
    """Nin, Herranz & Torra (2008, rank swapping): RS-RL % vs known attributes (Figs. 3-5), scores with RSLD (Tables 4-6),
    annotated-union RS-RL vs DBRL with half of the attributes known (Table 7)."""
    n, m = x.shape
    P = rsrl_distance(cell, n)
    pct = {c: percent(rsrl(x, y, known=np.arange(c), distance=P, count=False)) for c in range(1, m + 1)}
    rows: Rows = [("RSRL_pct", str(c), v) for c, v in pct.items()]
    sizes = scenario_sizes(opts, m)
    comp = standard_components(x, y, sizes, opts, rng)
    comp["RSLD"] = float(np.mean([pct[c] for c in sizes]))
    comp["DR_RSLD"] = scores.dr_rsld(comp["RSLD"], comp["DLD"], comp["PLD"], comp["ID"])
    comp["Score_RSLD"] = scores.score_rsld(comp["IL"], comp["RSLD"], comp["DLD"], comp["PLD"], comp["ID"])
    rows += [(k, "", float(v)) for k, v in comp.items()]
    if cell.method == "rankswap_pdist":
        known = np.arange(half(m))
        p_rank = rank_distance(dict(cell.params)["p"], n)
        rows += [
            ("RSRL_annotated_union_count", "half", float(rsrl_annotated_union(x, y, known, distance=p_rank).n_correct)),
            ("RSRL_annotated_union_half_count", "half",
             float(rsrl_annotated_union(x, y, known, distance=p_rank, half=True).n_correct)),
            ("DBRL_count", "half", float(dbrl(x, y, known=known).n_correct)),
        ]
    return rows


def projected_scores(x, y, cell: Cell, opts, rng) -> Rows:
    """Nin, Herranz & Torra (2008, multivariate microaggregation): DLD, PLD, ProLD-PCP, ProLD-Zscore vs known groups g = 2 .. all (Figs. 1-3) and
    the scores Score, ScoreNew, ScoreMax (Tables 1-4).

    Averages: ProLD over the known-group scenarios (the projection works per block); DLD, PLD and
    ID over the first-j-attributes scenarios of the ``scenarios`` option (the paper config uses
    j = 2..m, Nin, Herranz & Torra (2008, multivariate microaggregation) §3.1; averaging over groups fits Nin, Herranz & Torra (2007) Tables 10/11 far worse:
    research/calibrate_mdav.py, REPLICATION.md)."""
    n, m = x.shape
    v = int(dict(cell.params)["v"])
    blocks = attribute_blocks(m, v)
    rows: Rows = []
    prold = {"ProLD_PCP": [], "ProLD_Zscore": []}
    unconverged = 0
    for known in known_block_scenarios(len(blocks), first=min(2, len(blocks))):
        g = known.size
        cols = np.concatenate(blocks[:g])
        (pld,), unc = prl_percents(x, y, [cols], opts, rng)
        unconverged += unc
        vals = {
            "DLD": percent(dbrl(x, y, known=cols)),
            "PLD": pld,
            "ProLD_PCP": percent(projected_rl(x, y, known, v, projection="pcp")),
            "ProLD_Zscore": percent(projected_rl(x, y, known, v, projection="zscore")),
        }
        for k, val in vals.items():
            if k in prold:
                prold[k].append(val)
            rows.append((k, str(g), val))
    comp = standard_components(x, y, scenario_sizes(opts, m), opts, rng)
    comp["PRL_unconverged"] += unconverged
    comp.update({k: float(np.mean(vs)) for k, vs in prold.items()})
    best = scores.prold(comp["ProLD_PCP"], comp["ProLD_Zscore"])
    comp["Score"] = scores.score_standard(comp["IL"], comp["DLD"], comp["PLD"], comp["ID"])
    comp["ScoreNew"] = scores.score_new(comp["IL"], comp["DLD"], comp["PLD"], best, comp["ID"])
    comp["ScoreMax"] = scores.score_max(comp["IL"], comp["DLD"], comp["PLD"], best, comp["ID"])
    return rows + [(k, "", float(val)) for k, val in comp.items()]


def belief_rsrl(x, y, cell: Cell, opts, rng) -> Rows:
    """Torra, Stokes et al. (compatible probabilities) applied: RS-RL candidate sets as categorical mass assignments m_i(B_i) = 1;
    mean nonspecificity (bits), mean pignistic entropy (nats) and % of records whose true
    record has positive pignistic probability, per number of known attributes (first c)."""
    n, m = x.shape
    P = rank_distance(dict(cell.params)["p"], n)
    rows: Rows = []
    for c in range(1, m + 1):
        cand = rsrl_candidate_masks(x, y, np.arange(c), distance=P)
        s = summarise(belief_from_candidate_sets(cand, n, empty="vacuous"))
        rows += [("nonspecificity", str(c), s["mean_nonspecificity"]),
                 ("pignistic_entropy", str(c), s["mean_pignistic_entropy"]),
                 ("true_support_pct", str(c), 100.0 * s["fraction_true_positive"])]
    return rows


def attack_matrix(x, y, cell: Cell, opts, rng) -> Rows:
    """Beyond the papers: every attack of ``options.attacks`` against every masking method,
    % correctly linked; with ``options.criteria``, the three anonymisation criteria beside them
    (:func:`criteria_rows`).

    The intruder knows the first half of the attributes (Pro-RL: the first half of the blocks
    of size v, the method's own v where it has one, else 2). L-RL(MA) is the univariate
    microaggregation location attack without knowing k: it links nothing on files that are not
    microaggregated attribute by attribute. The attacks share one Generator, in list order; the
    criteria draw from it after them."""
    n, m = x.shape
    known = np.arange(half(m))
    v = int(dict(cell.params).get("v", 2))
    rows: Rows = []
    links = {}
    for name in matrix_attacks(opts):
        res = run_attack(name, x, y, known, v, rng)
        links[name] = res.links
        rows.append((name, "half", percent(res)))
        if "converged" in res.info:  # an attack fitted by EM: record whether the fit converged
            rows.append((f"{name}_unconverged", "half", float(not res.info["converged"])))
    if opts.get("criteria"):
        rows += criteria_rows(x, y, known, links, rng)
    return rows


#: Conjunctions of the singling-out attack per masked file (each isolating a release record;
#: :func:`sdcrisk.criteria.singling_out.singling_out`), and the bin width of the exact attack on
#: the known attributes, in standard deviations of the release's attribute.
SINGLING_OUT_PREDICATES = 200
SINGLING_OUT_BIN_SD = 0.25


def _criterion_measures(name: str, row) -> Rows:
    """The measures of one criterion's worst row (:class:`sdcrisk.criteria.CriterionRow`): risk,
    its Wilson interval and baseline in percent, the excess in points with Newcombe's interval."""
    low, high = row.interval
    excess, excess_low, excess_high = row.excess
    values = {"": row.percent, "_low": low, "_high": high, "_baseline": row.baseline_percent,
              "_excess": excess, "_excess_low": excess_low, "_excess_high": excess_high}
    return [(name + part, "half", float(v)) for part, v in values.items()]


def _worst(rows):
    """The row of highest excess over its baseline (on equal excesses, the highest signed
    difference, then the first), as ``sdcrisk assess`` opens its report with
    (:func:`sdcrisk.assess.report.criteria_lines`)."""
    return max(rows, key=lambda r: (r.excess[0], r.difference[0]))


def criteria_rows(x, y, known, links: dict, rng) -> Rows:
    """The three anonymisation criteria (Article 29 Working Party, opinion 05/2014) on one masked
    file, the intruder knowing the attributes ``known`` (the attack matrix's: the first half),
    each criterion's worst attack (highest excess over its baseline) as seven measures
    (:data:`sdcrisk.measures.units.CRITERIA`; :func:`_criterion_measures`):

    * ``Linkability``: the attack of ``links`` (the matrix's) linking most records, against the
      random guess (one record in n linked right by chance).
    * ``SinglingOut``: :func:`sdcrisk.criteria.singling_out.singling_out` on the known
      attributes: the extremes and :data:`SINGLING_OUT_PREDICATES` conjunctions of 2 to 4 tail
      predicates (Cohen & Nissim 2020), and the exact attack on the known attributes coarsened to
      bins of :data:`SINGLING_OUT_BIN_SD` standard deviations of the release (the files are
      numeric: no categorical key), against the same construction from planted originals.
      A release in which no predicate isolates a record (every record shared, as microaggregation
      leaves them) singles out nobody: 0 %, with no interval (bounds 0).
    * ``Inference``: :func:`sdcrisk.criteria.inference.infer` with each attribute not known in
      turn as the secret (numeric, guessed within 5 % of its true value), guessed from the record
      each attack of ``links`` linked, from the nearest release record on the known attributes
      and from the key cell (on numeric files one cell: the release's median), against the
      release's median.

    The worst row is a maximum over attacks (and secrets): on a release independent of the
    originals its excess is a little above 0 on average, never a bias of one attack."""
    from ..criteria import LINKABILITY, CriterionRow
    from ..criteria.inference import infer
    from ..criteria.singling_out import singling_out

    n, m = x.shape
    known = np.asarray(known)
    link_rows = [CriterionRow(LINKABILITY, name, float(np.sum(np.asarray(lk) == np.arange(n))), n,
                              "random guess", 1.0, n) for name, lk in links.items()]
    rows = _criterion_measures("Linkability", _worst(link_rows)) if link_rows else []

    cols = [f"v{j}" for j in range(m)]
    keys = [cols[j] for j in known]
    sd = y[:, known].std(axis=0)
    coarsen = {k: SINGLING_OUT_BIN_SD * s for k, s in zip(keys, sd) if s > 0}
    so_rows, _ = singling_out(pd.DataFrame(x, columns=cols), pd.DataFrame(y, columns=cols), keys, coarsen=coarsen,
                              predicates=SINGLING_OUT_PREDICATES, seed=rng)
    if so_rows:
        rows += _criterion_measures("SinglingOut", _worst(so_rows))
    else:
        rows += [(f"SinglingOut{part}", "half", 0.0) for part in
                 ("", "_low", "_high", "_baseline", "_excess", "_excess_low", "_excess_high")]

    inference = [r for s in sorted(set(range(m)) - set(known.tolist()))
                 for r in infer(cols[s], x[:, s], y[:, s], categorical=False, xn=x[:, known], yn=y[:, known],
                                links=links).rows]
    if inference:
        rows += _criterion_measures("Inference", _worst(inference))
    return rows


EVALUATIONS: dict[str, Callable[..., Rows]] = {
    "rank_linkage": rank_linkage,
    "location_scores": location_scores,
    "rsrl_scores": rsrl_scores,
    "projected_scores": projected_scores,
    "belief_rsrl": belief_rsrl,
    "attack_matrix": attack_matrix,
}


def run_cell(x: np.ndarray, cell: Cell, experiment: dict, seed: int) -> pd.DataFrame:
    """Mask every replicate of ``cell`` (own SeedSequence each) and evaluate it. Of ``experiment``
    only :data:`sdcrisk.replication.config.CELL_SETTINGS` are read (evaluation, replicates, options)."""
    method = get_method(cell.method)
    evaluate = EVALUATIONS[experiment["evaluation"]]
    opts = experiment.get("options", {}) or {}
    replicates = int(experiment["replicates"]) if method.randomised else 1
    out = []
    for r in range(replicates):
        ss = cell.seed_sequence(seed, r)
        mask_seed, attack_seed = ss.spawn(2)
        y = method(x, np.random.Generator(np.random.PCG64(mask_seed)), **dict(cell.params))
        attack_rng = np.random.Generator(np.random.PCG64(attack_seed))
        for measure, known, value in evaluate(x, y, cell, opts, attack_rng):
            out.append((r, "-".join(map(str, ss.entropy)), measure, known, float(value)))
    return pd.DataFrame(out, columns=["replicate", "seed", "measure", "known", "value"])
