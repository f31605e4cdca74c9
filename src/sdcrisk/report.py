"""The report of ``sdcrisk assess``: report.json, report.md and a self-contained report.html
(inline CSS, figures embedded as PNG) with a risk-utility map and a per-attack chart.

Input: the tidy tables of :func:`sdcrisk.assessment.assess`, one per masked file, concatenated
with a ``masked`` column naming the file.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .assessment import LOSS, RISK

FILES = ("report.json", "report.md", "report.html")


def _fmt(v, digits=2) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return ""
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def risk_table(results: pd.DataFrame) -> pd.DataFrame:
    """Disclosure risk, one row per masked file, attack and scenario."""
    r = results[results.kind == RISK]
    return r[["masked", "measure", "scenario", "n_known", "n", "linked", "percent", "seconds", "note"]]


def loss_table(results: pd.DataFrame) -> pd.DataFrame:
    """Information loss, one column per measure (IL1..IL5, IL), one row per masked file."""
    r = results[results.kind == LOSS]
    return r.pivot_table(index="masked", columns="measure", values="percent", sort=False).reset_index()


def headline(results: pd.DataFrame) -> pd.DataFrame:
    """Per masked file: the highest risk over attacks and scenarios (and its attack), and IL."""
    rows = []
    for masked, g in results.groupby("masked", sort=False):
        links = g[(g.kind == RISK) & (g.measure != "ID") & g.percent.notna()]
        top = links.loc[links.percent.idxmax()] if len(links) else None
        il = g[(g.kind == LOSS) & (g.measure == "IL")].percent
        rows.append({"masked": masked, "max_linked_percent": float(top.percent) if top is not None else math.nan,
                     "worst_attack": top.measure if top is not None else "",
                     "worst_scenario": top.scenario if top is not None else "",
                     "IL": float(il.iloc[0]) if len(il) else math.nan})
    return pd.DataFrame(rows)


def summary_text(results: pd.DataFrame) -> str:
    """The console summary: risk per attack and scenario, then IL, per masked file."""
    lines = []
    for masked, g in results.groupby("masked", sort=False):
        lines.append(f"{masked}")
        lines.append(f"  {'attack':<15}{'scenario':<10}{'linked':>9}{'%':>9}{'seconds':>9}")
        for r in g[g.kind == RISK].itertuples():
            linked = "" if r.linked is pd.NA else str(r.linked)
            lines.append(f"  {r.measure:<15}{r.scenario:<10}{linked:>9}{r.percent:>9.2f}{r.seconds:>9.2f}"
                         + (f"  ({r.note})" if r.note else ""))
        il = g[g.kind == LOSS].set_index("measure").percent
        if len(il):
            lines.append("  information loss (%): " + ", ".join(f"{k} {v:.2f}" for k, v in il.items()))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- figures
def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode()


def risk_utility_map(results: pd.DataFrame):
    """IL (x) against % correctly linked (y): one marker per attack and masked file, at the
    scenario with the most known attributes; each file named at its highest risk."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    markers = "osD^vP*Xh<>"
    risk = results[(results.kind == RISK) & (results.measure != "ID") & results.percent.notna()]
    risk = risk[risk.n_known == risk.groupby("masked").n_known.transform("max")]
    il = results[(results.kind == LOSS) & (results.measure == "IL")].set_index("masked").percent
    attacks = list(dict.fromkeys(risk.measure))
    cmap = plt.get_cmap("tab10")
    for a, name in enumerate(attacks):
        r = risk[risk.measure == name]
        ax.scatter(il.reindex(r.masked).to_numpy(), r.percent, marker=markers[a % len(markers)],
                   color=cmap(a % 10), label=name, s=40, alpha=0.85)
    top = headline(results)
    for t in top.itertuples():
        ax.annotate(Path(str(t.masked)).name, (t.IL, t.max_linked_percent), textcoords="offset points",
                    xytext=(4, 4), fontsize=7)
    ax.set_xlabel("information loss IL (% mean relative error; lower is better)")
    ax.set_ylabel("original records correctly linked (%)")
    ax.set_ylim(0, 100)
    ax.set_xlim(left=0)
    ax.set_title("Risk-utility map")
    ax.legend(title="attack", fontsize=7, title_fontsize=8, bbox_to_anchor=(1.02, 1), loc="upper left")
    return fig


