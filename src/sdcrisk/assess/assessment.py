"""Disclosure risk and information loss of a custodian's own original and masked files.

:func:`assess` runs the record-linkage attacks of :data:`sdcrisk.attacks.KNOWN_ATTRIBUTE_ATTACKS`
(the list ``sdcrisk.assess.default_attacks.ALL_ATTACKS`` holds; by default those no other dominates
on a corpus of releases, :mod:`sdcrisk.assess.default_attacks`), interval disclosure (ID) and the
information-loss measures (IL, IL1..IL5) on one pair of files and returns a tidy table; the
command ``sdcrisk assess`` (:mod:`sdcrisk.cli`) wraps it and writes a report.

Ground truth: the masked record of original record ``i`` is the one with the same value of the
id column (``id=``), or, without one, the record in the same row (said in the result's
``pairing``). The attacks do not see that pairing: the masked file is handed to them in an order
drawn from ``seed``, so an attack that breaks ties by record order gains nothing from the two
files being aligned.

Scenarios (which attributes the intruder knows): ``known=[names]`` is one scenario; ``scenarios=
"lo..hi"`` the first j attributes in column order for j = lo .. hi (``half``, ``all`` allowed),
as in Nin, Herranz & Torra (2007) §3; the default is one scenario with every attribute known.

Units: ``percent`` is the share of original records correctly linked (0-100) for the attacks,
the share of original values inside their masked value's interval (0-100) for ID, and for
information loss a mean relative error in percent (0 = no loss; *not* bounded by 100: IL1..IL4
divide by the original values, see :mod:`sdcrisk.measures.information_loss`).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from ..attacks import ATTACKS, BOUNDS, not_applicable, run_attack
from .categorical import block_codes, block_summary, blocked, codes, mixed_matrix, split_columns
from ..criteria.inference import TOLERANCE
from ..data import read_table, release_arrow_memory
from .default_attacks import ALL_ATTACKS, DEFAULT_ATTACKS, left_out_reasons
from ..kernels import warm_in_background
from ..linkage.probabilistic import ConvergenceWarning, prl
from ..linkage.base import NotApplicable, checked_links
from ..linkage.distance import dbrl
from ..linkage.global_distance import gdbrl
from ..measures.information_loss import covariances, il_components, il_s_components
from ..measures.interval_disclosure import interval_disclosure_by_attribute
from ..measures.scenarios import ScenarioRangeError, scenario_range
from ..measures.uncertainty import wilson_interval
from ..measures.units import linkage_percent
from ..resources import MemoryLimitError, WorkLimitError, check_memory, out_of_memory, size_text
from ..validation import check_magnitude, prepare
from .workers import (WORKER_MIN, AttackWorkers, NoRoomError, file_shape, memory_problem,  # noqa: F401 (WORKER_MIN: API)
                      reading_bytes, worker_min)

COLUMNS = ["measure", "kind", "scenario", "known", "n_known", "n", "linked", "percent", "low", "high", "baseline",
           "draws_low", "draws_high", "seconds", "note"]
RISK, LOSS = "disclosure risk", "information loss"
ATTACK_NAMES = {"DBRL": "DBRL", "RBRL-SUM": "RBRL-Sum", "RBRL-MAX": "RBRL-Max", "PRL": "PRL",
                "RS-RL": "RS-RL(p<=20%)", "RS-RL(P<=20%)": "RS-RL(p<=20%)", "L-RL": "L-RL(MA)",
                "L-RL(MA)": "L-RL(MA)", "GDBRL": "GDBRL", "PRL-GRADED": "PRL-graded", "ID": "ID"}
# DEFAULT_ATTACKS: the attacks no other dominates on the corpus of research/dominance (sdcrisk.assess.default_attacks);
# ALL_ATTACKS: every one ("all")
CONCURRENT_MAX = 100_000  # records: up to this many, two attacks run at a time in threads (_run_attacks)
START_ORDER = {"GDBRL": 0, "PRL": 2}  # the others 1 (_run_attacks)
LINKS = "_links"  # an attack row's links, in the original's order (_own_order), until assess takes them
READERS = {".csv": "csv", ".txt": "csv", ".parquet": "parquet", ".pq": "parquet"}


class AssessError(ValueError):
    """Bad input to :func:`assess` or ``sdcrisk assess``; the message names the file and field."""


# ----------------------------------------------------------------------------- reading and pairing
def read_file(path: str | Path, rows: int | None = None) -> pd.DataFrame:
    """Read a CSV (header row, comma-separated) or parquet file, with a clear error when it
    cannot be read, is empty or has a header but no records. ``rows``: read only the first
    ``rows`` records (the checks before a cluster run's jobs, :func:`sdcrisk.assess.jobs.read_head`)."""
    path = Path(path)
    kind = READERS.get(path.suffix.lower())
    if kind is None:
        raise AssessError(f"{path}: unknown file type {path.suffix!r}; expected .csv or .parquet")
    if not path.is_file():
        raise AssessError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise AssessError(f"{path}: the file is empty; expected a header row and at least 2 records")

    def unreadable(exc: Exception) -> AssessError:
        cause = " ".join(str(exc).split())  # one line, however the reader formats it
        cause = cause if len(cause) <= 200 else cause[:197] + "..."
        return AssessError(f"{path}: cannot be read as {kind} ({type(exc).__name__}: {cause})")

    try:
        header = _header(path, kind)
    except Exception as exc:  # parser, decoding, permission, corrupt parquet: one message
        raise unreadable(exc) from None
    seen: set[str] = set()
    for name in header:  # pandas would rename a repeated 'a' to 'a.1' without a word
        if name in seen:
            raise AssessError(f"{path}: column {name!r} appears {header.count(name)} times in the header; "
                              "every column needs its own name")
        seen.add(name)
    try:
        table = _read(path, kind, rows)
    except MemoryError:  # out of memory (ulimit -v): an internal error, not bad input; the estimate named
        shape, need = file_shape(path), reading_bytes(path)
        err = MemoryError(f"reading {path}")
        err.where = f" reading {path}" + (f" (about {shape[0]:,} records x {shape[1]} columns, estimated to need "
                                          f"about {size_text(need)} for this file)" if shape else "")
        raise err from None
    except Exception as exc:
        raise unreadable(exc) from None
    if table.shape[0] == 0:
        raise AssessError(f"{path}: has a header but no records; expected at least 2 records")
    table.columns = [str(c) for c in table.columns]
    return table


def _read(path: Path, kind: str, rows: int | None) -> pd.DataFrame:
    """The file's records, or its first ``rows`` of them (parquet: the first batch only)."""
    if kind == "csv":
        return pd.read_csv(path, nrows=rows)
    if rows is None:
        return read_table(path)
    import pyarrow.parquet as pq

    with pq.ParquetFile(str(path)) as f:
        batch = next(f.iter_batches(batch_size=rows), None)
        return batch.to_pandas() if batch is not None else f.schema_arrow.empty_table().to_pandas()


def _header(path: Path, kind: str) -> list[str]:
    """The column names as the file has them (before pandas makes repeated names unique)."""
    if kind == "csv":
        first = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False)
        return [str(v) for v in first.iloc[0]] if len(first) else []
    import pyarrow.parquet as pq

    with pq.ParquetFile(str(path)) as f:  # the file's own schema (the dataset reader refuses repeated names)
        return [str(v) for v in f.schema_arrow.names]


