"""Aggregation over replicates and the replication check (published vs regenerated).

Status of a published cell:

* ``match``: within the published rounding (half a unit of the last printed digit); for a
  randomised cell also within two combined standard errors, ``2 sd sqrt(1/n + 1/n_paper)``,
  where ``n_paper`` is the paper's replicate count (100 for Muralidhar & Domingo-Ferrer (2016); unknown for Nin, Herranz & Torra (2008, rank swapping); Nin, Herranz & Torra (2007), taken as our own n);
* ``close``: within 1 percentage point or 5 % relative (record counts: 1 % of the file's n);
* ``differs``: anything else; ``missing``: no regenerated value (must never happen).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from .data import atomic_write, read_table

KEYS = ["dataset", "method", "param", "known", "measure"]
#: replicate counts the papers state (Muralidhar & Domingo-Ferrer (2016) §4: 100 maskings); others unknown
PAPER_REPLICATES = {"muralidhar2016_rank_rl": 100}
DATASET_N = {"census": 1080, "eia": 4092}


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


def status(published: float, decimals: int, mean: float, sd: float, n: int, n_paper: int | None,
           unit: str, n_records: int | None) -> tuple[str, str]:
    """Status and the rule that decided it."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "missing", "no regenerated value"
    diff = abs(mean - published)
    half_unit = 0.5 * 10.0 ** (-decimals)
    if diff <= half_unit + 1e-9:
        return "match", "within published rounding"
    if n > 1 and sd > 0:
        se = sd * math.sqrt(1.0 / n + 1.0 / (n_paper or n))
        if diff <= 2 * se + half_unit:
            return "match", "within 2 combined standard errors"
    if unit == "records" and n_records:
        if diff <= 0.01 * n_records:
            return "close", "within 1% of n records"
    else:
        if diff <= 1.0:
            return "close", "within 1 percentage point"
    if published != 0 and diff <= 0.05 * abs(published):
        return "close", "within 5% relative"
    return "differs", "outside every tolerance"


def _lookup(agg: pd.DataFrame, cfg: dict, paper: str, table: str | None) -> pd.DataFrame:
    exps = [n for n, e in cfg["experiments"].items() if e["paper"] == paper and (table is None or table in e.get("tables", {}))]
    return agg[agg["experiment"].isin(exps)]


def check_values(agg: pd.DataFrame, published: pd.DataFrame, cfg: dict) -> pd.DataFrame:
    rows = []
    for _, p in published.iterrows():
        sub = _lookup(agg, cfg, p["paper"], p["table"])
        known = "" if p["known"] in ("", "nan") else str(p["known"])
        hit = sub[(sub.dataset == p["dataset"]) & (sub.method == p["method"]) & (sub.param == str(p["param"]))
                  & (sub.known == known) & (sub.measure == p["measure"])]
        value = float(p["value"])
        if hit.empty:
            mean, sd, n = float("nan"), float("nan"), 0
        else:
            h = hit.iloc[0]
            mean, sd, n = float(h["mean"]), float(h["sd"]), int(h["n"])
        st, rule = status(value, _decimals(p["value"]), mean, sd, n, PAPER_REPLICATES.get(p["paper"]),
                          p["unit"], DATASET_N.get(p["dataset"]))
        rows.append({"kind": "cell", "paper": p["paper"], "table": p["table"], "dataset": p["dataset"],
                     "method": p["method"], "param": p["param"], "known": known, "measure": p["measure"],
                     "published": value, "published_hi": np.nan, "op": "eq", "mean": mean, "sd": sd, "n": n,
                     "difference": mean - value, "status": st, "rule": rule})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- claims
def _claim_values(agg: pd.DataFrame, cfg: dict, c) -> pd.DataFrame:
    sub = _lookup(agg, cfg, c["paper"], None)
    sub = sub[(sub.dataset == c["dataset"]) & (sub.method == c["method"])]
    measure = c["measure"]
    if measure == "ProLD":  # Nin, Herranz & Torra (2008, multivariate microaggregation) text: the projected linkage with the better projection
        measure = ["ProLD_PCP", "ProLD_Zscore"]
    sub = sub[sub.measure.isin(measure if isinstance(measure, list) else [measure])]
    known = str(c["known"])
    m = {"census": 13, "eia": 10}.get(c["dataset"])
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


