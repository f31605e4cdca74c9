"""benchmarks/bench_scaling.py runs end to end at tiny sizes and writes its four outputs."""

import csv
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scaling.py"


def test_bench_scaling_quick(tmp_path):
    tasks = "DBRL,MDAV k=3,recordlinkage DBRL-like"
    subprocess.run([sys.executable, str(SCRIPT), "--sizes", "400", "--quick", "--timeout", "120",
                    "--tasks", tasks, "--out", str(tmp_path)], check=True, capture_output=True, timeout=300)
    with open(tmp_path / "scaling.csv", newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert reader.fieldnames == ["task", "n", "m", "wall_s", "peak_mb", "status", "percent_correct", "note"]
    assert {(r["task"], r["n"], r["m"]) for r in rows} == {(t, n, m) for t in tasks.split(",")
                                                            for n, m in (("400", "10"), ("5000", "8"))}
    assert all(r["status"] == "ok" and float(r["wall_s"]) >= 0 and float(r["peak_mb"]) > 0 for r in rows)
    assert float(next(r for r in rows if r["task"] == "DBRL" and r["n"] == "400")["percent_correct"]) > 50
    for name in ("scaling.md", "scaling.png", "scaling.pdf"):
        assert (tmp_path / name).stat().st_size > 0
    md = (tmp_path / "scaling.md").read_text()
    assert "## Targets" in md and "not measured" in md and "sdcMicro" in md
    assert not list(tmp_path.glob("*.part*"))


def test_bench_assess_on_small_synthetic_files(tmp_path):
    script = SCRIPT.parent / "bench_assess.py"
    subprocess.run([sys.executable, str(script), "--parts", "large", "--sizes", "1500", "--out", str(tmp_path)],
                   check=True, capture_output=True, timeout=300)
    with open(tmp_path / "assess_scale.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    whole = [r for r in rows if r["task"] == "sdcrisk assess"]
    assert len(whole) == 1 and float(whole[0]["wall_s"]) > 0 and float(whole[0]["peak_mb"]) > 0
    attacks = {r["task"] for r in rows if r["part"] == "assess synthetic attacks"}
    from sdcrisk.assess.default_attacks import DEFAULT_ATTACKS, LEFT_OUT

    assert {*DEFAULT_ATTACKS, "IL"} <= attacks and not set(LEFT_OUT) & attacks  # the command's default set
    assert whole[0]["note"].startswith("default attacks")
    assert "## assess synthetic" in (tmp_path / "assess_scale.md").read_text()
    assert not (tmp_path / "assess.csv").exists()  # parts 1-3 only


def test_bench_scaling_add_and_replot(tmp_path):
    """``--add`` measures new sizes beside a finished run (its rows kept, no n x 8 set) and
    appends its command to the provenance; ``--replot`` rewrites the table and figure only."""
    run = [sys.executable, str(SCRIPT), "--timeout", "120", "--out", str(tmp_path), "--tasks", "DBRL"]
    subprocess.run(run + ["--sizes", "400", "--quick"], check=True, capture_output=True, timeout=300)
    subprocess.run(run + ["--sizes", "600", "--add"], check=True, capture_output=True, timeout=300)
    with open(tmp_path / "scaling.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert sorted((r["n"], r["m"]) for r in rows) == [("400", "10"), ("5000", "8"), ("600", "10")]
    md = (tmp_path / "scaling.md").read_text()
    assert md.split("\n")[2].count("then the rows of") == 1 and "--sizes 600 --add" in md
    assert not re.search(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|UTC", md)  # the command, no date or clock time
    (tmp_path / "scaling.png").unlink()
    subprocess.run([sys.executable, str(SCRIPT), "--replot", "--out", str(tmp_path)], check=True,
                   capture_output=True, timeout=300)
    assert (tmp_path / "scaling.png").stat().st_size > 0 and (tmp_path / "scaling.md").read_text() == md
