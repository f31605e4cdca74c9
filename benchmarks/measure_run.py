"""Wall time, CPU time and peak memory of a whole command with every process it starts.

    python benchmarks/measure_run.py --out benchmarks/results/run_paper.json -- snakemake --cores 2

Memory is sampled every ``--interval`` seconds as the sum of the resident set sizes of the command
and all its descendants (Linux ``/proc``), so parallel jobs count together; shared library pages
are counted once per process, which makes the sum an upper bound of the physical memory used.
The largest single process is reported beside it. CPU time is that of the whole process tree
(``resource.getrusage(RUSAGE_CHILDREN)``).

``--label TEXT`` puts the result in the ``<!-- measured:run-times -->`` table of ``--doc``
(docs/benchmarks.md by default): the row whose first cell is TEXT is replaced, or added, so the
page holds the current figure of every measured command.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DOC, read_region, replace_region  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def tree_rss(root: int) -> tuple[int, int]:
    """(sum, max) of the resident set sizes in bytes of ``root`` and its descendants."""
    tree, todo, total, largest = _children(), [root], 0, 0
    while todo:
        pid = todo.pop()
        todo.extend(tree.get(pid, []))
        try:
            rss = int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
        total, largest = total + rss, max(largest, rss)
    return total, largest


def measure(cmd: list[str], interval: float) -> dict:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd)
    peak_sum = peak_one = 0
    while proc.poll() is None:
        total, largest = tree_rss(proc.pid)
        peak_sum, peak_one = max(peak_sum, total), max(peak_one, largest)
        time.sleep(interval)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"command": " ".join(cmd), "exit": proc.returncode, "wall_s": round(wall, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 1), "peak_rss_sum_mb": round(peak_sum / 2**20),
            "peak_rss_one_process_mb": round(peak_one / 2**20), "interval_s": interval,
            "cpus": os.cpu_count(), "machine": platform.machine(), "load_before": os.getloadavg()[0]}


def _duration(s: float) -> str:
    m, sec = divmod(round(s), 60)
    return f"{m} min {sec} s" if m else f"{sec} s"


RUN_HEADER = ["| run | wall time | CPU time | peak memory, all processes | largest process |",
              "|---|---|---|---|---|"]


def run_times_table(old_body: str, label: str, result: dict) -> str:
    """The run-times table ``old_body`` with the row of ``label`` replaced (or added) by ``result``."""
    if "|" in label:
        raise ValueError("--label must not contain '|'")
    row = (f"| {label} | {_duration(result['wall_s'])} | {_duration(result['cpu_s'])} | "
           f"{result['peak_rss_sum_mb']:,} MiB | {result['peak_rss_one_process_mb']:,} MiB |")
    lines = [ln for ln in old_body.strip().splitlines() if ln.startswith("|")][2:]
    kept = [ln if ln.split("|")[1].strip() != label else row for ln in lines]
    if row not in kept:
        kept.append(row)
    prose = [ln for ln in old_body.strip().splitlines() if ln and not ln.startswith("|")]
    return "\n".join([*prose, *([""] if prose else []), *RUN_HEADER, *kept])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="append the result as one JSON line to this file")
    ap.add_argument("--interval", type=float, default=0.2)
    ap.add_argument("--label", help="the row of the run-times table in --doc that this run replaces or adds")
    ap.add_argument("--doc", default=str(DOC), help="the page with the measured:run-times region")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("give the command after --")
    if a.label is not None:
        try:  # the region must exist before hours are spent measuring
            read_region(Path(a.doc).read_text(), "run-times")
        except (OSError, ValueError) as e:
            ap.error(f"--doc {a.doc}: {e}")
        if "|" in a.label or not a.label.strip():
            ap.error("--label: a non-empty text without '|'")
    result = measure(cmd, a.interval)
    print(json.dumps(result))
    if a.out:
        with open(a.out, "a") as f:
            f.write(json.dumps(result) + "\n")
    if a.label is not None and result["exit"] == 0:
        body = read_region(Path(a.doc).read_text(), "run-times")
        replace_region(a.doc, "run-times", run_times_table(body, a.label.strip(), result))
    return result["exit"]


if __name__ == "__main__":
    raise SystemExit(main())
