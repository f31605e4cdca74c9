"""Helpers shared by the per-paper notebooks (notebooks/{paper}.ipynb).

They read only the DAG's rendered outputs: tables/{paper}_{table}.csv|.md,
figures/{paper}_{figure}.png, tables/replication.csv and tables/environment.json. Every statement a notebook prints
about agreement is computed here from those files, so the same notebook reads the quick
(CI) and the paper-scale outputs alike.
"""

from __future__ import annotations

import glob
import json
import os
import re

import pandas as pd

STATUSES = ["match", "close", "differs", "unconverged", "missing"]
COMPARED = ["match", "close", "differs"]
KEYS = ["dataset", "method", "param", "known", "measure"]


def status_rules() -> str:
    """The status rules as the check applies them (:data:`sdcrisk.replication.check.STATUS_RULES`,
    the text REPLICATION.md and tables/replication.md show too), and what the notebooks add: a
    published cell outside this run's sweep is ``missing``, and shares are over the compared cells."""
    from sdcrisk.replication.check import rules_markdown

    return (rules_markdown() + "\n- In these notebooks `missing` also marks a published cell outside this "
            "run's sweep (the CI configuration leaves most out); shares are over the compared cells.")


def natural_key(text: str):
    """Sort 'T2' before 'T10'."""
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", str(text)))


def read_replication(path: str, paper: str) -> pd.DataFrame:
    """Rows of tables/replication.csv for one paper; text keys kept as text ('' when empty)."""
    rep = pd.read_csv(path, dtype={"param": str, "known": str, "table": str}, keep_default_na=False,
                      na_values={c: [""] for c in ("published", "published_hi", "mean", "sd", "n", "difference")})
    rep = rep[rep["paper"] == paper].copy()
    rep["relative"] = rep["difference"] / rep["published"].abs().where(rep["published"] != 0)
    return rep


def _csv_tables(tables_dir: str, paper: str) -> dict[str, bool]:
    """{table id: is tidy} for every tables/{paper}_{table}.csv; tidy = the published-table layout
    (columns dataset, method, param, known, measure, mean, sd, n)."""
    out = {}
    for path in glob.glob(os.path.join(tables_dir, f"{paper}_*.csv")):
        with open(path, encoding="utf-8") as fh:
            header = set(fh.readline().strip().split(","))
        out[os.path.basename(path)[len(paper) + 1:-4]] = {*KEYS, "mean", "sd", "n"} <= header
    return out


def table_names(tables_dir: str, paper: str) -> list[str]:
    """Ids of the paper's tidy tables (tables/{paper}_{table}.csv), in natural order."""
    return sorted((t for t, tidy in _csv_tables(tables_dir, paper).items() if tidy), key=natural_key)


def extra_tables(tables_dir: str, paper: str) -> list[str]:
    """Ids of the paper's other CSV outputs (e.g. worked examples), in natural order."""
    return sorted((t for t, tidy in _csv_tables(tables_dir, paper).items() if not tidy), key=natural_key)


def read_extra(tables_dir: str, paper: str, table: str) -> pd.DataFrame:
    return pd.read_csv(os.path.join(tables_dir, f"{paper}_{table}.csv"))


def figure_paths(figures_dir: str, paper: str) -> list[str]:
    return sorted(glob.glob(os.path.join(figures_dir, f"{paper}_*.png")), key=natural_key)


def read_table(tables_dir: str, paper: str, table: str) -> pd.DataFrame:
    return pd.read_csv(os.path.join(tables_dir, f"{paper}_{table}.csv"), dtype={"param": str, "known": str},
                       keep_default_na=False)


def table_markdown(tables_dir: str, paper: str, table: str) -> str:
    """The rendered Markdown layout of a table (falls back to the tidy CSV)."""
    md = os.path.join(tables_dir, f"{paper}_{table}.md")
    if os.path.exists(md):
        with open(md, encoding="utf-8") as fh:
            return fh.read()
    return read_table(tables_dir, paper, table).to_markdown(index=False)


def status_counts(rep: pd.DataFrame) -> pd.DataFrame:
    """Per published table (or claim source): counts per status and shares among compared cells."""
    if rep.empty:
        return pd.DataFrame(columns=["kind", "table", *STATUSES, "compared", "share_match", "share_close",
                                     "share_differs"])
    counts = rep.groupby(["kind", "table"])["status"].value_counts().unstack(fill_value=0)
    counts = counts.reindex(columns=STATUSES, fill_value=0)
    counts["compared"] = counts[COMPARED].sum(axis=1)
    for s in COMPARED:
        counts[f"share_{s}"] = (counts[s] / counts["compared"].where(counts["compared"] > 0)).round(3)
    counts = counts.reset_index()
    order = counts["table"].map(natural_key)
    return counts.iloc[sorted(range(len(counts)), key=lambda i: (counts["kind"].iloc[i], order.iloc[i]))] \
        .reset_index(drop=True)


