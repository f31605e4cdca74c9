"""Figures of the replicated papers, drawn for a reviewer.

Every figure is titled with its paper (authors, year) and figure number ("Fig. 3"; Muralidhar &
Domingo-Ferrer (2016) has no figures, so its tables are drawn, "Table 1 as a figure"); labels each
axis in plain words with its unit (measures: :func:`axis_label`; masking
parameters: :data:`PARAMETERS`; never an internal column name); shows the real parameter values
on the axes; puts one legend, titled with what its entries vary, outside the axes; draws error
bars of one standard deviation over replicates; and overlays, as black open markers ("published"),
the values the paper printed for exactly the plotted cells: same data set, method, parameter,
known attributes and measure, from the cells of the experiment's tables in
``published_values.csv`` and the ``eq`` claims of ``published_claims.csv`` (both passed in by the
workflow). Colours: Okabe-Ito (colour-blind safe); heatmap: viridis. Output bytes depend on the
inputs only (PDF without a creation date; PNG carries no date).
"""

from __future__ import annotations

import re
import string
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from .config import _fmt, cells  # noqa: E402  (_fmt: as the labels print values)
from ..data import atomic_write  # noqa: E402
from ..measures import units  # noqa: E402
from .render import AVERAGED  # noqa: E402
from .check import PAPER_NAMES  # noqa: E402

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
             "#999999", "#882255", "#44AA99"]
MARKERS = "osD^v<>pXh*"
KEYS = ["dataset", "method", "param", "known", "measure"]
DATASETS = {"census": "Census", "eia": "EIA"}
METHODS = {"rankswap": "Rank swapping", "rankswap_pdist": "Rank swapping p-distribution",
           "rankswap_pbuckets": "Rank swapping p-buckets", "additive_noise": "Additive noise",
           "correlated_noise": "Correlated noise", "multiplicative_noise": "Multiplicative noise",
           "optimal_univariate_ma": "Optimal univariate microaggregation",
           "individual_ranking_ma": "Individual-ranking microaggregation", "mdav": "MDAV microaggregation",
           "pcp_ma": "PCP microaggregation", "zscore_ma": "Z-score microaggregation"}
#: Masking parameter -> (axis words naming it, unit); a (method, parameter) entry wins over the parameter's.
#: Muralidhar & Domingo-Ferrer (2016) §4 (noise a, b; group size k), Nin, Herranz & Torra (2008,
#: rank swapping) §2.3 and §4 (p, buckets), Nin, Herranz & Torra (2008, multivariate
#: microaggregation) Algorithm 1 (block size v, group size k).
PARAMETERS = {"p": ("Swap range p", "% of n"), "buckets": ("Number of buckets", "count"),
              "k": ("Group size k", "records per group"), "v": ("Block size v", "attributes per block"),
              "a": ("Noise level a", "noise sd / attribute sd"),
              ("correlated_noise", "a"): ("Noise level a", "noise covariance / data covariance"),
              "b": ("Noise level b", "noise factor uniform on [1-b, 1+b]")}
_IL = ("IL", "IL1", "IL2", "IL3", "IL4", "IL5", "IL1s", "IL-s")
#: Every measure (:mod:`sdcrisk.measures.units` declares its unit) in the plain words of an axis.
#: Risks as the papers define them (Nin, Herranz & Torra 2007 §3; 2008 rank swapping §5; 2008
#: multivariate microaggregation §4): the % of records a linkage re-identifies. Kept here, not in
#: the units module, whose code is part of every cell's provenance digest.
MEASURES = {**{m: f"Records linked by {m}" for m in units.ATTACK_PERCENT},
            "RSRL_pct": "Records linked by RS-RL", "DLD": "Disclosure risk by DBRL, DLD",
            "PLD": "Disclosure risk by PRL, PLD", "LLD": "Disclosure risk by L-RL, LLD",
            "RSLD": "Disclosure risk by RS-RL, RSLD", "ProLD_PCP": "Disclosure risk by projected RL on PCP",
            "ProLD_Zscore": "Disclosure risk by projected RL on z-scores", "ID": "Interval disclosure ID",
            "DR_RSLD": "Disclosure risk DR with RSLD", "true_support_pct": "Records whose true match keeps support",
            "IL-cat": "Categorical values changed",
            **{m: f"Information loss {m}" for m in _IL},
            **{m: f"{m.replace('_RSLD', ' with RSLD')}, mean of IL and DR" for m in units.UNBOUNDED_PERCENT - set(_IL)},
            "DBRL_count": "Records linked by DBRL", "LLD_count": "Records linked by L-RL",
            "RSRL_annotated_union_count": "Records linked by annotated-union RS-RL",
            "RSRL_annotated_union_half_count": "Records linked by annotated-union RS-RL, half interval",
            "nonspecificity": "Nonspecificity", "pignistic_entropy": "Pignistic entropy"}
