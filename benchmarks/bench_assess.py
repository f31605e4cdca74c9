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
4. ``--parts large``: ``sdcrisk assess`` on the synthetic n x 10 files of ``bench_scaling.py``
   (rank swapping p = 5), the default attacks (``--attacks all``: every one; the default leaves
   out the attacks :mod:`sdcrisk.assess.default_attacks` names), in a child process per size: per-attack seconds (from
   the report) and peak memory (the worker's, from the progress lines), the
   whole command's wall time and its peak memory (the process tree's, polled: the attack
   workers included, their shared arrays once; :func:`_tree_mb`).
5. ``--parts tied``: the same on heavily tied files (:func:`tied_data`: one decimal, noise-masked).
6. ``--parts releases``: three releases of one synthetic file (rank swapping p = 5 and p = 10,
   additive noise a = 0.5), every attack: one command with the three masked files (its attack
   workers serve them in turn) against three commands, one per file, in the same run.

Outputs in --out: parts 1-3 in assess.csv and assess.md, parts 4-6 in assess_scale.csv and
assess_scale.md (rows of other sizes already there are kept).
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

from common import DOC, replace_region  # noqa: E402
from sdcrisk.data import atomic_write  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
#: the page whose measured:assess and measured:assess_scale regions write() rewrites (main sets it
#: when the results go to benchmarks/results)
DOC_PAGE: Path | None = None

SEED_TIED = 20261126
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


def _tree_mb(pid: int) -> float:
    """Memory of ``pid`` and its descendants (the attack workers), in MiB: their private resident
    memory (RssAnon + RssShmem of /proc/PID/status, summed) plus the largest file-backed resident
    set among them (RssFile: the workers' mapped arrays and the libraries, pages they share, so
    counted once). Cheap to read: the kernel keeps these counters (``smaps_rollup``'s Pss walks
    the page tables and slowed the attacks it measured)."""
    private, shared, todo = 0.0, 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            fields = dict(line.split(":", 1) for line in Path(f"/proc/{p}/status").read_text().splitlines()
                          if ":" in line)
            private += sum(float(fields[k].split()[0]) for k in ("RssAnon", "RssShmem") if k in fields) / 1024.0
            shared = max(shared, float(fields.get("RssFile", "0 kB").split()[0]) / 1024.0)
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass
    return private + shared


def run_command(args: list[str], env: dict) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall time, peak memory (MiB: the command's process tree, polled every 0.2 s, shared pages
    counted once; :func:`_tree_mb`) and result of one command."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:  # no pipe to fill
        t0 = time.perf_counter()
        proc = subprocess.Popen(args, env=env, stdout=out, stderr=err, text=True)
        peak = 0.0
        while proc.poll() is None:
            peak = max(peak, _tree_mb(proc.pid))
            time.sleep(0.2)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        return wall, peak, subprocess.CompletedProcess(args, proc.returncode, out.read(), err.read())


def _assess(work: Path, x: pd.DataFrame, y: pd.DataFrame, env: dict, extra: tuple[str, ...] = ()):
    x.to_parquet(work / "original.parquet")
    y.to_parquet(work / "masked.parquet")
    cmd = [sys.executable, "-m", "sdcrisk.cli", "assess", str(work / "original.parquet"),
           str(work / "masked.parquet"), "--out", str(work / "report"), *extra]
    wall, peak, proc = run_command(cmd, env)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    import json
    import re

    doc = json.loads((work / "report" / "report.json").read_text())
    # each attack's worker peak, from the progress lines (sdcrisk.assess.workers; none in this process)
    peaks = {m[1]: 1024 * float(m[2]) for m in re.finditer(r"\] (\S+), \d+ known attribute\(s\): [\d.]+ s, "
                                                             r"peak memory ([\d.]+) GiB", proc.stderr)}
    for r in doc["results"]:
        r["peak_mb"] = round(peaks[r["measure"]]) if r["measure"] in peaks else ""
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
        if r["kind"] == "disclosure risk" and r.get("criterion") is None:  # the linkage attacks' rows
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


