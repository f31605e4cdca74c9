"""Figures a reviewer can read: every configured figure, drawn from synthetic aggregated cells of
its experiment's sweep, has plain axis labels with units, a titled legend off the data, a title
naming the paper, real parameter values on its axes, and the published values of exactly its
cells overlaid; rendering is byte-deterministic. No published number is asserted."""

import inspect
import re
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from sdcrisk.replication import figures
from sdcrisk.replication.config import cells, load
from sdcrisk.measures import units
from sdcrisk.replication.check import figure_targets

ROOT = Path(__file__).resolve().parents[1]
CFG = load(ROOT / "config" / "config.yaml")
TARGETS = figure_targets(CFG)
VALUES, CLAIMS = ROOT / "published" / "published_values.csv", ROOT / "published" / "published_claims.csv"
UNIT = re.compile(r"\([^()]+\)$")  # "... (unit)" at the end


def synthetic(name: str) -> pd.DataFrame:
    """Aggregated rows for every cell of the experiment and every measure its figures draw:
    known 1..5 for links_vs_known, "all" (an averaged scenario) otherwise."""
    exp = CFG["experiments"][name]
    rows = []
    for order, c in enumerate(cells({"experiments": {name: exp}})):
        for spec in exp["figures"].values():
            knowns = [str(k) for k in range(1, 6)] if spec["kind"] == "links_vs_known" else ["all"]
            for m in figures._as_list(spec["measure"]):
                rows += [{"experiment": name, "dataset": c.dataset, "method": c.method, "param": c.label, "known": k,
                          "measure": m, "mean": 50.0 + 40.0 * np.sin(order + int(k) if k.isdigit() else order),
                          "sd": 1.0, "n": 5, "order": order} for k in knowns]
    return pd.DataFrame(rows).drop_duplicates(["dataset", "method", "param", "known", "measure"])


def build(target, published=None):
    name, fig_id = TARGETS[target]
    exp = CFG["experiments"][name]
    pub = figures.published_points(exp, VALUES, CLAIMS) if published is None else published
    return figures.build_figure(synthetic(name), exp, fig_id, pub)


def data_axes(fig):
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


def overlay(fig):
    return [line for ax in fig.axes for line in ax.get_lines() if line.get_gid() == "published"]


@pytest.fixture(params=sorted(TARGETS))
def drawn(request):
    fig = build(request.param)
    fig.canvas.draw()
    yield request.param, fig
    plt.close(fig)


def test_axis_labels_are_plain_words_with_units(drawn):
    _, fig = drawn
    for ax in data_axes(fig):
        ticks = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        assert not any("_" in t for t in [ax.get_xlabel(), ax.get_ylabel(), ax.get_title()] + ticks)
        if not ax.images:  # a heatmap's axes are categories; its colour bar carries the unit
            assert UNIT.search(ax.get_xlabel()) and UNIT.search(ax.get_ylabel()), (ax.get_xlabel(), ax.get_ylabel())
    for cbar in [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]:
        assert UNIT.search(cbar.get_ylabel()) and "_" not in cbar.get_ylabel()


def test_title_names_the_paper_and_figure(drawn):
    target, fig = drawn
    name, fig_id = TARGETS[target]
    title = fig.get_suptitle().replace("\n", " ")
    assert title.startswith(figures.PAPER_NAMES[CFG["experiments"][name]["paper"]]) and "_" not in title
    if re.fullmatch(r"FT\d+", fig_id):
        assert f"Table {fig_id[2:]} as a figure" in title
    elif re.fullmatch(r"F\d+", fig_id):
        assert f"Fig. {fig_id[1:]}:" in title


def test_legend_is_titled_and_off_the_data(drawn):
    _, fig = drawn
    if any(ax.images for ax in fig.axes):
        return  # heatmap: a colour bar, no legend
    (legend,) = fig.legends
    texts = [legend.get_title().get_text()] + [t.get_text() for t in legend.get_texts()]
    assert texts[0] and not any("_" in t for t in texts)
    box = legend.get_window_extent()
    assert not any(box.overlaps(ax.get_window_extent()) for ax in data_axes(fig))


def test_parameter_axes_show_the_configured_values():
    """Nin, Herranz & Torra (2008, rank swapping) Figs. 6-7: p and the number of buckets each on
    their own axis, ticks = the swept values (not positions 1..10)."""
    fig = build("nin2008_rethinking_rs_F7")
    methods = CFG["experiments"]["nin2008_rankswap"]["methods"]
    ticks = {ax.get_xlabel(): [t.get_text() for t in ax.get_xticklabels()] for ax in fig.axes}
    assert ticks == {"Swap range p (% of n)": [str(p) for p in methods["rankswap"]["p"]],
                     "Number of buckets (count)": [str(b) for b in methods["rankswap_pbuckets"]["buckets"]]}
    plt.close(fig)


def test_published_values_overlay_only_the_plotted_cells():
    fig = build("muralidhar2016_rank_rl_FT1")
    marks = overlay(fig)
    assert marks and "published" in [t.get_text() for t in fig.legends[0].get_texts()]
    curves = {float(x) for ax in fig.axes for line in ax.get_lines() if line.get_gid() != "published"
              for x in line.get_xdata()}
    assert {float(x) for m in marks for x in m.get_xdata()} <= curves  # on a plotted parameter value
    plt.close(fig)
    name, fig_id = TARGETS["muralidhar2016_rank_rl_FT1"]
    pub = figures.published_points(CFG["experiments"][name], VALUES, CLAIMS)
    for other in (pub.assign(method="rankswap"), pub.assign(known="half"), pub.assign(measure="PRL")):
        fig = build("muralidhar2016_rank_rl_FT1", other)
        assert not overlay(fig) and "published" not in [t.get_text() for t in fig.legends[0].get_texts()]
        plt.close(fig)


@pytest.mark.parametrize("target", ["muralidhar2016_rank_rl_FTcorr", "nin2008_rethinking_rs_F3"])
def test_no_overlay_where_the_paper_prints_no_value(target):
    fig = build(target)
    assert not overlay(fig)
    plt.close(fig)


def test_the_package_reads_no_published_file_itself():
    """The workflow passes the published CSVs in; the package locates no repository file."""
    assert figures.published_points(CFG["experiments"]["muralidhar2016_additive"]).empty
    assert "__file__" not in inspect.getsource(figures)


def test_every_measure_has_a_plain_label_and_unit():
    declared = units.PERCENT | units.UNBOUNDED_PERCENT | units.COUNTS | units.BITS | units.POINTS
    assert set(figures.MEASURES) == declared
    for m in declared:
        assert "_" not in figures.axis_label(m) and UNIT.search(figures.axis_label(m))


def test_rendering_is_deterministic(tmp_path):
    name, fig_id = TARGETS["muralidhar2016_rank_rl_FT1"]
    agg = tmp_path / "agg.csv"
    synthetic(name).to_csv(agg, index=False)
    out = []
    for run in ("a", "b"):
        png, pdf = tmp_path / run / "f.png", tmp_path / run / "f.pdf"
        figures.render_figure(agg, CFG["experiments"][name], fig_id, png, pdf, VALUES, CLAIMS)
        out.append((png.read_bytes(), pdf.read_bytes()))
    assert out[0] == out[1] and out[0][1].startswith(b"%PDF") and b"CreationDate" not in out[0][1]
