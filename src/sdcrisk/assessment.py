"""Disclosure risk and information loss of a custodian's own original and masked files.

:func:`assess` runs every record-linkage attack of :data:`sdcrisk.attacks.KNOWN_ATTRIBUTE_ATTACKS`
(DBRL, RBRL-Sum, RBRL-Max, PRL, RS-RL, L-RL, GDBRL), interval disclosure (ID) and the
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
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from .attacks import ATTACKS, KNOWN_ATTRIBUTE_ATTACKS, run_attack
from .data import read_table
from .kernels import warm_in_background
from .linkage.probabilistic import ConvergenceWarning, prl
from .measures.information_loss import il_components
from .measures.interval_disclosure import interval_disclosure_by_attribute
from .measures.scenarios import ScenarioRangeError, scenario_range
from .measures.units import linkage_percent
from .resources import MemoryLimitError
from .validation import check_magnitude

COLUMNS = ["measure", "kind", "scenario", "known", "n_known", "n", "linked", "percent", "seconds", "note"]
RISK, LOSS = "disclosure risk", "information loss"
ATTACK_NAMES = {"DBRL": "DBRL", "RBRL-SUM": "RBRL-Sum", "RBRL-MAX": "RBRL-Max", "PRL": "PRL",
                "RS-RL": "RS-RL(p<=20%)", "RS-RL(P<=20%)": "RS-RL(p<=20%)", "L-RL": "L-RL(MA)",
                "L-RL(MA)": "L-RL(MA)", "GDBRL": "GDBRL", "ID": "ID"}
DEFAULT_ATTACKS = ("DBRL", "RBRL-Sum", "RBRL-Max", "PRL", "RS-RL(p<=20%)", "L-RL(MA)", "GDBRL", "ID")
CONCURRENT_MAX = 100_000  # records: up to this many, two attacks run at a time (_run_attacks)
START_ORDER = {"GDBRL": 0, "PRL": 2}  # the others 1 (_run_attacks)
READERS = {".csv": "csv", ".txt": "csv", ".parquet": "parquet", ".pq": "parquet"}


class AssessError(ValueError):
    """Bad input to :func:`assess` or ``sdcrisk assess``; the message names the file and field."""


# ----------------------------------------------------------------------------- reading and pairing
def read_file(path: str | Path) -> pd.DataFrame:
    """Read a CSV (header row, comma-separated) or parquet file, with a clear error when it
    cannot be read, is empty or has a header but no records."""
    path = Path(path)
    kind = READERS.get(path.suffix.lower())
    if kind is None:
        raise AssessError(f"{path}: unknown file type {path.suffix!r}; expected .csv or .parquet")
    if not path.is_file():
        raise AssessError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise AssessError(f"{path}: the file is empty; expected a header row and at least 2 records")
    try:
        table = pd.read_csv(path) if kind == "csv" else read_table(path)
    except Exception as exc:  # parser, decoding, permission, corrupt parquet: one message
        raise AssessError(f"{path}: cannot be read as {kind} ({type(exc).__name__}: {exc})") from None
    if table.shape[0] == 0:
        raise AssessError(f"{path}: has a header but no records; expected at least 2 records")
    table.columns = [str(c) for c in table.columns]
    return table


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


def pair_files(original: pd.DataFrame, masked: pd.DataFrame, id: str | None = None,
               names: tuple[str, str] = ("original", "masked")) -> tuple[np.ndarray, np.ndarray, list[str], str]:
    """Check both tables and return ``(x, y, columns, pairing)``: the attribute values of the
    original, the masked values in the original's record order, the attribute names, and how
    records were paired ("id column 'c'" or "row order")."""
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
    if not cols:
        raise AssessError(f"{no}: no attribute columns besides the id")
    if len(original) < 2:
        raise AssessError(f"{no}: has {len(original)} record(s); expected at least 2")
    if len(original) != len(masked):
        raise AssessError(f"{no} has {len(original)} records and {nm} {len(masked)}; the masked file must "
                          "hold one record per original record")
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
    x = _numeric(original, no, cols, allow_constant=False)
    y = _numeric(masked, nm, cols, allow_constant=True)
    return x, y, cols, pairing


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
    """Canonical names of the requested measures (default: every attack and ID)."""
    if attacks is None:
        return list(DEFAULT_ATTACKS)
    out = []
    for a in attacks:
        name = ATTACK_NAMES.get(str(a).strip().upper(), str(a).strip())
        if name not in DEFAULT_ATTACKS and name not in ATTACKS:
            raise AssessError(f"attacks: unknown attack {a!r}; choose from {', '.join(DEFAULT_ATTACKS)}")
        if name not in out:
            out.append(name)
    if not out:
        raise AssessError(f"attacks: none given; choose from {', '.join(DEFAULT_ATTACKS)}")
    return out


def _pairs_closer_than_chance(x: np.ndarray, y: np.ndarray, perm: np.ndarray) -> bool:
    """Whether paired records are closer (standardised squared distance, mean over records)
    than the records of a random pairing ``perm``: a check that row order does pair them."""
    sd = x.std(axis=0)
    xs, ys = x / sd, y / sd
    paired = np.mean(((xs - ys) ** 2).sum(axis=1))
    shuffled = np.mean(((xs - ys[perm]) ** 2).sum(axis=1))
    return paired < 0.9 * shuffled


def _scenario_label(cols: list[int], columns: list[str]) -> str:
    return "all" if len(cols) == len(columns) else f"first {len(cols)}" if cols == list(range(len(cols))) \
        else "given"


def _attack_row(name, x, y, perm, cols, seed, prl_candidates=None) -> tuple[float, float, str, float]:
    """(linked, percent, note, seconds) of one attack; the masked file is seen in order ``perm``."""
    rng = np.random.Generator(np.random.PCG64(seed))
    t0 = time.perf_counter()
    try:
        if name == "PRL" and prl_candidates is not None:
            res = prl(x, y[perm], known=np.asarray(cols), rng=rng, max_candidates=prl_candidates)
        else:
            res = run_attack(name, x, y[perm], np.asarray(cols), 2, rng)
    except MemoryLimitError as exc:
        hint = " (sdcrisk assess: --prl-candidates K)" if name == "PRL" else ""
        return math.nan, math.nan, f"not run: {exc}{hint}", time.perf_counter() - t0
    seconds = time.perf_counter() - t0
    links = res.links
    linked = int(np.sum((links >= 0) & (perm[np.maximum(links, 0)] == np.arange(links.size))))
    notes = []
    if res.info.get("converged") is False:
        notes.append(f"EM did not converge in {res.info['iterations']} iterations; the weights may be unreliable")
    if res.info.get("solver") == "sparse":
        notes.append(f"sparse assignment on {res.info['candidates']} nearest candidates")
    if res.info.get("truncated"):
        notes.append(f"assignment on each record's {prl_candidates} best candidates "
                     f"({res.info['truncated']} record(s) had more)")
    return linked, linkage_percent(linked, x.shape[0]), "; ".join(notes), seconds


def _run_attacks(tasks, x, y, perm, seed, say, prl_candidates=None):
    """Results of the attacks ``tasks`` ([(name, cols)]), in order. Up to :data:`CONCURRENT_MAX`
    records two run at a time (threads: the kernels, scipy's assignment solver and numba's
    compiler release the GIL for much of their time, so on a 2-core machine a slow attack overlaps
    the others); above it one at a time, each using every core and the memory the machine has
    (each attack checks that before a big allocation). On first use after an install PRL's
    kernels are compiled in a second process meanwhile (:mod:`sdcrisk.kernels`)."""
    steps = len(tasks)
    done = []
    warmup = warm_in_background({name for name, _ in tasks})

    def one(k):
        name, cols = tasks[k]
        warmup.wait(name)
        out = _attack_row(name, x, y, perm, cols, seed, prl_candidates)
        done.append(k)
        say(f"[{len(done)}/{steps}] {name}, {len(cols)} known attribute(s): {out[3]:.1f} s")
        return out

    with warnings.catch_warnings():  # a non-converged EM is reported in the note instead
        warnings.simplefilter("ignore", ConvergenceWarning)
        # GDBRL first: its exact assignment runs seconds in scipy's solver without the GIL, beside
        # the others; PRL last, when its kernels are compiled
        order = sorted(range(steps), key=lambda k: START_ORDER.get(tasks[k][0], 1))
        if x.shape[0] > CONCURRENT_MAX or steps < 2:
            results = {k: one(k) for k in order}
            return [results[k] for k in range(steps)]
        with ThreadPoolExecutor(2) as pool:
            futures = {k: pool.submit(one, k) for k in order}
            return [futures[k].result() for k in range(steps)]


def assess(original, masked, *, id: str | None = None, known: Sequence[str] | None = None,
           scenarios: str | None = None, attacks: Sequence[str] | None = None, information_loss: bool = True,
           seed: int = 0, progress: Callable[[str], None] | None = None,
           names: tuple[str, str] = ("original", "masked"), prl_candidates: int | None = None) -> pd.DataFrame:
    """Disclosure risk of every attack and the information loss of ``masked`` against ``original``.

    ``original`` and ``masked`` are pandas DataFrames with the same attribute columns (plus the
    ``id`` column when given), or paths of CSV / parquet files. Returns one row per measure and
    scenario with :data:`COLUMNS`: ``measure`` (attack, ``ID``, ``IL`` or ``IL1``..``IL5``),
    ``kind`` ("disclosure risk" / "information loss"), ``scenario`` and ``known`` (the known
    attributes, comma-separated), ``n_known``, ``n`` records, ``linked`` (correct links),
    ``percent`` (units in the module docstring), ``seconds`` (wall time; two attacks share the
    machine on files up to :data:`CONCURRENT_MAX` records) and ``note`` (e.g. an EM that did not
    converge). ``attrs["pairing"]`` says how records were paired. ``prl_candidates=K`` gives PRL's
    assignment only each record's K best candidates (:func:`sdcrisk.linkage.prl`'s
    ``max_candidates``), for files whose full candidate graph exceeds the memory limit.
    """
    say = progress or (lambda message: None)
    if isinstance(original, (str, Path)):
        names = (str(original), names[1])
        original = read_file(original)
    if isinstance(masked, (str, Path)):
        names = (names[0], str(masked))
        masked = read_file(masked)
    if prl_candidates is not None and (isinstance(prl_candidates, bool) or not isinstance(prl_candidates, int)
                                       or prl_candidates < 1):
        raise AssessError(f"prl_candidates: expected a whole number >= 1, got {prl_candidates!r}")
    x, y, columns, pairing = pair_files(original, masked, id, names)
    sets = scenarios_from(columns, known, scenarios)
    todo = attack_names(attacks)
    n = x.shape[0]
    perm = np.random.Generator(np.random.PCG64(seed)).permutation(n)
    warnings_out = [] if id is not None or _pairs_closer_than_chance(x, y, perm) else [
        "records paired by row order are no closer than random pairs: the masked rows may be in another "
        "order than the original's; give the id column (--id) if the files have one"]
    for w in warnings_out:
        say(f"warning: {w}")
    rows = []
    id_by_attribute = None
    tasks = []
    for cols in sets:
        label, known_names = _scenario_label(cols, columns), ",".join(columns[c] for c in cols)
        for name in todo:
            if name == "ID":
                t0 = time.perf_counter()
                if id_by_attribute is None:
                    id_by_attribute = interval_disclosure_by_attribute(x, y)
                value = float(id_by_attribute[cols].mean())
                rows.append(("ID", RISK, label, known_names, len(cols), n, math.nan, value,
                             time.perf_counter() - t0, ""))
            else:
                rows.append((name, RISK, label, known_names, len(cols), n))
                tasks.append((name, cols))
    say(f"{len(tasks)} attack(s) on {n} records")
    results = iter(_run_attacks(tasks, x, y, perm, seed, say, prl_candidates))
    for k, r in enumerate(rows):
        if len(r) == 6:  # an attack's row: linked, percent, seconds, note
            linked, pct, note, seconds = next(results)
            rows[k] = (*r, linked, pct, seconds, note)
    if information_loss:
        say("information loss")
        t0 = time.perf_counter()
        parts = 100.0 * il_components(x, y)
        seconds = time.perf_counter() - t0
        for k, value in enumerate(parts, start=1):
            rows.append((f"IL{k}", LOSS, "", "", 0, n, math.nan, float(value), seconds, ""))
        rows.append(("IL", LOSS, "", "", 0, n, math.nan, float(parts.mean()), seconds,
                     "IL = (IL1 + ... + IL5) / 5, mean relative errors in percent; not bounded by 100"))
    out = pd.DataFrame(rows, columns=COLUMNS)
    out["linked"] = out["linked"].astype("Int64")
    out.attrs["pairing"] = pairing
    out.attrs["warnings"] = warnings_out
    out.attrs["files"] = {"original": names[0], "masked": names[1]}
    return out


__all__ = ["assess", "AssessError", "read_file", "pair_files", "scenarios_from", "attack_names",
           "DEFAULT_ATTACKS", "COLUMNS"]