#: The three criteria (:func:`sdcrisk.replication.evaluation.criteria_rows`) in plain words.
CRITERIA = {"Linkability": "Records linked, best attack", "SinglingOut": "Predicates singling out, best attack",
            "Inference": "Secrets inferred, best attack"}
_PARTS = {"": "", "_low": ", lower 95 % bound", "_high": ", upper 95 % bound", "_baseline": ", its baseline",
          "_excess": ", excess over the baseline", "_excess_low": ", excess, lower 95 % bound",
          "_excess_high": ", excess, upper 95 % bound"}
CRITERION_NAMES = {"Linkability": "Linkability", "SinglingOut": "Singling out", "Inference": "Inference"}
MEASURES |= {c + part: text + words for c, text in CRITERIA.items() for part, words in _PARTS.items()}


def unit(measure: str) -> str:
    """The unit of ``measure`` (:mod:`sdcrisk.measures.units`); pignistic entropy is in nats
    (:meth:`sdcrisk.replication.belief.MassAssignment.entropy`), nonspecificity in bits."""
    if measure in units.PERCENT | units.UNBOUNDED_PERCENT:
        return "%"
    if measure in units.COUNTS:
        return "records"
    if measure in units.POINTS:
        return "percentage points"
    return "nats" if measure == "pignistic_entropy" else "bits"


def axis_label(measures) -> str:
    """One measure, "Records linked by RS-RL (%)", or attacks sharing an axis, "Records correctly
    linked (%)"."""
    measures = list(dict.fromkeys([measures] if isinstance(measures, str) else measures))
    text = (MEASURES[measures[0]] if len(measures) == 1 else "Records correctly linked"
            if set(measures) <= set(units.ATTACK_PERCENT) else ", ".join(MEASURES[m] for m in measures))
    return f"{text} ({' / '.join(dict.fromkeys(map(unit, measures)))})"


#: links_vs_known: what the x axis counts (the config's ``known``).
KNOWN = {"attributes": "Known attributes (number)", "groups": "Known blocks of v attributes (number)"}
STYLE = {"font.size": 8, "axes.labelsize": 8, "axes.titlesize": 9, "xtick.labelsize": 7, "ytick.labelsize": 7}


def _as_list(v):
    return v if isinstance(v, list) else [v]


def _param(method: str, name: str) -> tuple[str, str]:
    return PARAMETERS.get((method, name)) or PARAMETERS.get(name) or (f"Parameter {name}", "as configured")


class Sweep:
    """The parameter values behind each ``param`` label of an experiment (its cells), and which
    parameters a method's label shows (the ``{fields}`` of its template; every parameter the
    method varies when the experiment has no label)."""

    def __init__(self, experiment: dict):
        self.values = {(c.dataset, c.method, c.label): dict(c.params)
                       for c in cells({"experiments": {"e": experiment}})}
        self.label = experiment.get("label")

    def names(self, method: str) -> list[str]:
        text = self.label.get(method) if isinstance(self.label, dict) else self.label
        if text:
            return [f for _, f, _, _ in string.Formatter().parse(text) if f]
        seen = [v for (_, m, _), v in self.values.items() if m == method]
        return [k for k in seen[0] if len({_fmt(v[k]) for v in seen}) > 1] if seen else []

    def show(self, dataset: str, method: str, param: str) -> str:
        """The values of the swept parameters: "5", or "v=3, k=15"."""
        values, names = self.values.get((dataset, method, param)), self.names(method)
        if values is None or not names:
            return param.replace(";", ", ")
        if len(names) == 1:
            return _fmt(values[names[0]])
        return ", ".join(f"{n}={_fmt(values[n])}" for n in names)

    def title(self, method: str) -> str:
        """Legend title: "p (% of n)", "v (attributes per block), k (records per group)"."""
        return ", ".join(f"{n} ({_param(method, n)[1]})" for n in self.names(method))

    def axis(self, method: str) -> str:
        """Axis label: "Swap range p (% of n)"."""
        return ", ".join("{} ({})".format(*_param(method, n)) for n in self.names(method))


