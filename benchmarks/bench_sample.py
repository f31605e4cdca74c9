"""``sdcrisk assess`` on a sample release: an original of N records x 10 and a masked sample of n of
them (additive noise, 0.5 sd of each attribute, and one unchanged categorical key of 50 levels).

    python benchmarks/bench_sample.py [--sizes 1000000:100000,10000000:1000000] [--out benchmarks/results]

Each size runs the whole command in a fresh process (default attacks; the sample assessment adds
DBRL: sdcrisk.assess.sample), numba cache filled beforehand by one small run. The wall time is the
whole command's (reading the parquet files, pairing, every attack, the sample-unique measures,
information loss and the report); the CPU seconds are the user + system time of the command and
its attack workers (``RUSAGE_CHILDREN``, differences around the run); the peak memory is the
largest maximum resident size among them (``ru_maxrss`` of the waited-for children). Per-attack
seconds come from report.json. Results go to sample.csv and sample.md in --out and to the
``sample`` region of docs/benchmarks.md, with the machine and the command. The machine is shared
with other processes (other agents' jobs ran beside it): the wall times are upper bounds of a
quiet machine's, the CPU seconds less affected.
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from common import DOC, ROOT, machine_text, replace_region  # noqa: E402 (common also puts src/ on sys.path)


def make_files(big: int, small: int, where: Path, seed: int = 0) -> tuple[Path, Path]:
    rng = np.random.Generator(np.random.PCG64(seed))
    x = rng.normal(size=(big, 10))
    o = pd.DataFrame(x, columns=[f"v{j}" for j in range(10)])
    o.insert(0, "rid", np.arange(big, dtype=np.int64))
    o["region"] = rng.integers(0, 50, size=big).astype(str)
    rows = np.sort(rng.choice(big, size=small, replace=False))
    m = o.iloc[rows].reset_index(drop=True)
    m[o.columns[1:11]] += rng.normal(scale=0.5, size=(small, 10))
    m = m.iloc[rng.permutation(small)]
    po, pm = where / f"original_{big}.parquet", where / f"sample_{small}.parquet"
    o.to_parquet(po, index=False)
    m.to_parquet(pm, index=False)
    return po, pm


def run(po: Path, pm: Path, out: Path) -> tuple[float, float, float, subprocess.CompletedProcess]:
    cmd = [sys.executable, "-m", "sdcrisk.cli", "assess", str(po), str(pm), "--id", "rid", "--out", str(out),
           "--quiet"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, after.ru_maxrss / 1024.0, proc


def _cell(v) -> str:
    return "" if v is None or (isinstance(v, float) and v != v) else str(v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000000:100000")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        run(*make_files(2000, 200, tmp), tmp / "warm")  # numba cache filled
        for pair in args.sizes.split(","):
            big, small = (int(v) for v in pair.split(":"))
            t0 = time.perf_counter()
            po, pm = make_files(big, small, tmp)
            made = time.perf_counter() - t0
            seconds, cpu, peak, proc = run(po, pm, tmp / f"rep{big}")
            if proc.returncode != 0:
                raise SystemExit(f"N={big}: exit {proc.returncode}: {proc.stderr[-2000:]}")
            doc = json.loads((tmp / f"rep{big}" / "report.json").read_text())
            res = pd.DataFrame(doc["results"])
            attacks = res[(res.kind == "disclosure risk") & (res.measure != "ID")]
            ran = attacks[attacks.percent.notna()]
            rows.append({"original": big, "released": small, "command_seconds": round(seconds, 1),
                         "command_cpu_seconds": round(cpu, 1), "peak_mb": round(peak), "files_seconds": round(made, 1),
                         **{f"{m}_percent": round(p, 2) for m, p in zip(ran.measure, ran.percent)},
                         **{f"{m}_seconds": round(t, 1) for m, t in zip(ran.measure, ran.seconds)},
                         "headline": doc.get("headline_text", "")})
            print(rows[-1], flush=True)
            for f in (po, pm):
                f.unlink()
    old = out / "sample.csv"  # rows of other sizes measured before stay (one size per run at 10^7)
    if old.exists():
        done = {(r["original"], r["released"]) for r in rows}
        kept = [r for r in pd.read_csv(old).to_dict("records") if (r["original"], r["released"]) not in done]
        rows = sorted(kept + rows, key=lambda r: (r["original"], r["released"]))
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(out / "sample.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, keys)
        w.writeheader()
        w.writerows(rows)
    machine = machine_text()
    body = [f"Machine: {machine}; shared with other agents' jobs while measured (wall times are upper bounds; the "
            "CPU seconds are the command's and its workers').", "",
            "Command: `python benchmarks/bench_sample.py --sizes N:n`, one run per row (each: `sdcrisk assess "
            "original.parquet sample.parquet --id rid --quiet`, default attacks, numba cache filled; every row: "
            "`benchmarks/results/sample.csv`).", "",
            "Files: N x 10 normal attributes and a 50-level categorical key (unchanged); the release is a sample of n "
            "records with noise of 0.5 sd added to every numeric attribute. Percentages: % of the released records "
            "linked to their own original record.", "",
            "| " + " | ".join(k for k in keys if k != "headline") + " |", "|" + "---|" * (len(keys) - 1)]
    body += ["| " + " | ".join(_cell(r.get(k)) for k in keys if k != "headline") + " |" for r in rows]
    body += ["", *[f"Headline at N = {int(r['original']):,}: {r['headline']}" for r in rows
                   if isinstance(r.get("headline"), str)]]
    (out / "sample.md").write_text("\n".join(["# sdcrisk assess on a sample release", "", *body]) + "\n")
    if args.out == str(ROOT / "benchmarks" / "results"):
        replace_region(DOC, "sample", "\n".join(body))


if __name__ == "__main__":
    main()
