"""Render one published table from an experiment's aggregated cells: tidy CSV, readable Markdown
and a LaTeX tabular.

The CSV has one row per cell (data set, method, parameter, known, measure) with mean, sd and n
over replicates; Markdown and LaTeX lay the cells out as the paper does (``layout`` in the config).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..data import atomic_write

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


def _wide(rows: pd.DataFrame, layout: str) -> tuple[list[str], list[list[str]], str]:
    """The paper's layout of ``rows``: header, body rows (first cell the row key; empty where the
    sweep has no cell) and the footnote on what the values are."""
    index, columns = LAYOUTS[layout]
    randomised = (rows["n"] > 1).any()
    cell = rows.apply(lambda r: f"{r['mean']:.2f} ± {r['sd']:.2f}" if randomised else f"{r['mean']:.2f}", axis=1)
    wide = rows.assign(cell=cell).pivot_table(index=index, columns=columns, values="cell", aggfunc="first", sort=False)
    header = [" / ".join(index)] + [" ".join(str(c) for c in (col if isinstance(col, tuple) else (col,))) for col in wide.columns]
    body = [[" ".join(map(str, key)) if isinstance(key, tuple) else str(key)]
            + [v if isinstance(v, str) else "" for v in values] for key, values in wide.iterrows()]
    n = sorted(set(rows["n"]))
    return header, body, f"Values: mean{' ± sd' if randomised else ''} over n = {', '.join(map(str, n))} replicate(s)."


def markdown_table(header: list[str], body: list[list[str]], caption: str, note: str = "") -> str:
    """A Markdown table under ``caption``, with ``note`` below it."""
    lines = [f"{caption}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines + (["", note] if note else [])) + "\n"


_TEX = str.maketrans({"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                      "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "±": r"$\pm$"})


def latex_table(header: list[str], body: list[list[str]], caption: str, label: str, note: str = "",
                align: str = "") -> str:
    """A booktabs ``table`` environment (needs ``\\usepackage{booktabs}``): ``align`` per column
    (default: first column left, the others right), text escaped, ``note`` as a footnote."""

    def line(cells):
        return " & ".join(c.translate(_TEX) for c in cells) + r" \\"

    foot = [rf"\par\smallskip{{\footnotesize {note.translate(_TEX)}}}"] if note else []
    return "\n".join([r"\begin{table}[htbp]", r"\centering\small",
                      rf"\caption{{{caption.translate(_TEX)}}}", rf"\label{{tab:{label}}}",
                      r"\begin{tabular}{" + (align or "l" + "r" * (len(header) - 1)) + "}", r"\toprule", line(header), r"\midrule",
                      *[line(r) for r in body], r"\bottomrule", r"\end{tabular}", *foot, r"\end{table}"]) + "\n"


def write_formats(out_csv, out_md, out_tex, tidy: pd.DataFrame, layout: tuple, name: str, caption: str,
                  float_format: str = "%.6g", align: str = "") -> None:
    """Write one table atomically as tidy CSV (``tidy``), Markdown and LaTeX (``layout``: header,
    body rows and footnote, as :func:`_wide` returns them)."""
    header, body, note = layout
    atomic_write(out_csv, lambda p: tidy.to_csv(p, index=False, float_format=float_format))
    atomic_write(out_md, lambda p: Path(p).write_text(markdown_table(header, body, f"**{name}**: {caption}", note)))
    atomic_write(out_tex, lambda p: Path(p).write_text(latex_table(header, body, f"{name}: {caption}", name, note, align)))


def render_table(aggregated_csv, experiment: dict, table: str, name: str, out_csv, out_md, out_tex) -> pd.DataFrame:
    """Write ``table`` of ``experiment`` as CSV, Markdown and LaTeX, each atomically."""
    agg = pd.read_csv(aggregated_csv, dtype={"known": str, "param": str}, keep_default_na=False)
    rows = select(agg, experiment, table)
    if rows.empty:
        raise ValueError(f"table {name}: no regenerated cells (experiment evaluation produced none of its measures)")
    spec = experiment["tables"][table]
    tidy = rows[["dataset", "method", "param", "known", "measure", "mean", "sd", "n"]]
    write_formats(out_csv, out_md, out_tex, tidy, _wide(rows, spec["layout"]), name, spec.get("caption", ""))
    return tidy
