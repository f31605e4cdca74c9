"""Reference microdata: fetch (download or mirror), verify sha256, load, select columns.

The papers use the two CASC reference files as distributed by the R package sdcMicro:
``CASCrefmicrodata`` ("Census", 1080 x 13) and the 10 numeric attributes of ``EIA``
(4092 x 10). A data set is described by a :class:`DatasetSpec` (URL, sha256, R object
name, columns), so a further CASC-style file needs only a config entry.

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


@dataclass(frozen=True)
class DatasetSpec:
    """Where a reference data file comes from and which columns are the masked attributes."""

    name: str
    url: str
    sha256: str
    object: str
    columns: tuple[str, ...]
    filename: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    @classmethod
    def from_config(cls, name: str, entry: dict) -> "DatasetSpec":
        missing = [k for k in ("url", "sha256", "object", "columns") if k not in entry]
        if missing:
            raise ValueError(f"config datasets.{name}: missing key(s) {missing}; expected url, sha256, object, columns")
        return cls(
            name=name,
            url=str(entry["url"]),
            sha256=str(entry["sha256"]).lower(),
            object=str(entry["object"]),
            columns=tuple(entry["columns"]),
            filename=str(entry.get("filename") or entry["url"].rsplit("/", 1)[-1]),
        )


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


def load_rda(spec: DatasetSpec, path: str | os.PathLike) -> pd.DataFrame:
    """Read the R object ``spec.object`` from an ``.rda`` file and keep ``spec.columns`` in order.

    Checks that every column exists and is numeric, finite and not constant.
    """
    import pyreadr

    try:
        objects = pyreadr.read_r(str(path))
    except Exception as exc:  # pyreadr raises its own error types for corrupt files
        raise ValueError(f"{path}: cannot read as an R data file ({exc})") from None
    if spec.object not in objects:
        raise ValueError(f"{path}: no R object {spec.object!r}; the file holds {sorted(objects)}")
    frame = objects[spec.object]
    missing = [c for c in spec.columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{path}: object {spec.object!r} lacks column(s) {missing}; it has {list(frame.columns)}"
        )
    table = frame.loc[:, list(spec.columns)].reset_index(drop=True)
    for c in table.columns:
        if not pd.api.types.is_numeric_dtype(table[c]):
            raise ValueError(f"{path}: column {c!r} of {spec.object!r} is not numeric (dtype {table[c].dtype})")
    as_data_matrix(table, name=f"{path} ({spec.object})")
    return table.astype(np.float64)


def atomic_write(path: str | os.PathLike, write) -> Path:
    """Call ``write(tmp)`` on a temporary path beside ``path``, then rename it to ``path``: a
    failed or killed job leaves no partial output."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    write(tmp)
    os.replace(tmp, path)
    return path


def write_table(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write a processed table as parquet, atomically (temporary file, then rename)."""
    return atomic_write(path, lambda tmp: table.to_parquet(tmp, index=False))


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    return pd.read_parquet(path)
