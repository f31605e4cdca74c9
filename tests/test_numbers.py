"""Every number in REPLICATION.md and docs/differences.md that states agreement with a published
value (counts of rows that match, are close or differ; gaps; mean absolute deviations) is
recomputed here from the committed check (``tables/replication.csv``, the pins of
``docs/differing_cells.csv``) or the committed peer comparison
(``research/peer/results/sdcmicro_rows.csv``), and the document must carry the recomputed text:
a rerun that moves a number makes these tests fail until the prose is updated. Counts of the check
itself sit in ``<!-- check: ... -->`` regions written by :mod:`sdcrisk.replication.prose`
(tests/test_replication.py); the statements below are those that module cannot write (per-group
counts, gaps, ranges, MADs).

Also: the reader-facing pages carry no dates and no "previous round" history (tests/test_no_dates.py
checks every page under docs/ and benchmarks/results/); what changed goes to CHANGELOG.md.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
N = {"census": 1080, "eia": 4092}
OK = ("match", "close")


@pytest.fixture(scope="module")
def rep() -> pd.DataFrame:
    df = pd.read_csv(ROOT / "tables" / "replication.csv", dtype=str, keep_default_na=False)
    for col in ("published", "mean", "sd", "n"):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    return df


@pytest.fixture(scope="module")
def pins() -> pd.DataFrame:
    return pd.read_csv(ROOT / "docs" / "differing_cells.csv", dtype=str, keep_default_na=False)


def text(doc: str) -> str:
    """The document with every run of white space as one space (line wrapping does not matter)."""
    return " ".join((ROOT / doc).read_text().split())


def says(doc: str, *phrases: str) -> None:
    body = text(doc)
    for phrase in phrases:
        assert phrase in body, f"{doc} should say {phrase!r} (recomputed from the committed tables)"


def rows(rep, **where) -> pd.DataFrame:
    m = rep
    for k, v in where.items():
        m = m[m[k].isin(v)] if isinstance(v, (list, tuple, set)) else m[m[k] == str(v)]
    assert len(m), f"no committed row for {where}"
    return m


def one(rep, **where) -> pd.Series:
    m = rows(rep, **where)
    assert len(m) == 1, f"{len(m)} committed rows for {where}"
    return m.iloc[0]


def f(x: float, d: int = 1) -> str:
    return f"{x:.{d}f}"


def span(values, d: int = 1) -> str:
    """``lo-hi`` of the values at ``d`` decimals (one value if they round alike)."""
    lo, hi = f(min(values), d), f(max(values), d)
    return lo if lo == hi else f"{lo}-{hi}"


def mad(df: pd.DataFrame) -> float:
    return float((df["mean"] - df["published"]).abs().mean())


def signed(df: pd.DataFrame) -> float:
    return float((df["mean"] - df["published"]).mean())


NIN07 = "nin2007_location_rl"
MD16 = "muralidhar2016_rank_rl"
MMA = "nin2008_multivariate_ma"
RS08 = "nin2008_rethinking_rs"


# ------------------------------------------------------------------------ group sizes (pins)

GROUP_PHRASE = re.compile(r"\(`(?P<id>[a-z0-9-]+)`(?:, and `[a-z0-9-]+` for [^;)]*)?;[^)]*?(?P<n>\d+)(?: of \d+)? rows? differ")


def test_differences_group_sizes_are_the_pinned_counts(pins):
    """Each group's "(`id`; ... N rows differ)" in docs/differences.md is its number of pinned rows."""
    counts = pins["cause"].value_counts().to_dict()
    found = {m["id"]: int(m["n"]) for m in GROUP_PHRASE.finditer(text("docs/differences.md"))}
    assert set(found) >= {"mdav", "eia-rs-fixed-set", "rs-large-p", "pdist", "lrl-group-bound",
                          "univariate-residual", "prl-tie-draw", "rs-replicate-noise", "il-univariate-low"}
    assert {k: counts.get(k, 0) for k in found} == found


def test_group_phrase_catches_a_stale_count():
    doc = "1. **MDAV** (`mdav`; deterministic, 153 rows differ). 3. (`eia-rs-fixed-set`; 1 row differs)"
    assert {m["id"]: int(m["n"]) for m in GROUP_PHRASE.finditer(doc)} == {"mdav": 153, "eia-rs-fixed-set": 1}


