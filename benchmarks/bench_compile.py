"""Cold-cache compile time of the numba kernels: one kernel group (default MDAV's) and the whole
``sdcrisk compile``, for this checkout's source and, alternating with it, a baseline commit's.

    python benchmarks/bench_compile.py [--baseline COMMIT] [--groups mdav] [--repeat 2] [--whole 1]
                                       [--out benchmarks/results/compile.md]

Each run is a fresh process with a fresh, empty ``NUMBA_CACHE_DIR`` (a temporary directory: the
user's cache is never read or written) and ``PYTHONPATH`` set to the source tree it measures (the
baseline's: ``git archive COMMIT src``). A group run calls :func:`sdcrisk.compile.compile_group`
in one process; "numba compiles" counts numba's compile events (``numba.core.event``) of the
project's own kernels there, one per specialisation compiled, a figure the machine's load does
not move. A whole run times ``python -m sdcrisk.cli compile`` (every group, ``--jobs`` the usable
cores). Runs of the two sources alternate, so a change of the machine's load falls on both; the
load average at each run's start is in the row. The table goes to ``--out`` and to the
``compile`` region of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from common import DOC, replace_region  # noqa: E402

_GROUP_CHILD = """
import json, sys, time
from numba.core import event
count = [0]
class _Count(event.Listener):
    def on_start(self, ev):
        if ev.data["dispatcher"].py_func.__module__.startswith("sdcrisk."):
            count[0] += 1
    def on_end(self, ev):
        pass
event.register("numba:compile", _Count())
from sdcrisk.compile import compile_group
t0 = time.perf_counter()
compile_group(sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - t0, "compiles": count[0]}))
"""


def _run(src: Path, args: list[str]) -> tuple[float, str]:
    """Wall time and standard output of ``python ARGS`` on source tree ``src``, empty cache."""
    with tempfile.TemporaryDirectory(prefix="sdcrisk-numba-") as cache:
        env = {**os.environ, "PYTHONPATH": str(src), "NUMBA_CACHE_DIR": cache}
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
        wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"bench_compile: {' '.join(args[:3])} on {src} failed:\n{done.stderr}")
    return wall, done.stdout


def _label() -> str:
    """This checkout's commit, marked when its source has uncommitted changes."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "this checkout"
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "src"], capture_output=True,
                           text=True).stdout.strip()
    return f"{commit} (with uncommitted changes)" if dirty else commit


def _baseline_tree(commit: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "src"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", help="commit whose source is measured alternately with this checkout's")
    ap.add_argument("--groups", default="mdav", help="comma-separated kernel groups timed alone (default: mdav)")
    ap.add_argument("--repeat", type=int, default=2, help="runs per group and source (default 2)")
    ap.add_argument("--whole", type=int, default=1, help="runs of the whole sdcrisk compile per source (default 1)")
    ap.add_argument("--out", default=str(HERE / "results" / "compile.md"))
    args = ap.parse_args(argv)

    rows = []
    with tempfile.TemporaryDirectory(prefix="sdcrisk-baseline-") as tmp:
        sources = [(_label(), ROOT / "src")]
        if args.baseline:
            sources.append((f"baseline {args.baseline}", _baseline_tree(args.baseline, Path(tmp))))
        plan = [(g, r) for g in args.groups.split(",") if g for r in range(args.repeat)]
        plan += [("(whole command)", r) for r in range(args.whole)]
        for what, run in plan:
            for label, src in sources if run % 2 == 0 else sources[::-1]:
                load = os.getloadavg()[0]
                if what == "(whole command)":
                    wall, _ = _run(src, ["-m", "sdcrisk.cli", "compile"])
                    seconds, compiles = wall, None
                else:
                    _, out = _run(src, ["-c", _GROUP_CHILD, what])
                    found = json.loads(out.strip().splitlines()[-1])
                    seconds, compiles = found["seconds"], found["compiles"]
                rows.append({"source": label, "what": what, "seconds": seconds, "compiles": compiles, "load": load})
                print(f"{label}: {what} {seconds:.1f} s, {compiles} numba compiles, load {load:.1f}", flush=True)
    write(rows, Path(args.out), args)


def write(rows: list[dict], out: Path, args) -> None:
    cmd = "python benchmarks/bench_compile.py" + (f" --baseline {args.baseline}" if args.baseline else "")
    cmd += f" --groups {args.groups} --repeat {args.repeat} --whole {args.whole}"
    table = ["| source | kernel group | wall (s) | numba compiles | load average at start |",
             "|---|---|---:|---:|---:|"]
    for r in rows:
        compiles = "" if r["compiles"] is None else str(r["compiles"])
        table.append(f"| {r['source']} | {r['what']} | {r['seconds']:.1f} | {compiles} | {r['load']:.1f} |")
    head = ["# Cold-cache compile time of the numba kernels", "",
            f"Produced by `{cmd}` on {platform.node() or 'this machine'} ({os.cpu_count()} cores, "
            "shared with other work: see the load column). Each row: a fresh process, an empty "
            "numba cache. A kernel group's row times `sdcrisk.compile.compile_group` in one process; "
            "\"numba compiles\" counts the specialisations of the project's kernels compiled there. "
            "\"(whole command)\" times `python -m sdcrisk.cli compile` (every group, in parallel "
            "processes). Rows of the two sources alternate.", ""]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(head + table) + "\n")
    region = [f"Written by `{cmd}` (every row: `benchmarks/results/{out.name}`); a fresh process and "
              "an empty numba cache per row.", "", *table]
    replace_region(DOC, "compile", "\n".join(region))


if __name__ == "__main__":
    main()
