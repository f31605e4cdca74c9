"""The registry of record-linkage attacks run side by side: by the attack-matrix experiment of
the DAG and by :func:`sdcrisk.assess` on a custodian's own files.

Every entry is ``f(x, y, known, v, rng) -> LinkResult`` with ``known`` the column indices the
intruder knows, ``v`` the masking method's block size (2 where it has none; only projected
linkage uses it) and ``rng`` a ``numpy.random.Generator`` for tie breaks. Plugins add attacks
with :func:`register_attack`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .linkage.base import LinkResult, check_truth, checked_links
from .linkage.distance import dbrl
from .linkage.global_distance import gdbrl
from .linkage.graded import prl_graded
from .linkage.location import LRL_NOT_APPLICABLE, has_equal_values, lrl_microaggregation, rsrl
from .linkage.probabilistic import prl, prl_bound, prl_memory
from .linkage.projected import projected_rl
from .linkage.rank import rbrl
from .masking.microaggregation import attribute_blocks


def _half_blocks(m: int, v: int) -> np.ndarray:
    """The first half of the blocks of v attributes (at least one)."""
    return np.arange(max(1, len(attribute_blocks(m, v)) // 2))


ATTACKS: dict[str, Callable] = {
    "DBRL": lambda x, y, known, v, rng: dbrl(x, y, known=known),
    "RBRL-Sum": lambda x, y, known, v, rng: rbrl(x, y, known=known, criterion="sum"),
    "RBRL-Max": lambda x, y, known, v, rng: rbrl(x, y, known=known, criterion="max"),
    "PRL": lambda x, y, known, v, rng: prl(x, y, known=known, rng=rng),
    # RS-RL with p unknown but bounded (Nin, Herranz & Torra (2008, rank swapping) §3, last paragraph: "for example, the 20%")
    # (the attacks report links only: no candidate-set sizes, see sdcrisk.linkage.location)
    "RS-RL(p<=20%)": lambda x, y, known, v, rng: rsrl(x, y, known=known, p=20.0, count=False),
    "L-RL(MA)": lambda x, y, known, v, rng: lrl_microaggregation(x, y, known=known, count=False),
    "Pro-RL-PCP": lambda x, y, known, v, rng: projected_rl(x, y, _half_blocks(x.shape[1], v), v, projection="pcp"),
    "Pro-RL-Zscore": lambda x, y, known, v, rng: projected_rl(x, y, _half_blocks(x.shape[1], v), v,
                                                             projection="zscore"),
    # Herranz, Nin, Rodríguez & Tassa (2015): one-to-one assignment of minimum total distance
    "GDBRL": lambda x, y, known, v, rng: gdbrl(x, y, known=known, rng=rng),
    # the project's extension: Fellegi-Sunter with graded comparison levels (sdcrisk.linkage.graded)
    "PRL-graded": lambda x, y, known, v, rng: prl_graded(x, y, known=known, rng=rng),
}

@dataclass(frozen=True)
class Needs:
    """What the attack workers of ``sdcrisk assess`` need to know of an attack before they run it
    on a large file: the order to hand the attacks out in (longest first), the progress estimate,
    and whether two attacks fit the memory limit side by side.

    ``seconds``: its wall time in the whole command on 10^5 and 10^6 records x 10 attributes (rank
    swapping p = 5, 2 cores, two attacks at a time), interpolated on log-log axes. ``bytes_per_record``:
    its worker's peak resident memory per record at 10^6 above the interpreter and its libraries
    (the mapped arrays included), scaled linearly in n; ``unparked``: the same where the temporary
    directory is held in memory (tmpfs) and nothing can wait on disk. ``shares_search``: it begins
    with the nearest-record search that the first of DBRL, RS-RL and L-RL runs and the others read
    (:mod:`sdcrisk.linkage.shared`), so after the first its estimate is :data:`SEARCH` shorter.
    ``data_bytes``: ``f(x, y) -> bytes`` where the memory follows the values, not only n (PRL's
    edges grow with runs of tied masked values); the workers take the larger of the two.
    The measurements behind each figure: ``benchmarks/results/assess_scale.md`` and
    ``docs/benchmarks.md`` (the assess command)."""

    seconds: tuple[float, float] | None = None
    bytes_per_record: float | None = None
    unparked: float | None = None
    shares_search: bool = False
    data_bytes: Callable | None = None


#: each attack's :class:`Needs` (a plugin attack declares its own with :func:`register_attack`)
NEEDS: dict[str, Needs] = {
    "PRL": Needs(seconds=(2.8, 128.0), bytes_per_record=2380.0, unparked=2843.0, data_bytes=prl_memory),
    "GDBRL": Needs(seconds=(3.9, 76.2), bytes_per_record=856.0),
    "PRL-graded": Needs(seconds=(4.33, 55.9), bytes_per_record=1190.0),
    "L-RL(MA)": Needs(seconds=(2.44, 55.6), bytes_per_record=1500.0, shares_search=True),
    "RS-RL(p<=20%)": Needs(seconds=(2.24, 64.6), bytes_per_record=1329.0, shares_search=True),
    "DBRL": Needs(seconds=(1.5, 44.7), bytes_per_record=931.0, shares_search=True),
    "RBRL-Sum": Needs(seconds=(1.95, 58.7), bytes_per_record=952.0),
    "RBRL-Max": Needs(seconds=(0.41, 8.33), bytes_per_record=952.0),  # reads RBRL-Sum's ranks and tree
}
#: attacks that apply only to some releases: ``f(masked, columns) -> reason or None`` on the whole
#: masked file (before any blocking, which may hide what the attack needs); a reason makes the
#: attack's row "not applicable: reason" in ``sdcrisk assess`` (:func:`not_applicable`)
APPLIES: dict[str, Callable] = {
    # L-RL(MA) locates records by groups of equal masked values (Nin, Herranz & Torra (2007) §4)
    "L-RL(MA)": lambda y, columns: None if has_equal_values(y, columns) else LRL_NOT_APPLICABLE,
}


#: attacks with a cheap upper bound on their correct links: ``f(x, y, known, truth) -> per-record
#: credit`` (1 where the attack could link the record to its own masked record, else 0; ``truth``
#: the true masked record of each original). ``sdcrisk assess`` runs such an attack of its default
#: set last and only where the bound exceeds what another attack already linked: else the attack
#: cannot raise the headline, and its row gives the bound ("at most ..."; docs/assess.md)
BOUNDS: dict[str, Callable] = {
    "PRL": lambda x, y, known, truth: prl_bound(x, y, truth, known=known),
}


def not_applicable(name: str, masked: np.ndarray, columns) -> str | None:
    """Why attack ``name`` does not apply to the release ``masked`` (its ``columns`` known), or None."""
    check = APPLIES.get(name)
    return None if check is None else check(masked, columns)


#: the shared nearest-record search alone, as timed in the same runs (``Needs.shares_search``)
SEARCH = Needs(seconds=(1.4, 44.5))
#: the two sizes ``Needs.seconds`` were measured at
NEEDS_SIZES = (100_000, 1_000_000)


# The attacks that take the intruder's known attributes as given (the projected attacks choose
# their own blocks of v attributes): the ones :func:`sdcrisk.assess` runs on a custodian's files.
KNOWN_ATTRIBUTE_ATTACKS = ("DBRL", "RBRL-Sum", "RBRL-Max", "PRL", "RS-RL(p<=20%)", "L-RL(MA)", "GDBRL", "PRL-graded")


# The attacks that break their ties uniformly at random when told the true links (``truth``, the
# true masked record of each original record): ``f(x, y, known, v, rng, truth) -> LinkResult`` with
# ``credit`` (:func:`run_attack`; the tie rule is in the docstrings of sdcrisk.linkage.distance,
# .rank, .location and .global_distance). Their links are those of the same entries of ATTACKS.
TIE_AWARE: dict[str, Callable] = {
    "DBRL": lambda x, y, known, v, rng, truth: dbrl(x, y, known=known, truth=truth),
    "RBRL-Sum": lambda x, y, known, v, rng, truth: rbrl(x, y, known=known, criterion="sum", truth=truth),
    "RBRL-Max": lambda x, y, known, v, rng, truth: rbrl(x, y, known=known, criterion="max", truth=truth),
    "RS-RL(p<=20%)": lambda x, y, known, v, rng, truth: rsrl(x, y, known=known, p=20.0, count=False, truth=truth),
    "L-RL(MA)": lambda x, y, known, v, rng, truth: lrl_microaggregation(x, y, known=known, count=False,
                                                                        truth=truth),
    "GDBRL": lambda x, y, known, v, rng, truth: gdbrl(x, y, known=known, rng=rng, truth=truth),
}
_BUILTIN = dict(ATTACKS)  # TIE_AWARE applies only while ATTACKS[name] is the package's own entry
OWN_RULE = "the attack's own rule"  #: ``info["ties"]`` of an attack without tie support


def register_attack(name: str, needs: Needs | None = None, applies: Callable | None = None,
                    bound: Callable | None = None):
    """Decorator adding ``f(x, y, known, v, rng) -> LinkResult`` to :data:`ATTACKS` under ``name``,
    so that a plugin module (config ``plugins:``) can add an attack to the matrix without
    touching the package; the experiment lists it under ``options.attacks``. ``needs``: its
    :class:`Needs` where measured (else the workers assume the largest memory of any attack and
    give no time estimate). ``applies``: ``f(masked, columns) -> reason or None`` where the attack
    does not apply to every release (:data:`APPLIES`). ``bound``: ``f(x, y, known, truth) ->
    credit``, a cheap upper bound on its correct links (:data:`BOUNDS`)."""
    if needs is not None and not isinstance(needs, Needs):
        raise ValueError(f"register_attack({name!r}): needs must be a sdcrisk.attacks.Needs, got {type(needs).__name__}")

    def deco(func):
        if name in ATTACKS:
            raise ValueError(f"attack {name!r} registered twice")
        ATTACKS[name] = func
        if needs is not None:
            NEEDS[name] = needs
        if applies is not None:
            APPLIES[name] = applies
        if bound is not None:
            BOUNDS[name] = bound
        return func

    return deco


def _read_only(a):
    """A read-only view of ``a`` (arrays only): what a plugin attack sees of the caller's data."""
    if not isinstance(a, np.ndarray):
        return a
    view = a.view()
    view.flags.writeable = False
    return view


