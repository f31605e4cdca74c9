"""The mixed-type example's table in docs/assess.md, written by measuring it.

Builds sdcMicro's ``testdata`` example (:mod:`sdcrisk.assess.mixed_example`: the reference file from the
mirror ``$SDCRISK_DATA_MIRROR`` or its pinned URL, sha256-checked), assesses the three releases
with every attack (``attacks="all"`` where the default set leaves some out) and rewrites the region
between ``<!-- mixed-example:start -->`` and ``<!-- mixed-example:end -->`` of docs/assess.md, and
benchmarks/results/mixed_example.csv.

    python benchmarks/mixed_example_table.py [--mirror DIR]
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "assess.md"
START, END = "<!-- mixed-example:start -->", "<!-- mixed-example:end -->"
RELEASES = {"masked_mdav.csv": "MDAV k = 3", "masked_noise.csv": "noise a = 0.5",
            "masked_rankswap.csv": "rank swapping p = 5"}


def measure(folder: Path) -> tuple[pd.DataFrame, float]:
    import sdcrisk
    from sdcrisk.assess.mixed_example import CATEGORICAL

    from sdcrisk.assess.assessment import attack_names

    every = list(dict.fromkeys([*attack_names(None), *attack_names(["all"])])) if _has_all() else None
    tables, t0 = [], time.perf_counter()
    for name in RELEASES:
        t = sdcrisk.assess(folder / "original.csv", folder / name, id="rid", categorical=list(CATEGORICAL),
                           attacks=every, seed=0)
        tables.append(t.assign(release=name))
    both = pd.concat(tables, ignore_index=True)
    both.attrs = {"blocking": tables[0].attrs.get("blocking") or {}}  # the same keys in every release
    return both, time.perf_counter() - t0


def _has_all() -> bool:
    from sdcrisk.assess.assessment import AssessError, attack_names

    try:
        attack_names(["all"])
        return True
    except AssessError:
        return False


def table(results: pd.DataFrame, seconds: float) -> str:
    blocks = results.attrs.get("blocking") or {}
    lines = [f"On this machine ({platform.machine()}, 2 cores) the three files take {seconds:.0f} s. "
             + (f"The {blocks['blocks']} blocks of equal keys leave "
                f"{blocks['unique_share'] * results['n'].iloc[0] / 100:.0f} records "
                f"({blocks['unique_share']:.1f} %) unique on the keys; a random guess within blocks links "
                f"{blocks['random_guess']:.1f} %." if blocks.get("keys") else ""),
             "Measured (seed 0; `percent`, 95 % interval; written by `benchmarks/mixed_example_table.py`):", "",
             "| attack | " + " | ".join(RELEASES.values()) + " |", "|---|" + "---|" * len(RELEASES)]
    for measure in dict.fromkeys(results["measure"]):
        cells = []
        for name in RELEASES:
            r = results[(results["release"] == name) & (results["measure"] == measure)].iloc[0]
            if pd.isna(r["percent"]):
                cells.append("not run")
            elif r["kind"] == "disclosure risk":
                cells.append(f"{r['percent']:.1f} ({r['low']:.1f}-{r['high']:.1f})")
            else:
                cells.append(f"{r['percent']:.1f}")
        if results[results["measure"] == measure]["kind"].iloc[0] != "disclosure risk" and \
                measure not in ("IL", "IL-s", "IL-cat"):
            continue
        label = measure if results[results["measure"] == measure]["kind"].iloc[0] == "disclosure risk" \
            else f"{measure} (loss)"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines[0] = lines[0].rstrip()
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mirror", help="directory holding testdata.RData (default: $SDCRISK_DATA_MIRROR or the URL)")
    args = p.parse_args(argv)
    from sdcrisk.assess.mixed_example import main as build

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "example"
        build(["--out", str(folder), *(["--mirror", args.mirror] if args.mirror else [])])
        results, seconds = measure(folder)
    out = ROOT / "benchmarks" / "results" / "mixed_example.csv"
    results.drop(columns=["seconds"]).to_csv(out, index=False, float_format="%.6g")
    text = DOC.read_text()
    region = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    if not region.search(text):
        print(f"{DOC}: no {START} ... {END} region", file=sys.stderr)
        return 1
    DOC.write_text(region.sub(lambda _: f"{START}\n{table(results, seconds)}\n{END}", text))
    print(f"wrote {out} and the table in {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