def identifier_columns(original: pd.DataFrame, masked: pd.DataFrame, id: str | None = None) -> list[str]:
    """The columns (other than ``id``) unique per record in ``original`` and identical in every
    paired record of ``masked``: an identifier the user did not name with ``id``.

    Records are paired by the ``id`` column when given, else by row order (``masked`` already in
    the original's record order). Such a column links every record by itself, so attacking with
    it measures nothing but the identifier. Its values must be present (a missing value is not
    unique) and equal with their type's equality (1 and 1.0 are equal, 1 and "1" are not).

    Two rules keep real attributes released unmasked out (their 100 % risk is the true one):
    only labels and counters qualify (non-numeric or whole-number columns, not measurements with
    fractional values), and nothing qualifies when every common column is identical in both files
    (an unmasked file, not a forgotten id). Returns ``[]`` when the records cannot be paired
    (different counts, a missing or repeated id): :func:`pair_files` reports those."""
    if not isinstance(original, pd.DataFrame) or not isinstance(masked, pd.DataFrame):
        return []
    if len(original) != len(masked) or len(original) < 2:
        return []
    if id is not None:
        if id not in original.columns or id not in masked.columns:
            return []
        ids_o, ids_m = original[id], masked[id]
        if ids_o.isna().any() or not ids_o.is_unique or not ids_m.is_unique or not ids_o.isin(set(ids_m)).all():
            return []
        masked = masked.set_index(id).loc[ids_o.to_numpy()].reset_index()
    out, common = [], 0
    for c in original.columns:
        if c == id or c not in masked.columns:
            continue
        common += 1
        o, m = original[c], masked[c]
        if isinstance(o, pd.DataFrame) or isinstance(m, pd.DataFrame):  # a repeated column name
            continue
        try:
            same = bool(np.all(o.to_numpy() == m.to_numpy()))
        except (TypeError, ValueError):
            same = False
        if same:
            out.append(c)
    if len(out) == common:  # nothing masked at all
        return []
    return [c for c in out if original[c].notna().all() and original[c].is_unique and _label_like(original[c])]


def _label_like(col: pd.Series) -> bool:
    """Whether a column holds labels or counters (non-numeric, or whole numbers) rather than measurements."""
    if pd.api.types.is_bool_dtype(col):
        return False
    if not pd.api.types.is_numeric_dtype(col):
        return True
    values = col.to_numpy(dtype=np.float64)
    return bool(np.all(np.isfinite(values) & (values == np.round(values))))


def _numeric(table: pd.DataFrame, name: str, columns: Sequence[str], *, allow_constant: bool) -> np.ndarray:
    for c in columns:
        col = table[c]
        if not (pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)):
            values = pd.to_numeric(col, errors="coerce")
            bad = int(np.flatnonzero(values.isna() & col.notna())[0]) if (values.isna() & col.notna()).any() else None
            example = f" (e.g. {col.iloc[bad]!r} in record {bad + 1})" if bad is not None else ""
            raise AssessError(f"{name}: column {c!r} is not numeric{example}; expected numbers only")
    x = table[list(columns)].to_numpy(dtype=np.float64)
    bad = ~np.isfinite(x)
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        rows = np.flatnonzero(bad[:, j])
        raise AssessError(f"{name}: column {columns[j]!r} has {rows.size} missing or non-finite value(s) "
                          f"(first in record {rows[0] + 1}); expected finite numbers")
    try:
        check_magnitude(x, name, columns)
    except ValueError as exc:
        raise AssessError(str(exc)) from None
    if not allow_constant:
        constant = np.all(x == x[0], axis=0)
        if constant.any():
            j = int(np.flatnonzero(constant)[0])
            raise AssessError(f"{name}: column {columns[j]!r} is constant; every attribute of the original "
                              "file must vary (drop it from both files)")
    return x


def _show(value) -> str:
    """A value as the user wrote it (numpy scalars as plain Python values)."""
    return repr(value.item() if hasattr(value, "item") else value)


def _ids(table: pd.DataFrame, name: str, id: str) -> pd.Series:
    if id not in table.columns:
        raise AssessError(f"{name}: has no id column {id!r}; its columns are {list(table.columns)}")
    ids = table[id]
    if ids.isna().any():
        raise AssessError(f"{name}: id column {id!r} has {int(ids.isna().sum())} missing value(s)")
    dup = ids[ids.duplicated()]
    if len(dup):
        raise AssessError(f"{name}: id column {id!r} has {dup.size} duplicated value(s), e.g. {_show(dup.iloc[0])}; "
                          "every record needs its own id")
    return ids


@dataclass
class Pair:
    """Two checked files, the masked records in the original's order: numeric attributes ``x``,
    ``y``; categorical ones as common integer codes ``cx``, ``cy`` (:mod:`sdcrisk.assess.categorical`);
    ``columns`` every attribute in file order, ``numeric`` / ``categorical`` / ``keys`` (the
    categorical attributes no paired record changes) their names; ``pairing`` how records were
    paired; ``excluded`` identifier columns left out, with the warning."""

    x: np.ndarray
    y: np.ndarray
    cx: np.ndarray
    cy: np.ndarray
    columns: list[str]
    numeric: list[str]
    categorical: list[str]
    keys: list[str]
    pairing: str
    warnings: list[str] = field(default_factory=list)
    #: a sample release (:mod:`sdcrisk.assess.sample`): the original row of each masked record
    #: (``y`` has these rows, ``x`` every original record); None for a one-to-one release
    rows: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.x.shape[0]

    def ncat(self, names: Sequence[str]) -> list[int]:
        """Number of codes of each categorical attribute ``names``."""
        return [int(max(self.cx[:, j].max(), self.cy[:, j].max())) + 1
                for j in (self.categorical.index(c) for c in names)]


