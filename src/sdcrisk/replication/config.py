"""Load, layer, validate and expand the replication config (config/config.yaml, config/quick.yaml,
a user's own file).

A user's config file is a layer on the reference config (:func:`layer`): it adds data sets and
experiments (replacing one of the same name) and plugins. Plugins (:func:`load_plugins`) are
modules or ``.py`` files that register masking methods or attacks; a cell job loads only those its
method and attacks come from (:func:`cell_plugins`), so listing one reruns no other cell.

Validation happens before any job runs: the JSON schema (config/schema.yaml) catches misspelt
keys and wrong types; :func:`validate` then checks what a schema cannot: method names against
the masking registry, every swept parameter value against the method's range, and data-set
names. Each error names the offending key path.
"""

from __future__ import annotations

import copy
import itertools
import os
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml


ROOT = Path(__file__).resolve().parents[3]


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


class _StrictLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key given twice in one mapping (plain YAML keeps the last)."""


def _no_duplicate_keys(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise ConfigError(f"{loader.name}: line {key_node.start_mark.line + 1}: key {key!r} given twice "
                              f"in one mapping (first on line {seen[key] + 1}); YAML would keep only the last")
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicate_keys)


def read_yaml(path: str | os.PathLike):
    """Parse a YAML file, refusing duplicate keys; a file that cannot be read or parsed is a
    :class:`ConfigError` naming the file (and the line and column of a syntax error)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read the config file (not UTF-8 text: {exc.reason} at byte {exc.start})") from None
    loader = _StrictLoader(text)
    loader.name = str(path)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        what = ", ".join(t for t in (getattr(exc, "context", None), getattr(exc, "problem", None)) if t) or str(exc)
        raise ConfigError(f"{path}: {where}not valid YAML ({what})") from None
    finally:
        loader.dispose()


def load(path: str | os.PathLike, datasets_path: str | os.PathLike | None = None) -> dict:
    """Read a config file and merge in the data-set definitions (config/datasets.yaml)."""
    path = Path(path)
    cfg = read_yaml(path) or {}
    if "datasets" not in cfg:
        dpath = Path(datasets_path) if datasets_path else path.parent / "datasets.yaml"
        cfg["datasets"] = (read_yaml(dpath) or {}).get("datasets", {})
    return cfg


def schema() -> dict:
    return yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())


def validate(cfg: dict, source: str = "config") -> dict:
    """Validate ``cfg`` (schema, then semantics); raise :class:`ConfigError` naming the key."""
    import jsonschema

    cell_batch_size(cfg, source)  # its own message: the schema's would not say what the number means
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(cfg), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        raise ConfigError(f"{source}: invalid value at '{where}': {e.message}")
    load_plugins(cfg, source)
    from ..data import DatasetSpec
    from ..masking import get_method

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
                    repeated = sorted({repr(v) for i, v in enumerate(values) if v in values[:i]})
                    if repeated:
                        raise ConfigError(f"{source}: {key}.methods.{method}.{pname}: value(s) {', '.join(repeated)} "
                                          "listed twice; every swept value must be distinct")
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
        from ..measures.scenarios import ScenarioRangeError, scenario_range  # here: renderers import config without the measures

        for d in exp["datasets"] if "scenarios" in options else ():  # as evaluation.scenario_sizes reads it
            try:
                scenario_range(options["scenarios"], len(datasets[d]["columns"]), clip=True)
            except ScenarioRangeError as exc:
                raise ConfigError(f"{source}: {key}.options.scenarios: on data set {d!r}: {exc}") from None
        _check_option_keywords(options, f"{key}.options", source)
        attacks = options.get("attacks")
        if attacks is not None:
            from ..attacks import ATTACKS
            if exp["evaluation"] != "attack_matrix":
                raise ConfigError(f"{source}: {key}.options.attacks: only the attack_matrix evaluation runs "
                                  f"a list of attacks (this experiment's evaluation: {exp['evaluation']!r})")
            for i, a in enumerate(attacks):
                if a not in ATTACKS:
                    raise ConfigError(f"{source}: {key}.options.attacks[{i}]: unknown attack {a!r}; "
                                      f"known attacks: {sorted(ATTACKS)} (a plugin can add one)")
        if options.get("criteria") and exp["evaluation"] != "attack_matrix":
            raise ConfigError(f"{source}: {key}.options.criteria: only the attack_matrix evaluation measures the "
                              f"three criteria (this experiment's evaluation: {exp['evaluation']!r})")
        label = exp.get("label")
        if isinstance(label, dict):
            missing = set(exp["methods"]) - set(label)
            if missing:
                raise ConfigError(f"{source}: {key}.label: no label for method(s) {sorted(missing)}")
        _check_label(exp, key, source)
        _check_measures(exp, key, source)
        for tname, table in exp["tables"].items():
            tds = table["dataset"] if isinstance(table["dataset"], list) else [table["dataset"]]
            for d in tds:
                if d not in exp["datasets"]:
                    raise ConfigError(f"{source}: {key}.tables.{tname}.dataset: {d!r} is not one of the experiment's data sets {exp['datasets']}")
            if "method" in table and table["method"] not in exp["methods"]:
                raise ConfigError(f"{source}: {key}.tables.{tname}.method: {table['method']!r} is not swept by the experiment")
    _check_unique_targets(cfg, source)
    compute_estimate(cfg, source)
    return cfg


