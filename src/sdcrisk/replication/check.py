"""Aggregation over replicates and the replication check (published vs regenerated).

Status of a published cell (:func:`status`):

* ``match``: within the published rounding (half a unit of the last printed digit); for a
  randomised cell also within two combined standard errors, ``2 sd sqrt(1/n + 1/n_paper)``,
  provided the difference is inside the absolute bound below, so a ``match`` is always within it.
  ``n_paper`` is the paper's replicate count (:func:`paper_replicates`: stated by Muralidhar &
  Domingo-Ferrer (2016), unknown for the others and taken as our own n);
* ``close``: within the absolute bound, 1 point (percentages, scores, IL) or 1 % of the file's n
  (record counts), *and* at most 20 % off the published value (:data:`CLOSE_RELATIVE`);
* ``unconverged``: a value built on PRL (PLD and the scores containing it, :data:`USES_PRL`) of a
  cell where some EM fit did not converge: not compared, counted apart in every summary;
* ``differs``: anything else; ``missing``: no regenerated value (must never happen).

Text claims about the best value of a sweep (``min_eq``, ``min_in``) compare the minimum of our
cell means with the paper's minimum. Both are minima of noisy means and so biased low; the rule
text gives an upper bound on our bias (:func:`min_selection_bias`), nothing is corrected. A claim
that values exceed a bound (``gt``) is no published value but a bound: it matches when every
regenerated value of its cells exceeds the bound, whatever the distance, is close when the
smallest is at most 1 point below it, and differs otherwise; a claim that *only* its cells exceed
the bound (``gt_only``) also needs every other cell of the same sweep (data set, method, measure)
to stay at or below it (:func:`exceeds_only`). :data:`STATUS_RULES` states the rules once for
every document that shows them.

Each row is also a ``calibration`` or a ``held-out`` row: calibration rows are those any open
choice of the replication was chosen on, or any research script compared with
(:func:`calibration_split`, from the ``# compares:`` line of every evidence file that
``docs/calibration.yaml`` names); the agreement is reported for both groups separately. Every
``differs`` row is pinned with its cause in ``docs/differing_cells.csv`` (:func:`explain`): a
row that starts or stops differing is reported, so a regression cannot pass unnoticed.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ..data import atomic_write, read_table

KEYS = ["dataset", "method", "param", "known", "measure"]
#: the columns that identify a row of the check (a published cell or a text claim)
ROW_KEY = ["kind", "paper", "table", "dataset", "method", "param", "known", "measure"]
#: replicate counts per paper (``{paper: (count, source)}``); :func:`paper_replicates`
PAPER_REPLICATES = {"muralidhar2016_rank_rl": (100, "stated (Sec. 4: 100 maskings per cell)")}
#: ``close`` needs the absolute bound and at most this relative deviation from the published value
CLOSE_RELATIVE = 0.20
#: measures built on PRL's linkage rate PLD (scores per Nin, Herranz & Torra (2007, 2008))
USES_PRL = frozenset({"PLD", "Score", "Score1", "Score2", "Score_RSLD", "ScoreNew", "ScoreMax"})
OK_STATUSES = ("match", "close")
STATUSES = ("match", "close", "differs", "unconverged", "missing")


def write_shapes(paths: dict, out_json) -> None:
    """``{data set: [records n, attributes m]}`` of the processed parquet files (from their
    metadata) as JSON: the check's n for record counts and m for "half of the attributes"."""
    import pyarrow.parquet as pq

    shapes = {name: [pq.ParquetFile(path).metadata.num_rows, pq.ParquetFile(path).metadata.num_columns]
              for name, path in paths.items()}
    atomic_write(out_json, lambda p: Path(p).write_text(json.dumps(shapes, indent=1, sort_keys=True) + "\n"))


def read_shapes(path) -> dict[str, tuple[int, int]]:
    """The shapes written by :func:`write_shapes`."""
    return {name: tuple(nm) for name, nm in json.loads(Path(path).read_text()).items()}


# ----------------------------------------------------------------------------- targets
def table_targets(cfg: dict) -> dict[str, tuple[str, str]]:
    """``{"{paper}_{table}": (experiment, table)}`` for every table of every experiment."""
    out = {}
    for name, exp in cfg["experiments"].items():
        for t in exp.get("tables", {}):
            out[f"{exp['paper']}_{t}"] = (name, t)
    return out


def figure_targets(cfg: dict) -> dict[str, tuple[str, str]]:
    out = {}
    for name, exp in cfg["experiments"].items():
        for f in exp.get("figures", {}) or {}:
            out[f"{exp['paper']}_{f}"] = (name, f)
    return out


# ----------------------------------------------------------------------------- aggregation
def aggregate_cells(paths, cells) -> pd.DataFrame:
    """Mean, sd (ddof=1; 0 for one replicate) and n per (cell, known, measure), in sweep order."""
    frames = []
    for order, (path, cell) in enumerate(zip(paths, cells)):
        rows = read_table(path)
        g = rows.groupby(["known", "measure"], sort=False)["value"]
        agg = pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1).fillna(0.0), "n": g.size()}).reset_index()
        agg.insert(0, "param", cell.label)
        agg.insert(0, "method", cell.method)
        agg.insert(0, "dataset", cell.dataset)
        agg.insert(0, "experiment", cell.experiment)
        agg["order"] = order
        frames.append(agg)
    out = pd.concat(frames, ignore_index=True)
    out["known"] = out["known"].astype(str)
    return out[["experiment", "dataset", "method", "param", "known", "measure", "mean", "sd", "n", "order"]]


