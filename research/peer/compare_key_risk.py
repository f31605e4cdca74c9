# compares: []
"""Peer evidence (issue 59, part 3): sdcrisk's agency measures on categorical keys against sdcMicro.

Runs ``research/peer/sdcmicro_key_risk.R`` (sdcMicro 5.8.1, installed by
``research/peer/install_sdcmicro.sh``) into ``--work`` (default /tmp/key_risk_peer, outside git),
then :func:`sdcrisk.criteria.key_risk.key_risk` on the very files R wrote (``<case>__input.csv``)
with the keys, weights and sensitive attributes R used (``cases.csv``), and compares every value:

* per record: ``fk``, ``Fk``, ``risk`` (sdcMicro's ``createSdcObj(...)@risk$individual``; its
  ``measure_risk(data.frame)`` gives the same, checked too) and per sensitive attribute the
  distinct, entropy and recursive l-diversity (``ldiversity``);
* per file: ``risk_ER`` (expected re-identifications), ``risk``, ``risk_pct``
  (``@risk$global``) and the records violating 2-, 3- and 5-anonymity (``print(sdc, "kAnon")``).

The relative difference of a value is ``|ours - sdcMicro| / |sdcMicro|`` (the absolute
difference where sdcMicro's value is 0); a measure passes when its largest relative difference
over the records is at most 1e-6. Where sdcMicro 5.8.1 leaves no defined recursive l-diversity
(a key cell whose sensitive values are all the missing code: it keeps the previous cell's value)
ours is NaN and the record is left out of that comparison; the number left out is reported.
Writes ``research/peer/results/key_risk.csv`` (one row per case and measure) and
``key_risk.md`` (the machine, the command, sdcMicro's version and commit, the table). Seconds.

    python research/peer/compare_key_risk.py [--work DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from sdcrisk.criteria.key_risk import key_risk

HERE = Path(__file__).resolve().parent
TOLERANCE = 1e-6
GLOBAL = {"risk_ER": "risk_ER", "risk": "risk", "risk_pct": "risk_pct"}


def run_r(work: Path) -> None:
    if shutil.which("Rscript") is None:
        raise SystemExit("Rscript not found: install R and sdcMicro with research/peer/install_sdcmicro.sh")
    subprocess.run(["Rscript", str(HERE / "sdcmicro_key_risk.R"), str(work)], check=True)


def relative_difference(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    ours, theirs = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    scale = np.where(theirs != 0, np.abs(theirs), 1.0)
    return np.abs(ours - theirs) / scale


def compare_case(work: Path, case: pd.Series) -> list[dict]:
    keys = case["keys"].split()
    weights = case["weights"] if isinstance(case["weights"], str) and case["weights"] else None
    sensitive = case["sensitive"].split() if isinstance(case["sensitive"], str) else []
    data = pd.read_csv(work / f"{case['name']}__input.csv")
    theirs = pd.read_csv(work / f"{case['name']}__records.csv")
    glob = pd.read_csv(work / f"{case['name']}__global.csv").set_index("measure")["value"]
    ours = key_risk(data, keys, weights=weights, sensitive=sensitive)
    rows = []

    def add(measure: str, a, b, left_out: int = 0):
        d = relative_difference(a, b)
        worst = float(d.max()) if d.size else 0.0
        rows.append({"case": case["name"], "measure": measure, "compared": int(d.size), "left_out": left_out,
                     "max_rel_diff": worst, "pass": bool(worst <= TOLERANCE)})

    for col in ["fk", "Fk", "risk"]:
        add(col, ours.records[col], theirs[col])
        add(f"{col} (measure_risk(data.frame))", ours.records[col], theirs[f"df_{col}"])
    for s in sensitive:
        for m in ["Distinct_Ldiversity", "Entropy_Ldiversity", "Recursive_Ldiversity"]:
            col = f"{s}_{m}"
            a, b = ours.records[col].to_numpy(), theirs[col].to_numpy()
            defined = ~np.isnan(a)
            add(col, a[defined], b[defined], left_out=int((~defined).sum()))
    for ours_name, their_name in GLOBAL.items():
        add(f"global {ours_name}", [getattr(ours, ours_name)], [glob[their_name]])
        add(f"global {ours_name} (measure_risk(data.frame))", [getattr(ours, ours_name)], [glob[f"df_{their_name}"]])
    for k, v in zip(ours.k_anonymity["k"], ours.k_anonymity["violations"]):
        add(f"{k}-anonymity violations", [v], [glob[f"kanon_{k}"]])
    return rows


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.release()}, {cpu} ({os.cpu_count()} cores), Python {platform.python_version()}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/key_risk_peer"), help="where R writes its files")
    ap.add_argument("--out", type=Path, default=HERE / "results", help="where key_risk.csv / .md go")
    ap.add_argument("--skip-r", action="store_true", help="reuse the files R wrote to --work")
    args = ap.parse_args(argv)
    if not args.skip_r:
        run_r(args.work)
    cases = pd.read_csv(args.work / "cases.csv", dtype=str, keep_default_na=False)
    rows = [r for _, case in cases.iterrows() for r in compare_case(args.work, case)]
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "key_risk.csv", index=False, float_format="%.3g")
    session = (args.work / "session.txt").read_text().strip().splitlines()
    n = {c: len(pd.read_csv(args.work / f"{c}__input.csv")) for c in cases["name"]}
    lines = [
        "# Agency measures on categorical keys: sdcrisk against sdcMicro",
        "",
        "Written by `python research/peer/compare_key_risk.py` (which runs "
        "`Rscript research/peer/sdcmicro_key_risk.R /tmp/key_risk_peer`), on " + machine() + "; "
        + "; ".join(session) + ".",
        "",
        "Every value of `sdcrisk.criteria.key_risk.key_risk` against sdcMicro's on the same files "
        "(the CSV files R wrote) with the same keys, weights and sensitive attributes; "
        f"`max_rel_diff`: the largest relative difference over the records; pass: at most {TOLERANCE:g}.",
        "",
        "| case | records | keys | weights | sensitive |",
        "|---|---:|---|---|---|",
        *[f"| {c['name']} | {n[c['name']]} | {c['keys']} | {c['weights'] or '(none)'} | {c['sensitive']} |"
          for _, c in cases.iterrows()],
        "",
        "| case | measure | compared | left out | max_rel_diff | pass |",
        "|---|---|---:|---:|---:|---|",
        *[f"| {case} | {measure} | {compared} | {left_out} | {worst:.3g} | {'yes' if ok else 'NO'} |"
          for case, measure, compared, left_out, worst, ok in table.itertuples(index=False)],
        "",
        f"{int(table['pass'].sum())} of {len(table)} comparisons pass.",
        "",
    ]
    (args.out / "key_risk.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0 if table["pass"].all() else 1


if __name__ == "__main__":
    sys.exit(main())
