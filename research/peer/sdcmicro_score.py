# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T1, T2, T3, T4, T9, T10, T11]}]
"""Peer evidence (issue 26): score sdcMicro's own maskings with this project's attacks.

Two steps:

1. ``--evaluate``: every masked file that ``research/peer/sdcmicro_mask.R`` wrote (manifest in
   ``--masked``, default /tmp/peer/masked) goes through the pipeline's own evaluation,
   :func:`sdcrisk.replication.evaluation.location_scores`, with the cell of ``config/config.yaml``
   (experiments ``nin2007_rankswap`` / ``nin2007_mdav``: attack parameters, scenario options) and
   the attack Generator the pipeline gives that replicate (:func:`sdcrisk.replication.evaluation.run_cell`:
   the cell's SeedSequence, second spawn). Per (implementation, cell, known, measure): mean, sd
   (ddof 1, 0 for one replicate) and n as :func:`sdcrisk.replication.check.aggregate_cells`, written to
   ``research/peer/results/sdcmicro_aggregated.csv`` (committed). About 3 minutes.
2. always: the status of every published cell of Nin, Herranz & Torra (2007) Tables 1-4 (rank
   swaps) and 9-11 (MDAV) per implementation, by :func:`sdcrisk.replication.check.check_values`, which
   calls :func:`sdcrisk.replication.check.status` (the rule in force when this runs: nothing of it is
   copied here), and the same rows of this project's committed ``tables/replication.csv``: its
   committed status and the status :func:`~sdcrisk.replication.check.status` gives its committed mean /
   sd / n now. Writes ``sdcmicro_rows.csv`` and ``sdcmicro_summary.md``. Seconds.

    python research/peer/sdcmicro_score.py              # step 2 only, from the committed aggregates
    python research/peer/sdcmicro_score.py --evaluate   # both (needs the masked files)

Published values are only compared with, never used in a computation.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # research_lib

from research_lib import ROOT, load  # noqa: E402

from sdcrisk.replication import config as C  # noqa: E402
from sdcrisk.replication import check as R  # noqa: E402
from sdcrisk.replication.evaluation import location_scores  # noqa: E402

PAPER = "nin2007_location_rl"
EXPERIMENTS = {"mdav": "nin2007_mdav", "rankswap": "nin2007_rankswap"}
TABLES = {"mdav": ["T9", "T10", "T11"], "rankswap": ["T1", "T2", "T3", "T4"]}
IMPLEMENTATIONS = {  # name in the manifest -> (method, what it is)
    "sdcmicro_mdav": ("mdav", 'sdcMicro MDAV: microaggregation(method="mdav") per block'),
    "muargus_mdav": ("mdav", "mu-ARGUS MDAV: argus_microaggregation(useOptimal=FALSE) per block"),
    "sdcmicro_rankswap": ("rankswap", "sdcMicro rankSwap(P=p/100, TopPercent=0, BottomPercent=0)"),
    "sdcmicro_rankswap_tb5": ("rankswap", "sdcMicro rankSwap(P=p/100), default TopPercent=BottomPercent=5"),
    "muargus_rankswap": ("rankswap", "mu-ARGUS argus_rankswap(perc=p)"),
}
OUT = HERE / "results"
AGG = OUT / "sdcmicro_aggregated.csv"
COUNTED = ("match", "close", "differs", "unconverged", "missing")


def evaluate(masked: Path, cfg: dict, only: list[str] | None) -> pd.DataFrame:
    """Per-replicate rows (implementation, dataset, method, param, replicate, measure, known, value)."""
    man = pd.read_csv(masked / "manifest.csv", dtype={"param": str})
    if only:
        man = man[man.implementation.isin(only)]
    cells = {(c.dataset, c.method, c.label): (c, exp) for exp in EXPERIMENTS.values() for c in C.cells(cfg, exp)}
    out = []
    data = {}
    t0 = time.time()
    for i, r in enumerate(man.itertuples(index=False)):
        if r.dataset not in data:
            x = load(r.dataset)
            orig = np.fromfile(masked / f"{r.dataset}__original.f64", "<f8").reshape(x.shape)
            if not np.array_equal(orig, x):
                raise SystemExit(f"{r.dataset}: the attributes R read differ from the project's data")
            data[r.dataset] = x
        x = data[r.dataset]
        cell, exp = cells[(r.dataset, r.method, r.param)]
        y = np.fromfile(masked / r.file, "<f8").reshape(x.shape)
        experiment = cfg["experiments"][exp]
        opts = experiment.get("options", {}) or {}
        _, attack_seed = cell.seed_sequence(cfg["seed"], int(r.replicate)).spawn(2)
        rng = np.random.Generator(np.random.PCG64(attack_seed))
        for measure, known, value in location_scores(x, y, cell, opts, rng):
            out.append((r.implementation, exp, r.dataset, r.method, r.param, int(r.replicate), measure, known, value))
        if (i + 1) % 50 == 0:
            print(f"  {i + 1} of {len(man)} files scored, {time.time() - t0:.0f} s", flush=True)
    return pd.DataFrame(out, columns=["implementation", "experiment", "dataset", "method", "param", "replicate",
                                      "measure", "known", "value"])


def aggregate(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean, sd (ddof 1; 0 for one replicate), n per cell, as the pipeline aggregates."""
    keys = ["implementation", "experiment", "dataset", "method", "param", "known", "measure"]
    g = rows.groupby(keys, sort=False)["value"]
    agg = pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1).fillna(0.0), "n": g.size()}).reset_index()
    agg["known"] = agg["known"].astype(str)
    return agg


