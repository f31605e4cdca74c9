"""Known-attribute scenarios the papers average their linkage risks over.

Nin, Herranz & Torra (2007) §3: DLD, PLD and ID "are computed over the number of attributes that the intruder is
assumed to know that, in our case, ranges from one to half of the attributes"; the calibration
(REPLICATION.md) found the *first* j attributes, j = 1 .. ceil(m/2), close to Nin, Herranz & Torra (2007)
Tables 7/8. For block-wise masking (MDAV / projected microaggregation on blocks of v attributes,
Nin, Herranz & Torra (2008, multivariate microaggregation) §3.1, Nin, Herranz & Torra (2007) Table 9) the intruder knows the first j *groups of variables*,
j = 2 .. number of blocks.

A range of scenario sizes is written ``"lo..hi"`` (:func:`scenario_range`): the experiment option
``scenarios`` of the DAG, checked by :func:`sdcrisk.replication.config.validate`, and ``sdcrisk assess
--scenarios`` read it with this one parser.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

import numpy as np

from ..validation import check_int

RULES = ("first_j", "all_subsets", "sampled_subsets")
# Nin, Herranz & Torra (2007) §3: "ranges from one to half of the attributes"
DEFAULT_RANGE = "1..half"


class ScenarioRangeError(ValueError):
    """A scenario range that is not ``"lo..hi"`` or gives no scenario; the message starts with the
    range as given, so that each caller can put its own key (``scenarios: ...``) in front."""


def half(m: int) -> int:
    """Half of the m attributes, rounded up (Nin, Herranz & Torra (2007) §3: known attributes range
    "from one to half of the attributes")."""
    return math.ceil(m / 2)


def scenario_range(spec: str, m: int, *, clip: bool = False) -> list[int]:
    """The sizes j of the first-j-attributes scenarios of the range ``spec = "lo..hi"`` on m attributes.

    ``lo`` and ``hi`` are positive integers, ``half`` (ceil(m/2), Nin, Herranz & Torra (2007) §3) or
    ``all`` (m; "from 2 to the total number", Nin, Herranz & Torra (2008, multivariate
    microaggregation) §3.1). With ``clip`` a ``hi`` beyond m stops at m (one experiment option on data
    sets of different widths); without it, it is an error. Raises :class:`ScenarioRangeError`.
    """
    m = check_int("m", m, 1)
    named = {"half": half(m), "all": m}
    try:
        lo, hi = (named[s] if s in named else int(s) for s in str(spec).split(".."))
    except ValueError:
        raise ScenarioRangeError(f"{spec!r}; expected 'lo..hi' with integers, 'half' or 'all', e.g. '1..all'") from None
    top = min(hi, m) if clip else hi
    if not 1 <= lo <= top <= m:
        bound = f"1 <= lo <= hi, lo <= {m}" if clip else f"1 <= lo <= hi <= {m}"
        raise ScenarioRangeError(f"{spec!r} gives no scenario for {m} attributes; expected {bound}")
    return list(range(lo, top + 1))


def known_scenarios(m: int, rule: str = "first_j", j_min: int = 1, j_max: int | None = None,
                    rng: np.random.Generator | None = None, per_size: int = 10) -> list[np.ndarray]:
    """Column-index arrays of the attributes the intruder knows, one per scenario.

    ``j`` runs from ``j_min`` to ``j_max`` (default ``ceil(m/2)``, "half of the attributes").
    ``"first_j"``: the first j attributes (one scenario per j; the default, Nin, Herranz & Torra (2007) §3 read
    with REPLICATION.md). ``"all_subsets"``: every j-subset of the m attributes.
    ``"sampled_subsets"``: ``per_size`` distinct j-subsets drawn with ``rng`` (all of them when
    there are fewer). Scenarios are ordered by j.
    """
    m = check_int("m", m, 1)
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(map(repr, RULES))}, got {rule!r}")
    j_max = half(m) if j_max is None else check_int("j_max", j_max, 1, m)
    j_min = check_int("j_min", j_min, 1, j_max)
    sizes = range(j_min, j_max + 1)
    if rule == "first_j":
        return [np.arange(j) for j in sizes]
    if rule == "all_subsets":
        return [np.array(c) for j in sizes for c in combinations(range(m), j)]
    if rng is None or not isinstance(rng, np.random.Generator):
        raise ValueError("rng: rule='sampled_subsets' needs a numpy.random.Generator")
    per_size = check_int("per_size", per_size, 1)
    out = []
    for j in sizes:
        if math.comb(m, j) <= per_size:
            out += [np.array(c) for c in combinations(range(m), j)]
            continue
        seen: set[tuple[int, ...]] = set()
        while len(seen) < per_size:
            seen.add(tuple(sorted(rng.choice(m, size=j, replace=False).tolist())))
        out += [np.array(c) for c in sorted(seen)]
    return out


def known_block_scenarios(n_blocks: int, first: int = 2, last: int | None = None) -> list[np.ndarray]:
    """Block-index arrays: the first j groups of variables, j = ``first`` .. ``last`` (default
    all blocks) - Nin, Herranz & Torra (2007) Table 9 ("2 GV" .. ), Nin, Herranz & Torra (2008, multivariate microaggregation) §3.1 ("from 2 to the total number")."""
    n_blocks = check_int("n_blocks", n_blocks, 1)
    last = n_blocks if last is None else check_int("last", last, 1, n_blocks)
    first = check_int("first", first, 1, last)
    return [np.arange(j) for j in range(first, last + 1)]


def block_columns(blocks: Sequence[np.ndarray], known_blocks: np.ndarray) -> np.ndarray:
    """The attribute indices of the known blocks (``blocks`` as built by the masking method, e.g.
    ``sdcrisk.masking.microaggregation.attribute_blocks``), to feed attribute-level attacks."""
    return np.concatenate([np.asarray(blocks[b]) for b in np.asarray(known_blocks)])


def average_linkage(percent_by_scenario, sizes: Sequence[int] | None = None) -> float:
    """Average of per-scenario percentages. With ``sizes`` (the number of known attributes of
    each scenario), first average within each size, then over sizes (so that sampled or
    exhaustive subset rules weigh each j equally, as "first_j" does)."""
    v = np.asarray(percent_by_scenario, dtype=np.float64)
    if v.ndim != 1 or v.size == 0 or not np.isfinite(v).all():
        raise ValueError(f"percent_by_scenario must be a non-empty list of finite numbers, got {percent_by_scenario!r}")
    if sizes is None:
        return float(v.mean())
    s = np.asarray(sizes)
    if s.shape != v.shape:
        raise ValueError(f"sizes must have one entry per scenario ({v.size}), got {s.size}")
    return float(np.mean([v[s == j].mean() for j in np.unique(s)]))


def scenario_average(per_attribute, scenarios: Sequence[np.ndarray]) -> float:
    """A per-attribute measure (e.g. ID by attribute) averaged over each scenario's attributes,
    then over scenarios."""
    a = np.asarray(per_attribute, dtype=np.float64)
    if not scenarios:
        raise ValueError("scenarios must be a non-empty list of column-index arrays")
    return float(np.mean([a[np.asarray(c)].mean() for c in scenarios]))


__all__ = ["DEFAULT_RANGE", "ScenarioRangeError", "half", "scenario_range", "known_scenarios",
           "known_block_scenarios", "block_columns", "average_linkage", "scenario_average", "RULES"]