def read_aggregated(paths) -> pd.DataFrame:
    frames = [pd.read_csv(p, dtype={"known": str, "param": str}, keep_default_na=False) for p in paths]
    return pd.concat(frames, ignore_index=True)


# ----------------------------------------------------------------------------- status
def _decimals(text: str) -> int:
    text = str(text).strip()
    return len(text.split(".")[1]) if "." in text else 0


def paper_replicates(paper: str) -> tuple[int | None, str]:
    """The paper's replicate count per randomised cell and where it comes from (``None``: not
    stated, the check then takes our own count)."""
    return PAPER_REPLICATES.get(paper, (None, "not stated; taken as ours"))


def absolute_bound(unit: str, n_records: int | None) -> tuple[float, str]:
    """The absolute bound of ``close`` and ``match``: 1 % of n for record counts, else 1 point."""
    if unit == "records" and n_records:
        return 0.01 * n_records, "1% of n records"
    return 1.0, "1 point"


def status(published: float, decimals: int, mean: float, sd: float, n: int, n_paper: int | None,
           unit: str, n_records: int | None) -> tuple[str, str]:
    """Status and the rule that decided it (module docstring)."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "missing", "no regenerated value"
    diff = abs(mean - published)
    half_unit = 0.5 * 10.0 ** (-decimals)
    if diff <= half_unit + 1e-9:
        return "match", "within published rounding"
    bound, bound_text = absolute_bound(unit, n_records)
    if diff > bound:
        return "differs", f"outside {bound_text}"
    if n > 1 and sd > 0 and diff <= 2 * sd * math.sqrt(1.0 / n + 1.0 / (n_paper or n)) + half_unit:
        return "match", f"within 2 combined standard errors and {bound_text}"
    if diff <= CLOSE_RELATIVE * abs(published):
        return "close", f"within {bound_text} and {CLOSE_RELATIVE:.0%}"
    return "differs", f"within {bound_text} but more than {CLOSE_RELATIVE:.0%} off"


def min_selection_bias(k: int, se: float) -> float:
    """Upper bound on how far the minimum of ``k`` cell means, each with standard error ``se``,
    falls below the smallest true mean on average: ``se * E[max of k standard normals]`` (equal
    true means are the worst case)."""
    from scipy import integrate, stats

    if k < 2 or not se > 0:
        return 0.0
    e_max, _ = integrate.quad(lambda x: x * k * stats.norm.pdf(x) * stats.norm.cdf(x) ** (k - 1), -12, 12)
    return float(se * e_max)


def _lookup(agg: pd.DataFrame, cfg: dict, paper: str, table: str | None) -> pd.DataFrame:
    exps = [n for n, e in cfg["experiments"].items() if e["paper"] == paper and (table is None or table in e.get("tables", {}))]
    return agg[agg["experiment"].isin(exps)]


def unconverged_fits(cells: pd.DataFrame) -> float:
    """PRL fits that did not converge, summed over the replicates of ``cells`` (rows of one
    regenerated cell: the measure ``PRL_unconverged`` is a mean per replicate)."""
    u = cells[cells.measure == "PRL_unconverged"]
    return float((u["mean"] * u["n"]).sum())


def unconverged_status(measure: str, cells: pd.DataFrame, computed: tuple[str, str]) -> tuple[str, str]:
    """``computed``, or ``unconverged`` for a PRL-based measure of a cell with failed EM fits."""
    fits = unconverged_fits(cells) if measure in USES_PRL else 0.0
    if fits > 0:
        return "unconverged", f"{fits:g} PRL fits did not converge (else: {computed[0]}, {computed[1]})"
    return computed


def check_values(agg: pd.DataFrame, published: pd.DataFrame, cfg: dict, shapes: dict) -> pd.DataFrame:
    """One row per published cell; ``shapes``: :func:`read_shapes` (n for record counts)."""
    rows = []
    for _, p in published.iterrows():
        sub = _lookup(agg, cfg, p["paper"], p["table"])
        known = "" if p["known"] in ("", "nan") else str(p["known"])
        cell = sub[(sub.dataset == p["dataset"]) & (sub.method == p["method"]) & (sub.param == str(p["param"]))]
        hit = cell[(cell.known == known) & (cell.measure == p["measure"])]
        value = float(p["value"])
        if hit.empty:
            mean, sd, n = float("nan"), float("nan"), 0
        else:
            h = hit.iloc[0]
            mean, sd, n = float(h["mean"]), float(h["sd"]), int(h["n"])
        st, rule = status(value, _decimals(p["value"]), mean, sd, n, paper_replicates(p["paper"])[0],
                          p["unit"], shapes.get(p["dataset"], (None, None))[0])
        if st != "missing":
            st, rule = unconverged_status(p["measure"], cell, (st, rule))
        rows.append({"kind": "cell", "paper": p["paper"], "table": p["table"], "dataset": p["dataset"],
                     "method": p["method"], "param": p["param"], "known": known, "measure": p["measure"],
                     "published": value, "published_hi": np.nan, "op": "eq", "mean": mean, "sd": sd, "n": n,
                     "difference": mean - value, "status": st, "rule": rule})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- claims
def _claim_values(agg: pd.DataFrame, cfg: dict, c, m: int | None) -> pd.DataFrame:
    sub = _lookup(agg, cfg, c["paper"], None)
    sub = sub[(sub.dataset == c["dataset"]) & (sub.method == c["method"])]
    measure = c["measure"]
    if measure == "ProLD":  # Nin, Herranz & Torra (2008, multivariate microaggregation) text: the projected linkage with the better projection
        measure = ["ProLD_PCP", "ProLD_Zscore"]
    sub = sub[sub.measure.isin(measure if isinstance(measure, list) else [measure])]
    known = str(c["known"])
    if known in ("half", "groups"):
        sub = sub[sub.known.isin(["", "half", "groups"])] if (sub.known.isin(["", "half", "groups"])).any() \
            else sub[sub.known == str(math.ceil(m / 2))]
    elif known == "all":
        sub = sub[sub.known.isin(["all", str(m)])]
    elif known == "3 or 4":
        sub = sub[sub.known.isin(["3", "4"])]
    param = str(c["param"])
    if param.startswith("best over") or param in ("",):
        return sub
    if "=" in param and ".." in param:  # p=2..10
        lo, hi = param.split("=")[1].split("..")
        keep = [s for s in sub.param.unique() if s.replace("p=", "").isdigit() and float(lo) <= float(s) <= float(hi)]
        return sub[sub.param.isin(keep)]
    for cand in (param, param.split("=")[-1] if param.startswith("p=") else param):
        hit = sub[sub.param == cand]
        if not hit.empty:
            return hit
    return sub.iloc[0:0]


def exceeds_only(agg: pd.DataFrame, cfg: dict, c, vals: pd.DataFrame, value: float) -> pd.DataFrame:
    """The cells that contradict a ``gt_only`` claim: every other cell of the claim's sweep (its
    paper, data set, method and measure; per number of known attributes, not the averaged rows)
    whose mean exceeds ``value``. ``vals``: the claim's own cells (:func:`_claim_values`)."""
    sub = _lookup(agg, cfg, c["paper"], None)
    sub = sub[(sub.dataset == c["dataset"]) & (sub.method == c["method"]) & (sub.measure == c["measure"])
              & sub.known.str.isdigit()]
    sub = sub.drop(index=vals.index, errors="ignore")
    return sub[sub["mean"] > value]