def pair_files(original: pd.DataFrame, masked: pd.DataFrame, id: str | None = None,
               names: tuple[str, str] = ("original", "masked"), categorical: Sequence[str] | None = None) -> Pair:
    """Check both tables and pair their records (:class:`Pair`): by the ``id`` column, else by row
    order. ``categorical`` names integer-coded categorical attributes (non-numeric columns are
    categorical anyway). A column unique per record and equal in both files (an identifier that is
    not the ``id``) is left out with a warning."""
    no, nm = names
    for t, name in ((original, no), (masked, nm)):
        if not isinstance(t, pd.DataFrame):
            raise AssessError(f"{name}: expected a pandas DataFrame with column names, got {type(t).__name__}")
    original = original.rename(columns=str)
    masked = masked.rename(columns=str)
    if id is not None:
        ids_o, ids_m = _ids(original, no, id), _ids(masked, nm, id)
    cols = [c for c in original.columns if c != id]
    other = [c for c in masked.columns if c != id]
    if set(cols) != set(other):
        only_o = [c for c in cols if c not in other]
        only_m = [c for c in other if c not in cols]
        raise AssessError(f"{no} and {nm} have different columns: only in {no}: {only_o or 'none'}; "
                          f"only in {nm}: {only_m or 'none'}")
    unknown = [c for c in (categorical or []) if c not in cols]
    if unknown:
        raise AssessError(f"categorical: {unknown} not among the attribute columns {cols}")
    if not cols:
        raise AssessError(f"{no}: no attribute columns besides the id")
    for t, name in ((original, no), (masked, nm)):
        _refuse_nested(t, name, cols)
    if len(original) < 2:
        raise AssessError(f"{no}: has {len(original)} record(s); expected at least 2")
    if len(original) != len(masked):
        if id is not None:  # a sample of the original's records (sdcrisk.assess.sample)
            from .sample import pair_sample

            return pair_sample(original, masked, ids_o, ids_m, id, cols, categorical, (no, nm))
        raise AssessError(f"{no} has {len(original)} records and {nm} {len(masked)}; the masked file must "
                          "hold one record per original record" + (
                              "; for a sample release (a subset of the original's records) name the id column "
                              "both files share with --id" if len(masked) < len(original) else ""))
    if id is not None:
        missing = ~ids_o.isin(set(ids_m))
        if missing.any():
            raise AssessError(f"{nm}: {int(missing.sum())} id(s) of {no} have no masked record, "
                              f"e.g. {_show(ids_o[missing].iloc[0])} (id column {id!r})")
        masked = masked.set_index(id).loc[ids_o.to_numpy()].reset_index()
        pairing = f"id column {id!r}"
    else:
        pairing = "row order (no id column given: record i of the masked file is taken as the masked " \
                  "version of record i of the original)"
    masked = masked.reset_index(drop=True)
    original = original.reset_index(drop=True)
    warned = []
    for c in identifier_columns(original[cols], masked[cols], None):
        cols.remove(c)
        warned.append(f"column {c!r} is unique per record and identical in both files (an identifier): left out "
                      "of the attacks; name it with --id to pair records by it")
    return _typed_pair(original, masked, cols, categorical, (no, nm), pairing, warned)


def _typed_pair(original: pd.DataFrame, masked: pd.DataFrame, cols: list[str], categorical, names, pairing: str,
                warned: list[str], rows: np.ndarray | None = None) -> Pair:
    """The :class:`Pair` of checked tables: attributes typed, numbers checked, categories coded;
    ``rows``: a sample release's original row of each masked record (:mod:`sdcrisk.assess.sample`)."""
    no, nm = names
    if not cols:
        raise AssessError(f"{no}: no attribute columns besides identifiers")
    original, masked, read = _text_numbers(original, masked, cols, categorical or [], (no, nm))
    warned.extend(read)
    cats = split_columns(original, cols, categorical)
    for c in cats:
        if c not in (categorical or []):
            warned.extend(_stray_text(original, no, c) + _stray_text(masked, nm, c))
            _refuse_all_distinct(original, no, c)
    nums = [c for c in cols if c not in cats]
    x = _numeric(original, no, nums, allow_constant=False)
    y = _numeric(masked, nm, nums, allow_constant=True)
    cx = np.zeros((len(original), len(cats)), dtype=np.int64)
    cy = np.zeros((len(masked), len(cats)), dtype=np.int64)
    for j, c in enumerate(cats):
        cx[:, j], cy[:, j] = codes(original[c], masked[c])
    paired = cx if rows is None else cx[rows]
    keys = [c for j, c in enumerate(cats) if np.array_equal(paired[:, j], cy[:, j])]
    return Pair(x, y, cx, cy, cols, nums, cats, keys, pairing, warned, rows)


_THOUSANDS = r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|[+-]?\.\d+"  # 1,234 / 1,234.5 / -12 / .5


def _thousands(col: pd.Series) -> pd.Series | None:
    """``col`` as numbers when it is text and every present value is a number, some written with
    thousands separators ("1,234.5", as spreadsheets export them); else None."""
    if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        return None
    present = col.dropna()
    if present.empty or not all(isinstance(v, str) for v in present):
        return None
    text = present.str.strip()
    if not text.str.fullmatch(_THOUSANDS).all() or not text.str.contains(",", regex=False).any():
        return None
    return pd.to_numeric(col.where(col.isna(), col.astype(str).str.strip().str.replace(",", "", regex=False)))


