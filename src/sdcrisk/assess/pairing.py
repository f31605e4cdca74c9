"""Reading a custodian's files and pairing their records (:func:`pair_files`): the file
readers, the input checks with their one-line errors (:class:`AssessError`), the typing of each
attribute (numeric, categorical, blocking key), the pairing by an id column or row order, and a
sample release's pairing (every original record, the released ones beside them; :func:`pair_sample`).
Below :mod:`sdcrisk.assess.assessment`, :mod:`sdcrisk.assess.sample` and
:mod:`sdcrisk.assess.synthetic`, which all read files through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .categorical import codes, split_columns
from ..data import read_table
from ..resources import size_text
from ..validation import check_magnitude
from .workers import file_shape, reading_bytes


READERS = {".csv": "csv", ".txt": "csv", ".parquet": "parquet", ".pq": "parquet"}


class AssessError(ValueError):
    """Bad input to :func:`assess` or ``sdcrisk assess``; the message names the file and field."""


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


def pair_sample(original: pd.DataFrame, masked: pd.DataFrame, ids_o: pd.Series, ids_m: pd.Series, id: str,
                cols: list[str], categorical, names: tuple[str, str]):
    """The :class:`sdcrisk.assess.assessment.Pair` of a sample release (module docstring): every
    original record in ``x``, the released ones in ``y`` (file order) and ``rows``, the original
    row of each. Refuses a release with more records than the original or an id the original does not have."""
    no, nm = names
    if len(masked) > len(original):
        raise AssessError(f"{nm}: has {len(masked):,} records, more than the {len(original):,} of {no}; with --id "
                          f"{id} the masked file must hold the original's records or a sample of them")
    ids_o, ids_m = ids_o.reset_index(drop=True), ids_m.reset_index(drop=True)
    extra = ~ids_m.isin(set(ids_o))
    if extra.any():
        raise AssessError(f"{nm}: {int(extra.sum())} id(s) (column {id!r}) are not ids of {no}, e.g. "
                          f"{_show(ids_m[extra].iloc[0])}; a sample release holds a subset of the original's records")
    rows = pd.Index(ids_o).get_indexer(ids_m.to_numpy()).astype(np.int64)
    original = original.reset_index(drop=True)
    masked = masked.reset_index(drop=True)
    warned = []
    paired = original.iloc[rows][cols].reset_index(drop=True)
    for c in identifier_columns(paired, masked[cols], None):
        if original[c].is_unique:  # an identifier of the population too
            cols.remove(c)
            warned.append(f"column {c!r} is unique per record and identical in both files (an identifier): left "
                          "out of the attacks")
    pairing = (f"id column {id!r} (sample release: {len(masked):,} of the {len(original):,} original records, "
               f"{100.0 * len(masked) / len(original):.3g} %)")
    return _typed_pair(original, masked, cols, categorical, (no, nm), pairing, warned, rows)
