"""Figures: the papers' designs, colour-blind-safe (Okabe-Ito), error bars = 1 sd over replicates,
published values overlaid (hollow black markers) where the paper printed them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .data import atomic_write  # noqa: E402
from .measures import units  # noqa: E402

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
             "#999999", "#882255", "#44AA99"]
MARKERS = "osD^v<>pXh*"
PUBLISHED = Path(__file__).resolve().parents[2] / "published" / "published_values.csv"
UNITS = units.LABELS


def _as_list(v):
    return v if isinstance(v, list) else [v]


def _published(paper: str) -> pd.DataFrame:
    if not PUBLISHED.is_file():
        return pd.DataFrame(columns=["paper", "dataset", "method", "param", "known", "measure", "value"])
    pub = pd.read_csv(PUBLISHED, dtype=str, keep_default_na=False)
    return pub[pub.paper == paper]


def links_vs_known(ax, rows: pd.DataFrame, measure: str, known: str):
    """One curve per parameter against the number of known ``attributes`` or ``groups`` of them."""
    rows = rows[(rows.measure == measure) & ~rows.known.isin(["", "all", "half", "groups"])]
    k = pd.to_numeric(rows.known)
    for i, (param, g) in enumerate(rows.groupby("param", sort=False)):
        ax.errorbar(k[g.index], g["mean"], yerr=g["sd"], color=OKABE_ITO[i % len(OKABE_ITO)],
                    marker=MARKERS[i % len(MARKERS)], ms=4, lw=1.2, capsize=2, label=str(param))
    ax.set_xticks(sorted(k.unique()))  # counts: integer ticks only
    ax.set_xlabel(f"number of known {'groups of attributes' if known == 'groups' else 'attributes'}")
    ax.set_ylabel(f"{measure} ({UNITS.get(measure, '')})")


def param_curve(ax, rows: pd.DataFrame, measures: list[str], published: pd.DataFrame):
    rows = rows[rows.measure.isin(measures) & rows.known.isin(["", "all", "half", "groups"])]
    labels = list(dict.fromkeys(rows.param))
    x = np.arange(len(labels))
    for i, m in enumerate(measures):
        g = rows[rows.measure == m].set_index("param").reindex(labels)
        ax.errorbar(x, g["mean"], yerr=g["sd"], color=OKABE_ITO[i], marker=MARKERS[i], ms=4, lw=1.2, capsize=2, label=m)
        p = published[published.measure == m].set_index("param").reindex(labels)
        ok = p["value"].notna() & (p["value"] != "")
        if ok.any():
            ax.plot(x[ok.to_numpy()], p["value"][ok].astype(float), ls="none", marker=MARKERS[i], ms=8,
                    mfc="none", mec="black", label=f"{m} (published)")
    ax.set_xticks(x, labels, rotation=45, ha="right", fontsize=7)
    ax.set_xlabel("parameter")
    ax.set_ylabel(UNITS.get(measures[0], "value"))


def measure_by_method(ax, rows: pd.DataFrame, measure: str):
    rows = rows[(rows.measure == measure) & rows.known.isin(["", "all", "half", "groups"])]
    longest = 0
    for i, (method, g) in enumerate(rows.groupby("method", sort=False)):
        ax.errorbar(np.arange(1, len(g) + 1), g["mean"], yerr=g["sd"], color=OKABE_ITO[i], marker=MARKERS[i],
                    ms=4, lw=1.2, capsize=2, label=method)
        longest = max(longest, len(g))
    ax.set_xticks(range(1, longest + 1))  # integer ticks only
    ax.set_xlabel("parameterisation (least to most protective)")
    ax.set_ylabel(f"{measure} ({UNITS.get(measure, '')})")


def heatmap(ax, rows: pd.DataFrame, measures: list[str]):
    """Method x attack matrix of % correctly linked (viridis: perceptually uniform, CVD-safe)."""
    rows = rows[rows.measure.isin(measures)]
    wide = rows.assign(label=rows.method + " " + rows.param).pivot_table(
        index="label", columns="measure", values="mean", sort=False).reindex(columns=measures)
    im = ax.imshow(wide.to_numpy(), cmap="viridis", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(measures)), measures, rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(len(wide)), wide.index, fontsize=7)
    for (i, j), val in np.ndenumerate(wide.to_numpy()):
        if np.isfinite(val):
            ax.text(j, i, f"{val:.0f}", ha="center", va="center", fontsize=6, color="white" if val < 60 else "black")
    ax.figure.colorbar(im, ax=ax, label="% correctly linked")


def render_figure(aggregated_csv, experiment: dict, figure: str, name: str, out_png, out_pdf):
    agg = pd.read_csv(aggregated_csv, dtype={"known": str, "param": str}, keep_default_na=False)
    spec = experiment["figures"][figure]
    if "method" in spec:
        agg = agg[agg.method == spec["method"]]
    datasets = list(dict.fromkeys(agg.dataset))
    measures = _as_list(spec.get("measure", []))
    kind = spec["kind"]
    ncols = len(measures) if kind == "links_vs_known" else 1
    width = 7.5 if kind == "heatmap" else 4.2 * ncols + 1
    height = (5.0 if kind == "heatmap" else 3.4) * len(datasets)
    fig, axes = plt.subplots(len(datasets), ncols, figsize=(width, height), squeeze=False)
    published = _published(experiment["paper"])
    published = published[published.method.isin(agg.method.unique())]
    for r, d in enumerate(datasets):
        rows = agg[agg.dataset == d]
        for c in range(ncols):
            ax = axes[r][c]
            if kind == "links_vs_known":
                links_vs_known(ax, rows, measures[c], spec.get("known", "attributes"))
            elif kind == "measure_by_method":
                measure_by_method(ax, rows, measures[0])
            elif kind == "heatmap":
                heatmap(ax, rows, measures)
                ax.set_title(f"{d}", fontsize=9)
                continue
            else:
                param_curve(ax, rows, measures, published[published.dataset == d])
            ax.set_title(f"{d}", fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=6, ncol=2)
    fig.suptitle(textwrap.fill(f"{name}: {spec.get('caption', '')}", width=int(14 * width)), fontsize=9)
    fig.tight_layout()
    for out in (out_png, out_pdf):
        pdf = str(out).endswith(".pdf")
        atomic_write(out, lambda tmp: fig.savefig(tmp, dpi=130, metadata={"CreationDate": None} if pdf else None))
    plt.close(fig)
