"""The worked examples of Torra, Stokes et al. (compatible probabilities) (Torra & Stokes), as functions that compute their numbers.

Every number returned here is computed by :mod:`sdcrisk.replication.belief` from the example's inputs.
The inputs of the two entropy examples (Sec. 5) are lost in the text extraction; they were
reconstructed as the only small configurations (frames of at most 10 records, masses with
denominators up to 24, one mass transfer from a set to a proper subset) whose pignistic
distributions have the shape the text describes (two values before the transfer, three after
in Example 1; two and two in Example 2). The reconstruction search is documented in
:func:`entropy_example_decreasing` / :func:`entropy_example_increasing`; the printed
entropies themselves are not used anywhere in the package.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import numpy as np

from .belief import (
    MassAssignment,
    belief_from_candidate_sets,
    is_compatible,
    max_pignistic_outside,
    summarise,
    support_contains_true_support,
    uniform_on,
)


def _describe(m: MassAssignment) -> dict:
    return {
        "masses": {tuple(sorted(k)): v for k, v in m.as_dict().items()},
        "pignistic": m.pignistic(),
        "entropy_nats": m.entropy(),
        "entropy_bits": m.entropy(2.0),
        "nonspecificity_bits": m.nonspecificity(),
    }


def _transfer_example(n: int, sets, masses, source, target, amount) -> dict:
    m = MassAssignment.from_sets(sets, [float(w) for w in masses], n)
    m2 = m.transfer(source, target, float(amount))
    return {"before": _describe(m), "after": _describe(m2), "transferred": float(amount),
            "source": tuple(source), "target": tuple(target)}


def entropy_example_decreasing() -> dict:
    """Torra, Stokes et al. (compatible probabilities), Sec. 5, first example: moving mass to a subset lowers the pignistic entropy.

    Reconstructed inputs: ``X = {0..7}``, ``m({0..4}) = 5/13``, ``m(X) = 8/13``; transfer
    ``4/13`` from ``X`` to ``{0, 1}`` (a proper subset). ``BetP`` has two values before
    (``2/13`` on ``{0..4}``, ``1/13`` on ``{5,6,7}``) and three after, as in the text.
    """
    return _transfer_example(8, [range(5), range(8)], [Fraction(5, 13), Fraction(8, 13)],
                             range(8), (0, 1), Fraction(4, 13))


def entropy_example_increasing() -> dict:
    """Torra, Stokes et al. (compatible probabilities), Sec. 5, Example example.2.entropy: moving mass to a subset raises the entropy.

    Reconstructed inputs: ``X = {0..9}``, ``m({0,1,2,3}) = 1/3``, ``m({2..9}) = 2/3``;
    transfer ``1/2`` from ``{2..9}`` to ``{4..9}``. ``BetP`` goes from (``1/6`` on ``{2,3}``,
    ``1/12`` elsewhere) to (``1/12`` on ``{0,1}``, ``5/48`` elsewhere): the new distribution is
    majorised by the old one, so its (Schur-concave) entropy is larger. A second configuration
    fits the printed entropies too (``m({0,1}) = 1/6``, ``m(X) = 5/6``, transfer all ``5/6`` to
    ``{2..9}``), but it leaves ``m'(X) = 0`` and so not the three focal sets the text lists.
    """
    return _transfer_example(10, [range(4), range(2, 10)], [Fraction(1, 3), Fraction(2, 3)],
                             range(2, 10), range(4, 10), Fraction(1, 2))


# Torra, Stokes et al. (compatible probabilities), Sec. 2.2: six records with values 18, 16, 19, 22, 24, 24 recoded to [15,19], [20,25].
KANON_V1 = np.array([18, 16, 19, 22, 24, 24], dtype=float)
KANON_V1_CUTS = ((15, 19), (20, 25))
# A second attribute (our addition, the paper names V_1..V_m without values), 3-anonymous alone.
KANON_V2 = np.array([3, 7, 8, 2, 9, 4], dtype=float)
KANON_V2_CUTS = ((0, 5), (6, 10))


def _generalise(values: np.ndarray, cuts) -> np.ndarray:
    """``gen_V``: index of the interval holding each value (Torra, Stokes et al. (compatible probabilities), Sec. 2.2)."""
    out = np.full(values.size, -1)
    for j, (lo, hi) in enumerate(cuts):
        out[(values >= lo) & (values <= hi)] = j
    if (out < 0).any():
        raise ValueError("values: every value must fall in one of the intervals")
    return out


def kanonymity_running_example() -> dict:
    """Torra, Stokes et al. (compatible probabilities), Examples kanon.probs, kanon.probs.reidentif and kanon.probs.belief.

    Each attribute is generalised on its own (``Y = gen_V1(X[V1]) || gen_V2(X[V2])``). For
    protected record ``y`` and known attributes ``attrs(j)``, the candidate set holds the
    originals whose generalised values agree with ``y`` on ``attrs(j)``; the method returns
    ``m_j(candidate set) = 1``. The true probability is uniform on the candidate set for all
    attributes. Returns, per attribute subset, the candidate sets, whether every ``Bel_j`` is
    compatible with the true probability, whether Prop. 16 holds, the mean nonspecificity
    (bits) and pignistic entropy (nats), and the check of the three pignistic inequalities
    printed after the example (``BetP_j <= P`` inside the true candidate set, ``>= P``
    elsewhere). It also returns the Lemma of Sec. 4 (dropping a true candidate breaks
    compatibility) evaluated on every record.
    """
    codes = np.column_stack([_generalise(KANON_V1, KANON_V1_CUTS), _generalise(KANON_V2, KANON_V2_CUTS)])
    n = codes.shape[0]
    subsets = {"V1": [0], "V2": [1], "V1,V2": [0, 1]}

    def candidate_masks(cols):
        return np.all(codes[:, None, cols] == codes[None, :, cols], axis=2)  # [y, x]

    true_masks = candidate_masks([0, 1])
    true_p = [uniform_on(true_masks[i], n) for i in range(n)]
    rows = []
    for name, cols in subsets.items():
        cand = candidate_masks(cols)
        masses = belief_from_candidate_sets(cand)
        compatible = [is_compatible(m, p) for m, p in zip(masses, true_p)]
        support_ok = [support_contains_true_support(m, p) for m, p in zip(masses, true_p)]
        ineq = []
        for m, p in zip(masses, true_p):
            bet = m.pignistic()
            inside = p > 0
            ineq.append(bool(np.all(bet[inside] <= p[inside] + 1e-12) and np.all(bet[~inside] >= p[~inside])))
        rows.append({
            "attributes": name,
            "candidate_sets": [tuple(np.flatnonzero(r).tolist()) for r in cand],
            "all_compatible": all(compatible),
            "prop16_holds": all(support_ok),
            "pignistic_inequalities_hold": all(ineq),
            "mean_nonspecificity_bits": float(np.mean([m.nonspecificity() for m in masses])),
            "mean_entropy_nats": float(np.mean([m.entropy() for m in masses])),
        })
    # Lemma (Sec. 4): a set that misses a record of the true candidate set gives an incompatible Bel.
    missing = []
    for i in range(n):
        full = np.flatnonzero(true_masks[i])
        if full.size < 2:
            continue
        for drop in full:
            m = MassAssignment.from_sets([np.setdiff1d(full, [drop])], [1.0], n)
            missing.append(is_compatible(m, true_p[i]))
    return {"rows": rows, "n_records": n, "missing_record_sets_compatible": missing}


def max_pignistic_example(n: int = 6, k: int = 3) -> dict:
    """Torra, Stokes et al. (compatible probabilities), Prop. maxim.p.no.solucio: a compatible BetP whose maximum lies outside the truth.

    True probability uniform on ``A = {0..k-1}``; outsider ``x0 = n-1``. Returns the
    pignistic probability, the arg-max, and the compatibility of ``Bel`` with the truth.
    """
    a = list(range(k))
    m = max_pignistic_outside(n, a, n - 1)
    p = uniform_on(a, n)
    bet = m.pignistic()
    return {"pignistic": bet, "argmax": int(np.argmax(bet)), "compatible": is_compatible(m, p),
            "compatible_exhaustive": is_compatible(m, p, method="exhaustive") if n <= 12 else None,
            "true_probability": p}


def applied_example(candidates_by_group: Mapping, true_index=None, *, empty: str = "raise") -> list[dict]:
    """The applied example of the project (Torra, Stokes et al. (compatible probabilities) on RS-RL candidate sets, Nin, Herranz & Torra (2008, rank swapping)).

    ``candidates_by_group[g]`` is the candidate-set input of :func:`belief_from_candidate_sets`
    (records x masked records) for group ``g``; without ``true_index``
    record ``i`` of a block of ``n`` rows is taken to come from original ``i mod n`` (e.g. the number of known attributes, possibly
    pooled over several attribute subsets by listing all their records). Returns one
    :func:`sdcrisk.replication.belief.summarise` row per group: mean nonspecificity, mean pignistic
    entropy, fraction of records whose true record has positive pignistic probability.
    """
    rows = []
    for g, cand in candidates_by_group.items():
        masses = belief_from_candidate_sets(cand, empty=empty)
        # Pooled subsets list the records block after block: record r of block b is r mod n.
        t = np.arange(len(masses)) % masses[0].n if true_index is None else true_index
        rows.append({"group": g, **summarise(masses, t)})
    return rows


def rsrl_candidate_masks(original, masked, known=None, *, p=None, distance: int | None = None,
                         rounding: str = "floor") -> np.ndarray:
    """RS-RL candidate sets (Nin, Herranz & Torra (2008, rank swapping) §3) as a boolean matrix ``[original record, masked record]``.

    Uses :func:`sdcrisk.linkage.location.rank_swap_intervals`: ``B(x_ij)`` is a range
    ``[a_ij, b_ij)`` of the sorted masked column made of whole runs of equal values, so masked
    record ``l`` lies in it iff ``ys[a_ij] <= y_lj <= ys[b_ij - 1]``; the candidate set is the
    intersection over the known attributes. Meant for Census-sized files (``n x n`` booleans).
    """
    from ..validation import prepare
    from ..linkage.location import rank_swap_intervals
    from ..masking.swapping import rank_distance
    from ..validation import check_int

    x, y = prepare(original, masked, known)
    n = x.shape[0]
    if (p is None) == (distance is None):
        raise ValueError("give exactly one of p (percent of n, in [0, 100]) or distance (max rank distance)")
    P = check_int("distance", distance, 0, n - 1) if distance is not None else rank_distance(p, n, rounding)
    a, b = rank_swap_intervals(x, y, P)
    ys = np.sort(y, axis=0)
    out = np.ones((n, n), dtype=bool)
    for j in range(x.shape[1]):
        nonempty = b[:, j] > a[:, j]
        lo = np.where(nonempty, ys[np.minimum(a[:, j], n - 1), j], np.inf)
        hi = np.where(nonempty, ys[np.maximum(b[:, j] - 1, 0), j], -np.inf)
        out &= (y[None, :, j] >= lo[:, None]) & (y[None, :, j] <= hi[:, None])
    return out


def rsrl_belief_table(original, masked, known_sets: Mapping | None = None, *, p=None,
                      distance: int | None = None, rounding: str = "floor") -> list[dict]:
    """Applied example: RS-RL candidate sets -> belief functions -> summary per known-attribute set.

    ``known_sets`` maps a label (default: the number ``k`` of known attributes) to the column
    indices known to the intruder (default: the first ``k`` columns, ``k = 1..m``). One row
    per label, as :func:`applied_example`.
    """
    m = np.asarray(original).shape[1]
    if known_sets is None:
        known_sets = {k: list(range(k)) for k in range(1, m + 1)}
    cands = {g: rsrl_candidate_masks(original, masked, cols, p=p, distance=distance, rounding=rounding)
             for g, cols in known_sets.items()}
    return applied_example(cands, empty="vacuous")


def worked_examples_table():
    """All worked examples of Torra, Stokes et al. (compatible probabilities) as one tidy table (example, quantity, value), computed here."""
    import pandas as pd

    rows = []
    for name, ex in (("entropy_decreasing", entropy_example_decreasing()), ("entropy_increasing", entropy_example_increasing())):
        for stage in ("before", "after"):
            rows.append((name, f"pignistic_entropy_nats_{stage}", ex[stage]["entropy_nats"]))
            rows.append((name, f"nonspecificity_bits_{stage}", ex[stage]["nonspecificity_bits"]))
        rows.append((name, "mass_transferred", ex["transferred"]))
    for r in kanonymity_running_example()["rows"]:
        rows.append(("kanonymity_" + r["attributes"].replace(",", "+"), "mean_nonspecificity_bits", r["mean_nonspecificity_bits"]))
        rows.append(("kanonymity_" + r["attributes"].replace(",", "+"), "mean_pignistic_entropy_nats", r["mean_entropy_nats"]))
        rows.append(("kanonymity_" + r["attributes"].replace(",", "+"), "all_compatible", float(r["all_compatible"])))
    mx = max_pignistic_example()
    rows.append(("max_pignistic_outside", "argmax_pignistic", float(mx["argmax"])))
    rows.append(("max_pignistic_outside", "true_probability_of_argmax", float(mx["true_probability"][mx["argmax"]])))
    rows.append(("max_pignistic_outside", "compatible", float(mx["compatible"])))
    return pd.DataFrame(rows, columns=["example", "quantity", "value"])
