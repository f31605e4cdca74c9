"""Wall time, CPU time and peak memory of a whole command with every process it starts.

    python benchmarks/measure_run.py --out benchmarks/results/run_paper.json -- snakemake --cores 2

Memory is sampled every ``--interval`` seconds as the sum of the resident set sizes of the command
and all its descendants (Linux ``/proc``), so parallel jobs count together; shared library pages
are counted once per process, which makes the sum an upper bound of the physical memory used.
The largest single process is reported beside it. CPU time is that of the whole process tree
(``resource.getrusage(RUSAGE_CHILDREN)``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import time
from pathlib import Path

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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="append the result as one JSON line to this file")
    ap.add_argument("--interval", type=float, default=0.2)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("give the command after --")
    result = measure(cmd, a.interval)
    print(json.dumps(result))
    if a.out:
        with open(a.out, "a") as f:
            f.write(json.dumps(result) + "\n")
    return result["exit"]


if __name__ == "__main__":
    raise SystemExit(main())
