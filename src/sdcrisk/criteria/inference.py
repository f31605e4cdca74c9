"""Inference (attribute disclosure): guessing each original record's secret attribute from the release.

The intruder knows some attributes of every original record (the *known* attributes: numeric
ones, and categorical ones as common integer codes) and the whole release; the secret is one
more attribute, categorical (codes) or numeric. Every original record is a target (no sampling),
and each attack guesses its secret:

* **linked record** (one row per linkage attack): the secret of the release record the attack
  linked it to. What linkability means for this secret: a record linked right gives its secret
  away (as far as the masking left it), a wrong link may still guess right.
* **nearest record**: the release records nearest on the known attributes under the mixed
  distance of :mod:`sdcrisk.linkage.mixed` (standardised numeric values; a changed categorical
  attribute's mismatch costs ``w = 2``), within the block of equal *blocking keys* (the
  categorical attributes the masking left unchanged), as DBRL links. Equally near records
  (e.g. identical on the known attributes) are tied: the target gets the expected success of a
  uniformly random choice among them (``credit = tied records guessing right / tied records``),
  as the linkage attacks count ties.
* **key cell**: the mode (categorical secret) or the median (numeric) of the secret over the
  release records sharing the target's values of every known categorical attribute: the
  correct attribution probability (CAP) family (Elliot 2014; Taub, Elliot, Pampaka & Smith
  2018) and DiSCO, disclosive in the presence of the correct original (Raab, Nowok & Dibben
  2017, synthpop's ``disclosure``). Several modes: ``1 / modes`` credit when the true value is one.
  A target whose cell holds no release record gets the baseline's guess.

Success: a categorical guess equal to the true category; a numeric guess within the tolerance
``|guess - true| <= tol * |true|`` (relative to the *true* value, never the guess; ``tol``
default 0.05). A true value of 0 is guessed only by exactly 0 (the bound ``tol * 0`` is 0).

Baseline: the best constant guess from the release alone, scored the same way: the release's
mode (categorical; several modes share the credit as above) or median (numeric). What an attack
gains over it, the *excess*, is reported with Newcombe's (1998) interval for a difference of two
proportions (:class:`.rows.CriterionRow`). When the secret depends on the known attributes in the
population, a release teaches that dependence however well it is masked (a synthetic file too):
the key cell and the nearest record then beat the constant guess by what the population gives
away, a bound on the release's own contribution from above (Elliot 2014 and Taub et al. 2018 read
CAP against the same constant baseline).

l-diversity (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam 2007) of the secret within the
release's key cells: the number of distinct values (distinct l) and ``exp(entropy)`` (entropy l),
summarised over the cells (:func:`l_diversity`).

Speed: no per-record Python loop. Cells and blocks are group-by codes (numpy sorting), the
nearest records come from the exact k-d tree of :mod:`sdcrisk.linkage.neighbours` (box queries
within the block), tied groups are counted with sorted searches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..linkage.mixed import mixed_matrix
from ..linkage.neighbours import KDTree
from .rows import INFERENCE, CriterionRow

TOLERANCE = 0.05
NEAREST, KEY_CELL = "nearest record", "key cell"


def linked_name(attack: str) -> str:
    """The inference attack that takes the secret of ``attack``'s linked record."""
    return f"linked record ({attack})"


def success(guess, true, categorical: bool, tolerance: float = TOLERANCE) -> np.ndarray:
    """Whether each guess scores (module docstring): equal codes, or ``|guess - true| <= tol * |true|``."""
    guess, true = np.asarray(guess), np.asarray(true)
    if categorical:
        return guess == true
    return np.abs(guess - true) <= tolerance * np.abs(true)


