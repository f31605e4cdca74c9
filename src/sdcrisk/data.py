"""Reference microdata: fetch (download or mirror), verify sha256, load, select columns.

The papers use the two CASC reference files as distributed by the R package sdcMicro:
``CASCrefmicrodata`` ("Census", 1080 x 13) and the 10 numeric attributes of ``EIA``
(4092 x 10). A data set is described by a :class:`DatasetSpec` (URL, sha256, format, R object
name for R files, columns), so a further data set needs only a config entry: an R data file
(``.rda``), a CSV file with a header row, or a parquet file.

Files are written to a temporary name and renamed only after the checksum is verified, so
a failed fetch never leaves a file that looks good.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .validation import as_data_matrix

#: environment variable naming a directory that mirrors the public data files
MIRROR_ENV = "SDCRISK_DATA_MIRROR"


#: file formats of a data set, by file-name extension
FORMATS = {".rda": "rda", ".rdata": "rda", ".csv": "csv", ".parquet": "parquet"}


@dataclass(frozen=True)
class DatasetSpec:
    """Where a data file comes from, its format and which columns are the masked attributes.

    ``object`` names the R object of an ``.rda`` file (unused for CSV and parquet); ``format``
    is ``rda``, ``csv`` or ``parquet``, by default taken from the file name's extension.
    """

    name: str
    url: str
    sha256: str
    object: str
    columns: tuple[str, ...]
    filename: str = ""
    format: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        fmt = self.format or FORMATS.get(Path(self.filename or self.url).suffix.lower(), "")
        if fmt not in FORMATS.values():
            raise ValueError(
                f"config datasets.{self.name}: cannot tell the format of {self.filename or self.url!r}; "
                f"give format: one of {sorted(set(FORMATS.values()))} (or a file name ending in {sorted(FORMATS)})")
        if fmt == "rda" and not self.object:
            raise ValueError(f"config datasets.{self.name}: an R data file needs object: the name of the R object to read")
        repeated = sorted({c for i, c in enumerate(self.columns) if c in self.columns[:i]})
        if repeated:
            raise ValueError(f"config datasets.{self.name}.columns: column(s) {repeated} listed twice; "
                             "expected every attribute once")
        object.__setattr__(self, "format", fmt)

    @classmethod
    def from_config(cls, name: str, entry: dict) -> "DatasetSpec":
        missing = [k for k in ("url", "sha256", "columns") if k not in entry]
        if missing:
            raise ValueError(f"config datasets.{name}: missing key(s) {missing}; expected url, sha256, columns "
                             "(and object for an R data file)")
        return cls(
            name=name,
            url=str(entry["url"]),
            sha256=str(entry["sha256"]).lower(),
            object=str(entry.get("object") or ""),
            columns=tuple(entry["columns"]),
            filename=str(entry.get("filename") or entry["url"].rsplit("/", 1)[-1]),
            format=str(entry.get("format") or ""),
        )

    @property
    def raw_path(self) -> str:
        """Where the DAG keeps the verified file: ``data/raw/{name}.{format}``."""
        return f"data/raw/{self.name}.{self.format}"


def sha256_of(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(spec: DatasetSpec, dest: str | os.PathLike, mirror: str | os.PathLike | None = None) -> Path:
    """Copy ``spec``'s file from ``mirror`` (or ``$SDCRISK_DATA_MIRROR``) or download it; verify sha256.

    The mirror is tried first; without one, the pinned URL is downloaded. Raises
    ``ValueError`` (checksum) or ``FileNotFoundError`` (no mirror copy and no network), and
    leaves nothing at ``dest`` in either case.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    mirror = mirror or os.environ.get(MIRROR_ENV) or None
    fd, tmp = tempfile.mkstemp(prefix=dest.name + ".", suffix=".part", dir=dest.parent)
    os.close(fd)
    try:
        if mirror:
            src = Path(mirror) / spec.filename
            if not src.is_file():
                raise FileNotFoundError(
                    f"data set {spec.name!r}: {src} not found in the mirror directory {mirror!s} "
                    f"(set by config 'data_mirror' or ${MIRROR_ENV}); expected the file {spec.filename}"
                )
            shutil.copyfile(src, tmp)
            origin = str(src)
        else:
            try:
                with urllib.request.urlopen(spec.url, timeout=60) as resp, open(tmp, "wb") as out:
                    shutil.copyfileobj(resp, out)
            except OSError as exc:
                raise FileNotFoundError(
                    f"data set {spec.name!r}: cannot download {spec.url} ({exc}); with no network, name a "
                    f"mirror directory holding {spec.filename} in config 'data_mirror' or ${MIRROR_ENV}"
                ) from None
            origin = spec.url
        digest = sha256_of(tmp)
        if digest != spec.sha256:
            raise ValueError(
                f"data set {spec.name!r}: checksum mismatch for {origin}: sha256 {digest}, expected {spec.sha256}"
            )
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dest


def _read_rda(spec: DatasetSpec, path) -> pd.DataFrame:
    import pyreadr

    try:
        objects = pyreadr.read_r(str(path))
    except Exception as exc:  # pyreadr raises its own error types for corrupt files
        raise ValueError(f"{path}: cannot read as an R data file ({exc})") from None
    if spec.object not in objects:
        raise ValueError(f"{path}: no R object {spec.object!r}; the file holds {sorted(objects)}")
    return objects[spec.object]


def _read_csv(spec: DatasetSpec, path) -> pd.DataFrame:
    try:
        return pd.read_csv(path)
    except Exception as exc:  # empty file, bad quoting, undecodable bytes
        raise ValueError(f"{path}: cannot read as a CSV file with a header row ({exc})") from None