def published_points(experiment: dict, values_csv=None, claims_csv=None) -> pd.DataFrame:
    """The values the experiment's paper printed: its tables' cells and the text's ``eq`` claims."""
    frames = []
    if values_csv:
        v = pd.read_csv(values_csv, dtype=str, keep_default_na=False)
        frames.append(v[(v.paper == experiment["paper"]) & v.table.isin(list(experiment.get("tables", {})))])
    if claims_csv:
        c = pd.read_csv(claims_csv, dtype=str, keep_default_na=False)
        frames.append(c[(c.paper == experiment["paper"]) & (c.op == "eq")])
    if not frames:
        return pd.DataFrame(columns=KEYS + ["value"])
    out = pd.concat([f[KEYS + ["value"]] for f in frames], ignore_index=True).drop_duplicates()
    return out.assign(value=out.value.astype(float))


def figure_title(experiment: dict, figure: str, caption: str) -> str:
    """"<authors (year)>, Fig. 3: <caption>"; ``FT1`` is "Table 1 as a figure"; other ids
    (``FTcorr``, ``Fmatrix``) carry no number."""
    paper = PAPER_NAMES.get(experiment["paper"], experiment["paper"])
    number = re.fullmatch(r"F(T?)(\d+)", figure)
    if number:
        paper += f", {'Table ' + number[2] + ' as a figure' if number[1] else 'Fig. ' + number[2]}"
    return f"{paper}: {caption}" if caption else paper


class Styles:
    """One colour and marker per series, the same in every panel, and the figure's legend."""

    def __init__(self):
        self.order, self.overlaid = {}, False

    def __call__(self, key: str) -> dict:
        i = self.order.setdefault(key, len(self.order))
        return {"color": OKABE_ITO[i % len(OKABE_ITO)], "marker": MARKERS[i % len(MARKERS)]}

    def legend(self, fig, title: str):
        handles = [Line2D([], [], ms=4, lw=1.2, **self(k)) for k in self.order]
        labels = list(self.order)
        if self.overlaid:
            handles.append(Line2D([], [], ls="none", marker="o", ms=7, mfc="none", mec="black", mew=1.2))
            labels.append("published")
        fig.legend(handles, labels, title=title, loc="outside lower center", ncols=min(len(labels), 6), fontsize=7,
                   title_fontsize=7)


def draw(ax, pts: pd.DataFrame, styles: Styles, published: pd.DataFrame):
    """Error-bar curves of ``pts`` (columns x, series and the aggregated keys, mean, sd), one per
    series, and the published values of exactly those cells as black open markers."""
    for key, g in pts.groupby("series", sort=False):
        ax.errorbar(g.x, g["mean"], yerr=g["sd"], ms=4, lw=1.2, capsize=2, **styles(key))
    hit = pts.merge(published, on=KEYS)
    for key, g in hit.groupby("series", sort=False):
        ax.plot(g.x, g.value, ls="none", ms=8, mfc="none", mec="black", mew=1.2, marker=styles(key)["marker"],
                zorder=3, gid="published")
    styles.overlaid |= not hit.empty
    ax.grid(alpha=0.3)


def _categorical(ax, rows: pd.DataFrame, sweep: Sweep) -> pd.Series:
    """x positions of the parameter labels of ``rows`` in sweep order; ticks show their values."""
    labels = list(dict.fromkeys(rows.param))
    ax.set_xticks(range(len(labels)), [sweep.show(rows.dataset.iat[0], rows.method.iat[0], p) for p in labels],
                  rotation=45 if len(labels) > 8 else 0)
    return rows.param.map({p: i for i, p in enumerate(labels)})