# ----------------------------------------------------------------------------- group codes
def group_codes(*parts: np.ndarray) -> list[np.ndarray]:
    """Common group numbers for the rows of several integer code matrices (records x columns, the
    same columns): equal code rows, equal group, in every part. No column: one group."""
    sizes = [p.shape[0] for p in parts]
    if parts[0].shape[1] == 0:
        return [np.zeros(s, dtype=np.int64) for s in sizes]
    both = np.concatenate(parts, axis=0).astype(np.int64, copy=False)
    width = both.max(axis=0) + 1
    if float(np.prod(width.astype(np.float64))) < 2.0 ** 62:  # mixed radix: one integer per row
        mult = np.cumprod(np.r_[1, width[:0:-1]])[::-1].astype(np.int64)
        combined = both @ mult
        _, inverse = np.unique(combined, return_inverse=True)
    else:
        _, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64)
    return list(np.split(inverse, np.cumsum(sizes)[:-1]))


class _Counter:
    """How many release records of a group guess a target's true value right: ``hits(g, t)``
    for arrays of groups ``g`` and true values ``t`` (sorted searches, no loop)."""

    def __init__(self, groups: np.ndarray, secret: np.ndarray, categorical: bool, tolerance: float):
        self.categorical, self.tolerance = categorical, tolerance
        self.sizes = np.bincount(groups)
        if categorical:
            self.width = int(secret.max(initial=0)) + 1
            self.keys = np.sort(groups * self.width + secret.astype(np.int64))
        else:
            self.values = np.sort(secret)
            rank = np.searchsorted(self.values, secret, "left")
            self.span = secret.size + 1
            self.keys = np.sort(groups * self.span + rank)

    def hits(self, g: np.ndarray, t: np.ndarray) -> np.ndarray:
        g = g.astype(np.int64, copy=False)
        if self.categorical:
            inside = (t >= 0) & (t < self.width)
            key = g * self.width + np.where(inside, t, 0).astype(np.int64)
            found = np.searchsorted(self.keys, key, "right") - np.searchsorted(self.keys, key, "left")
            return np.where(inside, found, 0)
        bound = self.tolerance * np.abs(t)
        lo = np.searchsorted(self.values, t - bound, "left")
        hi = np.searchsorted(self.values, t + bound, "right")
        base = g * self.span
        return np.searchsorted(self.keys, base + hi, "left") - np.searchsorted(self.keys, base + lo, "left")


# ----------------------------------------------------------------------------- guesses
def constant_guess(sy: np.ndarray, categorical: bool):
    """The baseline's guess from the release alone: its modes (all of them) or its median."""
    if categorical:
        counts = np.bincount(sy)
        return np.flatnonzero(counts == counts.max())
    return float(np.median(sy))


def constant_credit(sx: np.ndarray, guess, categorical: bool, tolerance: float) -> np.ndarray:
    """Per target the expected success of :func:`constant_guess` (``1 / modes`` for a true mode)."""
    if categorical:
        return np.isin(sx, guess) / float(len(guess))
    return success(guess, sx, False, tolerance).astype(np.float64)


def _sorted_groups(groups: np.ndarray, values: np.ndarray):
    """Records sorted by (group, value): the order, each group's start and size (every group
    number up to the largest, empty ones size 0)."""
    order = np.lexsort((values, groups))
    sizes = np.bincount(groups)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    return order, starts, sizes