# ---------------------------------------------------------------- Nin, Herranz & Torra (2007)

def test_lrl_group_bound_t5(rep):
    """Table 5 (L-RL on optimal univariate microaggregation): the differing counts are all high,
    by 15-125 records, as a share of n the range both documents state; mostly EIA and k >= 30."""
    t5 = rows(rep, paper=NIN07, table="T5")
    bad = t5[t5.status == "differs"]
    diff = bad["mean"] - bad["published"]
    assert (diff > 0).all()
    share = [100 * d / N[ds] for d, ds in zip(diff, bad.dataset)]
    pct = span(share)
    assert (bad.dataset == "eia").sum() > len(bad) / 2
    assert (bad.param.astype(int) >= 30).sum() > len(bad) / 2
    worst = bad.loc[diff.idxmax()]
    says("REPLICATION.md", f"ours {pct} % of n high", f"is an upper bound, {pct} % of n high (mostly EIA, k >= 30)")
    says("docs/differences.md",
         f"{len(bad)} of {len(t5)} T5 counts are {span(diff, 0)} records ({pct} % of n) high, mostly EIA and k >= 30",
         f"(EIA k = {worst.param} with {worst.known} known attributes: "
         f"{worst['mean']:.0f} vs {worst.published:.0f})")
    assert worst.dataset == "eia"
    lld = rows(rep, paper=NIN07, table=["T7", "T8"], measure="LLD")
    lld = lld[lld.status == "differs"]
    says("docs/differences.md", f"is {span(lld['mean'] - lld.published)} points high in {len(lld)} cells")


def test_mdav_t10_t11_table(rep):
    """docs/differences.md group 1: per measure, the MAD (signed mean) of T10 / T11 and the cells
    that match or are close (unconverged cells counted apart)."""
    body = text("docs/differences.md")

    def entry(table, measures):
        df = rows(rep, paper=NIN07, table=table, measure=measures)
        ok = df.status.isin(OK).sum()
        unc = (df.status == "unconverged").sum()
        tail = f", {unc} unconverged" if unc else ""
        if len(measures) == 1:
            return f"{f(mad(df))} ({signed(df):+.1f}), {ok} / {len(df)}{tail}"
        parts = [f(mad(rows(rep, paper=NIN07, table=table, measure=m))) for m in measures]
        return f"{' / '.join(parts)}, {ok} / {len(df)}{tail}"

    for label, measures in (("IL", ["IL"]), ("LLD", ["LLD"]), ("DLD", ["DLD"]), ("PLD", ["PLD"]), ("ID", ["ID"]),
                            ("Score1 / Score2", ["Score1", "Score2"])):
        line = f"| {label} | {entry('T10', measures)} | {entry('T11', measures)} |"
        assert line in body, f"docs/differences.md should have the row {line!r}"
    il10, il11 = (rows(rep, paper=NIN07, table=t, measure="IL") for t in ("T10", "T11"))
    pld10, pld11 = (rows(rep, paper=NIN07, table=t, measure="PLD") for t in ("T10", "T11"))
    id10, id11 = (rows(rep, paper=NIN07, table=t, measure="ID") for t in ("T10", "T11"))
    says("REPLICATION.md", f"(EIA IL MAD {f(mad(il11))}, ID {span([mad(id10), mad(id11)])})",
         f"Census IL (MAD {f(mad(il10))}:", f"PLD (MAD {f(mad(pld10))} / {f(mad(pld11))})")
    says("docs/differences.md", f"and EIA IL fits: MAD {f(mad(il11))})")


def test_mdav_t9_lrl_counts(rep):
    t9 = rows(rep, paper=NIN07, table="T9")
    v4 = t9[t9.param.str.startswith("v=4")]
    ratio = v4["mean"] / v4["published"]
    high = ratio[ratio > 1]
    phrase = f"{span(high, 0)} x too high in {len(high)} of {len(v4)} v = 4 cells"
    says("REPLICATION.md", phrase)
    says("docs/differences.md", phrase)
    mic2_15 = t9[(t9.dataset == "census") & (t9.param == "v=2;k=15")].sort_values("known", key=lambda s: s.astype(int))
    says("docs/differences.md",
         "(Census Mic2-15: " + ", ".join(f"{p:.0f}" for p in mic2_15.published) + ")",
         "fall (" + ", ".join(f"{m:.0f}" for m in mic2_15["mean"]) + ")")


