"""Load, validate and expand the replication config (config/config.yaml, config/quick.yaml).

Validation happens before any job runs: the JSON schema (config/schema.yaml) catches misspelt
keys and wrong types; :func:`validate` then checks what a schema cannot: method names against
the masking registry, every swept parameter value against the method's range, and data-set
names. Each error names the offending key path.
"""

from __future__ import annotations

import itertools
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[2]


class ConfigError(ValueError):
    """A config value is missing, misspelt or out of range."""


@dataclass(frozen=True)
class Cell:
    """One (experiment, data set, method, parameter set): the unit of one DAG job."""

    experiment: str
    dataset: str
    method: str
    params: tuple[tuple[str, float], ...]
    label: str

    @property
    def param_id(self) -> str:
        return "_".join(f"{k}{_fmt(v)}" for k, v in self.params)

    @property
    def cell_id(self) -> str:
        return f"{self.method}__{self.param_id}"

    def seed_sequence(self, root_seed: int, replicate: int) -> np.random.SeedSequence:
        """The SeedSequence of one replicate: root seed + stable hash of the cell's keys."""
        key = f"{self.experiment}|{self.dataset}|{self.method}|{self.param_id}|{replicate}"
        return np.random.SeedSequence([int(root_seed), zlib.crc32(key.encode()), replicate])


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def load(path: str | os.PathLike, datasets_path: str | os.PathLike | None = None) -> dict:
    """Read a config file and merge in the data-set definitions (config/datasets.yaml)."""
    path = Path(path)
    cfg = yaml.safe_load(path.read_text()) or {}
    if "datasets" not in cfg:
        dpath = Path(datasets_path) if datasets_path else path.parent / "datasets.yaml"
        cfg["datasets"] = (yaml.safe_load(dpath.read_text()) or {}).get("datasets", {})
    return cfg


def schema() -> dict:
    return yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())


def validate(cfg: dict, source: str = "config") -> dict:
    """Validate ``cfg`` (schema, then semantics); raise :class:`ConfigError` naming the key."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(cfg), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        raise ConfigError(f"{source}: invalid value at '{where}': {e.message}")
    load_plugins(cfg, source)
    from .data import DatasetSpec
    from .masking import get_method

    datasets = cfg["datasets"]
    for name, entry in datasets.items():  # format and R object: every data set is readable
        try:
            DatasetSpec.from_config(name, entry)
        except ValueError as exc:
            raise ConfigError(f"{source}: {exc}") from None
    for name, exp in cfg["experiments"].items():
        key = f"experiments.{name}"
        for d in exp["datasets"]:
            if d not in datasets:
                raise ConfigError(f"{source}: {key}.datasets: unknown data set {d!r}; defined: {sorted(datasets)}")
        for method, sweep in exp["methods"].items():
            try:
                spec = get_method(method)
            except ValueError as exc:
                raise ConfigError(f"{source}: {key}.methods: {exc}") from None
            for d in exp["datasets"]:
                grid = _sweep_for(sweep, d, f"{key}.methods.{method}", source)
                params = {p.name: p for p in spec.params}
                for pname, values in grid.items():  # each value alone first, so errors name its key
                    if not isinstance(values, list) or not values:
                        raise ConfigError(f"{source}: {key}.methods.{method}.{pname}: expected a non-empty list of values")
                    for v in values if pname in params else ():
                        try:
                            params[pname].check(v, method)
                        except ValueError as exc:
                            raise ConfigError(f"{source}: {key}.methods.{method}.{pname}: {exc}") from None
                for pname, values in grid.items():
                    for v in values:
                        try:
                            spec.check_params({**{p.name: p.default for p in spec.params if p.default is not None},
                                               **{q: vals[0] for q, vals in grid.items()}, pname: v})
                        except ValueError as exc:
                            raise ConfigError(f"{source}: {key}.methods.{method}.{pname}: {exc}") from None
        options = exp.get("options") or {}
        spec_range = options.get("scenarios")
        if spec_range is not None:
            from .evaluation import parse_range
            for d in exp["datasets"]:
                m = len(datasets[d].get("columns") or []) or None
                if m is not None and not parse_range(spec_range, m):
                    raise ConfigError(f"{source}: {key}.options.scenarios: {spec_range!r} gives no scenario "
                                      f"for data set {d!r} with {m} attributes; expected 'lo..hi' with lo <= hi")
        _check_option_keywords(options, f"{key}.options", source)
        attacks = options.get("attacks")
        if attacks is not None:
            from .attacks import ATTACKS
            if exp["evaluation"] != "attack_matrix":
                raise ConfigError(f"{source}: {key}.options.attacks: only the attack_matrix evaluation runs "
                                  f"a list of attacks (this experiment's evaluation: {exp['evaluation']!r})")
            for i, a in enumerate(attacks):
                if a not in ATTACKS:
                    raise ConfigError(f"{source}: {key}.options.attacks[{i}]: unknown attack {a!r}; "
                                      f"known attacks: {sorted(ATTACKS)} (a plugin can add one)")
        label = exp.get("label")
        if isinstance(label, dict):
            missing = set(exp["methods"]) - set(label)
            if missing:
                raise ConfigError(f"{source}: {key}.label: no label for method(s) {sorted(missing)}")
        for tname, table in exp["tables"].items():
            tds = table["dataset"] if isinstance(table["dataset"], list) else [table["dataset"]]
            for d in tds:
                if d not in exp["datasets"]:
                    raise ConfigError(f"{source}: {key}.tables.{tname}.dataset: {d!r} is not one of the experiment's data sets {exp['datasets']}")
            if "method" in table and table["method"] not in exp["methods"]:
                raise ConfigError(f"{source}: {key}.tables.{tname}.method: {table['method']!r} is not swept by the experiment")
    return cfg


def _option_functions() -> dict:
    """Experiment options that are keyword arguments of a measure or attack -> that function."""
    from .linkage.probabilistic import prl
    from .measures.information_loss import il_components
    from .measures.interval_disclosure import interval_disclosure_by_attribute
    return {"il": il_components, "id": interval_disclosure_by_attribute, "prl": prl}


def _check_option_keywords(options: dict, key: str, source: str) -> None:
    """The keys of ``options.il|id|prl`` must be keyword parameters of the function they configure."""
    import inspect

    for opt, func in _option_functions().items():
        params = set(inspect.signature(func).parameters) - {"original", "masked", "known", "rng"}
        for name in (options.get(opt) or {}):
            if name not in params:
                raise ConfigError(f"{source}: {key}.{opt}.{name}: unknown option of {func.__name__}; "
                                  f"expected one of {sorted(params)}")


def load_plugins(cfg: dict, source: str = "config") -> None:
    """Import the modules listed under ``plugins`` (they register masking methods or attacks on import)."""
    import importlib

    for i, name in enumerate(cfg.get("plugins", []) or []):
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ConfigError(f"{source}: plugins[{i}]: cannot import {name!r} ({exc})") from None


def _sweep_for(sweep: dict, dataset: str, key: str, source: str) -> dict:
    """A method's sweep is either {param: values} or {dataset: {param: values}}."""
    if sweep and all(isinstance(v, dict) for v in sweep.values()):
        if dataset not in sweep:
            raise ConfigError(f"{source}: {key}: no sweep for data set {dataset!r}")
        return sweep[dataset]
    return sweep