def _only_part(agg: pd.DataFrame, cfg: dict, c, vals: pd.DataFrame, value: float, st: str,
               rule: str) -> tuple[str, str]:
    """Status and rule of a ``gt_only`` claim from those of its ``gt`` part: ``differs``, with the
    contradicting cells named, when any other cell of the sweep exceeds ``value``."""
    others = exceeds_only(agg, cfg, c, vals, value)
    if others.empty:
        return st, rule + f"; 'only' holds: no other cell exceeds {value:g}"
    worst = others.loc[others["mean"].idxmax()]
    return "differs", (f"{rule}; 'only' fails: {len(others)} other cells exceed {value:g} (largest "
                       f"{_param_label(worst['param'])}, {worst['known']} known: {worst['mean']:.1f}; "
                       f"{', '.join(_cells_by_param(others))})")


def _cells_by_param(cells: pd.DataFrame) -> list[str]:
    """``"p=4: 4-13 known"``-style summaries of ``cells`` per param, in sweep order."""
    out = []
    for param, g in cells.sort_values("order", kind="stable").groupby("param", sort=False):
        known = sorted(int(k) for k in g.known)
        span = (str(known[0]) if len(known) == 1 else f"{known[0]}-{known[-1]}"
                if known == list(range(known[0], known[-1] + 1)) else ",".join(map(str, known)))
        out.append(f"{_param_label(param)}: {span} known")
    return out


def _param_label(param) -> str:
    """A cell's param as the claims write it (``p=2`` for the bare ``2`` of a rank-swapping sweep)."""
    return str(param) if "=" in str(param) or not str(param).isdigit() else f"p={param}"