def _text_numbers(original: pd.DataFrame, masked: pd.DataFrame, cols: Sequence[str], named: Sequence[str],
                  names: tuple[str, str]) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Columns of numbers written as text with thousands separators read as numbers in both files,
    with a warning each (a column named categorical stays categorical). A column that is such text
    in one file and numbers or the same text in the other is numeric; otherwise it is left alone."""
    said, tables = [], [original, masked]
    for c in cols:
        if c in named:
            continue
        conv = [_thousands(t[c]) for t in tables]
        plain = [pd.api.types.is_numeric_dtype(t[c]) and not pd.api.types.is_bool_dtype(t[c]) for t in tables]
        if all(v is None for v in conv) or not all(v is not None or p for v, p in zip(conv, plain)):
            continue
        for k, numbers in enumerate(conv):
            if numbers is not None:
                example = next(v for v in tables[k][c].dropna() if "," in v)
                tables[k] = tables[k].assign(**{c: numbers})
                said.append(f"{names[k]}: column {c!r} holds numbers written with thousands separators "
                            f"(e.g. {example!r}): read as numbers")
    return tables[0], tables[1], said


def _refuse_nested(table: pd.DataFrame, name: str, cols: Sequence[str]) -> None:
    """Refuse a column of nested values (parquet list, struct or map types): no attribute compares them."""
    for c in cols:
        col = table[c]
        if col.dtype != object:
            continue
        first = col.dropna()
        first = first.iloc[0] if len(first) else None
        if isinstance(first, (list, tuple, dict, set, np.ndarray)):
            raise AssessError(f"{name}: column {c!r} holds nested values ({type(first).__name__}, e.g. a parquet "
                              "list or struct); expected one number or one category label per record")


def _refuse_all_distinct(table: pd.DataFrame, name: str, column: str) -> None:
    """Refuse a categorical attribute with as many categories as records: no pair of records agrees
    on it, so as a category it only adds the same mismatch to every comparison (free text, numbers
    stored as text, or an identifier the masking changed)."""
    n = len(table)
    if n >= 20 and table[column].nunique(dropna=False) == n:
        stray = _text_among_numbers(table, column)
        why = f"it is {stray}; correct the value(s)" if stray else \
            "if it holds numbers stored as text, write them as numbers"
        raise AssessError(f"{name}: column {column!r} is categorical (text) with a different value in each of its "
                          f"{n} records: no two records share a category, so it cannot be compared; {why}; if it "
                          "identifies records, name it with --id or drop it from both files")


def _stray_text(table: pd.DataFrame, name: str, column: str) -> list[str]:
    """A warning when a column taken as categorical for its text is mostly numbers (a typo?)."""
    stray = _text_among_numbers(table, column)
    return [f"{name}: column {column!r} is {stray}: it is treated as categorical; correct the value(s) if it is "
            "numeric"] if stray else []


def _text_among_numbers(table: pd.DataFrame, column: str) -> str | None:
    """'mostly numbers but has t text value(s) (e.g. ... in record r)' when the column is mostly
    numbers with some text (a typo?), else None."""
    col = table[column]
    numbers = pd.to_numeric(col, errors="coerce")
    text = numbers.isna() & col.notna()
    if not text.any() or numbers.notna().mean() < 0.5:
        return None
    k = int(np.flatnonzero(text.to_numpy())[0])
    return f"mostly numbers but has {int(text.sum())} text value(s) (e.g. {_show(col.iloc[k])} in record {k + 1})"


# ----------------------------------------------------------------------------- scenarios and attacks
def scenarios_from(columns: list[str], known: Sequence[str] | None = None,
                   scenarios: str | None = None) -> list[list[int]]:
    """The known-attribute scenarios as lists of column indices (module docstring)."""
    m = len(columns)
    if known is not None and scenarios is not None:
        raise AssessError("give either known attributes or a scenarios range, not both")
    if known is not None:
        known = list(known)
        unknown = [k for k in known if k not in columns]
        if unknown or not known:
            raise AssessError(f"known: {unknown or known!r} not among the attribute columns {columns}")
        if len(set(known)) != len(known):
            raise AssessError(f"known: repeated attribute in {known}")
        return [[columns.index(k) for k in known]]
    if scenarios is None:
        return [list(range(m))]
    try:
        sizes = scenario_range(scenarios, m)
    except ScenarioRangeError as exc:
        raise AssessError(f"scenarios: {exc}") from None
    return [list(range(j)) for j in sizes]


def attack_names(attacks: Sequence[str] | None) -> list[str]:
    """Canonical names of the requested measures. None: the default set (:data:`DEFAULT_ATTACKS`,
    the attacks no other dominates on the corpus, and ID; :mod:`sdcrisk.assess.default_attacks`); "all":
    every one (:data:`ALL_ATTACKS`); a named attack runs whether or not it is in the default."""
    if attacks is None:
        return list(DEFAULT_ATTACKS)
    out = []
    for a in attacks:
        key = str(a).strip().upper()
        if key == "ALL":
            out.extend(name for name in ALL_ATTACKS if name not in out)
            continue
        name = ATTACK_NAMES.get(key, str(a).strip())
        if name not in ALL_ATTACKS and name not in ATTACKS:
            raise AssessError(f"attacks: unknown attack {a!r}; choose from {', '.join(ALL_ATTACKS)} or all")
        if name not in out:
            out.append(name)
    if not out:
        raise AssessError(f"attacks: none given; choose from {', '.join(ALL_ATTACKS)} or all")
    return out


def _pairs_closer_than_chance(pair: Pair, perm: np.ndarray) -> bool:
    """Whether paired records are closer (mixed squared distance, mean over records) than the
    records of a random pairing ``perm``: a check that row order does pair them."""
    xs = mixed_matrix(pair.x, pair.cx, pair.ncat(pair.categorical))
    ys = mixed_matrix(pair.y, pair.cy, pair.ncat(pair.categorical))
    paired = np.mean(((xs - ys) ** 2).sum(axis=1))
    shuffled = np.mean(((xs - ys[perm]) ** 2).sum(axis=1))
    return paired < 0.9 * shuffled


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
#: the start of the note of a row an attack's bound settled (:func:`bounded_row`; sdcrisk.assess.report)
BOUNDED = "at most"


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


def best_result(rows: list[tuple[dict, str, int]]) -> tuple[float, str] | None:
    """The most correct links among finished attacks ``[(row, name, known attributes)]`` and a
    label of the attack, or None when none has a result."""
    done = [(row["linked"], f"{name} ({m} known attribute(s))") for row, name, m in rows
            if row.get("linked") is not None and np.isfinite(row["linked"])]
    return max(done) if done else None


def bounded_row(name, reach: float | None, n: int, best: tuple[float, str] | None, seconds: float) -> dict | None:
    """The row of an attack settled by its bound: where ``reach`` (the bound, :func:`attack_bound`)
    does not exceed ``best`` (:func:`best_result` over every other attack) the attack cannot link
    more records than that one, so it cannot raise the headline, and the row states the bound
    instead of a result (``percent`` missing, the note starting :data:`BOUNDED`). None where the
    attack must run. The decision waits for every other attack, so that it does not depend on
    which finished first."""
    if reach is None or best is None or reach > best[0]:
        return None
    top, who = best
    return {"linked": math.nan, "percent": math.nan, "low": math.nan, "high": math.nan,
            "baseline": 100.0 / n, "draws_low": math.nan, "draws_high": math.nan, "seconds": seconds,
            "note": (f"{BOUNDED} {linkage_percent(reach, n):.3g} % ({reach:,.0f} records agree with their own masked "
                     f"record on a known attribute: the only records {name} can link correctly); {who} linked "
                     f"{linkage_percent(top, n):.2f} %, so {name}'s assignment was not run (name it, --attacks "
                     f"{name}, to run it)")}


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


def attack_workers(n: int, steps: int) -> int:
    """How many worker processes run the attacks on ``n`` records: none (in this process) below
    :data:`WORKER_MIN` records (the environment variable ``SDCRISK_WORKER_MIN`` overrides it),
    else two, or one for a single attack; the workers run two attacks at a time only while their
    expected memory fits the limit (:mod:`sdcrisk.assess.workers`)."""
    try:
        least = worker_min()
    except ValueError as exc:
        raise AssessError(str(exc)) from None
    if n < least or steps == 0:
        return 0
    return min(2, steps)


def _run_attacks(tasks, pair, perm, seed, say, prl_candidates=None, meanwhile=None, pool=None, bounds=False):
    """Results of the attacks ``tasks`` ([(name, cols)]), in order. From :data:`WORKER_MIN`
    records they run in worker processes (:mod:`sdcrisk.assess.workers`; :func:`attack_workers` says how
    many; ``pool``: workers started beforehand, else new ones): OR-Tools' flow solver holds the
    GIL, so threads would wait for it and Ctrl-C with them. Smaller files, where no attack takes long, run in this process, two at a time in
    threads. On first use after an install PRL's kernels are compiled in a second process
    meanwhile (:mod:`sdcrisk.kernels`). Returns the rows and what ``meanwhile()`` returned (called
    while the workers run, else after the attacks). ``bounds``: the workers run an attack with a
    bound last and not to the end where it cannot raise the headline (the default set;
    :meth:`sdcrisk.assess.workers.AttackWorkers.run`)."""
    steps = len(tasks)
    warmup = warm_in_background({name for name, _ in tasks})
    workers = attack_workers(pair.n, steps)
    if workers:
        own = AttackWorkers(workers) if pool is None else None
        use = pool or own
        try:
            use.ensure(workers)
            use.load(pair, perm)
            return use.run(tasks, seed, prl_candidates, pair.n, say, warmup.wait, meanwhile, bounds=bounds,
                           data_bytes=_data_bytes(tasks, pair))
        except NoRoomError as exc:
            say(f"warning: {exc}; the attacks run in this process instead (Ctrl-C may then wait for a solver)")
        finally:
            if own is not None:
                own.close()
    rows = _attacks_in_process(tasks, pair, perm, seed, say, prl_candidates, warmup, bounds)
    return rows, meanwhile() if meanwhile is not None else None


def _data_bytes(tasks, pair: Pair) -> dict:
    """{task: bytes} for the attacks whose memory follows the values (``Needs.data_bytes``), on
    the scenario's numeric known attributes of the whole file (blocks only narrow it)."""
    from ..attacks import NEEDS

    out = {}
    for k, (name, cols) in enumerate(tasks):
        needs = NEEDS.get(name)
        kn = [pair.numeric.index(pair.columns[c]) for c in cols if pair.columns[c] in pair.numeric]
        if needs is not None and needs.data_bytes is not None and kn:
            out[k] = float(needs.data_bytes(pair.x[:, kn], pair.y[:, kn]))
    return out