def _read_parquet(spec: DatasetSpec, path) -> pd.DataFrame:
    names = _file_header(spec, path) or []
    # Arrow's reader refuses a file with a repeated column name: read the others (a configured
    # column named twice is refused before, by load_table)
    columns = [c for c in names if names.count(c) == 1] if len(set(names)) < len(names) else None
    try:
        return read_table(path, columns=columns)
    except Exception as exc:  # pyarrow raises its own error types for corrupt files
        raise ValueError(f"{path}: cannot read as a parquet file ({exc})") from None


_READERS = {"rda": _read_rda, "csv": _read_csv, "parquet": _read_parquet}


def _file_header(spec: DatasetSpec, path) -> list[str] | None:
    """The column names as a CSV or parquet file has them, before pandas makes a repeated name
    unique ('a', 'a.1'); None for an R file (its data frame keeps repeated names) or a file whose
    header cannot be read (the reader then says why)."""
    try:
        if spec.format == "csv":
            first = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False)
            return [str(v) for v in first.iloc[0]] if len(first) else []
        if spec.format == "parquet":
            import pyarrow.parquet as pq

            with pq.ParquetFile(os.fspath(path)) as f:  # the file's schema: Arrow's reader refuses repeated names
                return [str(v) for v in f.schema_arrow.names]
    except Exception:
        return None
    return None


def _check_repeated(spec: DatasetSpec, where: str, header: list[str]) -> None:
    """A configured column named twice in the file's header: which of the two is the attribute?
    (pandas would silently read the first.)"""
    for c in spec.columns:
        if header.count(c) > 1:
            raise ValueError(f"{where}: column {c!r} (config datasets.{spec.name}.columns) appears "
                             f"{header.count(c)} times in the header; expected each configured column once")


def load_table(spec: DatasetSpec, path: str | os.PathLike) -> pd.DataFrame:
    """Read ``spec``'s file (R object ``spec.object``, CSV or parquet) and keep ``spec.columns``
    in order. Checks that every column exists once in the header and is numeric, finite and not
    constant."""
    header = _file_header(spec, path)
    where = f"{path} ({spec.object})" if spec.format == "rda" else str(path)
    if header is not None:
        _check_repeated(spec, where, header)
    frame = _READERS[spec.format](spec, path)
    _check_repeated(spec, where, [str(c) for c in frame.columns])
    if len(frame) == 0:
        raise ValueError(f"{where}: has a header but no records; expected at least 2 records")
    missing = [c for c in spec.columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{where}: column(s) {missing} not found; the file has {list(frame.columns)}")
    table = frame.loc[:, list(spec.columns)].reset_index(drop=True)
    for c in table.columns:
        if not pd.api.types.is_numeric_dtype(table[c]):
            raise ValueError(f"{where}: column {c!r} is not numeric (dtype {table[c].dtype}); expected numbers")
    as_data_matrix(table, name=where)
    return table.astype(np.float64)


class WriteError(OSError):
    """An output file cannot be written (read-only place, full disk); the message names the file
    and the cause."""


def atomic_write(path: str | os.PathLike, write) -> Path:
    """Call ``write(tmp)`` on a temporary path beside ``path``, then rename it to ``path``: a
    failed or killed job leaves no partial output. On any failure the temporary file is removed;
    an ``OSError`` (no permission, disk full) becomes a :class:`WriteError` naming ``path``."""
    path = Path(path)
    tmp = path.with_name(path.name + ".part" + path.suffix)  # same suffix: writers that infer the format
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # the place is not writable: nothing was left there
            pass
        if isinstance(exc, OSError) and not isinstance(exc, WriteError):
            raise write_error(exc, path) from None
        raise
    return path


def write_error(exc: OSError, path: str | os.PathLike) -> WriteError:
    """``exc`` as a :class:`WriteError`: ``cannot write <path>: <cause>``."""
    error = WriteError(f"cannot write {path}: {exc.strerror or exc}")
    error.errno = exc.errno
    return error


def write_table(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write a processed table as parquet, atomically (temporary file, then rename)."""
    return atomic_write(path, lambda tmp: table.to_parquet(tmp, index=False))


def read_table(path: str | os.PathLike, columns: list[str] | None = None) -> pd.DataFrame:
    """Read a parquet file (only ``columns``, if given) by its path with Arrow's own file reader.

    Not ``pandas.read_parquet``: for a local path pandas opens a Python file object and hands it
    to Arrow, whose reader threads then call back into Python; at interpreter exit those threads
    can outlive the interpreter and the process aborts with "terminate called without an active
    exception" (SIGABRT) after its work is done (apache/arrow#34314, #50482). Measured here under
    load (40 runs of a script reading 40 cell files): 9 aborts through a Python file object, 0 by
    path (``tests/test_data.py::test_parquet_is_read_by_path``).

    The decoding buffers go back to the system once the DataFrame exists
    (:func:`release_arrow_memory`).
    """
    import pyarrow.parquet as pq

    table = pq.read_table(os.fspath(path), columns=columns)
    frame = table.to_pandas()
    del table
    release_arrow_memory()
    return frame


def release_arrow_memory() -> None:
    """Return to the system what Arrow's memory pool freed: the pool (mimalloc) keeps it for later
    tables otherwise, and a DataFrame read from parquet holds its numbers in that pool. Measured at
    10^6 x 10 (80 MB a table): reading one file raised the resident set by 245 MB, 102 MB with
    the release; pairing two files and dropping their tables left 654 MB resident, 359 MB with it."""
    import sys

    if "pyarrow" in sys.modules:
        sys.modules["pyarrow"].default_memory_pool().release_unused()
