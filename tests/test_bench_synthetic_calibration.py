"""benchmarks/bench_synthetic_calibration.py at a tiny size (in-process, one process): every row of
assess_synthetic per control size, coverage and Wilson's interval consistent with a whole number of
simulations, the linkability row's coverage recomputed here from assess_synthetic's successes with
Newcombe's interval written out in the test, the docs left alone with --no-doc, bad options refused
before any output; --merge: a size run alone and merged gives the rows a run of every size gives,
and a merge with other settings is refused with the files untouched."""

import csv
import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_synthetic_calibration as bench  # noqa: E402

Z = 1.959963984540054
ARGS = ["--training", "200", "--controls", "80,200", "--seed-order", "80,200", "--simulations", "3",
        "--predicates", "50", "--processes", "1", "--no-doc"]


def wilson(k, n):
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


def newcombe(k1, n1, k2, n2):
    """Newcombe (1998) method 10, in points: the difference's interval from the two Wilson intervals."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return 100 * (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)), 100 * (d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("sc") / "sc"
    doc = (ROOT / "docs" / "benchmarks.md").read_text()
    assert bench.main([*ARGS, "--out", str(out)]) == 0
    assert (ROOT / "docs" / "benchmarks.md").read_text() == doc
    with open(out.with_suffix(".csv"), newline="") as f:
        return out, list(csv.DictReader(f))


def test_every_row_per_control_size_with_consistent_figures(tiny):
    out, rows = tiny
    for control in ("80", "200"):
        got = {(r["criterion"], r["secret"], r["attack"]) for r in rows if r["control"] == control}
        assert ("linkability", "", "nearest record, split known attributes") in got
        assert {(s, a) for s in bench.SECRETS for a in ("nearest record", "key cell")} == \
            {(s, a) for c, s, a in got if c == "inference"}
        assert {a for c, _, a in got if c.startswith("membership")} == {
            "distance to closest release record", "density ratio (release / controls, k-NN)"}
        assert {a for c, _, a in got if c == "singling out"} <= {"exact (keys)", "univariate predicates",
                                                                  "multivariate predicates"}
    for r in rows:
        n = int(r["simulations"])
        assert 1 <= n <= 3 and r["training"] == "200"
        cover = float(r["coverage of 0 %"])
        k = round(cover * n / 100)
        assert abs(100 * k / n - cover) < 0.06
        low, high = (float(v) for v in r["Wilson 95 % interval"].strip("[]").split(","))
        assert (low, high) == pytest.approx(tuple(100 * v for v in wilson(k, n)), abs=0.051)
        assert float(r["lower end <= 0 %"]) >= cover
        assert r["coverage >= 94 %"] == ("pass" if cover >= 94 else "FAIL")
        assert float(r["mean interval width"]) > 0
    md = out.with_suffix(".md").read_text()
    assert md.startswith("# Synthetic-release calibration") and "Machine:" in md and "Commands (seed" in md
    assert "python benchmarks/bench_synthetic_calibration.py --training 200" in md


def test_linkability_coverage_recomputed(tiny):
    """Simulations rebuilt from the script's seeds and population, assess_synthetic called here, the
    excess interval recomputed with Newcombe's formula above and tested for 0."""
    from sdcrisk.assess.synthetic import LINK_ATTACK, assess_synthetic

    _, rows = tiny
    seeds = np.random.default_rng(bench.SEED).integers(0, 2**63 - 1, size=(2, 3))
    for c, n_control in enumerate((80, 200)):
        covered, excess = [], []
        for s in seeds[c]:
            rng = np.random.default_rng(int(s))
            training, release, control = (bench.population(n, rng) for n in (200, 200, n_control))
            t = assess_synthetic(training, release, control, known=bench.KNOWN, secret=bench.SECRETS,
                                 categorical=bench.CATEGORICAL, seed=int(rng.integers(0, 2**31 - 1)), predicates=50,
                                 membership=False, singling_out=False)
            r = t[t.attack == LINK_ATTACK].iloc[0]
            assert (r.n_training, r.n_control) == (200, n_control)
            low, high = newcombe(r.training_successes, 200, r.control_successes, n_control)
            assert (r.excess_low, r.excess_high) == pytest.approx((low, high), abs=1e-9)
            covered.append(low <= 0 <= high)
            excess.append(100 * (r.training_successes / 200 - r.control_successes / n_control))
        got = next(x for x in rows if x["control"] == str(n_control) and x["criterion"] == "linkability")
        assert float(got["coverage of 0 %"]) == pytest.approx(100 * np.mean(covered), abs=0.05)
        assert float(got["mean excess"]) == pytest.approx(np.mean(excess), rel=1e-3, abs=1e-9)