def _attacks_in_process(tasks, pair, perm, seed, say, prl_candidates, warmup, bounds=False):
    steps = len(tasks)
    done = []
    if bounds and any(name in BOUNDS for name, _ in tasks):  # the others first, then the bounded ones
        first = [k for k in range(steps) if tasks[k][0] not in BOUNDS]
        rows = dict(zip(first, _attacks_in_process([tasks[k] for k in first], pair, perm, seed, say,
                                                   prl_candidates, warmup)))
        for k in range(steps):
            if k in rows:
                continue
            name, cols = tasks[k]
            t0 = time.perf_counter()
            reach = attack_bound(name, pair, perm, cols)
            best = best_result([(rows[j], tasks[j][0], len(tasks[j][1])) for j in first])
            rows[k] = bounded_row(name, reach, pair.n, best, time.perf_counter() - t0)
            if rows[k] is None:
                warmup.wait(name)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    rows[k] = _attack_row(name, pair, perm, cols, seed, prl_candidates)
            say(f"[{k + 1}/{steps}] {name}, {len(cols)} known attribute(s): {rows[k]['seconds']:.1f} s")
        return [rows[k] for k in range(steps)]

    def one(k):
        name, cols = tasks[k]
        warmup.wait(name)
        out = _attack_row(name, pair, perm, cols, seed, prl_candidates)
        done.append(k)
        say(f"[{len(done)}/{steps}] {name}, {len(cols)} known attribute(s): {out['seconds']:.1f} s")
        return out

    with warnings.catch_warnings():  # a non-converged EM is reported in the note instead
        warnings.simplefilter("ignore", ConvergenceWarning)
        # GDBRL first: its exact assignment runs seconds in scipy's solver without the GIL, beside
        # the others; PRL last, when its kernels are compiled
        order = sorted(range(steps), key=lambda k: START_ORDER.get(tasks[k][0], 1))
        if pair.n > CONCURRENT_MAX or steps < 2:
            results = {k: one(k) for k in order}
            return [results[k] for k in range(steps)]
        with ThreadPoolExecutor(2) as pool:
            futures = {k: pool.submit(one, k) for k in order}
            return [futures[k].result() for k in range(steps)]