def links_vs_known(ax, rows, spec, sweep, styles, published):
    """One curve per parameter against the number of known attributes (or blocks of them):
    Nin, Herranz & Torra (2008, rank swapping) Figs. 3-5, (2008, multivariate microaggregation) Figs. 1-3."""
    rows = rows[~rows.known.isin(AVERAGED)]
    method = rows.method.iat[0]
    series = [sweep.show(d, m, p) for d, m, p in zip(rows.dataset, rows.method, rows.param)]
    draw(ax, rows.assign(x=pd.to_numeric(rows.known), series=series), styles, published)
    ax.set_xticks(sorted(pd.to_numeric(rows.known).unique()))  # counts: integer ticks only
    ax.set_xlabel(KNOWN[spec.get("known", "attributes")])
    ax.set_ylabel(axis_label(rows.measure.iat[0]))
    return sweep.title(method)


def param_curve(ax, rows, spec, sweep, styles, published):
    """One curve per measure against the parameter: Muralidhar & Domingo-Ferrer (2016) Tables 1-5."""
    rows = rows[rows.known.isin(AVERAGED)]
    draw(ax, rows.assign(x=_categorical(ax, rows, sweep), series=rows.measure), styles, published)
    ax.set_xlabel(sweep.axis(rows.method.iat[0]))
    ax.set_ylabel(axis_label(rows.measure))
    return "Record linkage"


def measure_by_method(ax, rows, spec, sweep, styles, published):
    """One curve per method against its own parameter (one panel per parameter: p and number of
    buckets do not share an axis): Nin, Herranz & Torra (2008, rank swapping) Figs. 6-7."""
    rows = rows[rows.known.isin(AVERAGED)]
    draw(ax, rows.assign(x=_categorical(ax, rows, sweep), series=rows.method.map(lambda m: METHODS.get(m, m))),
         styles, published)
    ax.set_xlabel(sweep.axis(rows.method.iat[0]))
    ax.set_ylabel(axis_label(rows.measure.iat[0]))
    return "Masking method"


def heatmap(ax, rows, spec, sweep, styles, published):
    """Method x attack matrix of % correctly linked (viridis: perceptually uniform, CVD-safe)."""
    measures = _as_list(spec["measure"])
    label = [f"{METHODS.get(m, m)}, {sweep.show(d, m, p)}" for d, m, p in zip(rows.dataset, rows.method, rows.param)]
    wide = rows.assign(label=label).pivot_table(index="label", columns="measure", values="mean",
                                                sort=False).reindex(columns=measures)
    im = ax.imshow(wide.to_numpy(), cmap="viridis", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(measures)), measures, rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(len(wide)), wide.index, fontsize=7)
    for (i, j), val in np.ndenumerate(wide.to_numpy()):
        if np.isfinite(val):
            ax.text(j, i, f"{val:.0f}", ha="center", va="center", fontsize=6, color="white" if val < 60 else "black")
    ax.set_xlabel("Record-linkage attack")
    ax.set_ylabel("Masking method and parameter")
    return im


