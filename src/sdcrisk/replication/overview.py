"""The replication at a glance: every published value against its regenerated value.

One panel per paper, the identity line, each row of the replication check (``tables/replication.csv``)
as a point coloured by its status, and the differing rows by their cause group. Record counts are
drawn as a percentage of the file's n, so that every panel has one scale.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from .figures import save_figure
from ..measures.units import linkage_percent
from .check import CALIBRATION, PAPER_NAMES, match_share, read_shapes

STATUS_STYLE = {"match": ("#1b7837", "o"), "close": ("#5aae61", "s")}
CAUSE_COLOURS = ["#d73027", "#f46d43", "#fdae61", "#9e0142", "#5e4fa2", "#3288bd", "#8c510a", "#bf812d",
                 "#762a83", "#e7298a", "#666666"]


def _as_percent(result: pd.DataFrame, shapes: dict) -> pd.DataFrame:
    """Published and regenerated values in percent; record counts divided by the file's n."""
    out = result.copy()
    n = out["dataset"].map(lambda d: shapes.get(d, (np.nan, 0))[0]).astype(float)
    counts = out["measure"].astype(str).str.endswith("_count")
    for col in ("published", "mean"):
        value = pd.to_numeric(out[col], errors="coerce")  # a missing regenerated value is empty
        out[col] = np.where(counts, linkage_percent(value, n), value)
    return out


def _share_text(rows: pd.DataFrame) -> str:
    """``ok of n compared (pct %)``, and the rows not compared (failed PRL fits)."""
    s = match_share(pd.Series(True, index=rows.index), rows["status"])
    text = f"{s['ok']} of {s['n']} ({100 * (s['share'] or 0):.0f} %)"
    return text + (f", {s['unconverged']} unconverged" if s["unconverged"] else "")


def overview_figure(replication_csv, shapes_json, out_png, out_pdf) -> None:
    """Draw ``figures/replication_overview.{png,pdf}`` from the check and the data sets' shapes
    (:func:`sdcrisk.replication.check.write_shapes`, for n)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    result = _as_percent(pd.read_csv(replication_csv, dtype={"known": str, "param": str}, keep_default_na=False),
                         read_shapes(shapes_json))
    papers = list(dict.fromkeys(result["paper"]))
    causes = sorted(c for c in result["explanation"].unique() if c)
    colour = {c: CAUSE_COLOURS[i % len(CAUSE_COLOURS)] for i, c in enumerate(causes)}
    ncol = 2
    nrow = -(-len(papers) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(11, 4.6 * nrow + 1.2), squeeze=False)
    handles = {}
    for ax, paper in zip(axes.flat, papers):
        rows = result[result["paper"] == paper]
        values = rows[["published", "mean"]].to_numpy(float)
        top = float(np.nanmax(values)) * 1.05 if np.isfinite(values).any() else 1.0
        ax.plot([0, top], [0, top], color="0.5", lw=0.8, zorder=1)
        for status, (c, m) in STATUS_STYLE.items():
            sel = rows[rows["status"] == status]
            for split, face in ((CALIBRATION, "none"), ("held-out", c)):
                part = sel[sel["split"] == split]
                if len(part):
                    h = ax.scatter(part["published"], part["mean"], s=16, marker=m, edgecolors=c,
                                   facecolors=face, lw=0.8, zorder=2)
                    handles.setdefault(f"{status}, {split}", h)
        for cause in causes:
            part = rows[(rows["explanation"] == cause)]
            if len(part):
                h = ax.scatter(part["published"], part["mean"], s=16, marker="x", color=colour[cause], lw=0.9, zorder=3)
                handles.setdefault(f"differs: {cause}", h)
        ax.set_title(f"{PAPER_NAMES.get(paper, paper)}\nmatch or close {_share_text(rows)}", fontsize=10)
        ax.set_xlabel("Published value (%; record counts as % of n)")
        ax.set_ylabel("Regenerated value (%)")
        ax.set_xlim(0, top)
        ax.set_ylim(0, top)
        ax.set_aspect("equal")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(papers):]:
        ax.set_visible(False)
    fig.suptitle(f"Replication overview: published against regenerated; match or close {_share_text(result)}"
                 "\n(open markers: calibration rows; filled: held-out; crosses: differing rows by cause "
                 "group of REPLICATION.md)", fontsize=11)
    fig.legend(list(handles.values()), list(handles.keys()), title="status / cause", loc="lower center",
               ncol=4, fontsize=8, title_fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.05 + 0.02 * (len(handles) // 4), 1, 0.95))
    save_figure(fig, out_png, out_pdf)