def compute_estimate(cfg: dict, source: str = "config"):
    """The jobs, maskings and linkages of ``cfg``'s sweeps (:mod:`sdcrisk.replication.estimate`);
    :class:`ConfigError` over the limit (config key ``max_linkages``)."""
    from .estimate import check_compute

    try:
        return check_compute(cfg, cell_batches(cells(cfg), cell_batch_size(cfg, source)))
    except ValueError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def _check_label(exp: dict, key: str, source: str) -> None:
    """Every ``{field}`` of a label must be a parameter the method sweeps."""
    import string

    label = exp.get("label")
    for method, sweep in exp["methods"].items():
        text = label.get(method) if isinstance(label, dict) else label
        if not text:
            continue
        where = f"{key}.label" + (f".{method}" if isinstance(label, dict) else "")
        try:
            fields = {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}
        except ValueError as exc:
            raise ConfigError(f"{source}: {where}: {text!r} is not a valid format string ({exc})") from None
        for d in exp["datasets"]:
            swept = set(_sweep_for(sweep, d, f"{key}.methods.{method}", source))
            unknown = sorted(fields - swept)
            if unknown:
                raise ConfigError(f"{source}: {where}: {text!r} names {', '.join(map(repr, unknown))}, not a swept "
                                  f"parameter of {method!r} (swept: {sorted(swept)})")


def known_measures() -> set[str]:
    """Every measure an evaluation can write: those with a declared unit (:mod:`.measures.units`)
    and every registered attack with its ``_unconverged`` companion."""
    from ..attacks import ATTACKS
    from ..measures import units

    declared = units.PERCENT | units.UNBOUNDED_PERCENT | units.COUNTS | units.BITS | units.POINTS
    return set(declared) | set(ATTACKS) | {f"{a}_unconverged" for a in ATTACKS} | {"PRL_unconverged"}


#: The measures each evaluation of :mod:`sdcrisk.replication.evaluation` writes, in the order it writes them
#: (the attack matrix's are its attacks: :func:`evaluation_measures`); those only some masking
#: methods get are in :data:`METHOD_MEASURES`. Declared here, not read from the evaluations, so
#: that validating a config runs none of them; tests/test_bad_inputs_workflow.py runs every
#: evaluation and compares what it writes with these.
EVALUATION_MEASURES = {
    "rank_linkage": ("DBRL", "RBRL-Sum", "RBRL-Max"),
    "location_scores": ("LLD_count", "IL", "ID", "DLD", "PLD", "PRL_unconverged", "LLD", "Score1", "Score2"),
    "rsrl_scores": ("RSRL_pct", "IL", "ID", "DLD", "PLD", "PRL_unconverged", "RSLD", "DR_RSLD", "Score_RSLD"),
    "projected_scores": ("DLD", "PLD", "ProLD_PCP", "ProLD_Zscore", "IL", "ID", "PRL_unconverged", "Score",
                         "ScoreNew", "ScoreMax"),
    "belief_rsrl": ("nonspecificity", "pignistic_entropy", "true_support_pct"),
}
#: evaluation -> masking method -> the further measures the evaluation writes for that method's cells
METHOD_MEASURES = {
    "rsrl_scores": {"rankswap_pdist": ("RSRL_annotated_union_count", "RSRL_annotated_union_half_count", "DBRL_count")},
}