def criteria(ax, rows, spec, sweep, styles, published):
    """Per masking method (a row), each criterion's risk (filled marker) with its 95 % interval
    (whiskers: the mean over replicates of the Wilson bounds) beside its baseline (open marker):
    which method protects against which criterion (:func:`sdcrisk.replication.evaluation.criteria_rows`)."""
    measures = _as_list(spec["measure"])
    keys = list(dict.fromkeys(zip(rows.method, rows.param)))
    label = [f"{METHODS.get(m, m)}, {sweep.show(rows.dataset.iat[0], m, p)}" for m, p in keys]
    mean = rows.pivot_table(index=["method", "param"], columns="measure", values="mean", sort=False)
    step = 0.8 / max(len(measures), 1)
    for j, c in enumerate(measures):
        st = styles(CRITERION_NAMES.get(c, c))
        at = [(m, p) for m, p in keys if (m, p) in mean.index]
        ypos = np.array([keys.index(k) for k in at]) - 0.4 + step * (j + 0.5)
        get = lambda part: mean.reindex(index=at).get(c + part, pd.Series(np.nan, index=at)).to_numpy(float)  # noqa: E731
        risk, low, high = get(""), get("_low"), get("_high")
        ax.errorbar(risk, ypos, xerr=[np.clip(risk - low, 0, None), np.clip(high - risk, 0, None)], ls="none",
                    ms=4, capsize=2, color=st["color"], marker=st["marker"])
        ax.plot(get("_baseline"), ypos, ls="none", ms=5, mfc="none", mec=st["color"], marker=st["marker"],
                gid="baseline")
    ax.set_yticks(range(len(keys)), label, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(-2, 102)
    ax.set_xlabel("Risk of the worst attack, whiskers its 95 % interval, open marker its baseline (%)")
    ax.set_ylabel("Masking method and its parameter (as configured)")
    ax.grid(alpha=0.3, axis="x")
    return "Criterion"


KINDS = {"links_vs_known": links_vs_known, "param_curve": param_curve, "measure_by_method": measure_by_method,
         "heatmap": heatmap, "criteria": criteria}


def _panels(agg: pd.DataFrame, spec: dict, sweep: Sweep) -> list[list[pd.DataFrame]]:
    """Rows of panels (one per data set) of the figure's cells: a column per measure
    (links_vs_known), per parameter naming (measure_by_method), else one."""
    measures = _as_list(spec["measure"])
    if spec["kind"] == "criteria":  # each criterion's interval and baseline beside it
        measures = [c + part for c in measures for part in ("", "_low", "_high", "_baseline")]
    agg = agg[agg.measure.isin(measures)]
    if "method" in spec:
        agg = agg[agg.method == spec["method"]]
    grid = []
    for _, rows in agg.groupby("dataset", sort=False):
        if spec["kind"] == "links_vs_known":
            grid.append([rows[rows.measure == m] for m in measures])
        elif spec["kind"] == "measure_by_method":
            by = rows.method.map(lambda m: tuple(sweep.names(m)))
            grid.append([g for _, g in rows.groupby(by, sort=False)])
        else:
            grid.append([rows])
    return grid


def build_figure(agg: pd.DataFrame, experiment: dict, figure: str, published: pd.DataFrame | None = None):
    """The matplotlib figure of ``experiment["figures"][figure]`` from the aggregated cells: a row
    of panels per data set, one legend (or colour bar) below them, the paper in the title."""
    spec = experiment["figures"][figure]
    published = published_points(experiment) if published is None else published
    sweep, styles, kind = Sweep(experiment), Styles(), KINDS[spec["kind"]]
    grid = _panels(agg, spec, sweep)
    nrows, ncols = len(grid), max(len(r) for r in grid)
    heat = spec["kind"] == "heatmap"
    with plt.rc_context(STYLE):
        tall = heat or spec["kind"] == "criteria"
        fig, axes = plt.subplots(nrows, ncols, squeeze=False, layout="constrained",
                                 sharey="row" if spec["kind"] == "measure_by_method" else "none",
                                 figsize=(7.5 if tall else 3.6 * ncols + 0.6, (4.6 if tall else 3.0) * nrows + 1.3))
        for r, row in enumerate(grid):
            for c, rows in enumerate(row):
                made = kind(axes[r][c], rows, spec, sweep, styles, published)
                axes[r][c].set_title(DATASETS.get(rows.dataset.iat[0], rows.dataset.iat[0]))
        if heat:
            fig.colorbar(made, ax=axes.ravel().tolist(), label=axis_label(_as_list(spec["measure"])))
        else:
            styles.legend(fig, made)
        fig.suptitle(textwrap.fill(figure_title(experiment, figure, spec.get("caption", "")),
                                   width=int(14 * fig.get_figwidth())), fontsize=9)
    return fig


def render_figure(aggregated_csv, experiment: dict, figure: str, out_png, out_pdf, published_csv=None,
                  claims_csv=None):
    """Write the figure as PNG and PDF (same bytes for the same inputs)."""
    agg = pd.read_csv(aggregated_csv, dtype={"known": str, "param": str}, keep_default_na=False)
    save_figure(build_figure(agg, experiment, figure, published_points(experiment, published_csv, claims_csv)),
                out_png, out_pdf)


def save_figure(fig, out_png, out_pdf) -> None:
    """Write ``fig`` as PNG and PDF, each atomically and without a creation date (same bytes for
    the same figure), and close it."""
    for out in (out_png, out_pdf):
        pdf = str(out).endswith(".pdf")
        atomic_write(out, lambda tmp: fig.savefig(tmp, dpi=130, metadata={"CreationDate": None} if pdf else None))
    plt.close(fig)
