"""The attacks ``sdcrisk assess`` runs by default: those no other attack dominates on a corpus.

An attack A *dominates* an attack B on a corpus of releases (pairs of an original and a masked
file, each attacked with every attribute known) when B ran on at least one release and, on every
release where B ran, A ran too and linked at least as many records as B (``linked``, the
expected number of correct links with ties broken uniformly at random, compared within
:data:`TOLERANCE`). A release where B was not run ("not run: ..." in its note, or not
applicable) asks nothing of A; a release where B ran and A did not counts against A: A cannot
stand in for B there. So leaving B out of the default never lowers a release's headline (the
highest linkage percent over the attacks) on the corpus.

Equal counts: where A and B dominate each other (equal on every release where either ran), one
of the two is kept, the one earlier in :data:`ALL_ATTACKS`; :func:`left_out` breaks that tie
and only that one. The relation "A dominates B and (B does not dominate A, or A comes first)"
is a strict partial order, so every attack left out is dominated by at least one attack kept
(the kept ones are its maximal elements), and the headline of every corpus release is the same
with the default as with every attack.

The corpus, the script that builds and attacks it, its per-release table and the dominance
result are in ``research/dominance/`` (``corpus.py``, ``dominance.py``,
``results/``); :data:`LEFT_OUT` below holds the committed result and
``tests/test_default_attacks.py`` checks it against ``research/dominance/results/dominance.json``.
Interval disclosure (ID) is not a linkage attack: it is always in the default.
``docs/assess.md`` (section "Default attacks") describes the measurement.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

#: every measure ``sdcrisk assess`` can run (``--attacks all``), in the order of its report
ALL_ATTACKS = ("DBRL", "RBRL-Sum", "RBRL-Max", "PRL", "PRL-graded", "RS-RL(p<=20%)", "L-RL(MA)", "GDBRL", "ID")
#: measures that are not record linkage: never compared, always run
NOT_LINKAGE = ("ID",)
#: linked counts closer than this are equal (they are sums of 1/t over records)
TOLERANCE = 1e-6
#: where the corpus and the dominance result are (the reasons cite the documentation's section)
CORPUS_DOC = "docs/assess.md#default-attacks"

#: the committed dominance result (research/dominance/results/dominance.json): each attack left
#: out of the default, with the attacks kept in the default that dominate it on the corpus
LEFT_OUT: dict[str, tuple[str, ...]] = {"DBRL": ("GDBRL",)}
#: number of releases of the corpus the result was measured on
CORPUS_RELEASES = 47

#: the attacks run when none are named: every measure no other attack dominates on the corpus
DEFAULT_ATTACKS = tuple(a for a in ALL_ATTACKS if a not in LEFT_OUT)


def dominates(a: Sequence[float], b: Sequence[float], tolerance: float = TOLERANCE) -> bool:
    """Whether attack ``a`` dominates attack ``b``: their linked counts per release (NaN = not
    run), same release order. True when ``b`` ran somewhere and, wherever ``b`` ran, ``a`` ran
    and linked at least ``b``'s count less ``tolerance`` (module docstring)."""
    if len(a) != len(b):
        raise ValueError(f"dominates: {len(a)} and {len(b)} releases; expected one count per release for both")
    ran_b = [not _missing(v) for v in b]
    if not any(ran_b):
        return False
    return all(not _missing(x) and x >= y - tolerance for x, y, r in zip(a, b, ran_b) if r)


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def dominance(linked: Mapping[str, Sequence[float]], tolerance: float = TOLERANCE) -> dict[str, list[str]]:
    """For each attack of ``linked`` ({attack: linked count per release, NaN = not run}), the
    other attacks that dominate it, in ``linked``'s order."""
    names = list(linked)
    return {b: [a for a in names if a != b and dominates(linked[a], linked[b], tolerance)] for b in names}


def left_out(linked: Mapping[str, Sequence[float]], order: Sequence[str] | None = None,
             tolerance: float = TOLERANCE) -> dict[str, list[str]]:
    """The attacks to leave out of the default, each with the kept attacks that dominate it.

    ``order`` (default: ``linked``'s keys) breaks mutual dominance (equal counts everywhere):
    the earlier one is kept. An attack B is left out when some A dominates it and either B does
    not dominate A or A comes before B in ``order``."""
    order = list(order or linked)
    missing = [a for a in linked if a not in order]
    if missing:
        raise ValueError(f"left_out: attacks {missing} not in the order {order}")
    rank = {a: order.index(a) for a in linked}
    over = dominance(linked, tolerance)
    beaten = {b: [a for a in over[b] if b not in over[a] or rank[a] < rank[b]] for b in linked}
    kept = [a for a in linked if not beaten[a]]
    return {b: [a for a in kept if a in over[b]] for b in sorted(linked, key=rank.get) if beaten[b]}


def reason(attack: str) -> str:
    """Why ``attack`` is not in the default: the attacks that dominate it and the corpus."""
    by = LEFT_OUT[attack]
    who = by[0] if len(by) == 1 else ", ".join(by[:-1]) + " and " + by[-1] + " each"
    verb = "links" if len(by) == 1 else "link"
    return (f"{who} {verb} at least as many records on all {CORPUS_RELEASES} corpus releases ({CORPUS_DOC}); "
            f"run it with --attacks {attack.split('(')[0]} or --attacks all")  # RS-RL(p<=20%): RS-RL


def left_out_reasons(attacks: Sequence[str] | None) -> dict[str, str]:
    """``{attack: reason}`` for the attacks the default leaves out when ``attacks`` is None (the
    default set); empty when the caller named the attacks."""
    if attacks is not None:
        return {}
    return {a: reason(a) for a in ALL_ATTACKS if a in LEFT_OUT}


#: the attack names ``--attacks`` accepts (upper-cased) -> the registry's names
ATTACK_NAMES = {"DBRL": "DBRL", "RBRL-SUM": "RBRL-Sum", "RBRL-MAX": "RBRL-Max", "PRL": "PRL",
                "RS-RL": "RS-RL(p<=20%)", "RS-RL(P<=20%)": "RS-RL(p<=20%)", "L-RL": "L-RL(MA)",
                "L-RL(MA)": "L-RL(MA)", "GDBRL": "GDBRL", "PRL-GRADED": "PRL-graded", "ID": "ID"}


__all__ = ["ALL_ATTACKS", "DEFAULT_ATTACKS", "LEFT_OUT", "CORPUS_RELEASES", "NOT_LINKAGE", "TOLERANCE", "dominates",
           "dominance", "left_out", "reason", "left_out_reasons"]
