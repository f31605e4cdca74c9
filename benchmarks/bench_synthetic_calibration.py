"""Calibration of the synthetic-release assessment at 10^4 training records (issue 60, item 4a).

    python benchmarks/bench_synthetic_calibration.py [--training 10000] [--controls 1000,2000,5000,10000]
                                                     [--simulations 200] [--seed 20260602] [--processes 2]
                                                     [--predicates 1000] [--no-membership]
                                                     [--out benchmarks/results/synthetic_calibration]
                                                     [--no-doc]

Independent release: per simulation, a training set of ``--training`` records, a release of as many
records and a control set of each size of ``--controls``, all three drawn independently from one
population model (``bench_criteria_calibration.population``: region, 12 categories of falling
frequency; sex; education, 5 categories, skewed; occupation, 400 categories of Zipf-like frequency;
age in whole years depending on education; weekly hours to 0.1 h depending on sex; the secrets
``job``, 3 equally likely categories, ``sector``, 3 categories of probability 0.5, 0.3, 0.2, and
``income``, lognormal, independent of the rest). The release tells nothing about any training
record, so a training record and a control record are exchangeable with respect to it and every
excess (training targets' success rate minus control targets', Newcombe's 1998 interval) is
centred on 0 (:mod:`sdcrisk.assess.synthetic`), whatever the secret's skew.

Each simulation is one call of :func:`sdcrisk.assess.synthetic.assess_synthetic` with the six
known attributes (the four categorical ones as categories), the three secrets, ``--predicates``
multivariate singling-out predicates and membership inference (unless ``--no-membership``); its
seed and its data's generator come from one seed drawn for it by
``numpy.random.default_rng(--seed)`` (one seed per control size and simulation, drawn in the
order of ``--controls``). Per control size and row (linkability; singling out: exact keys,
univariate and multivariate predicates; inference of each secret: nearest record and key cell;
membership: each attack's AUC), the table gives the share of simulations whose 95 % interval
contains 0 (0.5 for an AUC), with Wilson's interval for that share, the share whose lower end is
at or below 0 (no risk found where there is none), the mean excess, the mean interval width and
the number of simulations in which the row existed (a singling-out row exists when some predicate
isolates a release record).

Simulations run in ``--processes`` processes and are gathered in simulation order: the CSV is the
same whatever the number of processes. Writes ``OUT.md``, ``OUT.csv`` and (unless ``--no-doc``)
the ``synthetic_calibration`` region of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))
from common import DOC, coverage_columns, machine_text, one_thread_per_process, replace_region, rows_below  # noqa: E402,E501

SEED = 20260602
TARGET = 94.0  # per cent of simulations whose interval must contain 0
CATEGORICAL = ["region", "sex", "education"]
#: in this order, the linkability attack's two halves are (height, region, sex) and (weight, hours, education)
KNOWN = ["height", "region", "sex", "weight", "hours", "education"]
SECRETS = ["job", "sector", "income"]
PREDICATES = 1000
CONTROLS = "1000,2000,5000,10000"


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` records of the population model (module docstring); categorical attributes as codes."""
    p_region = np.geomspace(1.0, 0.2, 6)
    region = rng.choice(6, n, p=p_region / p_region.sum())
    sex = rng.integers(0, 2, n)
    education = rng.choice(5, n, p=[0.15, 0.35, 0.25, 0.17, 0.08])
    height = np.round(rng.normal(np.where(sex == 1, 178.0, 165.0), 7.0, n), 1)
    weight = np.round(0.9 * (height - 100.0) + rng.normal(0.0, 9.0, n) - 0.8 * education, 1)
    hours = np.round(rng.normal(np.where(sex == 1, 40.0, 34.0) + education, 8.0, n), 1)
    return pd.DataFrame({"region": region, "sex": sex, "education": education, "height": height, "weight": weight,
                         "hours": hours, "job": rng.integers(0, 3, n), "sector": rng.choice(3, n, p=[0.5, 0.3, 0.2]),
                         "income": np.round(np.exp(rng.normal(10.0, 0.6, n)), 2)})


def seeds(seed: int, controls: list[int], simulations: int) -> np.ndarray:
    """One seed per (control size, simulation), drawn from one generator in the order of ``controls``."""
    return np.random.default_rng(seed).integers(0, 2**63 - 1, size=(len(controls), simulations))


def one_simulation(job: tuple[int, int, int, int, bool]) -> list[tuple]:
    """One simulation: per row ``(criterion, target, attack, covered, lower <= 0, excess, width)``
    (an AUC row: covered = its interval holds 0.5, excess = AUC - 0.5) and the call's seconds."""
    from sdcrisk.assess.synthetic import assess_synthetic

    sim_seed, n_training, n_control, predicates, membership = job
    rng = np.random.default_rng(sim_seed)
    training, release, control = (population(n, rng) for n in (n_training, n_training, n_control))
    t0 = time.perf_counter()
    t = assess_synthetic(training, release, control, known=KNOWN, secret=SECRETS, categorical=CATEGORICAL,
                         seed=int(rng.integers(0, 2**31 - 1)), predicates=predicates, membership=membership)
    seconds = time.perf_counter() - t0
    out = [(r.criterion, r.target, r.attack, bool(r.excess_low <= 0 <= r.excess_high), bool(r.excess_low <= 0),
            float(r.excess), float(r.excess_high - r.excess_low)) for r in t.itertuples()]
    for m in t.attrs["membership"]["rows"]:
        out.append(("membership (AUC - 0.5)", "", m["attack"], bool(m["auc_low"] <= 0.5 <= m["auc_high"]),
                    bool(m["auc_low"] <= 0.5), float(m["auc"]) - 0.5, float(m["auc_high"] - m["auc_low"])))
    return out, seconds