def assess(original, masked, *, id: str | None = None, known: Sequence[str] | None = None,
           scenarios: str | None = None, attacks: Sequence[str] | None = None, information_loss: bool = True,
           seed: int = 0, progress: Callable[[str], None] | None = None,
           names: tuple[str, str] = ("original", "masked"), prl_candidates: int | None = None,
           categorical: Sequence[str] | None = None, pool: AttackWorkers | None = None,
           idle: Callable[[], None] | None = None, secret: str | Sequence[str] | None = None,
           tolerance: float = TOLERANCE, singling_out: bool = False, weights: str | None = None,
           control=None) -> pd.DataFrame:
    """Disclosure risk of every attack and the information loss of ``masked`` against ``original``.

    ``original`` and ``masked`` are pandas DataFrames with the same attribute columns (plus the
    ``id`` column when given), or paths of CSV / parquet files. ``categorical`` names integer-coded
    categorical attributes (text columns are categorical anyway; :mod:`sdcrisk.assess.categorical`): the
    ones the masking left unchanged are the intruder's blocking keys.

    Returns one row per measure and scenario with :data:`COLUMNS`: ``measure`` (attack, ``ID``,
    ``IL``, ``IL1``..``IL5``, ``IL1s``, ``IL-s``), ``kind`` ("disclosure risk" / "information
    loss"), ``scenario`` and ``known`` (the known attributes, comma-separated), ``n_known``, ``n``
    records, ``linked`` (expected correct links, ties broken uniformly at random), ``percent``
    (units in the module docstring), ``low``/``high`` (95 % Wilson interval), ``baseline`` (the
    random-guess rate), ``draws_low``/``draws_high`` (GDBRL: range over its tie draws),
    ``seconds`` (wall time; two attacks may share the machine, :func:`_run_attacks`) and ``note``. ``attrs`` holds ``pairing``, ``warnings``,
    ``files``, ``blocking`` (keys, blocks, share of records unique on the keys) and ``left_out``.
    ``attacks``: None runs the default set (:data:`DEFAULT_ATTACKS`) and ``attrs["left_out"]``
    gives ``{attack: reason}`` for each attack it leaves out (:mod:`sdcrisk.assess.default_attacks`);
    ``["all"]`` runs every attack; named attacks run whether or not they are in the default.
    ``prl_candidates=K`` is PRL's ``max_candidates``: each record keeps its K best candidates
    (on tied blocks its K best pairs agreeing on several attributes), for files whose full
    candidate graph exceeds the memory limit. ``pool``: attack worker processes
    started beforehand (:class:`sdcrisk.assess.workers.AttackWorkers`; the caller closes them), used
    from :data:`WORKER_MIN` records instead of new ones. ``idle()`` is called in this process
    while the attack workers run, after the information loss (the command imports the report's
    plotting library then), or after the attacks where they run in this process.

    ``secret``: attributes whose values the intruder tries to infer (inference, attribute
    disclosure; :mod:`sdcrisk.criteria.inference`), or ``"each"``: every attribute not in
    ``known`` in turn. A secret is never known: without ``known`` the intruder knows every other
    attribute (the linkage attacks too). ``tolerance``: a numeric guess is right within
    ``tolerance`` times the true value (0 < tolerance <= 1). Each secret adds rows of kind
    ``"inference"`` (:data:`CRITERION_COLUMNS` besides :data:`COLUMNS`: the secret in ``target``,
    the attack's successes in ``linked`` out of ``n`` targets, ``baseline`` the best constant
    guess's percent, ``excess`` with Newcombe's interval); :func:`criterion_rows` gives them as
    :class:`sdcrisk.criteria.CriterionRow`, :func:`records_at_risk` the records each attack
    infers (``attrs["records_at_risk"]``), ``attrs["inference"]`` the l-diversity per secret.

    ``singling_out``: add the singling-out attacks on the first scenario's known attributes
    (:mod:`sdcrisk.criteria.singling_out`: release records unique on the categorical keys that
    match one original, and predicates), rows of kind ``"singling out"`` like the inference rows.
    ``weights``: the release's sampling-weight column (not an attribute: left out of every attack);
    with it, or with ``singling_out``, ``attrs["key_risk"]`` holds the agencies' measures on the
    release's known categorical attributes (:mod:`sdcrisk.criteria.key_risk`: k-anonymity
    violations, individual risk and expected re-identifications, l-diversity of the secrets).

    ``control``: the control set of a synthetic ``masked`` release (originals not used to train the
    generator; DataFrame or path): the table of :func:`sdcrisk.assess.synthetic.assess_synthetic`
    instead (every attack on training and on control targets, the excess with Newcombe's interval).
    """
    say = progress or (lambda message: None)
    if control is not None:  # a synthetic release: sdcrisk.assess.synthetic.assess_synthetic's table
        from .synthetic import assess_synthetic

        return assess_synthetic(original, masked, control, id=id, known=known, secret=secret, categorical=categorical,
                                tolerance=tolerance, seed=seed, names=(*names, "control"), progress=progress)
    if isinstance(original, (str, Path)) and isinstance(masked, (str, Path)):
        problem = memory_problem(original, masked, attack_names(attacks))  # before reading (sdcrisk.assess.workers)
        if problem:
            raise AssessError(problem)
    if isinstance(original, (str, Path)):
        names = (str(original), names[1])
        original = read_file(original)
    if isinstance(masked, (str, Path)):
        names = (names[0], str(masked))
        masked = read_file(masked)
    if prl_candidates is not None and (isinstance(prl_candidates, bool) or not isinstance(prl_candidates, int)
                                       or prl_candidates < 1):
        raise AssessError(f"prl_candidates: expected a whole number >= 1, got {prl_candidates!r}")
    if isinstance(categorical, str):
        categorical = [categorical]
    if not (isinstance(tolerance, (int, float)) and not isinstance(tolerance, bool) and 0.0 < tolerance <= 1.0):
        raise AssessError(f"tolerance: expected a number in (0, 1] (a share of the true value), got {tolerance!r}")
    weight_values = None
    if weights is not None:
        original, masked, weight_values = _take_weights(original, masked, weights, names)
    pair = pair_files(original, masked, id, names, categorical)
    secrets, known = secret_names(pair.columns, secret, known, scenarios, names)
    labels = {c: _labels(original[c], pair.cx[:, pair.categorical.index(c)]) for c in secrets if c in pair.categorical}
    record_ids = original[id].to_numpy() if id is not None else None
    original = masked = None  # tables read here go now: the pair holds their values (0.8 GB each at 10^7 x 10)
    release_arrow_memory()
    columns = pair.columns
    sets = scenarios_from(columns, known, scenarios)
    todo = attack_names(attacks)
    if pair.rows is not None:  # a sample of the original's records (sdcrisk.assess.sample)
        from .sample import assess_sample

        return assess_sample(pair, sets, todo, attacks=attacks, information_loss=information_loss, seed=seed,
                             say=say, names=names, idle=idle)
    n = pair.n
    perm = np.random.Generator(np.random.PCG64(seed)).permutation(n)
    warnings_out = list(pair.warnings)
    if id is None and not _pairs_closer_than_chance(pair, perm):
        warnings_out.append("records paired by row order are no closer than random pairs: the masked rows may be in "
                            "another order than the original's; give the id column (--id) if the files have one")
    for w in warnings_out:
        say(f"warning: {w}")
    rows = []
    id_by_attribute = None
    tasks = []
    for cols in sets:
        label, known_names = _scenario_label(cols, columns), ",".join(columns[c] for c in cols)
        for name in todo:
            if name == "ID":
                rows.append(_interval_disclosure_row(pair, cols, label, known_names, id_by_attribute))
                id_by_attribute = rows[-1].pop("by_attribute")
            else:
                rows.append({"measure": name, "kind": RISK, "scenario": label, "known": known_names,
                             "n_known": len(cols), "n": n})
                tasks.append((name, cols))
    say(f"{len(tasks)} attack(s) on {n} records")

    def meanwhile():
        rows = None
        if information_loss:
            say("information loss")
            rows = _loss_rows(pair)
        if idle is not None:
            idle()
        return rows

    # the bounds settle linkage only: an inference from the linked record needs every attack's links
    results, loss_rows = _run_attacks(tasks, pair, perm, seed, say, prl_candidates, meanwhile, pool,
                                      bounds=attacks is None and not secret and n >= BOUND_MIN)
    results = iter(results)
    links = {}
    for r in rows:
        if r["measure"] != "ID":
            r.update(next(results))
            if LINKS in r:
                link = r.pop(LINKS)
                if secrets:
                    links[r["measure"]] = link
    rows.extend(loss_rows or [])
    evidence, diversity = [], {}
    own = np.arange(n)
    for name, link in links.items():  # linkability's records at risk: linked to their own masked record
        hit = np.flatnonzero(link == own)
        evidence.append(pd.DataFrame({"record": record_ids[hit] if record_ids is not None else hit + 1,
                                      "criterion": "linkability", "attack": name,
                                      "evidence": "linked to its own masked record"}))
    for s in secrets:
        say(f"inference of {s}")
        found = _inference(pair, s, sets[0], links, tolerance)
        rows.extend(_inference_rows(found, _scenario_label(sets[0], columns),
                                    ",".join(columns[c] for c in sets[0]), len(sets[0])))
        diversity[s] = found.diversity
        true = pair.cx[:, pair.categorical.index(s)] if found.categorical else pair.x[:, pair.numeric.index(s)]
        evidence.append(found.evidence(record_ids, labels.get(s), true))
    if singling_out:
        say("singling out")
        found, proof = _singling_out(pair, sets[0], seed)
        rows.extend(_inference_rows(found, _scenario_label(sets[0], columns), ",".join(columns[c] for c in sets[0]),
                                    len(sets[0])))
        if len(proof):
            proof = proof.assign(record=record_ids[proof.record] if record_ids is not None else proof.record + 1)
            evidence.append(proof)
    key_risk = _key_risk(pair, sets[0], secrets, weight_values) if singling_out or weights is not None else None
    criteria_asked = bool(secrets) or singling_out
    out = pd.DataFrame(rows).reindex(columns=COLUMNS + (CRITERION_COLUMNS if criteria_asked else []))
    out.attrs["pairing"] = pair.pairing
    out.attrs["warnings"] = warnings_out
    out.attrs["files"] = {"original": names[0], "masked": names[1]}
    out.attrs["blocking"] = _blocking(pair, sets)
    out.attrs["categorical"] = list(pair.categorical)
    out.attrs["left_out"] = left_out_reasons(attacks)  # {attack: why the default did not run it}
    if secrets:
        out.attrs["inference"] = {"tolerance": tolerance, "secrets": secrets, "l_diversity": diversity}
    if criteria_asked:
        out.attrs["records_at_risk"] = RecordsAtRisk(pd.concat(evidence, ignore_index=True))
    if key_risk is not None:
        out.attrs["key_risk"] = key_risk
    return out