def cell_guess(cx: np.ndarray, cy: np.ndarray, sy: np.ndarray, categorical: bool):
    """The key cell's guess for every cell of the release (:data:`KEY_CELL`): ``(guess, modes,
    size)`` per cell, ``guess`` the mode (smallest code among several) or the median, ``modes``
    the number of modes (1 for a numeric secret), ``size`` its release records."""
    order, starts, sizes = _sorted_groups(cy, sy)
    v = sy[order]
    cells = sizes.size
    occupied = sizes > 0
    if categorical:
        key = cy[order].astype(np.int64) * (int(sy.max(initial=0)) + 1) + v
        first = np.r_[True, key[1:] != key[:-1]]
        run_start = np.flatnonzero(first)
        run_len = np.diff(np.r_[run_start, key.size])
        run_cell = cy[order][run_start]
        best = np.zeros(cells, dtype=np.int64)
        np.maximum.at(best, run_cell, run_len)
        is_mode = run_len == best[run_cell]
        modes = np.bincount(run_cell[is_mode], minlength=cells)
        guess = np.full(cells, -1, dtype=np.int64)
        pick = run_start[is_mode][::-1]  # the first mode of each cell wins the assignment
        guess[cy[order][pick]] = v[pick]
        return guess, modes, sizes
    guess = np.full(cells, np.nan)
    s, m = starts[occupied], sizes[occupied]
    guess[occupied] = (v[s + (m - 1) // 2] + v[s + m // 2]) / 2.0
    return guess, np.ones(cells, dtype=np.int64), sizes


def l_diversity(cy: np.ndarray, sy: np.ndarray) -> dict:
    """l-diversity of the secret ``sy`` (codes, or numbers compared exactly) in the release's key
    cells ``cy``: per cell the distinct values (distinct l) and ``exp`` of the entropy of their
    shares (entropy l; Machanavajjhala et al. 2007); summarised as the number of cells, the share
    of release records in cells of a single value (distinct l = 1: the cell gives its secret away),
    the smallest and median distinct l and the smallest entropy l over the cells."""
    _, codes = np.unique(sy, return_inverse=True)
    codes = codes.reshape(-1).astype(np.int64)
    width = int(codes.max(initial=0)) + 1
    key = np.sort(cy.astype(np.int64) * width + codes)
    first = np.r_[True, key[1:] != key[:-1]]
    run_start = np.flatnonzero(first)
    run_len = np.diff(np.r_[run_start, key.size]).astype(np.float64)
    run_cell = key[run_start] // width
    sizes = np.bincount(cy)
    distinct = np.bincount(run_cell, minlength=sizes.size)
    p = run_len / sizes[run_cell]
    entropy = np.bincount(run_cell, weights=-p * np.log(p), minlength=sizes.size)
    occupied = sizes > 0
    distinct, entropy, sizes = distinct[occupied], np.exp(entropy[occupied]), sizes[occupied]
    return {"cells": int(sizes.size), "pure_share": 100.0 * float(sizes[distinct == 1].sum()) / max(int(sizes.sum()), 1),
            "min_distinct_l": int(distinct.min()) if distinct.size else 0, "median_distinct_l": float(np.median(distinct)),
            "min_entropy_l": float(entropy.min(initial=np.inf)) if sizes.size else float("nan")}


def nearest_credit(xn: np.ndarray, yn: np.ndarray, xc: np.ndarray, yc: np.ndarray, bx: np.ndarray,
                   by: np.ndarray, sx: np.ndarray, sy: np.ndarray, categorical: bool, tolerance: float,
                   ncat: Sequence[int] | None = None, scaled: bool = False):
    """Per target: the expected success of a uniformly random choice among its nearest release
    records (:data:`NEAREST`), and one of them (the lowest index; -1 when its block holds no
    release record). ``xn``, ``yn``: numeric known attributes; ``xc``, ``yc``: changed categorical
    ones (codes, ``ncat`` categories each); ``bx``, ``by``: block numbers (equal blocking keys).
    ``scaled``: the numeric attributes are already on the distance's scale (both files alike),
    else each file is standardised by its own mean and sd.

    Distances are the k-d tree's sums ``d = sum_j (a_j - b_j)^2`` in coordinate order (exact
    ties: equal sums). Records identical on the coordinates and the block form one tied group
    (the tree stores them once); targets with several distinct records at the minimum, rare on
    continuous values, get them all from a k-nearest search."""
    n = xn.shape[0]
    ncat = list(ncat) if ncat is not None else [int(max(xc[:, j].max(initial=0), yc[:, j].max(initial=0))) + 1
                                                 for j in range(xc.shape[1])]
    if scaled:
        a = np.hstack([xn, mixed_matrix(xn[:, :0], xc, ncat)])
        b = np.hstack([yn, mixed_matrix(yn[:, :0], yc, ncat)])
    else:
        a, b = mixed_matrix(xn, xc, ncat), mixed_matrix(yn, yc, ncat)
    if b.shape[1] == 0:  # nothing but the blocking keys: every record of the block is tied
        counter = _Counter(by, sy, categorical, tolerance)
        sizes = np.bincount(by, minlength=int(bx.max(initial=0)) + 1)
        size = sizes[bx] if bx.size else np.zeros(0, dtype=np.int64)
        credit = np.where(size > 0, counter.hits(bx, sx) / np.maximum(size, 1), 0.0)
        first = np.full(sizes.size, -1, dtype=np.int64)
        first[by[::-1]] = np.arange(by.size)[::-1]
        return credit, first[bx], size > 0
    # the block as a leading coordinate far apart from the others (it guides the tree's splits; the
    # box query keeps the search inside the block whatever the spacing)
    span = np.concatenate([a, b]).max(axis=0) - np.concatenate([a, b]).min(axis=0)
    spacing = float(np.sqrt(np.sum(span ** 2))) * 2.0 + 1.0
    a = np.column_stack([bx * spacing, a])
    b = np.column_stack([by * spacing, b])
    tree = KDTree(b, by[:, None])
    lo = bx[:, None].astype(np.int64)
    links, dist, counted = tree.query(a, rescore=False, lo=lo, hi=lo + 1, count=True)
    found = links >= 0
    truth = np.where(found, links, -1)
    ties, _ = tree.counted_ties(a, dist, counted, truth, lo=lo, hi=lo + 1)
    group = tree.rep_of  # the stored row each release record is one of
    counter = _Counter(group, sy, categorical, tolerance)
    size = counter.sizes[group[np.maximum(links, 0)]]
    credit = np.zeros(n)
    single = found & (ties == size)
    credit[single] = counter.hits(group[links[single]], sx[single]) / size[single]
    several = np.flatnonzero(found & (ties > size))
    if several.size:  # distinct records at the same distance: all of them, k nearest at a time
        full = KDTree(b, unique=False)
        for k in np.unique(ties[several]):
            rows = several[ties[several] == k]
            kd, ki = full.knn(a[rows], int(k))
            at = kd == dist[rows][:, None]
            hit = success(sy[ki], sx[rows][:, None], categorical, tolerance) & at
            credit[rows] = hit.sum(axis=1) / np.maximum(at.sum(axis=1), 1)
    return credit, links, found


# ----------------------------------------------------------------------------- the attacks
@dataclass
class Inference:
    """The inference attacks on one secret: ``rows`` (:class:`.rows.CriterionRow`, one per attack,
    ``target`` the secret), per attack the credit of every target (``credit``) and its guess
    (``guesses``; codes for a categorical secret), the baseline's credit and guess, and the
    l-diversity summary of the secret in the release's key cells."""

    secret: str
    categorical: bool
    tolerance: float
    rows: list[CriterionRow]
    credit: dict[str, np.ndarray]
    guesses: dict[str, np.ndarray]
    baseline_credit: np.ndarray
    baseline_guess: object
    diversity: dict
    notes: dict[str, str] = field(default_factory=dict)

    def at_risk(self) -> dict[str, np.ndarray]:
        """Per attack the targets it infers for sure (credit 1) where the constant guess fails:
        the records whose secret the release gives away."""
        return {name: np.flatnonzero((c >= 1.0) & (self.baseline_credit <= 0.0)) for name, c in self.credit.items()}

    def evidence(self, record_ids=None, labels=None, true=None) -> pd.DataFrame:
        """Per record at risk (:meth:`at_risk`) and attack: ``record`` (``record_ids[i]``, else the
        row number from 1), ``criterion``, ``attack`` and ``evidence`` (the secret, its true value
        and the guess; ``labels[code]`` names a category). ``true``: the targets' secret values."""
        frames = []
        for name, rows in self.at_risk().items():
            if rows.size == 0:
                continue
            guess, value = self.guesses[name][rows], true[rows]
            if labels is not None:
                guess, value = np.asarray(labels, dtype=object)[guess], np.asarray(labels, dtype=object)[value]
            text = (f"{self.secret}: true " + pd.Series(value).astype(str) + ", guessed "
                    + pd.Series(guess).astype(str) + (f" (within {100 * self.tolerance:g} %)" if not self.categorical
                                                       else ""))
            ids = np.asarray(record_ids)[rows] if record_ids is not None else rows + 1
            frames.append(pd.DataFrame({"record": ids, "criterion": INFERENCE, "attack": name, "evidence": text}))
        if not frames:
            return pd.DataFrame({"record": [], "criterion": [], "attack": [], "evidence": []})
        return pd.concat(frames, ignore_index=True)


def infer(secret: str, sx: np.ndarray, sy: np.ndarray, *, categorical: bool, xn: np.ndarray | None = None,
          yn: np.ndarray | None = None, xc: np.ndarray | None = None, yc: np.ndarray | None = None,
          blocking: Sequence[bool] | None = None, ncat: Sequence[int] | None = None,
          links: Mapping[str, np.ndarray] | None = None, tolerance: float = TOLERANCE,
          scaled: bool = False) -> Inference:
    """Every inference attack on the secret (module docstring), every original record a target.

    ``sx`` (the targets' true secrets), ``sy`` (the release's): integer codes common to both
    files when ``categorical``, else numbers. ``xn``/``yn``: numeric known attributes (records x
    attributes) of the targets and the release; ``xc``/``yc``: categorical known attributes
    (common codes, ``ncat`` categories each); ``blocking[j]``: whether categorical attribute ``j``
    is a blocking key (the masking left it unchanged), the others enter the mixed distance.
    ``links``: per linkage attack, the release record (index into ``sy``, -1: none) it linked each
    target to. The release may hold another number of records than the targets. ``scaled``:
    ``xn`` and ``yn`` are already on the distance's scale, both files alike (a sample release,
    :mod:`sdcrisk.assess.criteria`); else each file is standardised by its own mean and sd."""
    if not 0.0 < tolerance <= 1.0:
        raise ValueError(f"tolerance: expected a number in (0, 1], got {tolerance!r}")
    n, m = len(sx), len(sy)
    xn = np.zeros((n, 0)) if xn is None else np.asarray(xn, dtype=np.float64).reshape(n, -1)
    yn = np.zeros((m, 0)) if yn is None else np.asarray(yn, dtype=np.float64).reshape(m, -1)
    xc = np.zeros((n, 0), dtype=np.int64) if xc is None else np.asarray(xc, dtype=np.int64).reshape(n, -1)
    yc = np.zeros((m, 0), dtype=np.int64) if yc is None else np.asarray(yc, dtype=np.int64).reshape(m, -1)
    blocking = np.ones(xc.shape[1], dtype=bool) if blocking is None else np.asarray(blocking, dtype=bool)
    ncat = [int(max(xc[:, j].max(initial=0), yc[:, j].max(initial=0))) + 1 for j in range(xc.shape[1])] \
        if ncat is None else list(ncat)
    sx = np.asarray(sx, dtype=np.int64 if categorical else np.float64)
    sy = np.asarray(sy, dtype=np.int64 if categorical else np.float64)
    if n < 1 or m < 1:
        raise ValueError("infer: needs at least one target and one release record")

    base_guess = constant_guess(sy, categorical)
    base_credit = constant_credit(sx, base_guess, categorical, tolerance)
    fallback = (base_guess[0] if categorical else base_guess)
    base_name = "release's mode" if categorical else "release's median"
    credit, guesses, notes = {}, {}, {}

    for attack, link in (links or {}).items():
        link = np.asarray(link, dtype=np.int64)
        has = link >= 0
        guess = np.where(has, sy[np.maximum(link, 0)], fallback if categorical else np.nan)
        name = linked_name(attack)
        credit[name] = np.where(has, success(guess, sx, categorical, tolerance), 0.0).astype(np.float64)
        guesses[name] = guess
        if not has.all():
            notes[name] = f"{int((~has).sum())} record(s) without a link: counted as not inferred"

    # nearest record, within blocks of equal blocking keys
    bx, by = group_codes(xc[:, blocking], yc[:, blocking])
    changed = ~blocking
    ncat_changed = [k for k, c in zip(ncat, changed) if c]
    c_near, near, has = nearest_credit(xn, yn, xc[:, changed], yc[:, changed], bx, by, sx, sy, categorical,
                                       tolerance, ncat_changed, scaled)
    guess = np.where(has, sy[np.maximum(near, 0)], fallback if categorical else np.nan)
    c_near = np.where(has, c_near, base_credit)
    credit[NEAREST], guesses[NEAREST] = c_near, np.where(has, guess, fallback)
    if not has.all():
        notes[NEAREST] = f"{int((~has).sum())} record(s) with no release record of their keys: the baseline's guess"
    if not (xn.shape[1] or changed.any()):
        notes[NEAREST] = "no numeric or changed categorical known attribute: every record of the block is tied"

    # key cell: every known categorical attribute, as released
    cx, cy = group_codes(xc, yc)
    cell_guesses, modes, sizes = cell_guess(cx, cy, sy, categorical)
    cells = sizes.size
    inside = cx < cells
    occupied = np.zeros(n, dtype=bool)
    occupied[inside] = sizes[cx[inside]] > 0
    guess = np.where(occupied, cell_guesses[np.where(inside, cx, 0)], fallback)
    if categorical:
        counter = _Counter(cy, sy, True, tolerance)
        count_true = counter.hits(np.where(inside, cx, 0), sx)
        top = np.zeros(cells, dtype=np.int64)  # each cell's count of its modes
        top[sizes > 0] = counter.hits(np.flatnonzero(sizes > 0), cell_guesses[sizes > 0])
        c_cell = np.where(occupied & (count_true == top[np.where(inside, cx, 0)]) & (count_true > 0),
                          1.0 / modes[np.where(inside, cx, 0)].clip(1), 0.0)
    else:
        c_cell = success(guess, sx, False, tolerance).astype(np.float64)
    c_cell = np.where(occupied, c_cell, base_credit)
    credit[KEY_CELL], guesses[KEY_CELL] = c_cell, guess
    if not occupied.all():
        notes[KEY_CELL] = f"{int((~occupied).sum())} record(s) in a cell no release record holds: the baseline's guess"

    diversity = l_diversity(cy, sy)
    base_successes = float(base_credit.sum())
    rows = []
    for name, c in credit.items():
        note = notes.get(name, "")
        if name == KEY_CELL:
            note = "; ".join(filter(None, [note, f"{diversity['cells']} cell(s), {diversity['pure_share']:.1f} % of "
                                                  f"the release in cells of one value (distinct l = 1)"]))
        rows.append(CriterionRow(criterion=INFERENCE, attack=name, successes=float(min(c.sum(), n)), trials=n,
                                 baseline=base_name, baseline_successes=base_successes, baseline_trials=n,
                                 target=secret, note=note))
    return Inference(secret, categorical, tolerance, rows, credit, guesses, base_credit, base_guess, diversity, notes)


__all__ = ["infer", "Inference", "success", "constant_guess", "constant_credit", "cell_guess", "l_diversity",
           "nearest_credit", "group_codes", "linked_name", "TOLERANCE", "NEAREST", "KEY_CELL"]
