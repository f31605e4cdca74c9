"""Categorical attributes of a custodian's file: blocking keys, the mixed distance, blocked attacks.

Real files carry categorical keys (region, sex, activity code), usually released unchanged and
known to an intruder. :func:`sdcrisk.assess` types every attribute (:func:`split_columns`):

* *categorical*: a non-numeric column, or an integer-coded one the user names (``categorical=``,
  ``--categorical``). Values of both files get common integer codes (:func:`codes`); a missing
  value is a category of its own.
* *key*: a categorical attribute whose value is the same in every paired record (the masking left
  it alone). The intruder who knows the keys of a scenario searches only the masked records with
  the same keys: every attack runs *within blocks of equal keys* (:func:`blocked`). A record alone
  in its block is found by the keys themselves; the report gives their share (:func:`block_summary`).
* *changed categorical*: compared by agreement in PRL-graded, and in DBRL and GDBRL by the mixed
  distance below. The rank and location attacks (RBRL, RS-RL, L-RL) and the papers' PRL compare
  ordered values only: they leave these attributes out (said in the report).

Mixed distance (DBRL, GDBRL): numeric attributes standardised, a categorical mismatch costing
``w = 2``, the squared Euclidean distance after one-hot coding; defined, with why ``w = 2``, in
:mod:`sdcrisk.linkage.mixed` (:func:`~sdcrisk.linkage.mixed.mixed_matrix`).

Blocks: each block is attacked as a file of its own, so rank-based attacks rank within the block
and DBRL's standardisation is the whole file's (mixed distance, ``standardise="none"``). The
mixed-distance attacks see every coordinate inside a block (``keep_constant=True``): the distance
of a pair is the one above whatever the other records of the block hold, so a masked category that
no original of the block has still costs ``w`` (its indicator column is constant among the block's
originals, and leaving that column out would halve the mismatch). The other attacks rank or
standardise within the block, undefined for a constant attribute: they leave out the attributes
constant among the block's original records. A block in which every attribute is left out, or on
which the attack is undefined, is linked by random guess (credit 1 / block size), counted in the
row's note.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from .. import progress
from ..linkage.base import NotApplicable
from ..linkage.mixed import MISMATCH_WEIGHT, mixed_matrix, standardised  # noqa: F401 (the mixed distance, here for its users)



def is_categorical(col: pd.Series) -> bool:
    """Whether a column is categorical by its type: anything but numbers (booleans count as categories)."""
    return not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)


def split_columns(table: pd.DataFrame, columns: Sequence[str], named: Sequence[str] | None) -> list[str]:
    """The categorical attributes among ``columns``: non-numeric ones and those ``named``."""
    named = list(named or [])
    return [c for c in columns if c in named or is_categorical(table[c])]


def codes(original: pd.Series, masked: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Common integer codes of a categorical attribute in both files (missing = a code of its own;
    a number and its text, 3 and "3", are the same category)."""
    both = pd.concat([original, masked], ignore_index=True)
    if not (pd.api.types.is_numeric_dtype(both) and not pd.api.types.is_bool_dtype(both)):
        numbers = pd.to_numeric(both, errors="coerce")
        whole = numbers.notna() & (numbers == numbers.round())
        both = both.astype(object).where(~whole, numbers.round().astype("Int64").astype(str)).astype(str)
        both = both.where(original.notna().tolist() + masked.notna().tolist(), None)
    code, _ = pd.factorize(both, use_na_sentinel=True)
    code = np.where(code < 0, code.max(initial=-1) + 1, code)
    n = len(original)
    return code[:n].astype(np.int64), code[n:].astype(np.int64)


def block_codes(keys: np.ndarray) -> np.ndarray:
    """Block number of every record from its key codes (records x keys): equal keys, equal block."""
    if keys.shape[1] == 0:
        return np.zeros(keys.shape[0], dtype=np.int64)
    _, inverse = np.unique(keys, axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


def block_summary(blocks: np.ndarray) -> dict:
    """Number of blocks, the share (percent) of records unique on the keys, and the random-guess
    rate (percent): a guess among the records of one's block is right with probability 1 / size."""
    sizes = np.bincount(blocks)
    sizes = sizes[sizes > 0]
    n = blocks.size
    return {"blocks": int(sizes.size), "unique_share": 100.0 * int((sizes == 1).sum()) / n,
            "random_guess": 100.0 * sizes.size / n}


class Blocked:
    """Result of an attack run block by block: links (masked positions, -1: none), credit (the
    expected correct link of every original record), per-draw correct-link counts (GDBRL) and
    how many blocks were linked by random guess."""

    def __init__(self, n: int):
        self.links = np.full(n, -1, dtype=np.int64)
        self.credit = np.zeros(n)
        self.draws: np.ndarray | None = None
        self.guessed = 0
        self.drawn_credit = 0.0  # credit of the blocks that reported draws
        self.info: list[dict] = []

    def add_draws(self, counts) -> None:
        counts = np.asarray(counts, dtype=np.float64)
        self.draws = counts.copy() if self.draws is None else self.draws + counts


def blocked(attack: Callable, x: np.ndarray, y: np.ndarray, truth: np.ndarray, bx: np.ndarray,
            by: np.ndarray, keep_constant: bool = False) -> Blocked:
    """``attack(xb, yb, truth_b) -> LinkResult`` (with ``credit``) run within every block of
    equal codes ``bx`` (original) / ``by`` (masked, in the order ``y`` is seen in); ``truth[i]``
    is the position in ``y`` of original ``i``'s masked record (keys unchanged: same block).
    Blocks of one record are linked by their keys (credit 1). ``keep_constant``: hand the attack
    every column, also those constant among the block's originals (the mixed distance, whose
    coordinates are already on the whole file's scale); else those columns are left out. See the
    module docstring for blocks the attack is undefined on."""
    n = x.shape[0]
    out = Blocked(n)
    ox, oy = np.argsort(bx, kind="stable"), np.argsort(by, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(bx[ox]) != 0])
    ends = np.r_[starts[1:], n]
    where = np.empty(y.shape[0], dtype=np.int64)  # each masked record's position in its block
    where[oy] = np.arange(n) - np.repeat(starts, ends - starts)
    for b, (s, e) in enumerate(zip(starts, ends)):
        progress.report(f"block {b + 1:,} of {starts.size:,} ({s:,} of {n:,} records done)")
        rows, cols = ox[s:e], oy[s:e]
        if e - s == 1:
            out.links[rows[0]] = cols[0]
            out.credit[rows[0]] = 1.0
            continue
        tb = where[truth[rows]]
        keep = np.ones(x.shape[1], dtype=bool) if keep_constant else ~np.all(x[rows] == x[rows][0], axis=0)
        res = None
        if keep.any():
            try:
                res = attack(x[np.ix_(rows, keep)], y[np.ix_(cols, keep)], tb)
            except NotApplicable:  # the whole file's shape, not this block's: the attack is not run
                raise
            except ValueError:  # e.g. an EM or a candidate rule undefined on a block this small
                res = None
        if res is None:
            out.guessed += 1
            out.credit[rows] = 1.0 / rows.size
            continue
        out.links[rows] = np.where(res.links >= 0, cols[np.maximum(res.links, 0)], -1)
        out.credit[rows] = res.credit if res.credit is not None else (res.links == tb)
        draws = res.info.get("draws")
        if draws is not None:
            out.add_draws(draws)
            out.drawn_credit += float(out.credit[rows].sum())
        out.info.append(res.info)
    if out.draws is not None:  # the other blocks add their (draw-free) credit to every draw
        out.draws = out.draws + (out.credit.sum() - out.drawn_credit)
    return out