def side_by_side(rep: pd.DataFrame, table: str) -> pd.DataFrame:
    """Published value next to the regenerated mean, sd, n and status, for compared cells."""
    rows = rep[(rep["table"] == table) & (rep["status"] != "missing")]
    cols = KEYS + ["published", "mean", "sd", "n", "difference", "status", "rule"]
    return rows[[c for c in cols if c in rows.columns]].reset_index(drop=True)


def largest_differences(rep: pd.DataFrame, k: int = 10) -> pd.DataFrame:
    """The ``k`` compared cells with the largest relative |difference| (absolute when published is 0)."""
    rows = rep[rep["status"].isin(COMPARED)].copy()
    rows["size"] = rows["relative"].abs().fillna(rows["difference"].abs())
    rows = rows.sort_values("size", ascending=False).head(k)
    return rows[["table"] + KEYS + ["published", "mean", "sd", "difference", "relative", "status"]] \
        .reset_index(drop=True)


def bias_by_measure(rep: pd.DataFrame) -> pd.DataFrame:
    """Per (table, measure): compared cells, mean signed difference, mean |difference|, share where
    ours is above the published value, and the share matching or close."""
    rows = rep[rep["status"].isin(COMPARED)]
    if rows.empty:
        return pd.DataFrame(columns=["table", "measure", "cells", "mean_difference", "mean_abs_difference",
                                     "mean_relative", "share_ours_higher", "share_match_or_close"])
    g = rows.groupby(["table", "measure"])
    out = pd.DataFrame({
        "cells": g.size(),
        "mean_difference": g["difference"].mean(),
        "mean_abs_difference": g["difference"].apply(lambda d: d.abs().mean()),
        "mean_relative": g["relative"].mean(),
        "share_ours_higher": g["difference"].apply(lambda d: (d > 0).mean()),
        "share_match_or_close": g["status"].apply(lambda s: s.isin(["match", "close"]).mean()),
    }).reset_index()
    out["_k"] = out["table"].map(natural_key)
    return out.sort_values(["_k", "measure"]).drop(columns="_k").reset_index(drop=True)


def verdicts(rep: pd.DataFrame) -> str:
    """One Markdown bullet per published table: how much agrees and where it departs most."""
    lines = []
    for _, row in status_counts(rep[rep["kind"] == "cell"]).iterrows():
        t = row["table"]
        if row["compared"] == 0:
            lines.append(f"- **{t}**: no published cell regenerated in this run ({row['missing']} published "
                         "cells outside the configured sweep).")
            continue
        ok = row["match"] + row["close"]
        text = (f"- **{t}**: {ok} of {row['compared']} compared cells agree ({row['match']} match, "
                f"{row['close']} close, {row['differs']} differ)")
        if row["unconverged"]:
            text += f"; {row['unconverged']} not compared (a PRL fit did not converge)"
        if row["missing"]:
            text += f"; {row['missing']} published cells not in this run's sweep"
        sub = rep[(rep["table"] == t) & rep["status"].isin(COMPARED)]
        if row["differs"]:
            worst = sub.loc[sub["difference"].abs().idxmax()]
            where = ", ".join(f"{k}={worst[k]}" for k in KEYS if str(worst[k]) not in ("", "nan"))
            text += (f". Largest gap: {where}: ours {worst['mean']:.4g} vs published {worst['published']:.4g}")
        per = sub.groupby("measure")["difference"].agg(["mean", "size"])
        skewed = [f"{m} {'above' if d['mean'] > 0 else 'below'}"
                  for m, d in per.iterrows()
                  if d["size"] >= 2 and (sub.loc[sub.measure == m, "difference"] > 0).mean() in (0.0, 1.0)
                  and (sub.loc[sub.measure == m, "status"] == "differs").any()]
        if skewed:
            text += ". Systematically (every compared cell on one side, some differing): " + ", ".join(skewed)
        lines.append(text + ".")
    if not lines:
        lines.append("- _No published table cells for this paper in tables/replication.csv._")
    cl = rep[rep["kind"] == "claim"]
    if len(cl):
        done = cl[cl["status"].isin(COMPARED)]
        lines.append(f"- **Claims stated in the text**: {len(cl)}; {len(done)} evaluated in this run, of which "
                     f"{int(done.status.isin(['match', 'close']).sum())} hold or come close and "
                     f"{int((done.status == 'differs').sum())} differ (details in the claims section).")
    return "\n".join(lines)


