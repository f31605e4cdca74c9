"""Membership inference (:func:`sdcrisk.criteria.membership.membership_inference`) at scale.

    python benchmarks/bench_membership.py [--cases 1000000x8,1000000x6,1000000x10] [--bootstrap 1000]
                                          [--out benchmarks/results/membership]

Data: ``n`` members, ``n`` controls and an ``n``-record release, all drawn independently from
one distribution (a release from a generator that does not memorise: the case where every record
is scored at full cost): the correlated skewed columns of ``bench_scaling.make_data`` (one latent
normal factor plus noise, lognormal transform, 2 decimals; seeded), ``d`` columns. Each case runs
in its own child process (``--child``): wall and CPU time (user + system, both threads) of the
one call, after a warm-up on 300 records (numba compilation not timed); peak = the child's VmHWM
(MiB) at the end, inputs included. The call scores all ``2n`` records under both attacks (the
exact k-d tree's nearest neighbours in the release and in the controls), AUC with DeLong's or the
jackknife interval and TPR at FPR 1 % / 0.1 % with ``--bootstrap`` draws.

Writes ``OUT.md`` and ``OUT.csv`` and the ``membership`` region of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))
from common import machine_text  # noqa: E402

SEED = 20250401


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def draw(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """``n`` records of ``d`` correlated skewed columns (one latent normal factor plus noise,
    lognormal transform, 2 decimals)."""
    load = np.linspace(0.5, 0.9, d)
    z = rng.standard_normal((n, 1)) * load + rng.standard_normal((n, d)) * np.sqrt(1 - load**2)
    return np.round(100.0 * np.exp(0.6 * z) * np.arange(1, d + 1), 2)


def make_files(n: int, d: int):
    x = draw(np.random.default_rng([SEED, n, d]), 3 * n, d)
    return x[:n], x[n:2 * n], x[2 * n:]


def child(n: int, d: int, bootstrap: int) -> dict:
    from sdcrisk.criteria.membership import membership_inference

    m, c, r = make_files(n, d)
    small = make_files(300, d)
    membership_inference(*small, bootstrap=10)  # numba compilation, not timed
    t0, c0 = time.perf_counter(), time.process_time()
    res = membership_inference(m, c, r, bootstrap=bootstrap, seed=1)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    out = {"members": n, "controls": n, "release": n, "columns": d, "wall_s": round(wall, 1),
           "cpu_s": round(cpu, 1), "peak_mib": round(_peak_mb())}
    for row, tag in zip(res.rows, ("dcr", "density")):
        out[f"auc_{tag}"] = f"{row.auc:.4f} [{row.auc_low:.4f}, {row.auc_high:.4f}]"
        out[f"tpr1_{tag}"] = f"{row.tpr_1pct:.4f} [{row.tpr_1pct_low:.4f}, {row.tpr_1pct_high:.4f}]"
    return out


def phases(n: int, d: int) -> list[dict]:
    """Wall and CPU time of each step of one call, run step by step (same data and arguments)."""
    from sdcrisk.criteria import membership as mi
    from sdcrisk.linkage.neighbours import KDTree

    m, c, r = make_files(n, d)
    mi.membership_inference(*make_files(300, d), bootstrap=10)
    out = []
    t = [time.perf_counter(), time.process_time()]

    def tick(step: str, parallel: bool) -> None:
        w, cpu = time.perf_counter() - t[0], time.process_time() - t[1]
        out.append({"step": step, "wall_s": round(w, 1), "cpu_s": round(cpu, 1), "threads": 2 if parallel else 1})
        t[:] = [time.perf_counter(), time.process_time()]

    zm, zc, zr = mi.standardise(m, c, r)
    tick("standardise", False)
    tree = KDTree(zr, unique=False)
    tick("release tree", False)
    tree.knn(np.concatenate([zm, zc]), 2)
    tick(f"{2 * n:,} queries, 2 nearest in the release", True)
    del tree
    tree = KDTree(zc, unique=False)
    tick("control tree", False)
    tree.knn(zm, 2)
    tick(f"{n:,} members, 2 nearest controls", True)
    mi._control_neighbours(tree, zc, 1)
    tick(f"{n:,} controls, 3 nearest controls (self included)", True)
    del tree
    s = mi.score_membership(m, c, r)
    t[:] = [time.perf_counter(), time.process_time()]
    mi.density_jackknife(s)
    tick("density attack: AUC and jackknife", False)
    x = s.attack[mi.DCR_ATTACK]
    mi.auc_delong(x[:n], x[n:])
    tick("distance attack: AUC and DeLong", False)
    for alpha in mi.FPRS:
        mi.tpr_at_fpr_bootstrap(x[:n], x[n:], alpha, 1000, np.random.default_rng(0))
    tick("TPR at 2 rates, 1,000 bootstrap draws, one attack", False)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="1000000x8,1000000x6,1000000x10")
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--out", default=str(HERE / "results" / "membership"))
    ap.add_argument("--phases", default="1000000x8", help="one case timed step by step ('' to skip)")
    ap.add_argument("--child", default="")
    ap.add_argument("--phase-child", default="")
    a = ap.parse_args()
    load_start = os.getloadavg()[0]
    if a.phase_child:
        n, d = (int(v) for v in a.phase_child.split("x"))
        print(json.dumps(phases(n, d)))
        return
    if a.child:
        n, d = (int(v) for v in a.child.split("x"))
        print(json.dumps(child(n, d, a.bootstrap)))
        return
    rows = []
    for case in a.cases.split(","):
        p = subprocess.run([sys.executable, __file__, "--child", case, "--bootstrap", str(a.bootstrap)],
                           capture_output=True, text=True, check=True)
        rows.append(json.loads(p.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    steps = []
    if a.phases:
        p = subprocess.run([sys.executable, __file__, "--phase-child", a.phases], capture_output=True, text=True,
                           check=True)
        steps = json.loads(p.stdout.strip().splitlines()[-1])
        print(steps, flush=True)
    import pandas as pd

    from common import replace_region

    df = pd.DataFrame(rows)
    out = Path(a.out)
    df.to_csv(out.with_suffix(".csv"), index=False)
    threads = os.environ.get("NUMBA_NUM_THREADS", str(os.cpu_count()))
    command = "python benchmarks/bench_membership.py " + " ".join(sys.argv[1:])
    machine = (f"{machine_text()} ({threads} numba threads), numpy {np.__version__}; one-minute load average "
               f"{load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end (where other jobs share the "
               "machine, wall times exceed a dedicated run's; CPU time / 2 estimates that)")
    table = df.to_markdown(index=False)
    body = (f"Membership inference: every member and control scored against the release (both attacks, "
            f"exact k-d tree), release drawn independently of both; `{command.strip()}`. Machine: {machine}.\n\n"
            f"{table}\n")
    if steps:
        st = pd.DataFrame(steps)
        serial = float((st.cpu_s / st.threads).sum())
        body += (f"\nStep by step, {a.phases} (a separate run; the k-nearest searches run on 2 threads, the "
                 f"rest on one). Sum of CPU time / threads: {serial:.0f} s, an estimate of the whole call's "
                 f"wall time on 2 unshared cores.\n\n{st.to_markdown(index=False)}\n")
    out.with_suffix(".md").write_text("# Membership inference at scale\n\n" + body)
    replace_region(ROOT / "docs" / "benchmarks.md", "membership", body)


if __name__ == "__main__":
    main()
