"""MDAV k = 3 at 10^5 and 10^6 x 10 (the exact tree kernel before and after the principal-axis
tree, same run), label identity, and three fast maskings at 10^7 x 10.

    python benchmarks/bench_mdav.py [--sizes 100000,1000000] [--old-max 100000] [--before COMMIT]
                                    [--big 10000000] [--out benchmarks/results/mdav.md]

Data: the synthetic correlated skewed columns of ``bench_scaling.make_data`` (latent normal factor
plus noise, lognormal transform, 2 decimals; seeded). MDAV runs on the z-scores of one block of
all 10 columns (``mdav_groups(x, 3)``, the kernel ``mask("mdav", x, v=10, k=3)`` calls).

Each row runs in its own child process (``--child``): wall time of the one call after a warm-up
on 300 records (numba compilation not timed); peak = the child's VmHWM (/proc/self/status, MiB)
at the end, inputs included. "before" is the kernel of commit --before (default OLD_COMMIT;
src/sdcrisk/masking/mdav_tree.py, extracted with ``git show``); it runs only up to --old-max
records. Label identity: "after" against "before" where both ran, and against the brute-force
reference kernel (``method="brute"``) on Census and EIA (every block of v = 2, 3, 4, all
attributes; k = 3, 5; both scales) and on tied data (values rounded to one decimal).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

OLD_COMMIT = "0a144c6"
SEED = 20240611


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def _old_module():
    commit = os.environ.get("BENCH_MDAV_BEFORE", OLD_COMMIT)
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:src/sdcrisk/masking/mdav_tree.py"],
                         check=True, capture_output=True, text=True).stdout
    src = src.replace("from ..resources import", "from sdcrisk.resources import")  # loaded outside the package
    d = Path(tempfile.mkdtemp(prefix="mdav_old_"))
    (d / "mdav_tree_old.py").write_text(src)
    spec = importlib.util.spec_from_file_location("mdav_tree_old", d / "mdav_tree_old.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def child(task: str, n: int, m: int, labels_out: str | None) -> dict:
    from bench_scaling import make_data
    from sdcrisk.masking import mask
    from sdcrisk.masking.projection import standardise

    x = make_data(n, m)
    rng = np.random.default_rng([SEED, n, m])
    if task in ("mdav-before", "mdav-after", "mdav-after-1-thread"):
        import numba

        from sdcrisk.masking import mdav_tree

        mod = _old_module() if task == "mdav-before" else mdav_tree
        # as mdav_tree_kernel runs it (threads from PAR_MIN records), or in one thread; a "before"
        # kernel without threads (no PAR_MIN) takes no thread count
        threaded = hasattr(mod, "PAR_MIN")
        nt = 1 if task == "mdav-after-1-thread" or n < mdav_tree.PAR_MIN else min(4, numba.get_num_threads())

        def kern(z, k):
            return mod._mdav_tree_kernel(z, k, nt) if threaded else mod._mdav_tree_kernel(z, k)
        z = np.ascontiguousarray(standardise(x))
        kern(np.ascontiguousarray(z[:300]), 3)
        t0 = time.perf_counter()
        labels, nfb = kern(z, 3)
        wall = time.perf_counter() - t0
        if labels_out:
            np.save(labels_out, labels)
        note = f"groups {labels.max() + 1}, exact centroid recomputations {nfb}"
    else:
        name, params = {"individual ranking": ("individual_ranking_ma", {"k": 3}),
                        "rank swapping": ("rankswap", {"p": 5}),
                        "additive noise": ("additive_noise", {"a": 0.5})}[task]
        mask(name, x[:300], np.random.default_rng(0), **params)
        t0 = time.perf_counter()
        mask(name, x, rng, **params)
        wall = time.perf_counter() - t0
        note = f"mask({name!r}, {params})"
    return {"task": task, "n": n, "m": m, "wall_s": wall, "peak_mb": _peak_mb(), "note": note}


def run_child(task, n, m, labels_out=None, timeout=3600):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", task, str(n), str(m)]
    if labels_out:
        cmd += ["--labels", labels_out]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        return {"task": task, "n": n, "m": m, "wall_s": float("nan"), "peak_mb": float("nan"),
                "note": "failed: " + out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def reference_identity() -> list[str]:
    """Tree labels against the brute-force kernel on Census, EIA and tied data."""
    from common import load
    from sdcrisk.masking.microaggregation import attribute_blocks, mdav_groups

    lines = []
    sets = {}
    try:
        sets["Census"] = load("census")
        sets["EIA"] = load("eia")
    except Exception as exc:  # data unavailable: say so
        lines.append(f"- Census / EIA not loaded ({exc.__class__.__name__}); not compared")
    rng = np.random.default_rng(SEED)
    sets["tied lognormal 20,000 x 10 (1 decimal)"] = np.round(np.exp(0.6 * rng.standard_normal((20_000, 10))), 1)
    for name, x in sets.items():
        cases = same = 0
        for v in sorted({2, 3, 4, x.shape[1]}):
            for cols in attribute_blocks(x.shape[1], v):
                for k in (3, 5):
                    for scale in ("z", "none"):
                        if x.shape[0] > 5000 and (v != x.shape[1] or scale != "z"):
                            continue  # large file: all attributes on z-scores only
                        cases += 1
                        same += np.array_equal(mdav_groups(x[:, cols], k, scale),
                                               mdav_groups(x[:, cols], k, scale, method="brute"))
        lines.append(f"- {name}: labels identical to the brute-force kernel in {same} of {cases} cases")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=3)
    ap.add_argument("--labels")
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--old-max", type=int, default=100_000)
    ap.add_argument("--big", type=int, default=10_000_000)
    ap.add_argument("--before", default=OLD_COMMIT, help="commit whose kernel is the 'before' row")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "mdav.md"))
    ap.add_argument("--identity-only", action="store_true",
                    help="recompute only the label identity against the brute-force kernel (Census, EIA, tied "
                         "data) and replace those lines of --out")
    a = ap.parse_args()
    if a.identity_only:
        text = Path(a.out).read_text()
        kept = [ln for ln in text.split("\n") if not ln.startswith(("- Census", "- EIA", "- tied", "(brute-force"))]
        while kept and not kept[-1]:
            kept.pop()
        Path(a.out).write_text("\n".join(kept + reference_identity() + [
            "", "(brute-force comparisons above: `python benchmarks/bench_mdav.py --identity-only`)", ""]))
        return
    if a.child:
        print(json.dumps(child(a.child[0], int(a.child[1]), int(a.child[2]), a.labels)))
        return
    os.environ["BENCH_MDAV_BEFORE"] = a.before  # read by the children
    load0 = os.getloadavg()
    rows, ident = [], []
    tmp = Path(tempfile.mkdtemp(prefix="bench_mdav_"))

    def measure(task, n, labels=None):
        rows.append(run_child(task, n, 10, labels and str(tmp / f"{labels}_{n}.npy")))
        print(rows[-1], flush=True)
        return rows[-1]

    for n in [int(s) for s in a.sizes.split(",")]:
        after = measure("mdav-after", n, "after")
        one = measure("mdav-after-1-thread", n, "one")
        same = np.array_equal(np.load(tmp / f"after_{n}.npy"), np.load(tmp / f"one_{n}.npy"))
        ident.append(f"- synthetic {n:,} x 10: labels after (threads) == after (1 thread): {same}; "
                     f"speed-up of the threads {one['wall_s'] / after['wall_s']:.2f}x")
        if n <= a.old_max:
            before = measure("mdav-before", n, "before")
            same = np.array_equal(np.load(tmp / f"after_{n}.npy"), np.load(tmp / f"before_{n}.npy"))
            ident.append(f"- synthetic {n:,} x 10: labels after == before: {same}; "
                         f"speed-up {before['wall_s'] / after['wall_s']:.1f}x")
        else:
            ident.append(f"- synthetic {n:,} x 10: before not run (over --old-max {a.old_max:,})")
    for task in ("individual ranking", "rank swapping", "additive noise"):
        measure(task, a.big)
    ident += reference_identity()
    load1 = os.getloadavg()
    out = ["# MDAV k = 3 at 10^5 and 10^6 records; fast maskings at 10^7", "",
           f"Produced by `python benchmarks/bench_mdav.py --sizes {a.sizes} --old-max {a.old_max} --before {a.before} "
           f"--big {a.big}` "
           f"on {platform.node()} ({os.cpu_count()} cores, shared); "
           f"load average (1, 5, 15 min) {tuple(round(v, 2) for v in load0)} at the start, "
           f"{tuple(round(v, 2) for v in load1)} at the end. "
           "Data: `bench_scaling.make_data` (correlated skewed columns, 2 decimals, seeded). Wall time of the one call "
           "after a warm-up (no compilation); peak = the child's VmHWM in MiB (inputs included). "
           f"before = the tree kernel of commit {a.before} (in threads as after where it has them); after = the "
           "principal-axis tree kernel, its farthest-record searches in numba's threads from mdav_tree.PAR_MIN "
           "records (as mask() runs it); "
           "after-1-thread = the same kernel in one thread.", "",
           "| task | n | m | wall s | peak MiB | note |", "|---|---:|---:|---:|---:|---|"]
    for r in rows:
        out.append(f"| {r['task']} | {r['n']:,} | {r['m']} | {r['wall_s']:.2f} | {r['peak_mb']:.0f} | {r['note']} |")
    out += ["", "Label identity:", ""] + ident + [""]
    Path(a.out).write_text("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
