"""``sdcrisk assess`` end to end, and GDBRL's two solvers side by side.

    python benchmarks/bench_assess.py [--sizes 100000,1000000] [--out benchmarks/results]

1. ``sdcrisk assess`` on EIA (4,092 x 10) against a rank-swapped release (p = 5), every attack, as
   a user runs it: a fresh process, wall clock of the whole command, with an empty numba cache
   (first use after install: compilation included), then with the cache filled; three times, each
   with a new cache directory, and the medians. Per-attack seconds from the last run (two attacks
   run at a time on a file this size, so they overlap).
2. GDBRL on Census and EIA (rank swapping p = 5, MDAV v = 3 k = 5): the exact dense solver
   against the sparse solver on 10 nearest candidates, time, % correct and the share of links
   on which they agree.
3. ``--parts rsrl``: RS-RL with p unknown (<= 20 %) alone at --sizes, in this process.
4. ``sdcrisk assess`` on the synthetic n x 10 files of ``bench_scaling.py`` (rank swapping
   p = 5), every attack, in a child process per size: per-attack seconds (from the report), the
   whole command's wall time and the child's peak memory (VmHWM).

Outputs in --out: assess.csv and assess.md.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scaling import make_data, machine  # noqa: E402

from sdcrisk.data import atomic_write  # noqa: E402

REPEATS = 3  # EIA: runs with an empty, then a filled numba cache (fresh cache directory each)
FIELDS = ["part", "data", "n", "task", "wall_s", "peak_mb", "percent_correct", "note"]


def _reference(name: str) -> pd.DataFrame:
    path = ROOT / "data" / "processed" / f"{name}.parquet"
    if not path.is_file():
        raise SystemExit(f"{path} not found: run the workflow's data step first (snakemake data/processed/{name}.parquet)")
    return pd.read_parquet(path)


def _mask(method: str, x: np.ndarray, **params) -> np.ndarray:
    from sdcrisk.masking import mask

    return mask(method, x, np.random.default_rng(1), **params)


def _peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return float(line.split()[1]) / 1024.0
    return float("nan")


def run_command(args: list[str], env: dict) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall time, peak memory (MiB, polled VmHWM) and result of one command."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0.0
    while proc.poll() is None:
        try:
            peak = max(peak, _peak_mb(proc.pid))
        except (FileNotFoundError, ProcessLookupError):
            pass
        time.sleep(0.2)
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    return wall, peak, subprocess.CompletedProcess(args, proc.returncode, out, err)


def _assess(work: Path, x: pd.DataFrame, y: pd.DataFrame, env: dict):
    x.to_parquet(work / "original.parquet")
    y.to_parquet(work / "masked.parquet")
    cmd = [sys.executable, "-m", "sdcrisk.cli", "assess", str(work / "original.parquet"),
           str(work / "masked.parquet"), "--out", str(work / "report"), "--quiet"]
    wall, peak, proc = run_command(cmd, env)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    import json

    doc = json.loads((work / "report" / "report.json").read_text())
    return wall, peak, doc["results"]


def part_eia(rows: list[dict]) -> None:
    x = _reference("eia")
    y = pd.DataFrame(_mask("rankswap", x.to_numpy(float), p=5), columns=x.columns)
    walls = {"empty numba cache": [], "filled numba cache": []}
    for rep in range(REPEATS):
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba")}
            for label in walls:
                wall, peak, results = _assess(Path(tmp), x, y, env)
                walls[label].append(wall)
                rows.append({"part": "assess EIA", "data": "eia rankswap p=5", "n": len(x), "task": "sdcrisk assess",
                             "wall_s": round(wall, 2), "peak_mb": round(peak), "percent_correct": "",
                             "note": f"{label}, run {rep + 1}"})
                print(rows[-1], flush=True)
    for label, w in walls.items():
        rows.append({"part": "assess EIA", "data": "eia rankswap p=5", "n": len(x), "task": "sdcrisk assess",
                     "wall_s": round(float(np.median(w)), 2), "peak_mb": "", "percent_correct": "",
                     "note": f"{label}, median of {REPEATS}"})
    for r in results:
        if r["kind"] == "disclosure risk":
            rows.append({"part": "assess EIA attacks", "data": "eia rankswap p=5", "n": len(x), "task": r["measure"],
                         "wall_s": round(r["seconds"], 3), "peak_mb": "", "percent_correct": round(r["percent"], 3),
                         "note": r["note"] or ""})


def part_gdbrl(rows: list[dict]) -> None:
    from sdcrisk.linkage import gdbrl

    for name in ("census", "eia"):
        x = _reference(name).to_numpy(float)
        for label, y in (("rankswap p=5", _mask("rankswap", x, p=5)), ("mdav v=3 k=5", _mask("mdav", x, v=3, k=5))):
            out = {}
            for method in ("exact", "sparse"):
                t0 = time.perf_counter()
                out[method] = gdbrl(x, y, method=method)
                wall = time.perf_counter() - t0
                res = out[method]
                note = f"total distance {res.info['total_cost']:.2f}"
                if method == "sparse":
                    agree = float(np.mean(res.links == out["exact"].links))
                    note += f"; unmatched by the graph {res.info['unmatched']}; same link as exact {100 * agree:.1f} %"
                rows.append({"part": "GDBRL solvers", "data": f"{name} {label}", "n": len(x), "task": f"GDBRL {method}",
                             "wall_s": round(wall, 3), "peak_mb": "", "percent_correct": round(res.percent_correct, 3),
                             "note": note})
                print(rows[-1], flush=True)


def part_large(rows: list[dict], sizes: list[int], columns: int, out: Path) -> None:
    for n in sizes:
        x = make_data(n, columns)
        y = _mask("rankswap", x, p=5)
        cols = [f"v{j}" for j in range(columns)]
        with tempfile.TemporaryDirectory() as tmp:
            wall, peak, results = _assess(Path(tmp), pd.DataFrame(x, columns=cols), pd.DataFrame(y, columns=cols),
                                          dict(os.environ))
        rows.append({"part": "assess synthetic", "data": f"synthetic rankswap p=5", "n": n, "task": "sdcrisk assess",
                     "wall_s": round(wall, 1), "peak_mb": round(peak), "percent_correct": "", "note": "every attack"})
        print(rows[-1], flush=True)
        for r in results:
            rows.append({"part": "assess synthetic attacks", "data": "synthetic rankswap p=5", "n": n, "task": r["measure"],
                         "wall_s": round(r["seconds"], 2), "peak_mb": "",
                         "percent_correct": "" if r["percent"] is None else round(r["percent"], 3),
                         "note": r["note"] or ""})
        write(rows, out)  # after every size: a long run leaves what it measured


def part_rsrl(rows: list[dict], sizes: list[int], columns: int, out: Path) -> None:
    """RS-RL with p unknown (<= 20 %) alone, in this process, on the synthetic files (masked rows
    shuffled); compiled on a small file first."""
    from sdcrisk.attacks import ATTACKS

    attack = ATTACKS["RS-RL(p<=20%)"]
    for n in sizes:
        x = make_data(n, columns)
        y = _mask("rankswap", x, p=5)
        perm = np.random.default_rng(0).permutation(n)
        attack(x[:2000], y[:2000], np.arange(columns), 2, None)
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        res = attack(x, y[perm], np.arange(columns), 2, None)
        wall = time.perf_counter() - t0
        correct = (res.links >= 0) & (perm[np.maximum(res.links, 0)] == np.arange(n))
        rows.append({"part": "RS-RL alone", "data": "synthetic rankswap p=5", "n": n, "task": "RS-RL(p<=20%)",
                     "wall_s": round(wall, 1), "peak_mb": round(_peak_mb(os.getpid())),
                     "percent_correct": round(100 * correct.mean(), 3), "note": f"load {load:.1f} before"})
        print(rows[-1], flush=True)
        write(rows, out)


def write(rows: list[dict], out: Path) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, FIELDS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    atomic_write(out / "assess.csv", lambda tmp: Path(tmp).write_text(buf.getvalue()))
    lines = ["# `sdcrisk assess` and GDBRL: measured", "", "Machine:", "", *machine(), "",
             "Written by `python benchmarks/bench_assess.py`; see its docstring for what each part measures.", ""]
    for part in dict.fromkeys(r["part"] for r in rows):
        lines += [f"## {part}", "", "| " + " | ".join(FIELDS[1:]) + " |", "|" + "---|" * (len(FIELDS) - 1)]
        lines += ["| " + " | ".join(str(r[f]) for f in FIELDS[1:]) + " |" for r in rows if r["part"] == part]
        lines.append("")
    atomic_write(out / "assess.md", lambda tmp: Path(tmp).write_text("\n".join(lines)))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--columns", type=int, default=10)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    ap.add_argument("--parts", default="eia,gdbrl,large", help="eia, gdbrl, rsrl, large")
    args = ap.parse_args(argv)
    rows: list[dict] = []
    parts = args.parts.split(",")
    out = Path(args.out)
    if "eia" in parts:
        part_eia(rows)
        write(rows, out)
    if "gdbrl" in parts:
        part_gdbrl(rows)
        write(rows, out)
    if "rsrl" in parts:
        part_rsrl(rows, [int(s) for s in args.sizes.split(",") if s], args.columns, out)
    if "large" in parts:
        part_large(rows, [int(s) for s in args.sizes.split(",") if s], args.columns, out)
    write(rows, out)
    print(f"wrote {Path(args.out) / 'assess.csv'} and assess.md")


if __name__ == "__main__":
    main()