def claims(rep: pd.DataFrame) -> pd.DataFrame:
    rows = rep[rep["kind"] == "claim"]
    return rows[["table", "dataset", "method", "param", "known", "measure", "op", "published", "published_hi",
                 "mean", "difference", "status", "rule"]].reset_index(drop=True)


def style_status(df: pd.DataFrame, precision: int = 3):
    """A Styler colouring the status column (plain frame if styling is unavailable)."""
    colours = {"match": "#c7e9c0", "close": "#fdf2b3", "differs": "#fcbba1", "unconverged": "#d9d9f3",
               "missing": "#e0e0e0"}
    try:
        sty = df.style.format(precision=precision, na_rep="")
        if "status" in df.columns:
            sty = sty.map(lambda s: f"background-color: {colours.get(s, '')}", subset=["status"])
        return sty.hide(axis="index")
    except Exception:  # noqa: BLE001 - styling is cosmetic
        return df


AVERAGED = ("", "all", "half", "groups")


def wide(tables_dir: str, paper: str, rep: pd.DataFrame, tables=None, measures=None,
         known=AVERAGED) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Regenerated means and published values side by side, one row per (dataset, method,
    param, known) and one column per measure, over the given tables (default: all of the paper).
    Returns ``(ours, published)`` with the same index; published cells not printed are NaN."""
    names = [t for t in (tables or table_names(tables_dir, paper)) if t in table_names(tables_dir, paper)]
    if not names:
        return pd.DataFrame(), pd.DataFrame()
    df = pd.concat([read_table(tables_dir, paper, t) for t in names], ignore_index=True)
    if measures is not None:
        df = df[df["measure"].isin(measures)]
    if known is not None:
        df = df[df["known"].isin(known)]
    idx = ["dataset", "method", "param", "known"]
    ours = df.pivot_table(index=idx, columns="measure", values="mean", sort=False)
    cells = rep[(rep["kind"] == "cell") & rep["table"].isin(names)]
    pub = cells.pivot_table(index=idx, columns="measure", values="published", sort=False) if not cells.empty \
        else pd.DataFrame()
    pub = pub.reindex(index=ours.index, columns=ours.columns)
    ours.columns.name = pub.columns.name = None
    return ours, pub


def relation(ours: pd.DataFrame, pub: pd.DataFrame, test, label: str) -> tuple[pd.DataFrame, str]:
    """Evaluate ``test(frame) -> bool Series`` on our means and on the published values (rows with
    every needed published value only). Returns the per-row frame and one summary sentence."""
    if ours.empty:
        return pd.DataFrame(), f"{label}: no regenerated rows."
    holds = test(ours)
    with pd.option_context("mode.chained_assignment", None):
        try:
            pub_holds = test(pub)
            known_pub = ~pub.isna().any(axis=1) if not pub.empty else pd.Series(False, index=ours.index)
            pub_holds = pub_holds.where(known_pub)
        except (KeyError, AttributeError):
            pub_holds = pd.Series(float("nan"), index=ours.index)
    out = pd.DataFrame({"ours": holds.astype(bool), "published": pub_holds}, index=ours.index)
    n_pub = int(out["published"].notna().sum())
    text = f"{label}: holds in {int(out['ours'].sum())} of {len(out)} regenerated rows"
    if n_pub:
        agree = int((out["published"].dropna().astype(bool) == out.loc[out["published"].notna(), "ours"]).sum())
        text += (f"; in the published values it holds in {int(out['published'].dropna().astype(bool).sum())} "
                 f"of {n_pub} rows printed, and ours agrees with the paper's verdict in {agree} of {n_pub}")
    return out, text + "."


def replicate_range(tables_dir: str, paper: str) -> str:
    """'n = a..b replicates per cell' over the paper's tables (tells quick from paper scale)."""
    ns = pd.concat([read_table(tables_dir, paper, t)["n"] for t in table_names(tables_dir, paper)]) \
        if table_names(tables_dir, paper) else pd.Series(dtype=int)
    if ns.empty:
        return "no regenerated cells"
    return f"{int(ns.min())}" if ns.min() == ns.max() else f"{int(ns.min())}..{int(ns.max())}"


def environment_line(tables_dir: str, libraries=("numpy", "scipy", "numba", "pandas", "matplotlib")) -> str:
    """'Software: Python 3.11.7, numpy 2.4.6, ...' from tables/environment.json (the run's record)."""
    path = os.path.join(tables_dir, "environment.json")
    if not os.path.exists(path):
        return "Software versions: not recorded (no tables/environment.json)."
    with open(path) as fh:
        env = json.load(fh)
    libs = ", ".join(f"{lib} {env['packages'][lib]}" for lib in libraries if lib in env["packages"])
    return (f"Software: Python {env['python']} ({env['machine']}), {libs} "
            "(all versions in tables/environment.json; pinned for reinstalling in constraints.txt).")
