"""Data-dependent checks of a config, run before any job masks anything (rule ``preflight``).

The config's schema and semantics are checked when the DAG is built (:func:`sdcrisk.replication.config.validate`);
what needs the data is checked here, once, for every data set and every cell: the file can be read
(R object name, CSV header and records), its attributes exist, each once in the header (pandas
would read the first of two), and are numeric, finite, not constant
and small enough to square; and every swept parameter fits the data (k and buckets at most the
number of records n, v at most the number of attributes m). Messages name the user's file (the
mirror copy or the URL the data came from) and the config key.
"""

from __future__ import annotations

from pathlib import Path

from .config import ConfigError, cells
from ..data import DatasetSpec, load_table
from ..masking import get_method


class PreflightError(ValueError):
    """A data set or a swept parameter does not fit the data."""


def source_of(spec: DatasetSpec, mirror: str | None) -> str:
    """Where the user's copy of a data set is: the mirror file, else the URL."""
    return str(Path(mirror) / spec.filename) if mirror else spec.url


def check(cfg: dict, raw: dict[str, str], mirror: str | None = None) -> dict:
    """Check every data set (``raw``: name -> verified local copy) and every cell of ``cfg``;
    return ``{dataset: {"n": n, "m": m}, "cells": count}`` or raise :class:`PreflightError`."""
    shapes = {}
    for name, path in raw.items():
        try:
            spec = DatasetSpec.from_config(name, cfg["datasets"][name])
        except ValueError as exc:  # as config validation words it (a config that was not validated)
            raise PreflightError(str(exc)) from None
        try:
            table = load_table(spec, path)
        except ValueError as exc:
            raise PreflightError(f"data set {name!r} (config datasets.{name}, file {source_of(spec, mirror)}): "
                                 + str(exc).replace(str(path), Path(path).name)) from None
        shapes[name] = table.shape
    checked = 0
    for cell in cells(cfg):
        if cell.dataset not in shapes:
            continue
        n, m = shapes[cell.dataset]
        key = f"experiments.{cell.experiment}.methods.{cell.method}"
        method = get_method(cell.method)
        try:
            method.check_data_params(method.check_params(dict(cell.params)), n, m)
        except (ValueError, ConfigError) as exc:
            raise PreflightError(f"{key} on data set {cell.dataset!r} ({n} records, {m} attributes): {exc}") from None
        checked += 1
    return {**{k: {"n": int(v[0]), "m": int(v[1])} for k, v in shapes.items()}, "cells": checked}