def _call(name: str, x, y, known, v, rng):
    """``ATTACKS[name]`` on ``x`` and ``y``. A plugin attack (an entry not the package's own) gets
    read-only views: an attack that overwrote the masked or original array would change what every
    later attack compares (a write raises, naming the attack). Links given as any integer sequence
    (a Python list) are taken as an array."""
    own = ATTACKS.get(name) is _BUILTIN.get(name)
    try:
        res = ATTACKS[name](x if own else _read_only(x), y if own else _read_only(y), known, v, rng)
    except ValueError as exc:
        if own or "read-only" not in str(exc):
            raise
        raise ValueError(f"attack {name!r} wrote into its input ({exc}); expected an attack that leaves the "
                         "original and masked arrays unchanged (copy them first to change them)") from None
    if isinstance(res, LinkResult) and res.links is not None and not isinstance(res.links, np.ndarray):
        try:
            res.links = np.asarray(res.links)
        except (TypeError, ValueError):
            pass  # checked_links names what it is
    return res


def run_attack(name: str, x: np.ndarray, y: np.ndarray, known, v: int, rng: np.random.Generator, *,
               truth: np.ndarray | None = None) -> LinkResult:
    """The registered attack ``name`` on original ``x`` and masked ``y``, its result checked where
    it enters scoring (:func:`sdcrisk.linkage.base.checked_links`): a plugin's links out of range,
    or fewer than the original records, stop the job with the attack named.

    ``truth`` (int array, ``truth[i]`` the index in ``y`` of original record i's true masked
    record) adds ``result.credit``: per original record the probability of a correct link when the
    attack breaks its ties uniformly at random among its equally best candidates (1 / t_i when the
    true record is among the t_i, else 0; exact for the nearest-record attacks of
    :data:`TIE_AWARE`, ``info["ties"] = "uniform"``, ``info["tied_records"]`` the records with
    t_i > 1; GDBRL: the share of random draws, ``info["draws"]``). Links and scores are those
    without ``truth``. Other attacks (PRL, projected linkage, plugins) keep their own rule:
    ``credit = (links == truth)``, ``info["ties"] = "the attack's own rule"``. A plugin gets the
    arrays read-only and may return its links as any integer sequence (:func:`_call`)."""
    if truth is None:
        return checked_links(_call(name, x, y, known, v, rng), name, x.shape[0], y.shape[0])
    truth = check_truth(truth, x.shape[0], y.shape[0])
    if name in TIE_AWARE and ATTACKS.get(name) is _BUILTIN.get(name):
        return checked_links(TIE_AWARE[name](x, y, known, v, rng, truth), name, x.shape[0], y.shape[0])
    res = checked_links(_call(name, x, y, known, v, rng), name, x.shape[0], y.shape[0])
    res.credit = ((np.asarray(res.links) == truth) & (truth >= 0)).astype(np.float64)
    res.info["ties"] = OWN_RULE
    return res


def matrix_attacks(opts) -> list[str]:
    """The attacks an attack-matrix experiment runs: ``options.attacks``, else every registered one."""
    return list(opts.get("attacks") or ATTACKS)