# ----------------------------------------------------------------------------- inference
CRITERION_COLUMNS = ["criterion", "target", "baseline_kind", "baseline_linked", "excess", "excess_low", "excess_high"]
INFERENCE_KIND = "inference"  # the ``kind`` of an inference row


class RecordsAtRisk:
    """The records each attack puts at risk (``table``: ``record``, ``criterion``, ``attack``,
    ``evidence``), held in a result's ``attrs``: copied by reference (a copy of the table per
    pandas operation would cost its size) and equal only to itself (``pd.concat`` compares attrs)."""

    def __init__(self, table: pd.DataFrame):
        self.table = table

    def __deepcopy__(self, memo):
        return self

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    def __repr__(self):
        return f"RecordsAtRisk({len(self.table)} records)"


def records_at_risk(results: pd.DataFrame) -> pd.DataFrame:
    """The per-record evidence of :func:`assess`'s result: ``record`` (the id, else the row number
    from 1), ``criterion``, ``attack``, ``evidence`` (empty without a secret)."""
    held = results.attrs.get("records_at_risk")
    return held.table if held is not None else pd.DataFrame(columns=["record", "criterion", "attack", "evidence"])


def criterion_rows(results: pd.DataFrame) -> list:
    """The rows of :func:`assess`'s result measured under a criterion other than linkability, as
    :class:`sdcrisk.criteria.CriterionRow` (the same numbers: successes, trials, baseline)."""
    from ..criteria import CriterionRow

    if "criterion" not in results.columns:
        return []
    r = results[results.criterion.notna() & (results.criterion != "")]
    return [CriterionRow(criterion=x.criterion, attack=x.measure, successes=float(x.linked), trials=int(x.n),
                         baseline=x.baseline_kind, baseline_successes=float(x.baseline_linked),
                         baseline_trials=int(x.n), target=x.target, note=x.note or "") for x in r.itertuples()]


def secret_names(columns: list[str], secret, known, scenarios, names=("original", "masked")):
    """The secrets (``[]`` for none) and the known attributes they leave (``known`` itself, or,
    when not given, every attribute but the secrets): :class:`AssessError` for a secret not among
    the attributes, one that is also known, ``each`` without ``known``, or secrets with ``scenarios``."""
    if secret is None:
        return [], known
    wanted = [secret] if isinstance(secret, str) else list(secret)
    wanted = [w.strip() for item in wanted for w in str(item).split(",") if w.strip()]
    if not wanted:
        raise AssessError("secret: no attribute given; expected attribute names or 'each'")
    if scenarios is not None:
        raise AssessError("secret: give the known attributes with --known (or none: every other attribute), "
                          "not --scenarios")
    if "each" in wanted:
        if known is None:
            raise AssessError("secret: 'each' needs --known (each attribute not known is then a secret in turn)")
        wanted = [c for c in columns if c not in known]
        if not wanted:
            raise AssessError(f"secret: 'each' leaves no attribute: --known lists every attribute {columns}")
    missing = [w for w in wanted if w not in columns]
    if missing:
        raise AssessError(f"secret: {missing[0]!r} is not an attribute of both {names[0]} and {names[1]} "
                          f"(attributes: {columns})")
    if known is not None:
        both = [w for w in wanted if w in known]
        if both:
            raise AssessError(f"secret: {both[0]!r} is also in --known; a secret is what the intruder does not know")
    wanted = list(dict.fromkeys(wanted))
    if known is None:
        known = [c for c in columns if c not in wanted]
        if not known:
            raise AssessError("secret: every attribute is a secret; the intruder must know at least one attribute")
    return wanted, known