def test_rank_swapping_statements(rep):
    t3_p2 = one(rep, paper=NIN07, table="T3", dataset="census", param="2", measure="PLD")
    assert t3_p2.status == "unconverged"
    says("docs/differences.md", f"Census p = 2: ours {t3_p2['mean']:.1f} vs {t3_p2.published:.2f}, not compared")
    ids = [one(rep, paper=NIN07, table="T3", dataset="census", param=p, measure="ID") for p in ("2", "6")]
    says("docs/differences.md", f"(Census p = 2/6 ID {f(ids[0]['mean'])} / {f(ids[1]['mean'])} vs "
                                f"{ids[0].published:.2f} / {ids[1].published:.2f})")
    # T1 below p = 14: the cells outside 1 % of n
    t1 = rows(rep, paper=NIN07, table="T1", dataset="census")
    low = t1[(t1.param.astype(int) < 10) & (t1.status == "differs")]
    gap = low["published"] - low["mean"]
    assert (gap > 0).all()
    says("docs/differences.md",
         f"below that, {len(low)} cells: p = {' and '.join(sorted(set(low.param), key=int))} with "
         f"{span(low.known.astype(int), 0)} known attributes, {span(gap, 0)} records low, "
         f"{span(100 * gap / N['census'])} % of n")
    p20 = {k: one(rep, paper=NIN07, table="T1", dataset="census", param="20", known=str(k)) for k in (5, 6, 7)}
    says("docs/differences.md", "published / ours for k = 5, 6, 7 known are "
         + ", ".join(f"{p20[k].published:.0f} / {p20[k]['mean']:.0f}" for k in (5, 6, 7)))
    pub = [one(rep, paper=NIN07, table="T3", dataset="census", param="20", measure=m).published for m in ("DLD", "ID", "IL")]
    says("docs/differences.md", "against the published " + " / ".join(f"{p:.2f}" for p in pub))
        # group 4: how far low the pinned large-p IL, DLD and ID rows are at p >= 12
    lp = rows(rep, paper=NIN07, table=["T3", "T4"], measure=["IL", "DLD", "ID"], explanation="rs-large-p")
    lp = lp[lp.param.astype(int) >= 12]
    gap = lp["published"] - lp["mean"]
    assert (gap > 0).all()
    cen, eia = gap[lp.dataset == "census"], gap[(lp.dataset == "eia") & (lp.measure == "ID")]
    says("REPLICATION.md", f"At p >= 12 Census IL, DLD and ID {span(cen, 0)} points low, EIA ID {span(eia, 0)}")
    g = {m: span(gap[(lp.dataset == "census") & (lp.measure == m)], 0) for m in ("IL", "DLD", "ID")}
    says("docs/differences.md", f"at p >= 12 IL {g['IL']} points low on Census, DLD {g['DLD']} and ID {g['ID']} "
                                f"(EIA ID {span(eia, 0)})")


def test_replicate_noise_rows(rep, pins):
    rows_ = pins[pins.cause == "rs-replicate-noise"]
    zs = []
    for _, p in rows_.iterrows():
        r = one(rep, paper=p.paper, table=p.table, dataset=p.dataset, param=p.param, known=p.known, measure=p.measure)
        se = math.sqrt(2) * r.sd / math.sqrt(r.n)  # the paper's mean from as many maskings
        zs.append(abs(r["mean"] - r.published) / se)
        says("docs/differences.md", f"{f(r['mean'])} links against the published {f(r.published)} (sd {f(r.sd)}")
    says("REPLICATION.md", f"{span(zs)} standard errors from the published means")