def evaluation_measures(exp: dict, methods: Sequence[str] | None = None) -> list[str]:
    """The measures the cells of experiment ``exp`` write (:data:`EVALUATION_MEASURES`; for the
    attack matrix every attack of ``options.attacks`` (default: every registered one) and its
    ``_unconverged`` companion), those of ``methods`` only (default: every method it sweeps)."""
    evaluation = exp["evaluation"]
    if evaluation == "attack_matrix":
        from ..attacks import matrix_attacks

        attacks = matrix_attacks(exp.get("options") or {})
        return [*attacks, *(f"{a}_unconverged" for a in attacks), *criteria_measures(exp)]
    out = list(EVALUATION_MEASURES[evaluation])
    for method in exp["methods"] if methods is None else methods:
        out += [m for m in METHOD_MEASURES.get(evaluation, {}).get(method, ()) if m not in out]
    return out


def criteria_measures(exp: dict) -> list[str]:
    """The measures of the three criteria an attack matrix with ``options.criteria`` writes
    (:func:`sdcrisk.replication.evaluation.criteria_rows`), else none."""
    from ..measures import units

    if not (exp.get("options") or {}).get("criteria"):
        return []
    return [c + part for c in units.CRITERIA
            for part in units.CRITERION_PERCENT_PARTS + units.CRITERION_POINTS_PARTS]


def _check_measures(exp: dict, key: str, source: str) -> None:
    """Tables and figures may only name measures that exist (a misspelt one would be dropped) and
    that the experiment's evaluation writes for the methods they show (another would be an empty
    column: :func:`sdcrisk.replication.render.select` keeps the rows of the measures named)."""
    known = known_measures()
    for kind in ("tables", "figures"):
        for name, spec in (exp.get(kind) or {}).items():
            for field in ("measures", "measure"):
                values = spec.get(field)
                if values is None:
                    continue
                values = values if isinstance(values, list) else [values]
                shown = [spec["method"]] if spec.get("method") in exp["methods"] else None
                computed = evaluation_measures(exp, shown)
                for i, m in enumerate(values):
                    at = f"{key}.{kind}.{name}.{field}" + (f"[{i}]" if isinstance(spec[field], list) else "")
                    if m not in known:
                        raise ConfigError(f"{source}: {at}: unknown measure {m!r}; known measures: {sorted(known)}")
                    if m not in computed:
                        of = f" for method {shown[0]!r}" if shown else ""
                        listed = [c for c in computed if not (c.endswith("_unconverged")
                                                              and c.removesuffix("_unconverged") in computed)]
                        also = " and each one's <name>_unconverged" if len(listed) < len(computed) else ""
                        raise ConfigError(f"{source}: {at}: measure {m!r} is never computed by the evaluation "
                                          f"{exp['evaluation']!r}{of}, so the {kind[:-1]} would lack it; "
                                          f"{exp['evaluation']!r} computes {listed}{also}")


def _check_unique_targets(cfg: dict, source: str) -> None:
    """Two experiments of one paper may not define the same table or figure id (one would overwrite
    the other's output)."""
    for kind in ("tables", "figures"):
        seen: dict[str, str] = {}
        for name, exp in cfg["experiments"].items():
            for t in exp.get(kind) or {}:
                target = f"{exp['paper']}_{t}"
                if target in seen:
                    raise ConfigError(f"{source}: experiments.{name}.{kind}.{t}: {kind[:-1]} id {t!r} of paper "
                                      f"{exp['paper']!r} is also defined by experiments.{seen[target]}.{kind}.{t}; "
                                      f"both would write {kind}/{target}.*")
                seen[target] = name


def _option_functions() -> dict:
    """Experiment options that are keyword arguments of a measure or attack -> that function."""
    from ..linkage.probabilistic import prl
    from ..measures.information_loss import il_components
    from ..measures.interval_disclosure import interval_disclosure_by_attribute
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


# ----------------------------------------------------------------------------- layering
NAMED_ENTRIES = ("datasets", "experiments")