def label_for(exp: dict, method: str, params: dict) -> str:
    """The parameter label printed in tables, e.g. ``"v=3;k=15"`` or ``"p_pct=5"``."""
    label = exp.get("label")
    if isinstance(label, dict):
        label = label[method]
    if not label:
        return ";".join(f"{k}={_fmt(v)}" for k, v in params.items())
    return label.format(**{k: _fmt(v) for k, v in params.items()})


def cells(cfg: dict, experiment: str | None = None) -> list[Cell]:
    """Expand the sweeps into the list of DAG cells (one job each)."""
    out = []
    for name, exp in cfg["experiments"].items():
        if experiment is not None and name != experiment:
            continue
        for d in exp["datasets"]:
            for method, sweep in exp["methods"].items():
                grid = _sweep_for(sweep, d, name, "config")
                names = list(grid)
                for combo in itertools.product(*(grid[p] for p in names)):
                    params = dict(zip(names, combo))
                    out.append(Cell(name, d, method, tuple(params.items()), label_for(exp, method, params)))
    return out


def find_cell(cfg: dict, experiment: str, dataset: str, cell_id: str) -> Cell:
    for c in cells(cfg, experiment):
        if c.dataset == dataset and c.cell_id == cell_id:
            return c
    raise ConfigError(f"no cell {cell_id!r} for data set {dataset!r} in experiment {experiment!r}")


CELL_SETTINGS = ("evaluation", "replicates", "options")


def cell_settings(exp: dict) -> dict:
    """The part of an experiment a cell job reads (:func:`sdcrisk.evaluation.run_cell`). The DAG
    passes only this as the job's params, so editing tables, figures or captions reruns no
    masking or linkage."""
    return {k: exp[k] for k in CELL_SETTINGS if k in exp}


def mirror(cfg: dict) -> str | None:
    """The data mirror directory: $SDCRISK_DATA_MIRROR, else config 'data_mirror', else None."""
    from .data import MIRROR_ENV

    return os.environ.get(MIRROR_ENV) or cfg.get("data_mirror") or None