def published_rows(tables: list[str]) -> pd.DataFrame:
    pub = pd.read_csv(ROOT / "published" / "published_values.csv", dtype=str, keep_default_na=False)
    return pub[(pub.paper == PAPER) & pub.table.isin(tables)]


def check(agg: pd.DataFrame, cfg: dict, shapes: dict) -> pd.DataFrame:
    """Status of every published cell per implementation (check_values -> status)."""
    frames = []
    for impl, (method, _) in IMPLEMENTATIONS.items():
        a = agg[agg.implementation == impl]
        if a.empty:
            continue
        res = R.check_values(a.drop(columns="implementation"), published_rows(TABLES[method]), cfg, shapes)
        res.insert(4, "implementation", impl)
        frames.append(res)
    return pd.concat(frames, ignore_index=True)


def project_rows(cfg: dict, shapes: dict) -> pd.DataFrame:
    """The same published cells in the committed tables/replication.csv: committed status, and the
    status the current rule gives the committed mean / sd / n (``unconverged`` kept as committed:
    the PRL fit counts are not in that file)."""
    rep = pd.read_csv(ROOT / "tables" / "replication.csv", dtype=str, keep_default_na=False)
    rep = rep[(rep.kind == "cell") & (rep.paper == PAPER)]
    pub = published_rows(TABLES["mdav"] + TABLES["rankswap"])
    keys = ["table", "dataset", "method", "param", "known", "measure"]
    rep = rep.merge(pub[keys + ["value", "unit"]], on=keys, how="inner")
    now = []
    for r in rep.itertuples(index=False):
        if r.status in ("unconverged", "missing"):
            now.append(r.status)
            continue
        now.append(R.status(float(r.value), R._decimals(r.value), float(r.mean), float(r.sd), int(r.n),
                            R.paper_replicates(PAPER)[0], r.unit, shapes[r.dataset][0])[0])
    rep["status_now"] = now
    return rep[keys + ["mean", "sd", "n", "status", "status_now"]].rename(
        columns={"mean": "project_mean", "sd": "project_sd", "n": "project_n", "status": "project_status_committed",
                 "status_now": "project_status"})


def counts(df: pd.DataFrame, col: str) -> dict:
    c = df[col].value_counts()
    return {"rows": len(df), **{s: int(c.get(s, 0)) for s in COUNTED}}


def fmt_counts(c: dict) -> str:
    extra = "".join(f", {c[s]} {s}" for s in ("unconverged", "missing") if c[s])
    return f"{c['match']} / {c['close']} / {c['differs']}{extra}"