def layer(base: dict, *layers: dict, sources: Sequence[str] = ()) -> dict:
    """``base`` with each of ``layers`` on top, in order (the Snakefile: the reference config, then
    every ``--configfile``, then ``--config``). A layer's ``datasets`` and ``experiments`` are added
    to those below; an entry with the name of one below replaces it whole (not key by key). Its
    ``plugins`` are appended (each once); any other key (``seed``, ``data_mirror``) replaces.
    ``sources`` name the layers in errors. Nothing is modified in place."""
    out = copy.deepcopy(base)
    for i, top in enumerate(layers):
        source = sources[i] if i < len(sources) else f"config layer {i + 1}"
        if not isinstance(top, dict):
            raise ConfigError(f"{source}: expected a mapping of config keys, got {type(top).__name__}")
        for key, value in copy.deepcopy(top).items():
            if key in NAMED_ENTRIES:
                if not isinstance(value, dict):
                    raise ConfigError(f"{source}: {key}: expected a mapping of names to entries, "
                                      f"got {type(value).__name__}")
                out[key] = {**(out.get(key) or {}), **value}
            elif key == "plugins":
                if not isinstance(value, list):
                    raise ConfigError(f"{source}: plugins: expected a list of modules or .py files, "
                                      f"got {type(value).__name__}")
                out[key] = list(dict.fromkeys([*(out.get(key) or []), *value]))
            else:
                out[key] = value
    return out


def layered(reference: str | os.PathLike, configfiles: Sequence[str | os.PathLike] = (),
            overrides: dict | None = None) -> dict:
    """The workflow's config (the Snakefile; ``sdcrisk check-config``): the ``reference`` config
    (config/config.yaml with the data sets of config/datasets.yaml beside it), then each of
    ``configfiles`` (:func:`read_layer`), then ``overrides`` (Snakemake's ``--config``), by :func:`layer`."""
    layers = [read_layer(f) for f in configfiles] + ([dict(overrides)] if overrides else [])
    sources = [str(f) for f in configfiles] + ["--config"]
    return layer(load(reference), *layers, sources=sources)


def read_layer(path: str | os.PathLike) -> dict:
    """One config file as a layer (:func:`layer`): read strictly (:func:`read_yaml`), its plugin
    files (``plugins:`` entries ending in ``.py``) made absolute against the file's directory. An
    empty file (or one of comments only) is refused, as Snakemake refuses it as a ``--configfile``
    ("Config file must be given as JSON or YAML with keys at top level"): ``sdcrisk check-config``
    would otherwise pass a file the workflow does not run with."""
    path = Path(path)
    cfg = read_yaml(path)
    if cfg is None:
        raise ConfigError(f"{path}: the config file is empty (no keys); expected a mapping of config keys, e.g. "
                          "'experiments: {...}' (Snakemake refuses an empty --configfile too)")
    if isinstance(cfg, dict) and isinstance(cfg.get("plugins"), list):
        cfg["plugins"] = [os.path.normpath(path.absolute().parent / p) if is_plugin_file(p) else p
                          for p in cfg["plugins"]]
    return cfg


# ----------------------------------------------------------------------------- plugins
# What each plugin module registered when it was loaded: module name -> {("method" | "attack", name)}.
_REGISTERED: dict[str, set[tuple[str, str]]] = {}
# The loaded plugins in load order: module name -> the plugin as listed (module name or .py file).
_LOADED: dict[str, str] = {}


def is_plugin_file(entry) -> bool:
    """A ``plugins:`` entry is a file (``*.py``) or the name of an importable module."""
    return isinstance(entry, str) and entry.endswith(".py")


def _registrations() -> set[tuple[str, str]]:
    from ..attacks import ATTACKS
    from ..masking.registry import METHODS

    return {("method", n) for n in METHODS} | {("attack", n) for n in ATTACKS}


def _import_plugin(entry: str) -> str:
    """Import one plugin and return its module name. A file (relative to the working directory) is
    loaded as a module named after it, once; a second file of that name is refused."""
    import importlib
    import importlib.util

    before = _registrations()
    if is_plugin_file(entry):
        path = Path(entry).absolute()
        name = path.stem
        loaded = sys.modules.get(name)
        if loaded is not None:
            if Path(getattr(loaded, "__file__", None) or "").absolute() != path:
                raise ImportError(f"module name {name!r} is taken by {getattr(loaded, '__file__', None) or loaded!r}; "
                                  "rename the file")
        elif not path.is_file():
            raise ImportError(f"no such file {path}")
        else:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
    else:
        name = importlib.import_module(entry).__name__
    _REGISTERED.setdefault(name, set()).update(_registrations() - before)
    _LOADED.setdefault(name, entry)
    return name