def test_univariate_rows(rep):
    dld = rows(rep, paper=NIN07, table="T8", measure="DLD")
    dld = dld[dld.status == "differs"]
    idr = rows(rep, paper=NIN07, table=["T7", "T8"], measure="ID")
    idr = idr[idr.status == "differs"]
    says("REPLICATION.md", f"EIA DLD {span(dld.published - dld['mean'])} low, ID (k = 50) "
                           f"{span((idr['mean'] - idr.published).abs())} off")
    says("docs/differences.md", f"is {span(dld.published - dld['mean'])} points low, ID at k = 50 "
                                f"{span((idr['mean'] - idr.published).abs())} points off")
    assert set(idr.param) == {"50"} and set(dld.param) == {"20", "30"}
    pld = rows(rep, paper=NIN07, table="T8", measure="PLD", param="20")
    pld = pld.iloc[0]
    says("REPLICATION.md", f"{pld['mean']:.2f} vs {pld.published:.2f}")
    says("docs/differences.md", f"{pld['mean']:.2f} against the published {pld.published:.2f}, "
                                f"{pld.published - pld['mean']:.3f} points low")
    il = rows(rep, paper=NIN07, table=["T7", "T8"], measure="IL")
    il = il[il.status == "differs"]
    rel = 100 * (il.published - il["mean"]) / il.published
    assert ((il.published - il["mean"]).abs() <= 1).all()
    k10 = one(rep, paper=NIN07, table="T8", measure="IL", param="10")
    for doc in ("REPLICATION.md", "docs/differences.md"):
        says(doc, f"{span(rel, 0)} % ", f"EIA k = 10: {k10['mean']:.2f} vs {k10.published:.2f}")


# ------------------------------------------------------ Muralidhar & Domingo-Ferrer (2016)

def test_pdist_table3(rep):
    t3 = rows(rep, paper=MD16, table="T3")
    mid = t3[t3.param.isin(["p_pct=5", "p_pct=10", "p_pct=25"]) & (t3.status == "differs")]
    says("REPLICATION.md", f"ours link {span(mid['mean'] - mid.published)} points more at p = 5, 10 and 25")
    p50 = t3[t3.param == "p_pct=50"]
    says("REPLICATION.md", f"at p = 50 the tiny published rates ({span(p50.published)} %)")
    c = {(p, m): one(rep, paper=MD16, table="T3", param=f"p_pct={p}", measure=m)
         for p in (5, 10, 25) for m in ("DBRL", "RBRL-Sum", "RBRL-Max")}
    ours10 = f"{f(c[10, 'DBRL']['mean'])} / {f(c[10, 'RBRL-Sum']['mean'])} vs {f(c[10, 'DBRL'].published)} / " \
             f"{f(c[10, 'RBRL-Sum'].published)}"
    says("REPLICATION.md", f"Census p = 10 DBRL / RBRL-Sum {ours10}")
    says("docs/differences.md", f"Census p = 10 DBRL / RBRL-Sum {ours10}, p = 25 "
         + " / ".join(f(c[25, m]["mean"]) for m in ("DBRL", "RBRL-Sum", "RBRL-Max")) + " vs "
         + " / ".join(f(c[25, m].published) for m in ("DBRL", "RBRL-Sum", "RBRL-Max")),
         f"p = 5 DBRL {f(c[5, 'DBRL']['mean'])} vs {f(c[5, 'DBRL'].published)}",
         f"; published {f(c[10, 'RBRL-Max'].published)} vs {f(c[10, 'RBRL-Sum'].published)})")
    bad = (t3.status == "differs").sum()
    p100 = t3[t3.param == "p_pct=100"].set_index("measure")["mean"]
    says("docs/differences.md", f"with it {p100['DBRL']:.2f} / {p100['RBRL-Sum']:.2f})",
         f"in the committed check (100 maskings, the check's status rule) {t3.status.isin(OK).sum()} of {len(t3)} "
         "rows match or are close")
    assert set(t3.n) == {100}
    says("docs/differences.md", f"(`pdist`; {bad} of {len(t3)} rows differ)")


def test_calibration_tables(rep):
    """REPLICATION.md "Calibration evidence": the chosen rows equal the committed check."""
    t5 = rows(rep, paper=MD16, table="T5")
    db = t5[t5.measure == "DBRL"]
    d = (db["mean"] - db.published).abs()
    within = (d <= 0.05 + 1e-9).sum()
    says("REPLICATION.md", f"(**chosen**) | {d.mean():.3f} | {d.max():.3f} | {within}/{len(db)} |")
    rb = t5[t5.measure.isin(["RBRL-Sum", "RBRL-Max"])]
    d = (rb["mean"] - rb.published).abs()
    assert ((d <= 0.05 + 1e-9).groupby(rb.measure).sum() == 12).all()
    says("REPLICATION.md", f"average ranks (**chosen**) | {d.mean():.3f} | {d.max():.3f} | 12/12 |")
    m = {(t, meas): f(mad(rows(rep, paper=NIN07, table=t, measure=meas)), 2)
         for t in ("T7", "T8") for meas in ("DLD", "PLD")}
    says("REPLICATION.md", f"(**chosen**) {m['T7', 'DLD']} / {m['T7', 'PLD']}, {m['T8', 'DLD']} / {m['T8', 'PLD']};")
    t5n = rows(rep, paper=NIN07, table="T5")
    says("REPLICATION.md", f"`group` (**chosen**) MAD {f(mad(t5n[t5n.dataset == 'census']))} records "
                           f"(Census, slightly high) and {f(mad(t5n[t5n.dataset == 'eia']))} (EIA)")