def tied_data(n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Heavily tied files: correlated standard-normal attributes rounded to one decimal (about 70
    distinct values per attribute), masked by noise of half a standard deviation and rounded
    again."""
    rng = np.random.default_rng([SEED_TIED, n, m])
    load = np.linspace(0.5, 0.9, m)
    z = rng.standard_normal((n, 1)) * load + rng.standard_normal((n, m)) * np.sqrt(1 - load**2)
    return np.round(z, 1), np.round(z + 0.5 * rng.standard_normal((n, m)), 1)


def part_large(rows: list[dict], sizes: list[int], columns: int, out: Path, tied: bool = False,
               attacks: str = "") -> None:
    """The whole command on the synthetic files, rank swapping p = 5 (``tied``: the tied files of
    :func:`tied_data`, noise-masked); ``attacks``: only these (``--attacks``), else every one."""
    part, label = ("assess tied", "tied noise sd/2") if tied else ("assess synthetic", "synthetic rankswap p=5")
    limit = os.environ.get("SDCRISK_MEMORY_LIMIT")
    if limit and attacks == "":  # every attack under a memory limit: rows of their own
        part += f", SDCRISK_MEMORY_LIMIT={limit}"
    if attacks:  # a subset of the attacks: rows of their own, kept beside the other subsets'
        part += f", attacks {attacks}"
    for n in sizes:
        if tied:
            x, y = tied_data(n, columns)
        else:
            x = make_data(n, columns)
            y = _mask("rankswap", x, p=5)
        cols = [f"v{j}" for j in range(columns)]
        with tempfile.TemporaryDirectory() as tmp:
            wall, peak, results = _assess(Path(tmp), pd.DataFrame(x, columns=cols), pd.DataFrame(y, columns=cols),
                                          dict(os.environ), ("--attacks", attacks) if attacks else ())
        note = (f"attacks {attacks}" if attacks else _default_note()) + (f"; SDCRISK_MEMORY_LIMIT={limit}" if limit else "")
        rows.append({"part": part, "data": label, "n": n, "task": "sdcrisk assess",
                     "wall_s": round(wall, 1), "peak_mb": round(peak), "percent_correct": "", "note": note})
        print(rows[-1], flush=True)
        for r in results:
            rows.append({"part": f"{part} attacks", "data": label, "n": n, "task": r["measure"],
                         "wall_s": "" if r["seconds"] is None else round(r["seconds"], 2),  # criterion rows: none
                         "peak_mb": r.get("peak_mb") or "",
                         "percent_correct": "" if r["percent"] is None else round(r["percent"], 3),
                         "note": r["note"] or ""})
        write(rows, out, "assess_scale")  # after every size: a long run leaves what it measured


def _default_note() -> str:
    """The note of a run with the default attacks: which ones the default leaves out."""
    from sdcrisk.assess.default_attacks import LEFT_OUT

    return "default attacks" + (f" (left out: {', '.join(LEFT_OUT)})" if LEFT_OUT else " (every attack)")


def part_releases(rows: list[dict], sizes: list[int], columns: int, out: Path) -> None:
    """Three masked releases of one file: one command for all, against one command per release."""
    import json

    cols = [f"v{j}" for j in range(columns)]
    for n in sizes:
        x = make_data(n, columns)
        releases = {"rankswap5": _mask("rankswap", x, p=5), "rankswap10": _mask("rankswap", x, p=10),
                    "noise": _mask("additive_noise", x, a=0.5)}
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            pd.DataFrame(x, columns=cols).to_parquet(work / "original.parquet")
            for name, y in releases.items():
                pd.DataFrame(y, columns=cols).to_parquet(work / f"{name}.parquet")

            def command(names, report):
                cmd = [sys.executable, "-m", "sdcrisk.cli", "assess", str(work / "original.parquet"),
                       *[str(work / f"{m}.parquet") for m in names], "--out", str(work / report), "--quiet"]
                wall, peak, proc = run_command(cmd, dict(os.environ))
                if proc.returncode != 0:
                    raise SystemExit(proc.stderr)
                found = json.loads((work / report / "report.json").read_text())["results"]
                return wall, peak, [{k: v for k, v in r.items() if k != "seconds"} for r in found]

            wall, peak, together = command(list(releases), "together")
            apart, apart_peak, separate = 0.0, 0.0, []
            for name in releases:
                w, p, found = command([name], f"apart-{name}")
                apart, apart_peak = apart + w, max(apart_peak, p)
                separate += found
        same = sorted(json.dumps(r, sort_keys=True) for r in together) == sorted(json.dumps(r, sort_keys=True)
                                                                                 for r in separate)
        part, label = "assess releases", "synthetic: rankswap p=5, p=10, noise a=0.5"
        rows.append({"part": part, "data": label, "n": n, "task": "one command, three masked files",
                     "wall_s": round(wall, 1), "peak_mb": round(peak), "percent_correct": "",
                     "note": f"{apart / wall:.2f}x faster than one command per file; same results: {same}"})
        rows.append({"part": part, "data": label, "n": n, "task": "three commands, one masked file each",
                     "wall_s": round(apart, 1), "peak_mb": round(apart_peak), "percent_correct": "",
                     "note": "sum of the three wall times; peak = the largest"})
        print(rows[-2], rows[-1], sep="\n", flush=True)
        write(rows, out, "assess_scale")


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


def write(rows: list[dict], out: Path, stem: str = "assess") -> None:
    """``stem``.csv and ``stem``.md in ``out``; rows already there for another (part, n) are kept,
    so that sizes measured in separate runs add up in one table."""
    old = out / f"{stem}.csv"
    if old.is_file():
        done = {(r["part"], str(r["n"])) for r in rows}
        with old.open() as fh:
            rows = [r for r in csv.DictReader(fh) if (r["part"], r["n"]) not in done] + rows
    buf = io.StringIO()
    w = csv.DictWriter(buf, FIELDS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    atomic_write(out / f"{stem}.csv", lambda tmp: Path(tmp).write_text(buf.getvalue()))
    lines = ["# `sdcrisk assess` and GDBRL: measured", "", "Machine:", "", *machine(), "",
             "Written by `python benchmarks/bench_assess.py`; see its docstring for what each part measures.", ""]
    if stem == "assess_scale":
        lines += ["Commands, one or more sections each: `--sizes 100000,1000000` (section `assess synthetic`, the "
                  "default attack set, DBRL left out: `sdcrisk.assess.default_attacks`; with `--attacks all`, section "
                  "`assess synthetic, attacks all`); `--sizes 1000000` with `SDCRISK_MEMORY_LIMIT=4G`; `--sizes "
                  "10000000` with `SDCRISK_MEMORY_LIMIT=16G` (every attack; on a machine of the same type as the "
                  "others, on which RBRL-Sum and RS-RL took 25-37 % longer than in the subset runs); `--sizes "
                  "10000000 --attacks A,B` with `SDCRISK_MEMORY_LIMIT=16G` (`20G` for DBRL,RBRL-Max), a section per "
                  "subset; `--parts tied --sizes 200000 --columns 6`; `--parts releases --sizes 100000`. The section "
                  "`assess synthetic, one attack at a time` is the command run with one worker (its note names the "
                  "commit). Rows of different sections were measured on different runs of a shared machine and "
                  "compare only roughly. A command's peak memory is its process tree's (the attack workers "
                  "included, their shared arrays once); an attack's is its worker's peak resident set. Rows of a "
                  "size are replaced when that size is measured again in the same section.", ""]
    for part in dict.fromkeys(r["part"] for r in rows):
        lines += [f"## {part}", "", "| " + " | ".join(FIELDS[1:]) + " |", "|" + "---|" * (len(FIELDS) - 1)]
        lines += ["| " + " | ".join(str(r[f]) for f in FIELDS[1:]) + " |" for r in rows if r["part"] == part]
        lines.append("")
    atomic_write(out / f"{stem}.md", lambda tmp: Path(tmp).write_text("\n".join(lines)))
    if DOC_PAGE is not None:
        replace_region(DOC_PAGE, stem, "\n".join(current_figures(stem, rows)))


def current_figures(stem: str, rows: list[dict]) -> list[str]:
    """The whole command's rows (``task`` "sdcrisk assess"; on EIA the medians), as Markdown lines."""
    keep = sorted((r for r in rows if r["task"] == "sdcrisk assess" and (stem != "assess" or "median" in r["note"])),
                  key=lambda r: (int(r["n"]), r["part"]))
    return [f"Written by `python benchmarks/bench_assess.py` (every row: `benchmarks/results/{stem}.md`).", "",
            "| part | data | n | wall (s) | peak (MB) | note |", "|---|---|---:|---:|---:|---|",
            *(f"| {r['part']} | {r['data']} | {r['n']} | {r['wall_s']} | {r['peak_mb']} | {r['note']} |" for r in keep)]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--columns", type=int, default=10)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    ap.add_argument("--parts", default="eia,gdbrl,large", help="eia, gdbrl, rsrl, large, tied, releases")
    ap.add_argument("--attacks", default="", help="parts large, tied: only these attacks (comma-separated)")
    args = ap.parse_args(argv)
    global DOC_PAGE
    DOC_PAGE = DOC if Path(args.out).resolve() == RESULTS.resolve() else None
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
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if "large" in parts:
        part_large(rows, sizes, args.columns, out, attacks=args.attacks)
    if "tied" in parts:
        part_large(rows, sizes, args.columns, out, tied=True, attacks=args.attacks)
    if "releases" in parts:
        part_releases(rows, sizes, args.columns, out)
    if {"eia", "gdbrl", "rsrl"} & set(parts):
        write([r for r in rows if not r["part"].startswith(("assess synthetic", "assess tied", "assess releases"))],
              out)
    print(f"wrote to {Path(args.out)}")


if __name__ == "__main__":
    main()