@pytest.mark.parametrize("option", [["--controls", "80,x"], ["--controls", "300"], ["--simulations", "0"],
                                    ["--processes", "0"]])
def test_bad_option_exits_2_before_any_output(tmp_path, capsys, option):
    assert bench.main(["--training", "200", "--controls", "80", *option, "--out", str(tmp_path / "sc"), "--no-doc"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and option[0] in err
    assert not list(tmp_path.iterdir())


MERGE = ["--training", "200", "--seed-order", "80,200,120", "--simulations", "2", "--predicates", "40",
         "--processes", "1", "--no-doc", "--no-membership"]


def test_merge_gives_the_rows_of_a_full_run(tmp_path):
    """Sizes 80 and 200 run, then 120 run alone with --merge: the table is the one a run of all
    three writes (same seeds per size, rows in control order), and the run records name each
    size's seed row (its place in --seed-order)."""
    full, part = tmp_path / "full", tmp_path / "part"
    assert bench.main([*MERGE, "--controls", "80,120,200", "--out", str(full)]) == 0
    assert bench.main([*MERGE, "--controls", "200,80", "--out", str(part)]) == 0
    assert {r["control"] for r in csv.DictReader(open(part.with_suffix(".csv")))} == {"80", "200"}
    assert bench.main([*MERGE, "--controls", "120", "--out", str(part), "--merge"]) == 0
    assert part.with_suffix(".csv").read_bytes() == full.with_suffix(".csv").read_bytes()
    rows = list(csv.DictReader(open(full.with_suffix(".csv"))))
    assert [r["control"] for r in rows] == sorted((r["control"] for r in rows), key=int)
    runs = list(csv.DictReader(open(part.with_suffix(".runs.csv"))))
    assert [(r["control"], r["seed row"]) for r in runs] == [("80", "0"), ("120", "2"), ("200", "1")]
    assert "--merge" in runs[1]["command"] and "--merge" not in runs[0]["command"]
    md = part.with_suffix(".md").read_text()
    assert "control sets of 80, 120, 200 records" in md and md.count("python benchmarks/bench_synthetic_calibration.py ") == 2


def test_default_seed_order_keeps_each_size_seeds():
    """Under the default --seed-order a size's row of seeds does not depend on the other sizes run."""
    order = [int(v) for v in bench.SEED_ORDER.split(",")]
    assert sorted(order) == sorted(int(v) for v in bench.CONTROLS.split(","))
    for controls in ([1000, 2000, 5000, 10000], [2000, 5000], [5000], [10000, 1000]):
        assert bench.seed_rows(controls, order) == {n: order.index(n) for n in controls}
    # a row's seeds are the same however many rows are drawn after it
    assert (bench.seeds(7, 4, 3)[:2] == bench.seeds(7, 2, 3)).all()


@pytest.mark.parametrize("option", [["--simulations", "3"], ["--predicates", "41"], ["--seed", "5"],
                                    ["--seed-order", "80,120,200"], ["--training", "300"]])
def test_merge_with_other_settings_is_refused_untouched(tmp_path, capsys, option):
    out = tmp_path / "sc"
    assert bench.main([*MERGE, "--controls", "80,200", "--simulations", "1", "--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    args = [*MERGE, "--controls", "120", "--simulations", "1", "--out", str(out), "--merge"]
    capsys.readouterr()
    assert bench.main([*args, *option]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--merge" in err and str(out) in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_merge_without_earlier_output_is_refused(tmp_path, capsys):
    assert bench.main([*MERGE, "--controls", "120", "--out", str(tmp_path / "sc"), "--merge"]) == 2
    assert "no such file" in capsys.readouterr().err and not list(tmp_path.iterdir())