# --------------------------------------------------- Nin, Herranz & Torra (2008), text claims

def test_projection_and_mdav_claims(rep):
    claim = lambda **kw: one(rep, paper=MMA, **kw)  # noqa: E731
    dld = claim(method="zscore_ma", measure="DLD")
    prold = claim(method="zscore_ma", measure="ProLD")
    score = claim(method="zscore_ma", measure="Score")
    g7 = f"DLD {dld['mean']:.2f} vs {dld.published:.2f}, ProLD {prold['mean']:.2f} vs {prold.published:.2f}, " \
         f"best EIA score {score['mean']:.2f} vs {score.published:.2f}"
    says("REPLICATION.md", g7, f'"own": ProLD {prold["mean"]:.2f} against the published {prold.published:.2f}',
         f'"own" gives {prold["mean"]:.2f} %')
    says("docs/differences.md", g7, f"file order {dld['mean']:.2f} / {prold['mean']:.2f}")
    best = claim(method="mdav", measure="Score")
    mdld = claim(method="mdav", measure="DLD")
    mpld = claim(method="mdav", measure="PLD")
    pcp = claim(method="mdav", measure="ProLD_PCP")
    says("docs/differences.md",
         f"(EIA Mic3MDAV15 best score {best['mean']:.2f} vs {best.published:.2f}, Census v = 3, k = 25 DLD "
         f"{mdld['mean']:.2f} vs {mdld.published:.2f}); PLD there is {mpld['mean']:.2f} vs {mpld.published:.2f}",
         f"Census: {pcp['mean']:.2f} vs {pcp.published:.2f}")


def test_rank_swapping_claims(rep):
    c = rows(rep, paper=RS08)
    std = {ds: c[(c.method == "rankswap") & (c.dataset == ds)].iloc[0] for ds in N}
    pdist = {ds: c[(c.method == "rankswap_pdist") & (c.dataset == ds) & (c.measure == "Score_RSLD")].iloc[0] for ds in N}
    pb = {ds: c[(c.method == "rankswap_pbuckets") & (c.dataset == ds)].iloc[0] for ds in N}
    says("REPLICATION.md", f"(EIA standard rank swapping {f(std['eia']['mean'])} vs {std['eia'].published:.2f})")
    says("docs/differences.md",
         f"standard rank swapping Census {f(std['census']['mean'])} vs {std['census'].published:.2f}, "
         f"EIA {f(std['eia']['mean'])} vs {std['eia'].published:.2f}",
         f"p-distribution Census {f(pdist['census']['mean'])} against {pdist['census'].published:.2f}-"
         f"{float(pdist['census'].published_hi):.2f}, EIA {f(pdist['eia']['mean'])} vs {f(pdist['eia'].published)}-"
         f"{f(float(pdist['eia'].published_hi))}",
         f"p-buckets {f(pb['census']['mean'])} / {f(pb['eia']['mean'])} vs {pb['census'].published:.2f} / "
         f"{pb['eia'].published:.2f}")
    t7 = c[c.table.str.startswith("Table 7")]
    get = lambda p, m: t7[(t7.param == p) & (t7.measure == m)].iloc[0]  # noqa: E731
    says("docs/differences.md", "p = 2 " + ", ".join(
        f"{get('p=2', m)['mean']:.0f} vs {get('p=2', m).published:.0f}" for m in ("RSRL_annotated_union_count", "DBRL_count"))
         + "; p = 4 " + ", ".join(f"{get('p=4', m)['mean']:.0f} vs {get('p=4', m).published:.0f}"
                                   for m in ("RSRL_annotated_union_count", "DBRL_count")))


# ------------------------------------------------------------------- the peer implementations