def calibration(n_training: int, controls: list[int], simulations: int, seed: int, predicates: int,
                membership: bool, processes: int, done=None) -> tuple[pd.DataFrame, dict]:
    """The coverage table and the seconds per call of each control size; ``done(table, timing)``
    after each control size (the outputs of the sizes finished so far)."""
    table, timing = [], {}
    start = time.perf_counter()
    all_seeds = seeds(seed, controls, simulations)
    pool = mp.get_context("spawn").Pool(processes, initializer=one_thread_per_process) if processes > 1 else None
    try:
        for c, n_control in enumerate(controls):
            jobs = [(int(s), n_training, n_control, predicates, membership) for s in all_seeds[c]]
            results = []
            mapped = pool.imap(one_simulation, jobs, chunksize=1) if pool else map(one_simulation, jobs)
            for i, res in enumerate(mapped):
                results.append(res)
                if (i + 1) % 10 == 0 or i + 1 == simulations:
                    print(f"control {n_control:,}: {i + 1} of {simulations} simulations, "
                          f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
            timing[n_control] = [s for _, s in results]
            stats: dict[tuple, list] = {}
            for rows, _ in results:  # simulation order: the same sums whatever the number of processes
                for criterion, target, attack, covered, low0, excess, width in rows:
                    stats.setdefault((criterion, target, attack), []).append((covered, low0, excess, width))
            for (criterion, target, attack), st in stats.items():
                a = np.array(st, dtype=float)
                cover = coverage_columns(a[:, 0], TARGET)
                verdict = cover.pop(f"coverage >= {TARGET:g} %")
                table.append({"training": n_training, "control": n_control, "criterion": criterion,
                              "secret": target, "attack": attack, "simulations": len(st), **cover,
                              "lower end <= 0 %": f"{100.0 * a[:, 1].mean():.1f}",
                              "mean excess": f"{a[:, 2].mean():+.4g}",
                              "mean interval width": f"{a[:, 3].mean():.4g}",
                              f"coverage >= {TARGET:g} %": verdict})
            if done is not None:
                done(pd.DataFrame(table), timing)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return pd.DataFrame(table), timing


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--training", type=int, default=10_000)
    ap.add_argument("--controls", default=CONTROLS)
    ap.add_argument("--simulations", type=int, default=200)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--predicates", type=int, default=PREDICATES)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--no-membership", action="store_true", help="leave membership inference out")
    ap.add_argument("--out", default=str(HERE / "results" / "synthetic_calibration"))
    ap.add_argument("--no-doc", action="store_true", help="leave docs/benchmarks.md alone")
    a = ap.parse_args(argv)
    try:
        controls = [int(v) for v in a.controls.split(",")]
    except ValueError:
        controls = []
    if not controls or min(controls) < 50 or max(controls) > a.training:
        print(f"bench_synthetic_calibration: --controls: expected whole numbers from 50 to --training "
              f"({a.training}), separated by commas, got {a.controls!r}", file=sys.stderr)
        return 2
    for what, v, lo in (("--training", a.training, 50), ("--simulations", a.simulations, 1),
                        ("--predicates", a.predicates, 1), ("--processes", a.processes, 1)):
        if v < lo:
            print(f"bench_synthetic_calibration: {what}: expected a whole number >= {lo}, got {v}", file=sys.stderr)
            return 2
    t0 = time.perf_counter()

    def write(cal: pd.DataFrame, timing: dict) -> None:
        elapsed = time.perf_counter() - t0
        out = Path(a.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        cal.to_csv(out.with_suffix(".csv"), index=False)
        command = ("python benchmarks/bench_synthetic_calibration.py "
                   + " ".join(sys.argv[1:] if argv is None else argv))
        sizes = list(timing)
        per_call = "; ".join(f"control {n:,}: median {np.median(s):.2f} s, {np.sum(s):.0f} s in all"
                             for n, s in timing.items())
        body = "\n".join([
            f"`assess_synthetic` on releases drawn independently of the training set: {a.simulations} simulations "
            f"per control size, {a.training:,} training and {a.training:,} release records, control sets of "
            f"{', '.join(f'{n:,}' for n in sizes)} records, {a.predicates} multivariate predicates"
            + ("" if a.no_membership else ", membership inference")
            + " (`benchmarks/bench_synthetic_calibration.py`; population and attacks in its docstring). Coverage: "
            "the share of simulations whose 95 % interval of the excess (training targets minus control targets, "
            "Newcombe 1998) contains 0 (target >= 94 %), with Wilson's interval; for membership, the share whose "
            "AUC interval contains 0.5 (mean excess: AUC - 0.5, and width in AUC units; the other rows in "
            "percentage points); lower end <= 0: the share with no risk found.", "",
            cal.to_markdown(index=False), "",
            rows_below(cal, TARGET, lambda r: f"control {r['control']:,}, {r['criterion']}, "
                       f"{r['secret'] + ': ' if r['secret'] else ''}{r['attack']}"), "",
            f"Seconds per `assess_synthetic` call (nice 10, {a.processes} process(es)): {per_call}.", "",
            f"Machine: {machine_text()}, shared with other jobs; {a.processes} process(es); {elapsed:.0f} s in all.",
            "", f"Command: `{command.strip()}`."])
        out.with_suffix(".md").write_text("# Synthetic-release calibration\n\n" + body + "\n")
        if not a.no_doc:
            replace_region(DOC, "synthetic_calibration", body)

    calibration(a.training, controls, a.simulations, a.seed, a.predicates, not a.no_membership, a.processes,
                done=write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
