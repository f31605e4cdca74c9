"""Scaling of every record-linkage attack and of MDAV on synthetic data, n up to 1,000,000.

    python benchmarks/bench_scaling.py [--sizes 10000,100000,1000000] [--columns 10]
                                       [--timeout 900] [--out benchmarks/results] [--quick]

Data (seeded, identical in every process): n x m correlated continuous columns, a latent normal
factor plus noise (loadings 0.5..0.9), made skewed by a lognormal transform and rounded to 2
decimals (so there are ties). Sizes: ``--sizes`` x ``--columns`` plus one 200,000 x 8 set
(``--quick``: 5,000 x 8).

Tasks, each (task, n, m) in its own child process (``--child TASK N M``):

* DBRL, RBRL-Sum, RBRL-Max, PRL (coincidence "nearest"; "PRL (K=10)": the 10 best candidates
  of each record in the assignment) and RS-RL (p = 5) attack a rank-swapped
  file, ``mask("rankswap", x, rng, p=5)``; L-RL (``lrl_microaggregation``, rule "group") attacks
  optimal univariate microaggregation k = 3. All attributes known. "RS-RL (p<=20%)" and "GDBRL"
  are the entries of ``sdcrisk.attacks.ATTACKS`` that ``sdcrisk assess`` runs (p unknown, bounded
  by 20 %, no candidate-set sizes; GDBRL's sparse solver above 10,000 records).
* MDAV k = 3, one block of all m variables (``mask("mdav", x, v=m, k=3)``), timed as masking.
* Baselines: Python ``recordlinkage`` (0.16) on the rank-swapped file. DBRL-like: index, then
  ``Compare.numeric(method="squared")`` on z-scores (its summed similarity ranks pairs as
  squared Euclidean distance), best pair per original. PRL-like: ``Compare.numeric(method=
  "step", offset=0.05 sd)`` agreements, ``ECMClassifier``, most probable pair per original (no
  one-to-one assignment). Full index where the estimated memory fits ``--baseline-gb``, else a
  SortedNeighbourhood index on column 0 with window 4P + 1 (P the swap distance), else not run.

Each child generates and masks its data, warms up on a 300-record input (numba compilation,
reported in the note, not timed), then times the one call (wall clock). A child is killed by
SIGALRM after ``--timeout`` s of the call ("timeout > T s"); a task that timed out is not run
at larger n. peak_mb is the child's peak RSS over its whole life (inputs, masking and the call;
the note gives the RSS before the call and the peak up to then), read as VmHWM from
/proc/PID/status: on Linux a child's ru_maxrss starts at its parent's RSS at fork/exec, which
would hide small peaks under the parent's ~300 MB. A killed child's peak is the last VmHWM the
parent polled (every 0.2 s). MiB throughout.

``--update`` reruns the ``--tasks`` given and keeps the other tasks' rows of the existing
scaling.csv in --out. Outputs in --out, each written atomically and refreshed after every run: scaling.csv,
scaling.md (targets met / not met, machine, software), scaling.png and scaling.pdf.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from sdcrisk.data import atomic_write

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DOC, replace_region  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"

SEED = 20240611
P_SWAP, K_MA = 5, 3
WARMUP_N = 300
ATTACKS = ["DBRL", "RBRL-Sum", "RBRL-Max", "PRL", "PRL (K=10)", "RS-RL", "L-RL (OUMA k=3)"]
ASSESS_ATTACKS = ["RS-RL (p<=20%)", "GDBRL"]  # as `sdcrisk assess` runs them (sdcrisk.attacks)
MASKING = ["MDAV k=3"]
BASELINES = {"recordlinkage DBRL-like": "DBRL", "recordlinkage PRL-like": "PRL"}
TASKS = ATTACKS + ASSESS_ATTACKS + MASKING + list(BASELINES)
FIELDS = ["task", "n", "m", "wall_s", "peak_mb", "status", "percent_correct", "note"]
MB = 1024.0  # /proc/*/status sizes are in KiB
TARGETS = ([(t, 1_000_000, 10, 60, 2048) for t in ("DBRL", "RBRL-Sum", "RBRL-Max", "RS-RL", "RS-RL (p<=20%)")]
           + [(t, 1_000_000, 10, 120, 4096) for t in ("PRL", "PRL (K=10)")]
           + [("MDAV k=3", 1_000_000, 10, 300, None)]
           + [(t, 200_000, 8, 15, None) for t in ATTACKS])


# ------------------------------------------------------------------------------------- data

def make_data(n: int, m: int) -> np.ndarray:
    rng = np.random.default_rng([SEED, n, m])
    load = np.linspace(0.5, 0.9, m)
    z = rng.standard_normal((n, 1)) * load + rng.standard_normal((n, m)) * np.sqrt(1 - load**2)
    return np.round(100.0 * np.exp(0.6 * z) * np.arange(1, m + 1), 2)


def masked_input(task: str, x: np.ndarray) -> np.ndarray | None:
    from sdcrisk.masking import mask

    if task.startswith("L-RL"):
        return mask("optimal_univariate_ma", x, k=K_MA)
    if task in MASKING:
        return None
    return mask("rankswap", x, np.random.default_rng([SEED, *x.shape, 1]), p=P_SWAP)


# -------------------------------------------------------------------- recordlinkage baselines

def rl_plan(n: int, m: int, budget_gb: float):
    """(index kind, window, estimated pairs, estimated GiB) or None with the estimate."""
    from sdcrisk.masking.swapping import rank_distance

    per_pair = 64 + 50 * m  # bytes: measured peak of the PRL-like run (the larger) per pair
    full = n * n
    if full * per_pair <= budget_gb * 2**30:
        return "full", None, full, full * per_pair / 2**30
    window = 4 * rank_distance(P_SWAP, n) + 1
    pairs = int(1.1 * n * (window + 1) / 2)  # measured: ~n (window + 1) / 2 pairs
    return ("sorted", window, pairs, pairs * per_pair / 2**30) if pairs * per_pair <= budget_gb * 2**30 \
        else (None, window, pairs, pairs * per_pair / 2**30)


def rl_baseline(kind: str, x: np.ndarray, y: np.ndarray, plan) -> tuple[np.ndarray, str]:
    import pandas as pd
    import recordlinkage as rl

    cols = [f"v{j}" for j in range(x.shape[1])]
    mu, sd = x.mean(axis=0), x.std(axis=0, ddof=1)
    a = pd.DataFrame((x - mu) / sd, columns=cols)
    b = pd.DataFrame((y - y.mean(axis=0)) / y.std(axis=0, ddof=1), columns=cols)
    index, window = plan[0], plan[1]
    indexer = rl.index.Full() if index == "full" else rl.index.SortedNeighbourhood("v0", window=window)
    pairs = indexer.index(a, b)
    scale = float(np.ptp(np.r_[a.to_numpy(), b.to_numpy()], axis=0).max())  # one scale: no clipping
    cmp = rl.Compare()
    for c in cols:
        if kind == "DBRL":
            cmp.numeric(c, c, method="squared", scale=scale, label=c)
        else:
            cmp.numeric(c, c, method="step", offset=0.05, label=c)  # z-scores: 0.05 sd
    feats = cmp.compute(pairs, a, b)
    if kind == "DBRL":
        score = feats.to_numpy().sum(axis=1)
    else:
        ecm = rl.ECMClassifier(binarize=None)
        ecm.fit(feats)
        score = np.asarray(ecm.prob(feats))
    i = pairs.get_level_values(0).to_numpy()
    l = pairs.get_level_values(1).to_numpy()
    o = np.lexsort((-score, i))
    first = o[np.r_[True, i[o][1:] != i[o][:-1]]]
    links = np.full(x.shape[0], -1)
    links[i[first]] = l[first]
    return links, f"{index} index{'' if window is None else f' window {window}'}, {len(pairs):,} pairs"


# ---------------------------------------------------------------------------------- child

def run_task(task: str, x: np.ndarray, y, budget_gb: float):
    """(percent_correct or None, note) of one call of ``task``."""
    from sdcrisk.attacks import ATTACKS as ATTACKS_BY_NAME
    from sdcrisk.linkage import dbrl, lrl_microaggregation, prl, rbrl, rsrl
    from sdcrisk.masking import mask

    known, rng = np.arange(x.shape[1]), np.random.default_rng(SEED)

    if task in BASELINES:
        links, note = rl_baseline(BASELINES[task], x, y, rl_plan(*x.shape, budget_gb))
        return 100.0 * np.mean(links == np.arange(x.shape[0])), note
    if task in MASKING:
        mask("mdav", x, v=x.shape[1], k=K_MA)
        return None, ""
    res = {"DBRL": lambda: dbrl(x, y),
           "RBRL-Sum": lambda: rbrl(x, y, criterion="sum"),
           "RBRL-Max": lambda: rbrl(x, y, criterion="max"),
           "PRL": lambda: prl(x, y, coincidence="nearest", rng=np.random.default_rng(SEED)),
           "PRL (K=10)": lambda: prl(x, y, coincidence="nearest", rng=np.random.default_rng(SEED),
                                     max_candidates=10),
           "RS-RL": lambda: rsrl(x, y, p=P_SWAP),
           "L-RL (OUMA k=3)": lambda: lrl_microaggregation(x, y),
           "RS-RL (p<=20%)": lambda: ATTACKS_BY_NAME["RS-RL(p<=20%)"](x, y, known, 2, rng),
           "GDBRL": lambda: ATTACKS_BY_NAME["GDBRL"](x, y, known, 2, rng)}[task]()
    info = "; ".join(f"{k} {v}" for k, v in res.info.items()
                     if k in ("converged", "pairs", "edges", "truncated", "network", "arcs", "solver", "unmatched"))
    return res.percent_correct, info


def _rss_mb(field: str = "VmRSS", pid: int | str = "self") -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / MB
    except OSError:
        pass
    return float("nan")


def child(task: str, n: int, m: int, timeout: float, budget_gb: float) -> None:
    xw = make_data(WARMUP_N, m)
    t0 = time.perf_counter()
    run_task(task, xw, masked_input(task, xw), budget_gb)
    warm = time.perf_counter() - t0
    x = make_data(n, m)
    y = masked_input(task, x)
    prep_peak = _rss_mb("VmHWM")
    rss = _rss_mb()
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the kernel ends the process, even inside numba
    signal.setitimer(signal.ITIMER_REAL, timeout)
    t0 = time.perf_counter()
    pct, note = run_task(task, x, y, budget_gb)
    wall = time.perf_counter() - t0
    signal.setitimer(signal.ITIMER_REAL, 0)
    note = "; ".join(s for s in (note, f"warm-up/compile {warm:.2f} s",
                                 f"RSS before call {rss:.0f} MB, peak before call {prep_peak:.0f} MB") if s)
    print(json.dumps({"wall_s": wall, "percent_correct": pct, "note": note, "peak_mb": _rss_mb("VmHWM")}))


# --------------------------------------------------------------------------------- parent

def launch(task: str, n: int, m: int, args) -> dict:
    """Run one child; wall time and peak RSS (VmHWM: reported by the child, else last polled)."""
    row = {"task": task, "n": n, "m": m, "wall_s": "", "peak_mb": "", "percent_correct": "", "note": ""}
    cmd = [sys.executable, __file__, "--child", task, str(n), str(m), "--timeout", str(args.timeout),
           "--baseline-gb", str(args.baseline_gb)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, start_new_session=True)
        hard = time.monotonic() + 3 * args.timeout + 600  # generation + masking + call, generous
        peak = float("nan")
        while True:
            hwm = _rss_mb("VmHWM", p.pid)  # before the wait: a reaped child has no /proc entry
            peak = hwm if hwm == hwm else peak
            pid, status = os.waitpid(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > hard:
                os.killpg(p.pid, signal.SIGKILL)
                _, status = os.waitpid(p.pid, 0)
                break
            time.sleep(0.2)
        p.returncode = os.waitstatus_to_exitcode(status)
        row["peak_mb"] = "" if peak != peak else round(peak, 1)
        out.seek(0), err.seek(0)
        text, errtext = out.read().decode(), err.read().decode()
    if p.returncode == -signal.SIGALRM:
        row.update(status=f"timeout > {args.timeout:g} s", wall_s="")
    elif p.returncode == -signal.SIGKILL:
        row.update(status=f"killed (no result within {3 * args.timeout + 600:g} s)")
    elif p.returncode != 0 or not text.strip():
        lines = [s for s in errtext.strip().splitlines() if s.strip()]
        row.update(status="error", note=(lines[-1] if lines else f"exit {p.returncode}")[:300])
    else:
        res = json.loads(text.strip().splitlines()[-1])
        pct = res["percent_correct"]
        row.update(status="ok", wall_s=round(res["wall_s"], 4), note=res["note"], peak_mb=round(res["peak_mb"], 1),
                   percent_correct="" if pct is None else round(pct, 3))
    return row


def sdcmicro_status() -> str:
    if shutil.which("Rscript") and subprocess.run(["Rscript", "-e", "library(sdcMicro)"],
                                                  capture_output=True).returncode == 0:
        return "sdcMicro: installed, not benchmarked by this script"
    if shutil.which("apt-cache"):
        pol = subprocess.run(["apt-cache", "policy", "r-cran-sdcmicro"], capture_output=True, text=True).stdout
        if "Candidate:" in pol and "(none)" not in pol.split("Candidate:")[1].split("\n")[0]:
            return "sdcMicro: packaged in Debian (r-cran-sdcmicro) but not installed; not benchmarked"
    return "sdcMicro: not available on this machine (no CRAN access, not packaged in Debian)"


def machine() -> list[str]:
    import numba
    import scipy

    info = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    cpu = next((ln.split(":", 1)[1].strip() for ln in info.splitlines() if ln.startswith("model name")), "?")
    mem = next((int(ln.split()[1]) / 2**20 for ln in Path("/proc/meminfo").read_text().splitlines()
                if ln.startswith("MemTotal")), float("nan"))
    try:
        import recordlinkage
        rlv = recordlinkage.__version__
    except ImportError:
        rlv = "not installed"
    return [f"- CPU: {cpu}; cores: {os.cpu_count()} (affinity {len(os.sched_getaffinity(0))}); RAM: {mem:.1f} GiB",
            f"- Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
            f"numba {numba.__version__}, recordlinkage {rlv}"]


def _find(rows, task, n, m):
    return next((r for r in rows if r["task"] == task and r["n"] == n and r["m"] == m), None)


def _provenance(args) -> str:
    """The first paragraph of scaling.md: what was measured and by which commands (``--add`` and
    ``--replot`` keep the earlier one; ``--add`` appends its own command)."""
    old = Path(args.out) / "scaling.md"
    command = f"`python benchmarks/bench_scaling.py {shlex.join(sys.argv[1:])}`"
    if (args.add or args.replot) and old.is_file():
        first = old.read_text().split("\n")[2]
        if args.replot:
            return first
        return f"{first.rstrip('.')}; then the rows of {command} (timeout {args.timeout:g} s)."
    return (f"Synthetic correlated skewed data (seed {SEED}); attacks on rank swapping p = {P_SWAP} "
            f"(L-RL: optimal univariate microaggregation k = {K_MA}); MDAV k = {K_MA}, one block of all "
            f"variables. Wall time of the call only (no data generation, masking or numba compilation); "
            f"peak = the child process's peak RSS, VmHWM (MiB). Timeout {args.timeout:g} s. Produced by {command}.")


def targets_table(rows: list[dict]) -> list[str]:
    """The targets of :data:`TARGETS` against the measured rows, as Markdown table lines."""
    out = ["| task | n x m | target | measured | met |", "|---|---|---|---|---|"]
    for task, n, m, max_s, max_mb in TARGETS:
        r = _find(rows, task, n, m)
        goal = f"<= {max_s:g} s" + (f", <= {max_mb / 1024:g} GB" if max_mb else "")
        if r is None:
            got, met = "not measured", "not measured"
        elif r["status"] != "ok":
            got, met = r["status"], "not met" if r["status"].startswith(("timeout", "killed")) else r["status"]
        else:
            got = f"{r['wall_s']:.2f} s, {r['peak_mb']:.0f} MB"
            met = "met" if r["wall_s"] <= max_s and (max_mb is None or r["peak_mb"] <= max_mb) else "not met"
        out.append(f"| {task} | {n:,} x {m} | {goal} | {got} | {met} |")
    return out


def markdown(rows: list[dict], args, sdcmicro: str, mach: list[str]) -> str:
    out = ["# Scaling of the record-linkage attacks and MDAV", "", args.provenance, "",
           "## Targets", "", *targets_table(rows)]
    out += ["", "## All runs", "", "| task | n | m | wall (s) | peak (MB) | status | % correct | note |",
            "|---|---:|---:|---:|---:|---|---:|---|"]
    for r in rows:
        out.append("| " + " | ".join(str(r[k]) for k in FIELDS) + " |")
    out += ["", "## Baselines (wall-time ratio baseline / sdcrisk, same n and m)", "",
            "| baseline | n x m | baseline (s) | sdcrisk (s) | ratio |", "|---|---|---:|---:|---:|"]
    for r in rows:
        ours = _find(rows, BASELINES.get(r["task"]), r["n"], r["m"])
        if r["task"] in BASELINES and r["status"] == "ok" and ours and ours["status"] == "ok":
            out.append(f"| {r['task']} | {r['n']:,} x {r['m']} | {r['wall_s']:.3f} | {ours['wall_s']:.3f} | "
                       f"{r['wall_s'] / max(ours['wall_s'], 1e-9):.1f} |")
    out += ["", f"- {sdcmicro}", "", "## Machine", "", *mach, ""]
    return "\n".join(out)


def _guides(ax, points) -> None:
    """Grey reference lines proportional to n log n and n^2 through the median time at the
    smallest n, across the whole range of n: an attack that grows as n log n runs parallel to
    the first."""
    if not points:
        return
    n0 = min(n for n, _ in points)
    t0 = float(np.median([t for n, t in points if n == n0]))
    n = np.geomspace(n0, max(n for n, _ in points), 50)
    ax.plot(n, t0 * n * np.log(n) / (n0 * np.log(n0)), ":", color="0.45", lw=1.2, label="∝ n log n")
    ax.plot(n, t0 * (n / n0) ** 2, "-.", color="0.7", lw=1.0, label="∝ n²")


def figure(rows: list[dict], args, path_png: Path, path_pdf: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # the series: the column count of most rows (an --add run of the n x 8 set must not replace it)
    main = Counter(r["m"] for r in rows).most_common(1)[0][0] if rows else args.columns
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    for i, task in enumerate(TASKS):
        color, ls = f"C{i}", "--" if task in BASELINES else "-"
        styles = {8: dict(ls="none", marker="s", mfc="none"), main: dict(ls=ls, marker="o")}
        for m, style in styles.items():
            pts = sorted((r["n"], r["wall_s"], r["peak_mb"]) for r in rows
                         if r["task"] == task and r["m"] == m and r["status"] == "ok")
            if pts:
                n, w, p = zip(*pts)
                lab = task if m == main else None
                ax1.plot(n, w, color=color, label=lab, **style)
                ax2.plot(n, p, color=color, **style)
        to = [(r["n"], float(r["status"].split()[2])) for r in rows  # "timeout > T s": that run's T
              if r["task"] == task and r["status"].startswith("timeout")]
        ax1.plot([n for n, _ in to], [t for _, t in to], "x", color=color, ms=9)
    _guides(ax1, [(r["n"], r["wall_s"]) for r in rows if r["m"] == main and r["status"] == "ok"])
    ax1.set(xscale="log", yscale="log", xlabel="n (records)", ylabel="wall time of the call (s)",
            title="time; x = timeout, open squares: the n x 8 set")
    ax2.set(xscale="log", yscale="log", xlabel="n (records)", ylabel="peak RSS of the process (MiB)",
            title="peak memory (VmHWM of the child)")
    for ax in (ax1, ax2):
        ax.grid(True, which="both", alpha=0.3)
    if ax1.get_legend_handles_labels()[0]:
        ax1.legend(fontsize=8)
    fig.tight_layout()
    atomic_write(path_png, lambda t: fig.savefig(t, dpi=130))
    atomic_write(path_pdf, lambda t: fig.savefig(t))
    plt.close(fig)


def _kept_rows(path: Path, tasks: list[str], configs=None) -> list[dict]:
    """The rows of an earlier run whose task is not rerun now (``--update``), or, given the
    ``configs`` measured now (``--add``), whose (task, n, m) is not."""
    if not path.is_file():
        raise SystemExit(f"--update/--add/--replot: {path} not found")
    out = []
    for r in csv.DictReader(path.open()):
        rerun = r["task"] in tasks and (configs is None or (int(r["n"]), int(r["m"])) in configs)
        if not rerun:
            r["n"], r["m"] = int(r["n"]), int(r["m"])
            for k in ("wall_s", "peak_mb"):
                r[k] = float(r[k]) if r[k] else ""
            out.append(r)
    return out


def _in_task_order(rows: list[dict]) -> list[dict]:
    """Rows by size (n, m), then in the order of :data:`TASKS`, as a full run writes them."""
    return sorted(rows, key=lambda r: (r["n"], r["m"], TASKS.index(r["task"])))


def write_outputs(rows, args, sdcmicro, mach) -> None:
    out = Path(args.out)
    buf = io.StringIO()
    w = csv.DictWriter(buf, FIELDS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    atomic_write(out / "scaling.csv", lambda t: Path(t).write_text(buf.getvalue()))
    atomic_write(out / "scaling.md", lambda t: Path(t).write_text(markdown(rows, args, sdcmicro, mach)))
    figure(rows, args, out / "scaling.png", out / "scaling.pdf")
    if getattr(args, "doc", None):  # the current figures in docs/benchmarks.md
        replace_region(args.doc, "scaling", "\n".join(
            ["Written by `python benchmarks/bench_scaling.py` (every run: `benchmarks/results/scaling.md`).", "",
             *targets_table(rows)]))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--columns", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--quick", action="store_true", help="the n x 8 set has 5,000 rows instead of 200,000")
    ap.add_argument("--tasks", default=",".join(TASKS), help="comma-separated subset of: " + ", ".join(TASKS).replace("%", "%%"))
    ap.add_argument("--baseline-gb", type=float, default=6.0, help="memory budget of a recordlinkage run")
    ap.add_argument("--update", action="store_true",
                    help="keep the rows of the other tasks in --out's scaling.csv (rerun a subset of tasks)")
    ap.add_argument("--add", action="store_true",
                    help="keep every row of --out's scaling.csv but those of the --tasks at the --sizes given (no "
                         "n x 8 set): add sizes to a finished run")
    ap.add_argument("--replot", action="store_true", help="rewrite scaling.md and the figure from scaling.csv")
    ap.add_argument("--doc", default=None,
                    help="rewrite the measured:scaling region of this page (default: docs/benchmarks.md when --out "
                         "is benchmarks/results, else none)")
    ap.add_argument("--child", nargs=3, metavar=("TASK", "N", "M"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.doc is None and Path(args.out).resolve() == RESULTS.resolve():
        args.doc = str(DOC)
    if args.child:
        return child(args.child[0], int(args.child[1]), int(args.child[2]), args.timeout, args.baseline_gb)
    tasks = [t for t in args.tasks.split(",") if t]
    unknown = set(tasks) - set(TASKS)
    if unknown:
        ap.error(f"unknown tasks {sorted(unknown)}; known: {TASKS}")
    configs = sorted({(int(s), args.columns) for s in args.sizes.split(",") if s}
                     | (set() if args.add else {(5_000 if args.quick else 200_000, 8)}))
    sdcmicro, mach = sdcmicro_status(), machine()
    args.provenance = _provenance(args)  # once: the outputs are rewritten after every run
    if args.replot:  # the tables and figure again from scaling.csv, nothing run; the machine as measured
        lines = (Path(args.out) / "scaling.md").read_text().split("\n")
        sdcmicro = next((ln[2:] for ln in lines if ln.startswith("- sdcMicro")), sdcmicro)
        mach = [ln for ln in lines[lines.index("## Machine") + 1:] if ln] if "## Machine" in lines else mach
        write_outputs(_in_task_order(_kept_rows(Path(args.out) / "scaling.csv", [])), args, sdcmicro, mach)
        return None
    print(sdcmicro, *mach, sep="\n", flush=True)
    rows, timed_out = [], {}
    kept = (_kept_rows(Path(args.out) / "scaling.csv", tasks, set(configs) if args.add else None)
            if args.update or args.add else [])
    for n, m in configs:
        for task in tasks:
            plan = rl_plan(n, m, args.baseline_gb) if task in BASELINES else None
            if task in timed_out:
                row = {"task": task, "n": n, "m": m, "wall_s": "", "peak_mb": "", "percent_correct": "",
                       "status": f"not run: timed out at n = {timed_out[task]:,}", "note": ""}
            elif plan is not None and plan[0] is None:
                row = {"task": task, "n": n, "m": m, "wall_s": "", "peak_mb": "", "percent_correct": "",
                       "status": f"not run: estimated {plan[3]:.1f} GB", "note":
                       f"sorted-neighbourhood window {plan[1]}: ~{plan[2]:,} pairs > --baseline-gb {args.baseline_gb:g}"}
            else:
                row = launch(task, n, m, args)
                if row["status"].startswith(("timeout", "killed")):
                    timed_out[task] = n
            rows.append(row)
            print(f"{task:24s} n={n:>9,} m={m:2d}  {row['status']:>12s}  wall {row['wall_s']!s:>9} s  "
                  f"peak {row['peak_mb']!s:>8} MB  correct {row['percent_correct']!s:>7} %  {row['note']}",
                  flush=True)
            write_outputs(_in_task_order(kept + rows), args, sdcmicro, mach)
    print(f"wrote {Path(args.out) / 'scaling.csv'}, scaling.md, scaling.png, scaling.pdf")


if __name__ == "__main__":
    main()
