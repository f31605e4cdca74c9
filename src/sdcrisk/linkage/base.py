"""Common result type and helpers of the record-linkage attacks.

Convention: the masked file keeps the record order of the original, so original record ``i``
is correctly linked when ``links[i] == i``. ``links[i] == -1`` (:data:`NO_LINK`) means the attack
declines to link record ``i`` (for example an empty candidate set). :func:`checked_links` holds
an attack's result to this contract where it enters scoring.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..measures.units import linkage_percent
NO_LINK = -1  #: the link of an original record the attack declines to link


class NotApplicable(ValueError):
    """An attack that cannot run on a file of this shape (e.g. more known attributes than its
    model allows): ``sdcrisk assess`` reports it as not run, with this message, and goes on."""


@dataclass
class LinkResult:
    """For every original record, the masked record it links to (-1: no link).

    ``candidates`` is, where the method has one, the size of the candidate set from which the
    link was chosen; ``score`` the value of the criterion at the chosen link; ``info`` the
    attack's diagnostics (for probabilistic linkage: whether EM converged, its iterations, the
    number of candidate pairs). ``credit``, when the attack was given the true links
    (``truth=``, :func:`sdcrisk.attacks.run_attack`), is per original record the probability
    that the attack links it correctly when it breaks its ties uniformly at random
    (:func:`uniform_credit`).
    """

    links: np.ndarray
    candidates: np.ndarray | None = None
    score: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    credit: np.ndarray | None = None

    @property
    def correct(self) -> np.ndarray:
        return self.links == np.arange(self.links.size)

    @property
    def n_correct(self) -> int:
        return int(self.correct.sum())

    @property
    def percent_correct(self) -> float:
        """% of the original records correctly linked (``links`` has one entry per original record)."""
        return linkage_percent(self.n_correct, self.links.size)


def index_type(largest: int):
    """The integer type of indices up to ``largest``: 32-bit where they fit (half the memory of
    the edge lists and networks beside the solvers, and the flow solver's own node type), else
    64-bit."""
    return np.int32 if largest < 2**31 else np.int64


def checked_links(result, attack: str, n_original: int, n_masked: int) -> LinkResult:
    """``result`` of the attack ``attack`` if it keeps the contract of :class:`LinkResult`: one
    integer link per original record, each a masked record index in [0, n_masked) or
    :data:`NO_LINK`; ``candidates`` (candidate-set sizes) integers in [0, n_masked]; ``score``
    (the criterion, distance or weight, at the chosen link) one number per record, not NaN and
    finite where a record is linked; ``info["converged"]`` a bool. Else ``ValueError``, one
    sentence naming the attack, what was expected and what it returned."""
    who = f"attack {attack!r} returned"
    if not isinstance(result, LinkResult):
        raise ValueError(f"{who} a {type(result).__name__}; expected a sdcrisk.linkage.LinkResult")
    links = np.asarray(result.links)
    if links.shape != (n_original,):
        raise ValueError(f"{who} links of shape {links.shape}; expected one link per original record, shape ({n_original},)")
    if links.dtype.kind not in "iu":
        raise ValueError(f"{who} links of dtype {links.dtype}; expected integers (masked record indices, {NO_LINK} for no link)")
    bad = np.flatnonzero((links < NO_LINK) | (links >= n_masked))
    if bad.size:
        raise ValueError(f"{who} link {links[bad[0]]} for original record {bad[0]} ({bad.size} such); expected a masked "
                         f"record index in [0, {n_masked}) or {NO_LINK} for no link")
    for name, values, kind in (("candidates", result.candidates, "integers"), ("score", result.score, "real numbers")):
        values = np.asarray(values if values is not None else np.zeros(n_original, np.int64))
        if values.shape != (n_original,) or values.dtype.kind not in ("iu" if kind == "integers" else "iuf"):
            raise ValueError(f"{who} {name} of shape {values.shape} and dtype {values.dtype}; expected {kind}, "
                             f"one per original record, shape ({n_original},)")
        bad = np.flatnonzero((values < 0) | (values > n_masked) if name == "candidates"
                             else np.isnan(values) | (np.isinf(values) & (links != NO_LINK)))
        if bad.size:
            expected = (f"a size in [0, {n_masked}]" if name == "candidates"
                        else "a number, finite where the record is linked")
            raise ValueError(f"{who} {name} {values[bad[0]]} for original record {bad[0]} ({bad.size} such); "
                             f"expected {expected}")
    if not isinstance(result.info, dict) or not isinstance(result.info.get("converged", False), (bool, np.bool_)):
        raise ValueError(f"{who} info {result.info!r}; expected a dict whose 'converged', if given, is True or False")
    if result.credit is not None:
        credit = np.asarray(result.credit)
        if credit.shape != (n_original,) or credit.dtype.kind not in "iuf":
            raise ValueError(f"{who} credit of shape {credit.shape} and dtype {credit.dtype}; expected real "
                             f"numbers, one per original record, shape ({n_original},)")
        bad = np.flatnonzero(~np.isfinite(credit) | (credit < 0) | (credit > 1))
        if bad.size:
            raise ValueError(f"{who} credit {credit[bad[0]]} for original record {bad[0]} ({bad.size} such); "
                             "expected a probability in [0, 1]")
    return result


def uniform_credit(ties: np.ndarray, hit: np.ndarray) -> np.ndarray:
    """Expected credit of each record under uniform random tie-breaking: ``1 / ties[i]`` when the
    true record is among the ``ties[i]`` equally best candidates (``hit[i]``), else 0."""
    ties = np.asarray(ties)
    ok = np.asarray(hit, dtype=bool) & (ties > 0)
    credit = np.zeros(ties.size)
    credit[ok] = 1.0 / ties[ok]
    return credit


def with_ties(result: LinkResult, ties: np.ndarray, hit: np.ndarray) -> LinkResult:
    """``result`` with :func:`uniform_credit` as its ``credit``, ``info["ties"] = "uniform"`` and
    ``info["tied_records"]`` the number of records with more than one equally best candidate."""
    result.credit = uniform_credit(ties, hit)
    result.info["ties"] = "uniform"
    result.info["tied_records"] = int((np.asarray(ties) > 1).sum())
    return result


def check_truth(truth, n_original: int, n_masked: int) -> np.ndarray:
    """``truth`` (the masked record of each original record, -1 for none) as int64, else ValueError."""
    t = np.asarray(truth)
    if t.shape != (n_original,) or t.dtype.kind not in "iu":
        raise ValueError(f"truth of shape {t.shape} and dtype {t.dtype}; expected integers, one per original "
                         f"record, shape ({n_original},)")
    t = t.astype(np.int64)
    bad = np.flatnonzero((t < NO_LINK) | (t >= n_masked))
    if bad.size:
        raise ValueError(f"truth {t[bad[0]]} for original record {bad[0]}; expected a masked record index in "
                         f"[0, {n_masked}) or {NO_LINK}")
    return t