def test_peer_comparison():
    """REPLICATION.md, "A peer implementation on the same rows": every count from the committed
    peer rows (``research/peer/results/sdcmicro_rows.csv``)."""
    d = pd.read_csv(ROOT / "research" / "peer" / "results" / "sdcmicro_rows.csv", dtype=str, keep_default_na=False)
    ok = d.status.isin(OK)
    own_ok = d.project_status_committed.isin(OK)

    def n_ok(impl, table=None):
        m = (d.implementation == impl) & (d.table == table if table else True)
        return int((ok & m).sum())

    def own(impls, table=None):
        m = d[(d.implementation == impls) & ((d.table == table) if table else True)]
        return int(m.project_status_committed.isin(OK).sum())

    mdav_rows = int((d.implementation == "sdcmicro_mdav").sum())
    rs_rows = int((d.implementation == "sdcmicro_rankswap").sum())
    says("REPLICATION.md",
         f"of the {mdav_rows} MDAV rows (Tables 9-11), sdcMicro's MDAV {n_ok('sdcmicro_mdav')}, mu-ARGUS's "
         f"{n_ok('muargus_mdav')}, this project's {own('sdcmicro_mdav')};",
         f"Of the {rs_rows} rank-swapping rows (Tables 1-4), sdcMicro `rankSwap` {n_ok('sdcmicro_rankswap')} "
         f"({n_ok('sdcmicro_rankswap_tb5')} with its default 5 % top/bottom coding), mu-ARGUS `argus_rankswap` "
         f"{n_ok('muargus_rankswap')}, this project {own('sdcmicro_rankswap')};",
         f"`rankSwap` does better ({n_ok('sdcmicro_rankswap', 'T4')} against {own('sdcmicro_rankswap', 'T4')})")
    key = ["paper", "table", "dataset", "method", "param", "known", "measure"]
    g = d.assign(ok=ok, own=own_ok).groupby(key).agg(peer=("ok", "any"), own=("own", "first")).reset_index()
    missed = g[~g.own]
    rescued = missed[missed.peer]
    by_table = rescued.table.value_counts()
    lost = g[g.own & ~g.peer]
    parts = ", ".join(f"{by_table[t]} of Table {t[1:]}" for t in sorted(by_table.index, key=lambda t: int(t[1:])))
    says("REPLICATION.md",
         f"Of the {len(missed)} of these {len(g)} rows that this project misses, {len(rescued)} match or are "
         f"close under some peer ({parts}",
         f"the peers miss {len(lost)} of the {int(g.own.sum())} rows this project reproduces",
         "none of the groups of differing rows as a whole")
    pins = pd.read_csv(ROOT / "docs" / "differing_cells.csv", dtype=str, keep_default_na=False)
    pinned = pins.merge(g, on=key)
    assert len(pinned) > 300  # the peer rows cover the pinned rows of Tables 1-4 and 9-11
    for cause, grp in pinned.groupby("cause"):
        assert not grp.peer.all(), cause


# ------------------------------------------------------------------------ no history in the way

MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
DATED = re.compile(rf"\b(?:{MONTHS})\s+(?:\d{{1,2}}\b|\d{{4}}\b)|\b\d{{4}}-\d{{2}}-\d{{2}}\b|"
                   r"\b(?:previous|earlier|this|last|second|third|fourth|fifth|sixth|seventh)\s+(?:round|session)s?\b",
                   re.I)
#: reader-facing pages: the current state, with the measurements and reasons but no dates
CURRENT_PAGES = ("REPLICATION.md", "docs/differences.md", "docs/benchmarks.md", "docs/replication_measures.md")


def dated_phrases(body: str) -> list[str]:
    return [m.group(0) for m in DATED.finditer(body)]


def test_dated_phrases_are_found():
    assert dated_phrases("measured on November 26, evening; the previous round took 3 s; 2026-11-27") == [
        "November 26", "previous round", "2026-11-27"]
    assert dated_phrases("May 2026, the third  round\nand an earlier session") == ["May 2026", "third  round", "earlier session"]
    assert dated_phrases("rounded to 2 decimals, three rounds, a may stay, 8 rounds in 44 s, November's") == []


@pytest.mark.parametrize("doc", CURRENT_PAGES)
def test_current_pages_carry_no_dates(doc):
    """Dates and "previous round" phrasing belong nowhere but CHANGELOG.md; the pages describing
    the current state carry none."""
    assert dated_phrases((ROOT / doc).read_text()) == [], doc