def check_claims(agg: pd.DataFrame, claims: pd.DataFrame, cfg: dict, shapes: dict) -> pd.DataFrame:
    """One row per text claim; ``shapes``: :func:`read_shapes` (m for "half of the attributes")."""
    rows = []
    for _, c in claims.iterrows():
        n_records, m = shapes.get(c["dataset"], (None, None))
        vals = _claim_values(agg, cfg, c, m)
        value, op = float(c["value"]), c["op"]
        hi = float(c["value_hi"]) if str(c["value_hi"]) not in ("", "nan") else np.nan
        if vals.empty:
            regenerated, st, rule, sd, n = np.nan, "missing", "no regenerated value", np.nan, 0
        else:
            means = vals["mean"].to_numpy(float)
            if op in ("min_eq", "min_in"):
                i = int(np.argmin(means))
            elif op in ("gt", "gt_only"):
                i = int(np.argmin(means))  # the claim holds when even the smallest value exceeds
            else:
                i = int(np.argmax(means)) if len(means) > 1 else 0
            regenerated, sd, n = float(means[i]), float(vals["sd"].iloc[i]), int(vals["n"].iloc[i])
            if op in ("gt", "gt_only"):
                st = "match" if regenerated > value else ("close" if regenerated > value - 1.0 else "differs")
                rule = "claim 'exceeds' holds for every value" if st == "match" else "claim 'exceeds' fails"
                if op == "gt_only":
                    st, rule = _only_part(agg, cfg, c, vals, value, st, rule)
            elif op == "min_in" and value <= regenerated <= hi:
                st, rule = "match", "minimum inside the published range"
            else:
                target = min(max(regenerated, value), hi) if op == "min_in" else value
                st, rule = status(target, 2 if op == "min_in" else _decimals(c["value"]), regenerated, sd, n,
                                  paper_replicates(c["paper"])[0],
                                  "records" if "count" in c["measure"] else "percent", n_records)
            if op in ("min_eq", "min_in") and len(means) > 1:
                bias = min_selection_bias(len(means), sd / math.sqrt(n) if n else 0.0)
                rule += (f"; minimum over {len(means)} cells, both sides biased low by selection "
                         f"(ours by at most {bias:.2f}), not corrected")
            sel = vals.iloc[i]
            cell = agg[(agg.experiment == sel["experiment"]) & (agg.dataset == sel["dataset"])
                       & (agg.method == sel["method"]) & (agg.param == sel["param"])]
            if st != "missing":
                st, rule = unconverged_status(c["measure"], cell, (st, rule))
        rows.append({"kind": "claim", "paper": c["paper"], "table": c["where"], "dataset": c["dataset"],
                     "method": c["method"], "param": c["param"], "known": c["known"], "measure": c["measure"],
                     "published": value, "published_hi": hi, "op": op, "mean": regenerated, "sd": sd, "n": n,
                     "difference": regenerated - value, "status": st, "rule": rule})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- criteria
EXPLANATIONS_FILE = "REPLICATION.md"
UNEXPLAINED = "unexplained"
CALIBRATION, HELD_OUT = "calibration", "held-out"
_WHERE_KEYS = {"paper": "paper", "tables": "table", "datasets": "dataset", "methods": "method",
               "measures": "measure"}


def _read_yaml(path) -> object:
    """The parsed YAML file ``path``; ValueError naming it when it cannot be read or parsed."""
    import yaml

    try:
        return yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot read ({exc})") from exc


def _read_yaml_list(path, key: str, doc=None) -> list:
    """The non-empty list under ``key`` of the YAML file ``path`` (or of its parsed ``doc``)."""
    doc = _read_yaml(path) if doc is None else doc
    items = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise ValueError(f"{path}: expected a non-empty list under {key!r}")
    return items


def _criteria(path, where_name: str, i: int, entry_id: str, where, allow_empty: bool = False) -> list[dict]:
    """A ``where`` value (one criterion or a list of them) checked and returned as a list.
    Criterion keys: ``paper`` (one name), ``tables``, ``datasets``, ``methods``, ``measures`` (lists)."""
    crit = [where] if isinstance(where, dict) else where
    if not isinstance(crit, list) or (not crit and not allow_empty):
        raise ValueError(f"{path}: {where_name}[{i}] ({entry_id}): where must be a criterion or a "
                         f"{'' if allow_empty else 'non-empty '}list of criteria")
    for c in crit:
        bad = sorted(set(c) - set(_WHERE_KEYS)) if isinstance(c, dict) else ["(not a mapping)"]
        lists_ok = isinstance(c, dict) and all(isinstance(c[k], list) for k in c if k != "paper")
        if bad or not c or not lists_ok or not isinstance(c.get("paper", ""), str):
            raise ValueError(f"{path}: {where_name}[{i}] ({entry_id}): a where criterion needs keys among "
                             f"{sorted(_WHERE_KEYS)} (paper a name, the others lists), got {c!r}")
    return crit


def matches(result: pd.DataFrame, crit: list[dict]) -> pd.Series:
    """Rows of the check that any of the criteria ``crit`` selects."""
    hit = pd.Series(False, index=result.index)
    for c in crit:
        one = pd.Series(True, index=result.index)
        for key, col in _WHERE_KEYS.items():
            if key in c:
                vals = [c[key]] if key == "paper" else c[key]
                one &= result[col].astype(str).isin([str(v) for v in vals])
        hit |= one
    return hit


# ----------------------------------------------------------------------------- calibration
DECLARATION = "# compares:"
DIAGNOSTICS = "diagnostics"


def declared_criteria(path) -> list[dict]:
    """The published rows an evidence file compares with: its one line ``# compares: [...]``, a
    YAML list of criteria as in :func:`matches` (``[]``: none). Raises ValueError naming the file."""
    import yaml

    path = Path(path)
    try:
        lines = [ln.strip() for ln in path.read_text().splitlines() if ln.strip().startswith(DECLARATION)]
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the evidence file ({exc.strerror})") from None
    if len(lines) != 1:
        raise ValueError(f"{path}: expected exactly one line '{DECLARATION} [criteria]', found {len(lines)}")
    try:
        crit = yaml.safe_load(lines[0][len(DECLARATION):])
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: the '{DECLARATION}' line is not YAML ({exc})") from None
    return _criteria(path, "compares", 0, DECLARATION, crit, allow_empty=True)


