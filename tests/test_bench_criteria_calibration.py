"""benchmarks/bench_criteria_calibration.py runs end to end in --quick mode: the two tables' structure,
the same CSV whatever the number of processes, one row's coverage and mean rate recomputed here from
the public API (infer) and Wilson's formula, docs/benchmarks.md left alone, bad options refused."""

import csv
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_criteria_calibration.py"

SO_ATTACKS = {"exact (keys)", "univariate predicates", "multivariate predicates"}
INF_ATTACKS = {"linked record (DBRL)", "nearest record", "key cell"}
SECRETS = {"job", "sector", "income"}


def run(tmp_path, *options):
    out = tmp_path / "cc"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out), *options],
                          capture_output=True, text=True, timeout=600)
    return proc, out


def read(out):
    with open(out.with_suffix(".csv"), newline="") as f:
        return list(csv.DictReader(f))


def wilson(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return 100 * (centre - half), 100 * (centre + half)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    doc = (ROOT / "docs" / "benchmarks.md").read_text()
    one, two = tmp_path_factory.mktemp("one"), tmp_path_factory.mktemp("two")
    p1, out1 = run(one, "--files", "4", "--n", "400", "--processes", "1")
    p2, out2 = run(two, "--files", "4", "--n", "400", "--processes", "2")
    assert p1.returncode == 0, p1.stderr
    assert p2.returncode == 0, p2.stderr
    assert (ROOT / "docs" / "benchmarks.md").read_text() == doc  # --quick leaves the docs alone
    return out1, out2


@pytest.mark.slow
def test_tables_have_every_row_and_consistent_figures(quick):
    out, _ = quick
    rows = read(out)
    cal = [r for r in rows if r["table"] == "independent release"]
    same = [r for r in rows if r["table"] == "original released unchanged"]
    assert {(r["secret"], r["attack"]) for r in cal if r["criterion"] == "singling out"} <= {("", a) for a in SO_ATTACKS}
    assert {(r["secret"], r["attack"]) for r in cal if r["criterion"] == "inference"} == \
        {(s, a) for s in SECRETS for a in INF_ATTACKS}
    for r in cal:
        files = int(r["files"])
        assert 1 <= files <= 4
        cover = float(r["coverage of 0 %"])
        k = round(cover * files / 100)
        assert abs(100 * k / files - cover) < 0.06  # a whole number of files
        low, high = (float(v) for v in r["Wilson 95 % interval"].strip("[]").split(","))
        assert (low, high) == pytest.approx(wilson(k, files), abs=0.051)
        assert float(r["coverage of 0 %"]) >= float(r["difference: covers 0 %"])  # the excess floors the difference
        assert float(r["difference: lower end <= 0 %"]) >= float(r["difference: covers 0 %"])
        assert r["coverage >= 94 %"] == ("pass" if cover >= 94 else "FAIL")
    assert {(r["check"], r["secret"]) for r in same} >= {("inference", s) for s in SECRETS}
    assert {r["attack"] for r in same if r["check"] == "singling out"} >= {"exact (keys)"}
    for r in same:  # the original released unchanged: everything there is to find, found
        assert r["result"] == "pass" and r["must find"] == r["found"] and int(r["found"]) > 0
    md = out.with_suffix(".md").read_text()
    assert md.startswith("# Singling-out and inference calibration")
    assert "Original released unchanged" in md and "Machine:" in md and "Command: `python benchmarks/" in md


@pytest.mark.slow
def test_same_csv_whatever_the_number_of_processes(quick):
    one, two = quick
    assert one.with_suffix(".csv").read_bytes() == two.with_suffix(".csv").read_bytes()


@pytest.mark.slow
def test_key_cell_row_recomputed_from_the_public_api(quick):
    """The job secret's key-cell row: files rebuilt from the script's population and seeding
    (rng([seed, n, file]): original, then release), infer called here, the 95 % excess interval
    tested for 0 and the success rates averaged here."""
    sys.path.insert(0, str(SCRIPT.parent))
    import bench_criteria_calibration as bench

    from sdcrisk.criteria.inference import KEY_CELL, infer

    covered, floored, rates = [], [], []
    for i in range(4):
        rng = np.random.default_rng([bench.SEED, 400, i])
        o, r = bench.population(400, rng), bench.population(400, rng)
        res = infer("job", o["job"].to_numpy(), r["job"].to_numpy(), categorical=True,
                    xn=o[["age", "hours"]].to_numpy(float), yn=r[["age", "hours"]].to_numpy(float),
                    xc=o[["region", "sex", "education", "occupation"]].to_numpy(),
                    yc=r[["region", "sex", "education", "occupation"]].to_numpy(),
                    blocking=[True, True, False, False])
        row = next(x for x in res.rows if x.attack == KEY_CELL)
        _, low, high = row.difference
        covered.append(low <= 0 <= high)
        floored.append(max(0.0, low) <= 0 <= max(0.0, high))
        rates.append(row.percent)
    got = next(r for r in read(quick[0]) if r["secret"] == "job" and r["attack"] == KEY_CELL)
    assert float(got["difference: covers 0 %"]) == pytest.approx(100 * np.mean(covered), abs=0.05)
    assert float(got["coverage of 0 %"]) == pytest.approx(100 * np.mean(floored), abs=0.05)
    assert float(got["mean rate %"]) == pytest.approx(np.mean(rates), abs=0.005)


@pytest.mark.parametrize("option", [["--files", "0"], ["--n", "10"], ["--processes", "0"]])
def test_bad_option_exits_2_before_any_output(tmp_path, option):
    proc, out = run(tmp_path, *option)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and option[0] in proc.stderr
    assert not list(tmp_path.iterdir())