# ------------------------------------------------------------------ measured regions of benchmarks

def test_benchmarks_page_has_the_measured_regions():
    """The regions the benchmark scripts rewrite exist once each (a renamed marker would make the
    script fail at its end, after the measurement)."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from common import read_region

    body = (ROOT / "docs" / "benchmarks.md").read_text()
    for name in ("run-times", "scaling", "assess", "assess_scale", "compile"):
        assert "|" in read_region(body, name), name


def _bench(module: str):
    import importlib
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    return importlib.import_module(module)


def test_replace_region_rewrites_only_its_region(tmp_path):
    common = _bench("common")
    page = tmp_path / "page.md"
    page.write_text("a\n<!-- measured:x -->\nold\n<!-- /measured -->\nb <!-- measured:y -->keep<!-- /measured -->\n")
    assert common.replace_region(page, "x", "| new |\n")
    assert page.read_text() == ("a\n<!-- measured:x -->\n| new |\n<!-- /measured -->\n"
                                "b <!-- measured:y -->keep<!-- /measured -->\n")
    assert not common.replace_region(page, "x", "| new |")
    for bad in ("<!-- measured:x -->", "<!-- measured:x -->1<!-- /measured --><!-- measured:x -->2<!-- /measured -->",
                "nothing"):
        page.write_text(bad)
        with pytest.raises(ValueError, match="measured:x"):
            common.replace_region(page, "x", "z")
        assert page.read_text() == bad


def test_measure_run_replaces_or_adds_its_row(tmp_path):
    import subprocess
    import sys

    mr = _bench("measure_run")
    body = "\nSome words.\n\n" + "\n".join(mr.RUN_HEADER) + "\n| fast path | 27 s | 48 s | 0.63 GB | 0.29 GB |\n"
    res = {"wall_s": 125.4, "cpu_s": 30.0, "peak_rss_sum_mb": 1239, "peak_rss_one_process_mb": 512}
    new = mr.run_times_table(body, "fast path", res)
    assert new.splitlines() == ["Some words.", "", *mr.RUN_HEADER, "| fast path | 2 min 5 s | 30 s | 1,239 MiB | 512 MiB |"]
    added = mr.run_times_table(new, "quick", res).splitlines()
    assert added[-2:] == ["| fast path | 2 min 5 s | 30 s | 1,239 MiB | 512 MiB |",
                          "| quick | 2 min 5 s | 30 s | 1,239 MiB | 512 MiB |"]
    page = tmp_path / "b.md"
    page.write_text("x\n<!-- measured:run-times -->" + body + "<!-- /measured -->\ny\n")
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "measure_run.py"), "--label", "a true",
                          "--doc", str(page), "--", "true"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    text = page.read_text()
    assert "| a true | 0 s | 0 s |" in text and "| fast path | 27 s |" in text and text.endswith("<!-- /measured -->\ny\n")
    page.write_text("no region")
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "measure_run.py"), "--label", "a", "--doc",
                          str(page), "--", "true"], capture_output=True, text=True)
    assert run.returncode == 2 and "measured:run-times" in run.stderr


def test_assess_region_lists_the_whole_command_rows():
    ba = _bench("bench_assess")
    rows = [{"part": "assess EIA", "data": "eia", "n": "4092", "task": "sdcrisk assess", "wall_s": "9.0",
             "peak_mb": "", "percent_correct": "", "note": "empty numba cache, median of 3"},
            {"part": "assess EIA", "data": "eia", "n": "4092", "task": "sdcrisk assess", "wall_s": "9.2",
             "peak_mb": "470", "percent_correct": "", "note": "empty numba cache, run 1"},
            {"part": "assess EIA attacks", "data": "eia", "n": "4092", "task": "DBRL", "wall_s": "0.2",
             "peak_mb": "", "percent_correct": "13.4", "note": "median of 3"}]
    lines = ba.current_figures("assess", rows)
    assert [ln for ln in lines if ln.startswith("| assess")] == ["| assess EIA | eia | 4092 | 9.0 |  | empty numba cache, median of 3 |"]
    assert len([ln for ln in ba.current_figures("assess_scale", rows) if ln.startswith("| assess")]) == 2