def load_calibration(path, root=None) -> list[dict]:
    """Read ``docs/calibration.yaml``: a list ``choices`` of ``{id, choice, section, evidence}``,
    one per open choice of the replication, ``evidence`` the files (research scripts, or a module
    whose comment records a comparison; paths from ``root``, default the repository holding
    ``path``) that compared alternatives with published values; and ``diagnostics``, the files that
    compared with published values only to explain a difference. Each choice's ``calibrated_on``
    is derived from its files' :func:`declared_criteria`; the diagnostics become one more entry
    (id ``diagnostics``), since the rows they looked at are not held-out either. Raises
    ValueError naming the file and the bad entry."""
    root = Path(root) if root is not None else Path(path).resolve().parents[1]
    doc = _read_yaml(path)
    out = []
    for i, c in enumerate(_read_yaml_list(path, "choices", doc)):
        if not isinstance(c, dict) or not all(isinstance(c.get(k), str) for k in ("id", "choice", "section")) \
                or not isinstance(c.get("evidence"), list):
            raise ValueError(f"{path}: choices[{i}] needs id, choice, section (text) and evidence "
                             "(a list of files, [] for none)")
        if any(o["id"] == c["id"] for o in out):
            raise ValueError(f"{path}: choices[{i}]: id {c['id']!r} used twice")
        out.append(c)
    diagnostics = doc.get(DIAGNOSTICS, [])
    if not isinstance(diagnostics, list):
        raise ValueError(f"{path}: {DIAGNOSTICS} must be a list of files")
    out.append({"id": DIAGNOSTICS, "choice": "none: compared with published values to explain differences",
                "section": "research/README.md", "evidence": diagnostics})
    return [{**c, "calibrated_on": [crit for f in c["evidence"] for crit in declared_criteria(root / f)]}
            for c in out]


def evidence_files(path, root=None) -> list[Path]:
    """Every file ``docs/calibration.yaml`` names (choices' evidence and the diagnostics)."""
    root = Path(root) if root is not None else Path(path).resolve().parents[1]
    return sorted({root / f for c in load_calibration(path, root) for f in c["evidence"]})


def calibration_split(result: pd.DataFrame, choices: list[dict]) -> tuple[pd.Series, pd.Series]:
    """``(split, calibrated_by)``: ``calibration`` for a row some open choice was chosen on or a
    diagnostic script compared with (the ids in ``calibrated_by``), ``held-out`` for every other row."""
    by = pd.Series("", index=result.index, dtype=object)
    for c in choices:
        hit = matches(result, c["calibrated_on"])
        by[hit] = by[hit].map(lambda s, i=c["id"]: f"{s} {i}".strip())
    return by.map(lambda s: CALIBRATION if s else HELD_OUT), by


# ----------------------------------------------------------------------------- explanations
def load_explanations(path) -> list[dict]:
    """Read the known-differences file (``docs/known_differences.yaml``): a list ``groups`` of
    ``{id, section, title, where}``; ``where`` (one criterion or a list) is the scope in which
    :func:`propose_pins` assigns the group to a newly differing row. Raises ValueError naming the
    file and the bad entry."""
    out = []
    for i, g in enumerate(_read_yaml_list(path, "groups")):
        if (not isinstance(g, dict) or not isinstance(g.get("id"), str) or not isinstance(g.get("title"), str)
                or not isinstance(g.get("section"), int) or "where" not in g):
            raise ValueError(f"{path}: groups[{i}] needs id (text), section (integer), title (text) and where "
                             "(a criterion or a non-empty list of criteria)")
        crit = _criteria(path, "groups", i, g["id"], g["where"])
        if any(o["id"] == g["id"] for o in out):
            raise ValueError(f"{path}: groups[{i}]: id {g['id']!r} used twice (list its criteria under one where)")
        out.append({**g, "where": crit})
    return out


def _key(df: pd.DataFrame) -> pd.Series:
    return df[ROW_KEY].astype(str).agg("|".join, axis=1)


def read_pins(path) -> pd.DataFrame:
    """The pinned differing rows (``docs/differing_cells.csv``): :data:`ROW_KEY` columns and ``cause``."""
    pins = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = sorted(set(ROW_KEY + ["cause"]) - set(pins.columns))
    if missing:
        raise ValueError(f"{path}: missing columns {missing}; expected {ROW_KEY + ['cause']}")
    if _key(pins).duplicated().any():
        raise ValueError(f"{path}: a row is pinned twice: {_key(pins)[_key(pins).duplicated()].iloc[0]}")
    return pins


def explain(result: pd.DataFrame, pins: pd.DataFrame) -> pd.Series:
    """The pinned cause of each ``differs`` / ``missing`` row, ``""`` for rows that match or are
    close, :data:`UNEXPLAINED` for a differing row that is not pinned (a regression, or a change
    whose cause has not been recorded)."""
    cause = dict(zip(_key(pins), pins["cause"]))
    out = _key(result).map(lambda k: cause.get(k, UNEXPLAINED))
    return out.where(result.status.isin(["differs", "missing"]), "")


