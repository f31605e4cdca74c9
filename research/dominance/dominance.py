"""Which attacks dominate which on the corpus, and the default set that follows.

    python research/dominance/dominance.py [--results DIR]

Reads ``linked.csv`` and ``manifest.csv`` (written by ``corpus.py``) and applies the rule of
:mod:`sdcrisk.assess.default_attacks` (:func:`~sdcrisk.assess.default_attacks.dominance`,
:func:`~sdcrisk.assess.default_attacks.left_out`): attack A dominates attack B when, on every release
where B ran, A ran and linked at least as many records; of two attacks equal everywhere the one
earlier in ``ALL_ATTACKS`` is kept. ID (interval disclosure) is not a linkage attack and is kept.

For every attack: the attacks that dominate it, with the smallest margin (percentage points of
the release's records, then records) and the releases where it occurs; for every attack kept,
against every other attack a release where it links more (the evidence that nothing dominates
it). Asserts that every release's headline (the highest linkage percent over the attacks) is the
same with the default set as with every attack, and writes ``dominance.json`` and
``dominance.md`` next to the inputs. Prints the lines of ``sdcrisk/assess/default_attacks.py`` that hold
the result (``LEFT_OUT``, ``CORPUS_RELEASES``); ``tests/test_default_attacks.py`` checks that
the package holds the committed result.
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: []

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def wide(linked: pd.DataFrame) -> pd.DataFrame:
    """Linked counts, one row per release (corpus order), one column per attack (NaN: not run)."""
    order = list(dict.fromkeys(linked["release"]))
    table = linked.pivot(index="release", columns="attack", values="linked").reindex(order)
    return table


def analyse(linked: pd.DataFrame, manifest: pd.DataFrame) -> dict:
    from sdcrisk.assess.default_attacks import ALL_ATTACKS, NOT_LINKAGE, TOLERANCE, dominance, left_out

    attacks = [a for a in ALL_ATTACKS if a not in NOT_LINKAGE]
    counts = wide(linked)
    missing = [a for a in attacks if a not in counts.columns]
    if missing:
        raise SystemExit(f"linked.csv: no rows for attack(s) {missing}; run corpus.py again")
    n = linked.groupby("release")["n"].first().reindex(counts.index).astype(float)
    series = {a: counts[a].tolist() for a in attacks}
    over = dominance(series)
    out_of_default = left_out(series, attacks)
    default = [a for a in ALL_ATTACKS if a not in out_of_default]

    def points(a, b):  # margin of a over b per release, in percentage points and records (NaN: b not run)
        d = counts[a] - counts[b]
        return 100.0 * d / n, d

    margins = {}
    for b in attacks:
        margins[b] = {}
        for a in over[b]:
            pts, rec = points(a, b)
            ran = counts[b].notna()
            low = pts[ran].min()
            at = [r for r in counts.index[ran] if math.isclose(pts[r], low, abs_tol=1e-9)]
            margins[b][a] = {"min_points": round(float(low), 4), "min_records": round(float(rec[at].min()), 4),
                             "at": at, "greater": int((rec[ran] > TOLERANCE).sum()),
                             "equal": int((rec[ran].abs() <= TOLERANCE).sum())}
    evidence = {}
    for b in default:
        if b in NOT_LINKAGE:
            continue
        evidence[b] = {}
        for a in attacks:
            if a == b:
                continue
            pts, rec = points(b, a)
            ran = counts[b].notna()
            where = pts[ran & (rec > TOLERANCE) | (ran & counts[a].isna())]
            if len(where) == 0:  # a ties b everywhere: b kept by the order
                evidence[b][a] = {"release": None, "points": 0.0, "records": 0.0}
                continue
            r = where.fillna(math.inf).idxmax()
            evidence[b][a] = {"release": r, "points": None if pd.isna(pts[r]) else round(float(pts[r]), 4),
                              "records": None if pd.isna(rec[r]) else round(float(rec[r]), 4)}
    best_all = counts[attacks].max(axis=1)
    kept = [a for a in default if a not in NOT_LINKAGE]
    best_default = counts[kept].max(axis=1)
    unchanged = bool(((best_all - best_default).abs() <= TOLERANCE).all())
    assert unchanged, "the default set changes the headline of " + ", ".join(
        counts.index[(best_all - best_default).abs() > TOLERANCE])
    headline = {r: {"percent": round(float(100 * best_all[r] / n[r]), 4),
                    "attacks": [a for a in attacks if abs(counts.at[r, a] - best_all[r]) <= TOLERANCE]}
                for r in counts.index}
    # not the rule, for comparison: the smallest sets of attacks that keep every release's headline
    # (each release's highest count reached by one of them), whether or not they dominate the others
    def keeps(subset):
        return bool(((best_all - counts[list(subset)].max(axis=1)).abs() <= TOLERANCE).all())

    covers = [list(s) for k in range(1, len(attacks) + 1) for s in itertools.combinations(attacks, k) if keeps(s)]
    smallest = [c for c in covers if len(c) == len(covers[0])]
    sole = {a: [r for r in counts.index if headline[r]["attacks"] == [a]] for a in attacks}
    sources = manifest.groupby("source").size().to_dict()
    made = manifest["made_by"].str.split(" ").str[0].value_counts().to_dict()
    seconds = linked.groupby("attack")["seconds"].sum().round(1).to_dict()
    return {"releases": len(counts), "sources": sources, "made_by": made, "order": attacks, "tolerance": TOLERANCE,
            "rule": "A dominates B when B ran on at least one release and, on every release where B ran, A ran and "
                    "linked at least as many records (within the tolerance); of two attacks equal everywhere the one "
                    "earlier in the order is kept; ID is not a linkage attack and is always kept",
            "dominated_by": over, "margins": margins, "left_out": out_of_default, "default": default,
            "evidence_kept": evidence, "headline_unchanged": unchanged, "headline": headline,
            "seconds_on_corpus": seconds, "smallest_headline_sets": smallest, "sole_headline": sole}


def markdown(res: dict, manifest: pd.DataFrame) -> str:
    lines = ["# Attack dominance on the corpus", "",
             f"Written by `python research/dominance/dominance.py` from `linked.csv` (`corpus.py`): "
             f"{res['releases']} releases ({', '.join(f'{k} {v}' for k, v in sorted(res['sources'].items()))}; "
             f"made by the package {res['made_by'].get('package', 0)}, by hand code {res['made_by'].get('hand', 0)}), "
             "every attack, every attribute known, seed 0.", "", f"Rule: {res['rule']}.", "",
             "## Default set", "", "Run by default: " + ", ".join(res["default"]) + ".", ""]
    if res["left_out"]:
        lines += ["Left out (run by name or with `--attacks all`):", ""]
        lines += [f"- **{b}**: dominated by {', '.join(a)} (kept)" for b, a in res["left_out"].items()]
        lines.append("")
    lines += [f"Every release's headline (highest linkage percent over the attacks) is the same with the default set "
              f"as with every attack: {res['headline_unchanged']}.", "",
              "## Who dominates whom", "",
              "Margin: the dominating attack's linked records less the dominated one's, smallest over the releases "
              "where the dominated attack ran, in percentage points of the release's records (records in brackets); "
              "`>` / `=`: releases where it links more / as many.", "",
              "| attack | dominated by | smallest margin, points (records) | at | > | = |", "|---|---|---|---|---|---|"]
    for b in res["order"]:
        if not res["margins"][b]:
            lines.append(f"| {b} | none |  |  |  |  |")
        for a, m in res["margins"][b].items():
            at = "; ".join(m["at"][:3]) + (f" and {len(m['at']) - 3} more" if len(m["at"]) > 3 else "")
            lines.append(f"| {b} | {a} | {m['min_points']:.3f} ({m['min_records']:g}) | {at} | {m['greater']} | "
                         f"{m['equal']} |")
    lines += ["", "## Why each kept attack stays", "",
              "Against every other attack, the release where the kept attack links the most records more "
              "(points, records):", "", "| kept | against | release | points (records) |", "|---|---|---|---|"]
    for b, ev in res["evidence_kept"].items():
        for a, e in ev.items():
            shown = "equal everywhere: kept by the order" if e["release"] is None else \
                f"{e['points']:.3f} ({e['records']:g})" if e["points"] is not None else f"{a} not run"
            lines.append(f"| {b} | {a} | {e['release'] or ''} | {shown} |")
    lines += ["", "## For comparison: the smallest sets that keep every headline", "",
              "Not the rule: a set of attacks keeps a release's headline when one of them reaches the release's "
              "highest count, whether or not it dominates the others pairwise. The smallest such sets "
              f"({len(res['smallest_headline_sets'][0])} attacks):", ""]
    lines += [f"- {', '.join(c)}" for c in res["smallest_headline_sets"]]
    lines += ["", "Releases on which an attack alone reaches the headline:", ""]
    lines += [f"- {a}: {len(r)}" + (f" ({'; '.join(r[:4])}{' ...' if len(r) > 4 else ''})" if r else "")
              for a, r in res["sole_headline"].items()]
    lines += ["", "## Headline per release", "", "| release | made by | headline % | attacks reaching it |",
              "|---|---|---|---|"]
    made = dict(zip(manifest["release"], manifest["made_by"].str.split(" ").str[0]))
    for r, h in res["headline"].items():
        lines.append(f"| {r} | {made.get(r, '')} | {h['percent']:.2f} | {', '.join(h['attacks'])} |")
    lines += ["", "Seconds on the whole corpus, per attack (a measure of cost; two attacks may share the machine): " +
              ", ".join(f"{a} {s:g}" for a, s in res["seconds_on_corpus"].items()) + ".", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(HERE / "results"), help="directory of linked.csv (default: %(default)s)")
    args = ap.parse_args(argv)
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    res_dir = Path(args.results)
    for f in ("linked.csv", "manifest.csv"):
        if not (res_dir / f).is_file():
            print(f"dominance.py: {res_dir / f} not found; run research/dominance/corpus.py first", file=sys.stderr)
            return 2
    linked = pd.read_csv(res_dir / "linked.csv")
    manifest = pd.read_csv(res_dir / "manifest.csv")
    res = analyse(linked, manifest)
    (res_dir / "dominance.json").write_text(json.dumps(res, indent=1) + "\n")
    (res_dir / "dominance.md").write_text(markdown(res, manifest))
    print(f"default: {', '.join(res['default'])}")
    print(f"LEFT_OUT = {{{', '.join(f'{b!r}: {tuple(a)!r}' for b, a in res['left_out'].items())}}}")
    print(f"CORPUS_RELEASES = {res['releases']}")
    print(f"wrote {res_dir / 'dominance.json'}, {res_dir / 'dominance.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