def check_claims(agg: pd.DataFrame, claims: pd.DataFrame, cfg: dict) -> pd.DataFrame:
    rows = []
    for _, c in claims.iterrows():
        vals = _claim_values(agg, cfg, c)
        value, op = float(c["value"]), c["op"]
        hi = float(c["value_hi"]) if str(c["value_hi"]) not in ("", "nan") else np.nan
        if vals.empty:
            regenerated, st, rule, sd, n = np.nan, "missing", "no regenerated value", np.nan, 0
        else:
            means = vals["mean"].to_numpy(float)
            if op in ("min_eq", "min_in"):
                i = int(np.argmin(means))
            elif op == "gt":
                i = int(np.argmin(means))  # the claim holds when even the smallest value exceeds
            else:
                i = int(np.argmax(means)) if len(means) > 1 else 0
            regenerated, sd, n = float(means[i]), float(vals["sd"].iloc[i]), int(vals["n"].iloc[i])
            if op == "gt":
                st = "match" if regenerated > value else ("close" if regenerated > value - 1.0 else "differs")
                rule = "claim 'exceeds' holds for every value" if st == "match" else "claim 'exceeds' fails"
            elif op == "min_in":
                if value <= regenerated <= hi:
                    st, rule = "match", "minimum inside the published range"
                else:
                    st, rule = status(min(max(regenerated, value), hi), 2, regenerated, sd, n, None, "percent", None)
            else:
                st, rule = status(value, _decimals(c["value"]), regenerated, sd, n,
                                  PAPER_REPLICATES.get(c["paper"]), "records" if "count" in c["measure"] else "percent",
                                  DATASET_N.get(c["dataset"]))
        rows.append({"kind": "claim", "paper": c["paper"], "table": c["where"], "dataset": c["dataset"],
                     "method": c["method"], "param": c["param"], "known": c["known"], "measure": c["measure"],
                     "published": value, "published_hi": hi, "op": op, "mean": regenerated, "sd": sd, "n": n,
                     "difference": regenerated - value, "status": st, "rule": rule})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- explanations
EXPLANATIONS_FILE = "REPLICATION.md"
UNEXPLAINED = "unexplained"
_WHERE_KEYS = {"paper": "paper", "tables": "table", "datasets": "dataset", "methods": "method",
               "measures": "measure"}


def load_explanations(path) -> list[dict]:
    """Read the known-differences file (``docs/known_differences.yaml``): a list ``groups`` of
    ``{id, section, title, where}``; ``where`` is one criterion or a list of them. Raises
    ValueError naming the file and the bad entry."""
    import yaml

    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot read the known-differences file ({exc})") from exc
    groups = doc.get("groups") if isinstance(doc, dict) else None
    if not isinstance(groups, list) or not groups:
        raise ValueError(f"{path}: expected a non-empty list under 'groups'")
    out = []
    for i, g in enumerate(groups):
        where = g.get("where") if isinstance(g, dict) else None
        crit = [where] if isinstance(where, dict) else where
        if (not isinstance(g, dict) or not isinstance(g.get("id"), str) or not isinstance(g.get("title"), str)
                or not isinstance(g.get("section"), int) or not isinstance(crit, list) or not crit):
            raise ValueError(f"{path}: groups[{i}] needs id (text), section (integer), title (text) and where "
                             "(a criterion or a non-empty list of criteria)")
        for c in crit:
            bad = sorted(set(c) - set(_WHERE_KEYS)) if isinstance(c, dict) else ["(not a mapping)"]
            lists_ok = isinstance(c, dict) and all(isinstance(c[k], list) for k in c if k != "paper")
            if bad or not c or not lists_ok or not isinstance(c.get("paper", ""), str):
                raise ValueError(f"{path}: groups[{i}] ({g['id']}): a where criterion needs keys among "
                                 f"{sorted(_WHERE_KEYS)} (paper a name, the others lists), got {c!r}")
        if any(o["id"] == g["id"] for o in out):
            raise ValueError(f"{path}: groups[{i}]: id {g['id']!r} used twice (list its criteria under one where)")
        out.append({**g, "where": crit})
    return out


def explain(result: pd.DataFrame, groups: list[dict]) -> pd.Series:
    """Group id of the first known difference matching each ``differs`` / ``missing`` row, ``""``
    for rows that match or are close, :data:`UNEXPLAINED` when no group matches."""
    out = pd.Series("", index=result.index, dtype=object)
    todo = result.status.isin(["differs", "missing"])
    out[todo] = UNEXPLAINED
    for g in groups:
        for crit in g["where"]:
            hit = todo & (out == UNEXPLAINED)
            for key, col in _WHERE_KEYS.items():
                if key in crit:
                    vals = [crit[key]] if key == "paper" else crit[key]
                    hit &= result[col].astype(str).isin([str(v) for v in vals])
            out[hit] = g["id"]
    return out