def load_plugins(cfg: dict, source: str = "config") -> None:
    """Import the plugins listed under ``plugins`` (they register masking methods or attacks on
    import): importable module names, or ``.py`` files relative to the working directory
    (:func:`read_layer` makes a config file's own relative to that file)."""
    for i, entry in enumerate(cfg.get("plugins", []) or []):
        try:
            _import_plugin(entry)
        except Exception as exc:  # ImportError, or the plugin's own code failing: name the entry
            raise ConfigError(f"{source}: plugins[{i}]: cannot import {entry!r} ({type(exc).__name__}: {exc})") from None


def _outside_package(func) -> str | None:
    name = getattr(func, "__module__", None) or ""
    return None if name == "sdcrisk" or name.startswith("sdcrisk.") else name


def cell_plugin_modules(method: str, settings: dict | None = None) -> list[str]:
    """The modules outside the package a cell's code comes from: those defining or registering its
    masking method and, for the attack matrix, the attacks it runs (``settings``: :func:`cell_settings`)."""
    from ..attacks import ATTACKS, matrix_attacks
    from ..masking import get_method

    settings = settings or {}
    used = {("method", method): get_method(method).func}
    if settings.get("evaluation") == "attack_matrix":
        used.update({("attack", a): ATTACKS[a] for a in matrix_attacks(settings.get("options") or {})})
    modules = {m for m, registered in _REGISTERED.items() if registered & set(used)}
    modules |= {m for m in map(_outside_package, used.values()) if m}
    return sorted(modules)


def cell_plugins(method: str, settings: dict | None = None) -> list[str]:
    """The plugins a cell's job loads (:func:`load_plugins`), as listed, in load order, files
    relative to the working directory: only those its method or attacks come from, so that listing
    or editing another plugin reruns no cell."""
    used = set(cell_plugin_modules(method, settings))
    return [os.path.relpath(entry) if is_plugin_file(entry) else entry
            for name, entry in _LOADED.items() if name in used]


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


def cell_batch_size(cfg: dict, source: str = "config") -> int:
    """Config key ``cell_batch``: cells per job (default 1, one job per cell); :class:`ConfigError`
    unless a whole number >= 1."""
    size = cfg.get("cell_batch", 1)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ConfigError(f"{source}: cell_batch: expected a whole number >= 1 of cells per job (1, the default: "
                          f"one job per cell; e.g. cell_batch=8 on a cluster), got {size!r}")
    return size


def cell_batches(cells: Sequence[Cell], size: int) -> list[list[Cell]]:
    """``cells`` as the batches of one job each when ``size`` cells may share a job (config key
    ``cell_batch``): every experiment's cells in as few batches as ``size`` allows, dealt out in
    turn (the i-th cell to batch i mod count), so that the batches are of near-equal lengths and
    mix data sets and methods, whose cells differ most in cost. A batch never mixes experiments,
    so editing one experiment reruns no batch of another."""
    by_experiment: dict[str, list[Cell]] = {}
    for c in cells:
        by_experiment.setdefault(c.experiment, []).append(c)
    out = []
    for group in by_experiment.values():
        count = -(-len(group) // size)
        out.extend(group[i::count] for i in range(count))
    return out


CELL_SETTINGS = ("evaluation", "replicates", "options")


def cell_settings(exp: dict) -> dict:
    """The part of an experiment a cell job reads (:func:`sdcrisk.replication.evaluation.run_cell`). The DAG
    passes only this as the job's params, so editing tables, figures or captions reruns no
    masking or linkage."""
    return {k: exp[k] for k in CELL_SETTINGS if k in exp}


def mirror(cfg: dict) -> str | None:
    """The data mirror directory: $SDCRISK_DATA_MIRROR, else config 'data_mirror', else None."""
    from ..data import MIRROR_ENV

    return os.environ.get(MIRROR_ENV) or cfg.get("data_mirror") or None