def _labels(column: pd.Series, codes: np.ndarray) -> np.ndarray:
    """The label of each category code (``codes``: the column's codes, record by record; codes
    only the release has are shown as ``code K``)."""
    out = np.array([f"code {k}" for k in range(int(codes.max(initial=0)) + 1)], dtype=object)
    out[codes] = column.astype(str).to_numpy()
    return out


def _inference(pair: Pair, secret: str, cols: list[int], links: dict, tolerance: float):
    """The inference attacks on ``secret`` knowing the scenario ``cols`` (:func:`sdcrisk.criteria.inference.infer`)."""
    from ..criteria.inference import infer

    known = [pair.columns[c] for c in cols]
    kn = [pair.numeric.index(c) for c in known if c in pair.numeric]
    kc = [c for c in known if c in pair.categorical]
    jc = [pair.categorical.index(c) for c in kc]
    categorical = secret in pair.categorical
    if categorical:
        j = pair.categorical.index(secret)
        sx, sy = pair.cx[:, j], pair.cy[:, j]
    else:
        j = pair.numeric.index(secret)
        sx, sy = pair.x[:, j], pair.y[:, j]
    return infer(secret, sx, sy, categorical=categorical, xn=pair.x[:, kn], yn=pair.y[:, kn], xc=pair.cx[:, jc],
                 yc=pair.cy[:, jc], blocking=[c in pair.keys for c in kc], ncat=pair.ncat(kc), links=links,
                 tolerance=tolerance)


def _singling_out(pair: Pair, cols: list[int], seed: int):
    """The singling-out attacks on the scenario ``cols`` (:func:`sdcrisk.criteria.singling_out.singling_out`),
    on the values as the attacks see them (categorical attributes by their common codes)."""
    from ..criteria.singling_out import singling_out

    known = [pair.columns[c] for c in cols]
    frames = []
    for x, cx in ((pair.x, pair.cx), (pair.y, pair.cy)):
        frames.append(pd.DataFrame({c: (cx[:, pair.categorical.index(c)] if c in pair.categorical
                                        else x[:, pair.numeric.index(c)]) for c in known}))
    rows, proof = singling_out(frames[0], frames[1], known, categorical=[c for c in known if c in pair.categorical],
                               seed=seed)
    return _Found(rows), proof


@dataclass
class _Found:
    rows: list


def _key_risk(pair: Pair, cols: list[int], secrets: list[str], weights: np.ndarray | None) -> dict | None:
    """The agencies' measures on the release's known categorical attributes (:func:`sdcrisk.criteria.key_risk.key_risk`),
    the categorical secrets as sensitive attributes; None without a known categorical attribute."""
    from ..criteria.key_risk import key_risk

    keys = [pair.columns[c] for c in cols if pair.columns[c] in pair.categorical]
    if not keys:
        return None
    sensitive = [s for s in secrets if s in pair.categorical]
    table = pd.DataFrame({c: pair.cy[:, pair.categorical.index(c)] for c in keys + sensitive})
    if weights is not None:
        table["__weights__"] = weights
    found = key_risk(table, keys, weights="__weights__" if weights is not None else None, sensitive=sensitive)
    out = {"keys": keys, "weights": weights is not None, "records": found.n,
           "k_anonymity": found.k_anonymity.to_dict(orient="records"),
           "expected_reidentifications": found.risk_ER, "global_risk_percent": found.risk_pct}
    if sensitive:
        lowest = {s: int(found.records[f"{s}_Distinct_Ldiversity"].min()) for s in sensitive}
        out["l_diversity"] = {s: {"lowest_distinct_l": lowest[s], "records_with_l_1": int(
            (found.records[f"{s}_Distinct_Ldiversity"] <= 1).sum())} for s in sensitive}
    return out


def _take_weights(original: pd.DataFrame, masked: pd.DataFrame, column: str, names) -> tuple:
    """The release's sampling weights out of both files (an attribute of neither): the tables
    without the column and the weights (:class:`AssessError` naming the file where it is
    missing or not positive numbers, :func:`sdcrisk.criteria.key_risk.check_weights`)."""
    from ..criteria.key_risk import check_weights

    if column not in masked.columns:
        raise AssessError(f"weights: {names[1]} has no column {column!r}; expected the release's sampling-weight column")
    try:
        values = check_weights(masked, column)
    except ValueError as exc:
        raise AssessError(f"weights: {names[1]}: {exc}") from None
    return original.drop(columns=[column], errors="ignore"), masked.drop(columns=[column]), values


def _inference_rows(found, label: str, known: str, n_known: int) -> list[dict]:
    out = []
    for r in found.rows:
        low, high = r.interval
        excess, e_low, e_high = r.excess
        out.append({"measure": r.attack, "kind": r.criterion, "scenario": label, "known": known,
                    "n_known": n_known, "n": r.trials, "linked": r.successes, "percent": r.percent, "low": low,
                    "high": high, "baseline": r.baseline_percent, "note": r.note, "criterion": r.criterion,
                    "target": r.target, "baseline_kind": r.baseline, "baseline_linked": r.baseline_successes,
                    "excess": excess, "excess_low": e_low, "excess_high": e_high})
    return out


def _blocking(pair: Pair, sets: list[list[int]]) -> dict:
    """The blocks the attacks ran within: the keys the intruder knows (the unchanged categorical
    attributes among a scenario's known ones), their number of blocks and the share of records
    unique on them. Scenarios knowing different keys: the widest scenario's at the top level and
    every scenario's under ``by_scenario``."""
    def summary(cols):
        keys = [pair.columns[c] for c in cols if pair.columns[c] in pair.keys]
        if not keys:
            return {"keys": []}
        return {"keys": keys, **block_summary(block_codes(pair.cx[:, [pair.categorical.index(c) for c in keys]]))}

    each = [summary(cols) for cols in sets]
    out = dict(each[max(range(len(sets)), key=lambda k: len(sets[k]))])
    if any(e["keys"] != out["keys"] for e in each):
        out["by_scenario"] = [{"scenario": _scenario_label(cols, pair.columns), "n_known": len(cols), **e}
                              for cols, e in zip(sets, each)]
    return out


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


__all__ = ["assess", "AssessError", "read_file", "pair_files", "Pair", "scenarios_from", "attack_names",
           "DEFAULT_ATTACKS", "ALL_ATTACKS", "COLUMNS", "CRITERION_COLUMNS", "criterion_rows", "records_at_risk",
           "secret_names"]