def attack_chart(results: pd.DataFrame):
    """% correctly linked (and ID) per attack, one bar per masked file, at the scenario with the
    most known attributes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    risk = results[(results.kind == RISK) & results.percent.notna()]
    risk = risk[risk.n_known == risk.groupby("masked").n_known.transform("max")]
    attacks = list(dict.fromkeys(risk.measure))
    files = list(dict.fromkeys(risk.masked))
    fig, ax = plt.subplots(figsize=(6.4, 0.45 * len(attacks) * max(1, len(files)) + 1.2))
    h = 0.8 / len(files)
    cmap = plt.get_cmap("tab10")
    for f, masked in enumerate(files):
        r = risk[risk.masked == masked].set_index("measure").reindex(attacks)
        pos = np.arange(len(attacks)) + f * h
        ax.barh(pos, r.percent, height=h, color=cmap(f % 10), label=Path(str(masked)).name)
        for p, v in zip(pos, r.percent):
            if np.isfinite(v):
                ax.text(v + 1, p, f"{v:.1f}", va="center", fontsize=7)
    ax.set_yticks(np.arange(len(attacks)) + 0.4 - h / 2, attacks)
    ax.invert_yaxis()
    ax.set_xlim(0, 105)
    ax.set_xlabel("% of original records correctly linked (ID: % of values inside the interval)")
    ax.set_title("Disclosure risk per attack")
    if len(files) > 1:
        ax.legend(title="masked file", fontsize=7, title_fontsize=8, bbox_to_anchor=(1.02, 1), loc="upper left")
    return fig


# ----------------------------------------------------------------------------- writers
def _markdown_table(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        out.append("| " + " | ".join(_fmt(v) for v in row) + " |")
    return "\n".join(out)


def _html_table(df: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in row) + "</tr>"
                   for row in df.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


UNITS_TEXT = ("Attacks: % of original records whose correct masked record the attack links. ID: % of "
              "original values inside the interval around their masked value (ranks within p = 1..10 % "
              "of the records). IL = (IL1 + ... + IL5) / 5: mean relative errors of the values, means, "
              "covariances and variances, and the mean absolute error of the correlations, in percent; "
              "0 means no loss and it is not bounded by 100.")


def _meta(results: pd.DataFrame, meta: dict) -> dict:
    return {"sdcrisk_version": __version__, "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            **meta}


def write_report(results: pd.DataFrame, out_dir: str | os.PathLike, meta: dict) -> list[Path]:
    """Write report.json, report.md and report.html into ``out_dir`` (created if needed). The
    files are written to a temporary directory first and moved in only when all three exist, so
    a failure leaves no partial report."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    info = _meta(results, meta)
    risk, loss, top = risk_table(results), loss_table(results), headline(results)
    fig1, fig2 = risk_utility_map(results), attack_chart(results)
    ru_png, chart_png = _png(fig1), _png(fig2)
    import matplotlib.pyplot as plt

    plt.close(fig1), plt.close(fig2)
    records = json.loads(results.astype(object).where(results.notna(), None).to_json(orient="records"))
    doc = {"meta": info, "units": UNITS_TEXT, "headline": json.loads(top.to_json(orient="records")),
           "results": records}
    pairing = meta.get("pairing", "")
    warned = meta.get("warnings") or []
    md = [f"# Disclosure risk and information loss", "",
          f"Original file: `{meta.get('original', '')}`. Records paired by {pairing}.", "",
          f"sdcrisk {__version__}, {info['created']}, seed {meta.get('seed', 0)}.", "",
          *[f"**Warning:** {w}\n" for w in warned],
          "## Summary", "", _markdown_table(top), "",
          "## Disclosure risk", "", _markdown_table(risk), "",
          "## Information loss (%)", "", _markdown_table(loss), "", "## Units", "", UNITS_TEXT, ""]
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>sdcrisk report</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}}
table{{border-collapse:collapse;margin:1em 0;font-size:0.85em}}td,th{{border:1px solid #bbb;padding:0.25em 0.5em;text-align:right}}
th{{background:#eee}}td:first-child,th:first-child{{text-align:left}}img{{max-width:100%}}</style></head><body>
<h1>Disclosure risk and information loss</h1>
<p>Original file: <code>{html.escape(str(meta.get('original', '')))}</code>. Records paired by {html.escape(pairing)}.</p>
<p>sdcrisk {__version__}, {info['created']}, seed {meta.get('seed', 0)}.</p>
{"".join(f'<p style="color:#a00"><b>Warning:</b> {html.escape(w)}</p>' for w in warned)}
<h2>Summary</h2>{_html_table(top)}
<h2>Risk-utility map</h2><img alt="risk-utility map" src="data:image/png;base64,{ru_png}">
<h2>Disclosure risk per attack</h2><img alt="disclosure risk per attack" src="data:image/png;base64,{chart_png}">
{_html_table(risk)}
<h2>Information loss (%)</h2>{_html_table(loss)}
<h2>Units</h2><p>{html.escape(UNITS_TEXT)}</p>
</body></html>
"""
    tmp = Path(tempfile.mkdtemp(prefix=".sdcrisk-report-", dir=out))
    try:
        (tmp / "report.json").write_text(json.dumps(doc, indent=1, allow_nan=False) + "\n")
        (tmp / "report.md").write_text("\n".join(md))
        (tmp / "report.html").write_text(page)
        for name in FILES:
            os.replace(tmp / name, out / name)
    finally:
        for f in tmp.glob("*"):
            f.unlink()
        tmp.rmdir()
    return [out / name for name in FILES]