# ----------------------------------------------------------------------------- report
def check(aggregated_paths, values_path, claims_path, cfg: dict, out_csv, out_md, out_summary,
          explanations_path=None) -> pd.DataFrame:
    """Write ``tables/replication.{csv,md}`` and the summary; ``explanations_path``: the
    known-differences file (:func:`load_explanations`), read before anything is written."""
    groups = load_explanations(explanations_path) if explanations_path is not None else []
    agg = read_aggregated(aggregated_paths)
    published = pd.read_csv(values_path, dtype=str, keep_default_na=False)
    claims = pd.read_csv(claims_path, dtype=str, keep_default_na=False)
    result = pd.concat([check_values(agg, published, cfg), check_claims(agg, claims, cfg)], ignore_index=True)
    result["explanation"] = explain(result, groups)
    atomic_write(out_csv, lambda p: result.to_csv(p, index=False, float_format="%.6g"))
    summary = {
        "cells": int((result.kind == "cell").sum()),
        "claims": int((result.kind == "claim").sum()),
        "status": dict(Counter(result.status)),
        "match_or_close": match_or_close(result),
        "by_paper_table": {
            f"{pa}|{ta}": dict(Counter(g.status)) for (pa, ta), g in result.groupby(["paper", "table"], sort=False)
        },
    }
    atomic_write(out_summary, lambda p: Path(p).write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n"))
    atomic_write(out_md, lambda p: Path(p).write_text(markdown_report(result, summary, groups)))
    return result


def match_or_close(result: pd.DataFrame) -> dict:
    """Rows that match or are close, over all rows and over the cells of deterministic masking
    methods (no sampling noise: the calibration points of REPLICATION.md), as {ok, n, share}."""
    from .masking import get_method

    ok = result.status.isin(["match", "close"])
    methods = result.method.where(result.kind == "cell")
    deterministic = methods.map(lambda m: isinstance(m, str) and not get_method(m).randomised).astype(bool)
    share = lambda mask: {"ok": int((ok & mask).sum()), "n": int(mask.sum()),
                          "share": round(float((ok & mask).sum() / mask.sum()), 4) if mask.any() else None}
    return {"all": share(pd.Series(True, index=result.index)), "deterministic_cells": share(deterministic)}


def _share_line(what: str, s: dict) -> str:
    share = "no rows" if s["share"] is None else f"{s['ok']} of {s['n']} ({100 * s['share']:.1f} %)"
    return f"- {what}: match or close {share}."


def markdown_report(result: pd.DataFrame, summary: dict, groups: list[dict] = ()) -> str:
    lines = ["# Replication check", "",
             "Every published table cell and text claim against its regenerated value. Status rules:",
             "`match` = within the published rounding or two combined standard errors; `close` = within",
             "1 percentage point or 5 % relative (record counts: 1 % of n); `differs` = anything else.",
             f"Each `differs` row names its cause group (below); the evidence is in `{EXPLANATIONS_FILE}`,",
             "section \"Results and every `differs`\".", "",
             f"Cells: {summary['cells']}, claims: {summary['claims']}; "
             + ", ".join(f"{summary['status'].get(k, 0)} {k}" for k in ("match", "close", "differs", "missing")) + ".",
             "",
             _share_line("All rows", summary["match_or_close"]["all"]),
             _share_line("Cells of deterministic masking methods (individual-ranking, optimal univariate and MDAV "
                         "microaggregation)", summary["match_or_close"]["deterministic_cells"]), "",
             "| paper | table | match | close | differs | missing |", "|---|---|---|---|---|---|"]
    for key, counts in summary["by_paper_table"].items():
        pa, ta = key.split("|")
        lines.append(f"| {pa} | {ta} | {counts.get('match', 0)} | {counts.get('close', 0)} | "
                     f"{counts.get('differs', 0)} | {counts.get('missing', 0)} |")
    bad = result[result.status.isin(["differs", "missing"])]
    causes = Counter(bad.explanation)
    if causes:
        lines += ["", "## Causes of the differences", "",
                  f"| group | {EXPLANATIONS_FILE} item | cause | rows |", "|---|---|---|---|"]
        lines += [f"| `{g['id']}` | {g['section']} | {g['title']} | {causes[g['id']]} |" for g in groups
                  if causes[g["id"]]]
        if causes[UNEXPLAINED]:
            lines.append(f"| `{UNEXPLAINED}` | - | no known cause matches | {causes[UNEXPLAINED]} |")
    lines += ["", "## Cells and claims that differ", "",
              "| paper | table | dataset | method | param | known | measure | published | regenerated (sd, n) | cause |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for _, r in bad.iterrows():
        lines.append(f"| {r.paper} | {r.table} | {r.dataset} | {r.method} | {r.param} | {r.known} | {r.measure} | "
                     f"{r.published:g} | {r['mean']:.2f} ({r.sd:.2f}, {r.n}) | {r.explanation} |")
    return "\n".join(lines) + "\n"