def _commit() -> str:
    """The repository's commit (short hash, "+ changes" when the work tree differs), or "unknown"."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head} + changes" if dirty else head


def summary_md(rows: pd.DataFrame, agg: pd.DataFrame, session: dict, command: str) -> str:
    L = ["# sdcMicro maskings scored with this project's attacks (peer evidence, issue 26)", "",
         "Generated by `research/peer/sdcmicro_score.py`; do not edit. Masked by "
         "`research/peer/sdcmicro_mask.R` (install: `research/peer/install_sdcmicro.sh`).", "",
         f"- sdcMicro {session.get('sdcmicro_version', '?')}, commit `{session.get('sdcmicro_commit', '?')}` "
         f"(github.com/sdcTools/sdcMicro), {session.get('r_version', '?')} (Debian 12 packages)",
         f"- masked: `{session.get('command', '?')}` ({session.get('seconds', '?')} s)",
         f"- scored: {session.get('scored', '?')}",
         f"- status: `{command}` at commit {_commit()}, rule of `sdcrisk.replication.check.status` of "
         "that commit (called, not copied)",
         "- rank swaps: 5 maskings per p (config `nin2007_rankswap.replicates`), replicate r of p seeded "
         "20071217 + 100 p + r; MDAV: deterministic, blocks of v consecutive attributes with the "
         "leftover joined to the last block, as the project", "",
         "Implementations:", ""]
    L += [f"- `{k}`: {v[1]}" for k, v in IMPLEMENTATIONS.items() if k in set(rows.implementation)]
    L += ["", "## Published cells: match / close / differs", "",
          "Per table and implementation, against this project's values for the same rows "
          "(\"project now\": its committed mean / sd / n under the current rule; \"committed\": the "
          "status column of `tables/replication.csv`). `unconverged`: a PRL-based value (PLD, Score1, "
          "Score2) of a cell where some PRL EM fit did not converge, not compared (counted apart, as "
          "the project's check does).", "",
          "| table | implementation | rows | peer match / close / differs | project now | project committed |",
          "|---|---|---|---|---|---|"]
    for method in ("mdav", "rankswap"):
        for t in TABLES[method]:
            for impl in [k for k, v in IMPLEMENTATIONS.items() if v[0] == method]:
                sub = rows[(rows.table == t) & (rows.implementation == impl)]
                if sub.empty:
                    continue
                peer = fmt_counts(counts(sub, "status"))
                unc = sub[sub.status == "unconverged"]
                if len(unc):  # the status those rows would have had (check_values' rule text)
                    would = unc.rule.str.extract(r"else: (\w+)")[0].value_counts()
                    peer += " (" + ", ".join(f"{would.get(s, 0)} {s}" for s in ("match", "close", "differs")) + " if compared)"
                L.append(f"| {t} | `{impl}` | {len(sub)} | {peer} | "
                         f"{fmt_counts(counts(sub, 'project_status'))} | "
                         f"{fmt_counts(counts(sub, 'project_status_committed'))} |")
    L += ["", "Over all tables of the method:", "",
          "| implementation | rows | peer match + close | project now match + close |", "|---|---|---|---|"]
    for impl in IMPLEMENTATIONS:
        sub = rows[rows.implementation == impl]
        if sub.empty:
            continue
        ok = sub.status.isin(R.OK_STATUSES).sum()
        ok_p = sub.project_status.isin(R.OK_STATUSES).sum()
        L.append(f"| `{impl}` | {len(sub)} | {ok} | {ok_p} |")
    L += ["", "## IL (mean over the cells of the table)", "",
          "| table | data set | implementation | peer IL | published IL | project IL |", "|---|---|---|---|---|---|"]
    for t, ds in (("T10", "census"), ("T11", "eia"), ("T3", "census"), ("T4", "eia")):
        for impl in IMPLEMENTATIONS:
            sub = rows[(rows.table == t) & (rows.implementation == impl) & (rows.measure == "IL")]
            if sub.empty:
                continue
            L.append(f"| {t} | {ds} | `{impl}` | {sub['mean'].mean():.1f} | {sub.published.mean():.1f} | "
                     f"{sub.project_mean.astype(float).mean():.1f} |")
    L += ["", "MDAV IL per cell (v;k: peer sdcMicro / mu-ARGUS / published / project):", ""]
    for t, ds in (("T10", "census"), ("T11", "eia")):
        s = rows[(rows.table == t) & (rows.measure == "IL")]
        parts = []
        for param in dict.fromkeys(s.param):
            q = s[s.param == param].set_index("implementation")
            get = lambda i: f"{q.loc[i, 'mean']:.1f}" if i in q.index else "-"  # noqa: E731
            first = q.iloc[0]
            parts.append(f"{param} {get('sdcmicro_mdav')} / {get('muargus_mdav')} / {first.published:g} / "
                         f"{float(first.project_mean):.1f}")
        L.append(f"- {ds}: " + "; ".join(parts))
    return "\n".join(L) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--evaluate", action="store_true", help="score the masked files first (else: the committed aggregates)")
    ap.add_argument("--masked", type=Path, default=Path("/tmp/peer/masked"), help="sdcmicro_mask.R's --out")
    ap.add_argument("--impl", nargs="*", help="only these implementations (with --evaluate)")
    args = ap.parse_args(argv)
    cfg = C.load(ROOT / "config" / "config.yaml")
    shapes = {ds: load(ds).shape for ds in ("census", "eia")}
    OUT.mkdir(parents=True, exist_ok=True)
    session_path = OUT / "sdcmicro_session.txt"
    if args.evaluate:
        t0 = time.time()
        rows = evaluate(args.masked, cfg, args.impl)
        agg = aggregate(rows)
        if args.impl and AGG.exists():  # keep the other implementations' aggregates
            old = pd.read_csv(AGG, dtype={"param": str, "known": str}, keep_default_na=False)
            agg = pd.concat([old[~old.implementation.isin(args.impl)], agg], ignore_index=True)
        agg.to_csv(AGG, index=False, float_format="%.10g")
        lines = (args.masked / "session.txt").read_text().splitlines()
        lines = [ln for ln in lines if not ln.startswith("date: ")]  # provenance is the command, not the time
        lines.append(f"scored: `python research/peer/sdcmicro_score.py --evaluate` ({time.time() - t0:.0f} s, "
                     f"{rows.groupby(['implementation', 'dataset', 'param', 'replicate']).ngroups} masked files)")
        session_path.write_text("\n".join(lines) + "\n")
        print(f"scored {len(rows)} values in {time.time() - t0:.0f} s -> {AGG.relative_to(ROOT)}")
    agg = pd.read_csv(AGG, dtype={"param": str, "known": str}, keep_default_na=False)
    session = dict(line.split(": ", 1) for line in session_path.read_text().splitlines() if ": " in line)
    res = check(agg, cfg, shapes)
    proj = project_rows(cfg, shapes)
    keys = ["table", "dataset", "method", "param", "known", "measure"]
    res = res.merge(proj, on=keys, how="left")
    cols = ["paper", "table", "dataset", "method", "implementation", "param", "known", "measure", "published",
            "mean", "sd", "n", "status", "rule", "project_mean", "project_sd", "project_n", "project_status",
            "project_status_committed"]
    res = res[cols]
    res.to_csv(OUT / "sdcmicro_rows.csv", index=False, float_format="%.6g")
    command = "python research/peer/sdcmicro_score.py" + (" --evaluate" if args.evaluate else "")
    (OUT / "sdcmicro_summary.md").write_text(summary_md(res, agg, session, command))
    for impl in dict.fromkeys(res.implementation):
        for t in dict.fromkeys(res[res.implementation == impl].table):
            sub = res[(res.implementation == impl) & (res.table == t)]
            print(f"{t:4s} {impl:22s} rows {len(sub):3d}  peer m/c/d {fmt_counts(counts(sub, 'status')):14s} "
                  f"project m/c/d {fmt_counts(counts(sub, 'project_status'))}")
    print(f"-> {(OUT / 'sdcmicro_rows.csv').relative_to(ROOT)}, {(OUT / 'sdcmicro_summary.md').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