def stale_pins(result: pd.DataFrame, pins: pd.DataFrame) -> pd.DataFrame:
    """Pinned rows that no longer differ (or no longer exist): the pin list needs updating."""
    differing = set(_key(result[result.status.isin(["differs", "missing"])]))
    return pins[~_key(pins).isin(differing)]


def propose_pins(result: pd.DataFrame, groups: list[dict], pins: pd.DataFrame | None = None) -> pd.DataFrame:
    """A new pin list for the differing rows of ``result``: the cause pinned before where there is
    one, else the first group whose scope (``where``) covers the row, else :data:`UNEXPLAINED`
    (to be assigned by hand with the evidence). For maintainers: ``python -m sdcrisk.replication.check``."""
    bad = result[result.status.isin(["differs", "missing"])].copy()
    old = dict(zip(_key(pins), pins["cause"])) if pins is not None else {}
    cause = pd.Series(UNEXPLAINED, index=bad.index, dtype=object)
    for g in reversed(groups):
        cause[matches(bad, g["where"])] = g["id"]
    bad["cause"] = [old.get(k, c) for k, c in zip(_key(bad), cause)]
    return bad[ROW_KEY + ["cause"]].astype(str)


# ----------------------------------------------------------------------------- report
def check(aggregated_paths, values_path, claims_path, cfg: dict, out_csv, out_md, out_summary,
          explanations_path, calibration_path, pins_path, shapes_path) -> pd.DataFrame:
    """Write ``tables/replication.{csv,md}`` and the summary. ``explanations_path``: the cause
    groups (:func:`load_explanations`); ``calibration_path``: the open choices
    (:func:`load_calibration`); ``pins_path``: the pinned differing rows (:func:`read_pins`);
    ``shapes_path``: the data sets' n and m (:func:`write_shapes`). Every input is read before
    anything is written."""
    groups = load_explanations(explanations_path)
    choices = load_calibration(calibration_path)
    pins = read_pins(pins_path)
    unknown = sorted(set(pins["cause"]) - {g["id"] for g in groups})
    if unknown:
        raise ValueError(f"{pins_path}: causes {unknown} are not groups of {explanations_path}")
    shapes = read_shapes(shapes_path)
    agg = read_aggregated(aggregated_paths)
    published = pd.read_csv(values_path, dtype=str, keep_default_na=False)
    claims = pd.read_csv(claims_path, dtype=str, keep_default_na=False)
    result = pd.concat([check_values(agg, published, cfg, shapes), check_claims(agg, claims, cfg, shapes)],
                       ignore_index=True)
    result["split"], result["calibrated_by"] = calibration_split(result, choices)
    result["explanation"] = explain(result, pins)
    stale = stale_pins(result, pins)
    atomic_write(out_csv, lambda p: result.to_csv(p, index=False, float_format="%.6g"))
    summary = {
        "cells": int((result.kind == "cell").sum()),
        "claims": int((result.kind == "claim").sum()),
        "status": dict(Counter(result.status)),
        "match_or_close": match_or_close(result),
        "by_paper": by_paper(result),
        "unexplained": int((result.explanation == UNEXPLAINED).sum()),
        "stale_pins": len(stale),
        "by_paper_table": by_paper_table(result),
    }
    atomic_write(out_summary, lambda p: Path(p).write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n"))
    atomic_write(out_md, lambda p: Path(p).write_text(markdown_report(result, summary, groups, choices, stale)))
    return result


def match_share(mask: pd.Series, status: pd.Series) -> dict:
    """Rows of ``mask`` that match or are close, over the rows compared (``unconverged`` rows are
    counted apart: neither in ``ok`` nor in ``n``)."""
    compared = mask & (status != "unconverged")
    ok = int((compared & status.isin(OK_STATUSES)).sum())
    return {"ok": ok, "n": int(compared.sum()), "unconverged": int((mask & ~compared).sum()),
            "share": round(ok / int(compared.sum()), 4) if compared.any() else None}


def match_or_close(result: pd.DataFrame) -> dict:
    """Rows that match or are close, as {ok, n, unconverged, share}: over all rows, over the cells
    of deterministic masking methods (no sampling noise), and over the calibration and held-out
    rows (when ``result`` has a ``split`` column)."""
    from ..masking import get_method

    methods = result.method.where(result.kind == "cell")
    deterministic = methods.map(lambda m: isinstance(m, str) and not get_method(m).randomised).astype(bool)
    out = {"all": match_share(pd.Series(True, index=result.index), result.status),
           "deterministic_cells": match_share(deterministic, result.status)}
    if "split" in result:
        out.update({split: match_share(result.split == split, result.status) for split in (CALIBRATION, HELD_OUT)})
    return out


def _by_split(part: pd.DataFrame) -> dict:
    """Rows per status and the match-or-close share of ``part``, for all, calibration and held-out rows."""
    def counts(rows):
        return {**{s: int((rows.status == s).sum()) for s in STATUSES},
                **match_share(pd.Series(True, index=rows.index), rows.status)}
    return {"all": counts(part), CALIBRATION: counts(part[part.split == CALIBRATION]),
            HELD_OUT: counts(part[part.split == HELD_OUT])}


def by_paper(result: pd.DataFrame) -> dict:
    """Per paper and split (all, calibration, held-out): rows per status and the match-or-close share."""
    return {paper: _by_split(g) for paper, g in result.groupby("paper", sort=True)}


def by_paper_table(result: pd.DataFrame) -> dict:
    """``{"paper|table": {all, calibration, held-out}}`` as :func:`by_paper`, per table."""
    return {f"{pa}|{ta}": _by_split(g) for (pa, ta), g in result.groupby(["paper", "table"], sort=False)}


PAPER_NAMES = {
    "muralidhar2016_rank_rl": "Muralidhar & Domingo-Ferrer (2016)",
    "nin2007_location_rl": "Nin, Herranz & Torra (2007)",
    "nin2008_rethinking_rs": "Nin, Herranz & Torra (2008, rank swapping)",
    "nin2008_multivariate_ma": "Nin, Herranz & Torra (2008, multivariate microaggregation)",
    "torra_belief": "Torra, Stokes et al. (compatible probabilities)",
    "beyond_papers": "Beyond the papers",
}


def _pct(s: dict) -> str:
    return "-" if s["share"] is None else f"{s['ok']} / {s['n']} ({100 * s['share']:.0f} %)"


def per_paper_table(summary: dict) -> list[str]:
    """Markdown table: per paper, rows per status and match-or-close (over the rows compared) for
    all, calibration and held-out rows."""
    lines = ["| paper | rows | match | close | differs | unconverged | match or close | calibration rows | "
             "held-out rows |", "|---|---|---|---|---|---|---|---|---|"]
    for paper, s in summary["by_paper"].items():
        a = s["all"]
        lines.append(f"| {PAPER_NAMES.get(paper, paper)} | {a['n'] + a['unconverged']} | {a['match']} | "
                     f"{a['close']} | {a['differs'] + a['missing']} | {a['unconverged']} | {_pct(a)} | "
                     f"{_pct(s[CALIBRATION])} | {_pct(s[HELD_OUT])} |")
    t, st = summary["match_or_close"], summary["status"]
    lines.append(f"| **all papers** | {t['all']['n'] + t['all']['unconverged']} | {st.get('match', 0)} | "
                 f"{st.get('close', 0)} | {st.get('differs', 0) + st.get('missing', 0)} | "
                 f"{st.get('unconverged', 0)} | {_pct(t['all'])} | "
                 f"{_pct(t.get(CALIBRATION, {'share': None}))} | {_pct(t.get(HELD_OUT, {'share': None}))} |")
    return lines


def _share_line(what: str, s: dict) -> str:
    share = "no rows" if s["share"] is None else f"{s['ok']} of {s['n']} compared ({100 * s['share']:.1f} %)"
    return f"- {what}: match or close {share}" + (f"; {s['unconverged']} not compared (unconverged)."
                                                   if s.get("unconverged") else ".")


#: The status rules, one Markdown bullet each: the one statement of them, which
#: ``tables/replication.md`` (:func:`markdown_report`), REPLICATION.md (region ``check:rules`` of
#: :mod:`sdcrisk.replication.prose`) and the notebooks (``workflow/scripts/notebook_support.py``) show.
STATUS_RULES = (
    "`match`: within the published rounding; for a randomised cell also within two combined standard "
    "errors (the paper's replicate count per table: `tables/replication.md`, \"Per table\"), but only inside "
    "the absolute bound below.",
    "`close`: within the absolute bound, 1 point (percentages, scores, IL) or 1 % of n (record counts), "
    f"*and* at most {100 * CLOSE_RELATIVE:.0f} % off the published value.",
    "`unconverged`: PLD, or a score built on it, of a cell where some PRL fit (EM) did not converge: not "
    "compared, counted apart (shares are over the rows compared).",
    "`differs`: anything else, each row pinned with its cause in `docs/differing_cells.csv` (a test fails "
    "when that set changes); `missing`: no regenerated value.",
    "Claims about the best value of a sweep (`min_eq`, `min_in`: Nin, Herranz & Torra (2008) Tables 4-6 "
    "text) compare the minimum of our cell means with the paper's; both minima of noisy means are biased "
    "low, the row's rule gives our bias bound (`sdcrisk.replication.check.min_selection_bias`), nothing is "
    "corrected.",
    "Claims that values exceed a bound (`gt`: \"more than 70 %\") state a bound, not a value: `match` when "
    "every regenerated value of the claim's cells exceeds it, whatever the distance; `close` when the "
    "smallest is at most 1 point below it; else `differs`. A claim that *only* its cells exceed the bound "
    "(`gt_only`) also needs every other cell of the same sweep (data set, method, measure, per number of "
    "known attributes) at or below it; the row's rule names the cells that are not.",
    "*Calibration* rows: any research script compared with them or any open choice was made on them "
    "(each evidence file declares its rows in one `# compares: [...]` line; `docs/calibration.yaml` names "
    "the files; the check derives the split). *Held-out* rows were never compared with.",
)


def rules_markdown() -> str:
    """:data:`STATUS_RULES` as a Markdown list."""
    return "\n".join(f"- {r}" for r in STATUS_RULES)


RULES_TEXT = ["Every published table cell and text claim against its regenerated value. Status rules:", "",
              rules_markdown(), "",
              "Each `differs` row names its cause; the evidence is in "
              f"`{EXPLANATIONS_FILE}`, section \"Results and every `differs`\"."]


def markdown_report(result: pd.DataFrame, summary: dict, groups: list[dict] = (), choices: list[dict] = (),
                    stale: pd.DataFrame | None = None) -> str:
    lines = ["# Replication check", "", *RULES_TEXT, "",
             f"Cells: {summary['cells']}, claims: {summary['claims']}; "
             + ", ".join(f"{summary['status'].get(k, 0)} {k}" for k in STATUSES) + ".",
             "",
             _share_line("All rows", summary["match_or_close"]["all"]),
             _share_line("Cells of deterministic masking methods (individual-ranking, optimal univariate and MDAV "
                         "microaggregation)", summary["match_or_close"]["deterministic_cells"])]
    if CALIBRATION in summary["match_or_close"]:
        lines += [_share_line("Calibration rows", summary["match_or_close"][CALIBRATION]),
                  _share_line("Held-out rows", summary["match_or_close"][HELD_OUT])]
    if "by_paper" in summary:
        lines += ["", "## Per paper", ""] + per_paper_table(summary)
    if choices:
        lines += ["", "## Open choices and the rows they were calibrated on", "",
                  "| choice | what was chosen | evidence | rows |", "|---|---|---|---|"]
        lines += [f"| `{c['id']}` | {c['choice']} | {EXPLANATIONS_FILE}, {c['section']} | "
                  f"{int(result.calibrated_by.str.split().map(lambda ids, i=c['id']: i in ids).sum()) if 'calibrated_by' in result else '-'} |"
                  for c in choices]
    lines += ["", "## Per table", "",
              "Replicates: the paper's replicate count per randomised cell, as used in the standard-error rule.", "",
              "| paper | table | match | close | differs | unconverged | missing | held-out: match or close | "
              "paper's replicates |", "|---|---|---|---|---|---|---|---|---|"]
    for key, counts in summary["by_paper_table"].items():
        pa, ta = key.split("|")
        a = counts["all"]
        reps, source = paper_replicates(pa)
        lines.append(f"| {pa} | {ta} | {a['match']} | {a['close']} | {a['differs']} | {a['unconverged']} | "
                     f"{a['missing']} | {_pct(counts[HELD_OUT])} | {reps or '-'} ({source}) |")
    bad = result[result.status.isin(["differs", "missing"])]
    causes = Counter(bad.explanation)
    if causes:
        lines += ["", "## Causes of the differences", "",
                  f"| group | {EXPLANATIONS_FILE} item | cause | rows |", "|---|---|---|---|"]
        lines += [f"| `{g['id']}` | {g['section']} | {g['title']} | {causes[g['id']]} |" for g in groups
                  if causes[g["id"]]]
        if causes[UNEXPLAINED]:
            lines.append(f"| `{UNEXPLAINED}` | - | not pinned: a new difference | {causes[UNEXPLAINED]} |")
    if stale is not None and len(stale):
        lines += ["", f"## Pinned as differing but no longer differing ({len(stale)})", "",
                  "Update `docs/differing_cells.csv` (`python -m sdcrisk.replication.check`).", ""]
        lines += [f"- {' | '.join(str(v) for v in r)}" for r in stale[ROW_KEY].itertuples(index=False)]
    lines += _row_table("Held-out rows (never compared with by any choice or script)",
                        result[result.get("split", pd.Series("", index=result.index)) == HELD_OUT], "status")
    lines += _row_table("Rows not compared: a PRL fit did not converge", result[result.status == "unconverged"], "rule")
    lines += _row_table("Cells and claims that differ", bad, "explanation")
    return "\n".join(lines) + "\n"


def _row_table(title: str, rows: pd.DataFrame, last: str) -> list[str]:
    """A Markdown section listing ``rows`` (published, regenerated, split and the column ``last``)."""
    if rows.empty:
        return []
    out = ["", f"## {title} ({len(rows)})", "",
           f"| paper | table | dataset | method | param | known | measure | published | regenerated (sd, n) | split | {last} |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for _, r in rows.iterrows():
        out.append(f"| {r.paper} | {r.table} | {r.dataset} | {r.method} | {r.param} | {r.known} | {r.measure} | "
                   f"{r.published:g} | {r['mean']:.2f} ({r.sd:.2f}, {r.n}) | {r.get('split', '')} | {r[last]} |")
    return out


def main(argv=None) -> int:
    """Maintainers: rewrite the pin list from a check (``tables/replication.csv``) after a rerun
    whose changed differences were examined: ``python -m sdcrisk.replication.check [replication.csv]``."""
    import argparse

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("replication", nargs="?", default="tables/replication.csv")
    ap.add_argument("--pins", default="docs/differing_cells.csv")
    ap.add_argument("--groups", default="docs/known_differences.yaml")
    a = ap.parse_args(argv)
    result = pd.read_csv(a.replication, dtype=str, keep_default_na=False)
    pins = read_pins(a.pins) if Path(a.pins).exists() else None
    new = propose_pins(result, load_explanations(a.groups), pins)
    atomic_write(a.pins, lambda p: new.to_csv(p, index=False))
    print(f"{a.pins}: {len(new)} differing rows pinned, {int((new.cause == UNEXPLAINED).sum())} {UNEXPLAINED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
