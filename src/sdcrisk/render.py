"""Render one published table from an experiment's aggregated cells: tidy CSV + readable Markdown.

The CSV has one row per cell (data set, method, parameter, known, measure) with mean, sd and n
over replicates; the Markdown lays the cells out as the paper does (``layout`` in the config).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

#: layout -> (row keys, column keys)
LAYOUTS = {
    "known_by_param": (["known"], ["measure", "param"]),
    "param_by_measure": (["param"], ["measure"]),
    "param_by_dataset_known": (["param"], ["dataset", "known"]),
    "param_by_dataset_measure": (["param"], ["dataset", "measure"]),
    "param_by_method_measure": (["method", "param"], ["measure"]),
    "param_by_method_dataset_measure": (["method", "param"], ["dataset", "measure"]),
}
AVERAGED = {"", "all", "half", "groups"}


def _as_list(v):
    return v if isinstance(v, list) else [v]


def select(agg: pd.DataFrame, experiment: dict, table: str) -> pd.DataFrame:
    """The aggregated rows that make up ``table`` of ``experiment``, in sweep order."""
    spec = experiment["tables"][table]
    measures = _as_list(spec.get("measures") or spec.get("measure"))
    rows = agg[agg.dataset.isin(_as_list(spec["dataset"])) & agg.measure.isin(measures)]
    if "method" in spec:
        rows = rows[rows.method == spec["method"]]
    if "known" in LAYOUTS[spec["layout"]][0] + LAYOUTS[spec["layout"]][1]:
        rows = rows[~rows.known.isin(AVERAGED)]
    else:
        rows = rows[rows.known.isin(AVERAGED)]
    rows = rows.assign(_m=rows.measure.map({m: i for i, m in enumerate(measures)}),
                       _k=pd.to_numeric(rows.known, errors="coerce"))
    return rows.sort_values(["order", "_k", "_m"], kind="stable").drop(columns=["_m", "_k"])


def to_markdown(rows: pd.DataFrame, layout: str, caption: str) -> str:
    index, columns = LAYOUTS[layout]
    randomised = (rows["n"] > 1).any()
    cell = rows.apply(lambda r: f"{r['mean']:.2f} ± {r['sd']:.2f}" if randomised else f"{r['mean']:.2f}", axis=1)
    wide = rows.assign(cell=cell).pivot_table(index=index, columns=columns, values="cell", aggfunc="first", sort=False)
    header = [" / ".join(index)] + [" ".join(str(c) for c in (col if isinstance(col, tuple) else (col,))) for col in wide.columns]
    lines = [f"{caption}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for key, values in wide.iterrows():
        key = " ".join(map(str, key)) if isinstance(key, tuple) else str(key)
        lines.append("| " + " | ".join([key] + [str(v) if isinstance(v, str) else "" for v in values]) + " |")
    n = sorted(set(rows["n"]))
    lines += ["", f"Values: mean{' ± sd' if randomised else ''} over n = {', '.join(map(str, n))} replicate(s)."]
    return "\n".join(lines) + "\n"


def render_table(aggregated_csv, experiment: dict, table: str, name: str, out_csv, out_md) -> pd.DataFrame:
    agg = pd.read_csv(aggregated_csv, dtype={"known": str, "param": str}, keep_default_na=False)
    rows = select(agg, experiment, table)
    if rows.empty:
        raise ValueError(f"table {name}: no regenerated cells (experiment evaluation produced none of its measures)")
    spec = experiment["tables"][table]
    tidy = rows[["dataset", "method", "param", "known", "measure", "mean", "sd", "n"]]
    _write(out_csv, lambda p: tidy.to_csv(p, index=False, float_format="%.6g"))
    caption = f"**{name}**: {spec.get('caption', '')}"
    _write(out_md, lambda p: Path(p).write_text(to_markdown(rows, spec["layout"], caption)))
    return tidy


def _write(path, write):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part" + path.suffix)
    write(tmp)
    os.replace(tmp, path)
