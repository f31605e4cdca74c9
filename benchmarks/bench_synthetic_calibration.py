"""Calibration of the synthetic-release assessment at 10^4 training records (issue 60, item 4a).

    python benchmarks/bench_synthetic_calibration.py [--training 10000] [--controls 1000,2000,5000,10000]
                                                     [--simulations 200] [--seed 20260602] [--processes 2]
                                                     [--seed-order 1000,10000,2000,5000]
                                                     [--predicates 1000] [--no-membership]
                                                     [--out benchmarks/results/synthetic_calibration]
                                                     [--merge] [--no-doc]

Independent release: per simulation, a training set of ``--training`` records, a release of as many
records and a control set of each size of ``--controls``, all three drawn independently from one
population model (:func:`population`: region, 6 categories of falling frequency; sex; education, 5
categories, skewed; height to 0.1 cm depending on sex; weight to 0.1 kg depending on height and
education; weekly hours to 0.1 h depending on sex and education; the secrets ``job``, 3 equally
likely categories, ``sector``, 3 categories of probability 0.5, 0.3, 0.2, and ``income``,
lognormal, independent of the rest). The release tells nothing about any training
record, so a training record and a control record are exchangeable with respect to it and every
excess (training targets' success rate minus control targets', Newcombe's 1998 interval) is
centred on 0 (:mod:`sdcrisk.assess.synthetic`), whatever the secret's skew.

Each simulation is one call of :func:`sdcrisk.assess.synthetic.assess_synthetic` with the six
known attributes (the four categorical ones as categories), the three secrets, ``--predicates``
multivariate singling-out predicates and membership inference (unless ``--no-membership``); its
seed and its data's generator come from one seed drawn for it by
``numpy.random.default_rng(--seed)``: one row of ``--simulations`` seeds per control size, the rows
drawn in the order of ``--seed-order`` followed by the sizes of ``--controls`` it leaves out (see
:func:`seed_rows`). A control size's simulations are thus the same whichever other sizes run with
it, and the default order is the order in which the sizes were first run, so a full run with the
defaults draws the seeds of the committed results. Per control size and row (linkability; singling out: exact keys,
univariate and multivariate predicates; inference of each secret: nearest record and key cell;
membership: each attack's AUC), the table gives the share of simulations whose 95 % interval
contains 0 (0.5 for an AUC), with Wilson's interval for that share, the share whose lower end is
at or below 0 (no risk found where there is none), the mean excess, the mean interval width and
the number of simulations in which the row existed (a singling-out row exists when some predicate
isolates a release record).

Simulations run in ``--processes`` processes and are gathered in simulation order: the CSV is the
same whatever the number of processes. Writes ``OUT.csv`` (the table), ``OUT.runs.csv`` (per control
size: the settings, the niceness, the seconds per call and the command that measured it), ``OUT.md``
and (unless ``--no-doc``) the ``synthetic_calibration`` region of docs/benchmarks.md. With
``--merge``, the rows of the sizes run replace theirs in the existing ``OUT.csv`` and
``OUT.runs.csv`` and the other sizes' rows are kept; refused (exit 2, before any simulation) when
the existing files were measured with another training size, number of simulations, number of
predicates, membership setting, seed or seed row.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
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
#: the order in which the control sizes were first run: each size's row of seeds (module docstring)
SEED_ORDER = "1000,10000,2000,5000"
COLUMNS = ["training", "control", "criterion", "secret", "attack", "simulations", "coverage of 0 %",
           "Wilson 95 % interval", "lower end <= 0 %", "mean excess", "mean interval width",
           f"coverage >= {TARGET:g} %"]
RUN_COLUMNS = ["control", "training", "simulations", "predicates", "membership", "seed", "seed row", "processes",
               "nice", "median seconds", "total seconds", "command"]
#: the settings a merged table's sizes must share
SAME = ["training", "simulations", "predicates", "membership", "seed"]


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


def seed_rows(controls: list[int], seed_order: list[int]) -> dict[int, int]:
    """Each control size's row of seeds: its place in ``seed_order``, then the sizes of ``controls``
    that ``seed_order`` leaves out, in their order, after it."""
    order = list(dict.fromkeys([*seed_order, *controls]))
    return {n: order.index(n) for n in controls}


def seeds(seed: int, rows: int, simulations: int) -> np.ndarray:
    """``rows`` rows of ``simulations`` seeds, drawn from one generator row after row (a row's
    seeds do not depend on how many rows follow it)."""
    return np.random.default_rng(seed).integers(0, 2**63 - 1, size=(rows, simulations))


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
                membership: bool, processes: int, done=None, seed_order: list[int] | None = None
                ) -> tuple[pd.DataFrame, dict]:
    """The coverage table and the seconds per call of each control size; ``done(table, timing)``
    after each control size (the outputs of the sizes finished so far). Seed rows: :func:`seed_rows`
    (``seed_order`` None: the order of ``controls``)."""
    table, timing = [], {}
    start = time.perf_counter()
    seed_row = seed_rows(controls, controls if seed_order is None else seed_order)
    all_seeds = seeds(seed, max(seed_row.values()) + 1, simulations)
    pool = mp.get_context("spawn").Pool(processes, initializer=one_thread_per_process) if processes > 1 else None
    try:
        for n_control in controls:
            jobs = [(int(s), n_training, n_control, predicates, membership) for s in all_seeds[seed_row[n_control]]]
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


def _sizes(text: str) -> list[int]:
    try:
        return [int(v) for v in text.split(",")]
    except ValueError:
        return []


def _previous(out: Path, run: dict, rows: dict[int, int]) -> tuple[pd.DataFrame, pd.DataFrame] | str:
    """The table and the run records of ``out`` for ``--merge``, or why they cannot be merged with
    this run (one line naming the file and field)."""
    csv_path, runs_path = out.with_suffix(".csv"), out.with_suffix(".runs.csv")
    frames = []
    for path, columns in ((csv_path, COLUMNS), (runs_path, RUN_COLUMNS)):
        if not path.is_file():
            return f"--merge: {path}: no such file (expected the output of an earlier run)"
        try:
            frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            return f"--merge: {path}: not a CSV file ({exc})"
        if list(frame.columns) != columns:
            return f"--merge: {path}: expected the columns {', '.join(columns)}"
        frames.append(frame)
    table, runs = frames
    if not set(table["control"]) <= set(runs["control"]):
        return f"--merge: {runs_path}: control: expected a row for every control size of {csv_path}"
    if set(table["training"]) - {str(run["training"])}:
        return f"--merge: {csv_path}: training: expected {run['training']} (--training) in every row"
    for field in SAME:
        if set(runs[field]) - {str(run[field])}:
            return f"--merge: {runs_path}: {field}: expected {run[field]} (this run's) in every row"
    kept = runs.loc[~runs["control"].isin([str(n) for n in rows])]
    want = seed_rows([int(n) for n in kept["control"]], [*run["seed_order"], *rows])
    for n, r in zip(kept["control"], kept["seed row"]):
        if str(want[int(n)]) != r:
            return (f"--merge: {runs_path}: seed row: expected {want[int(n)]} for control {n} "
                    f"(its place in --seed-order), got {r}")
    return table, runs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--training", type=int, default=10_000)
    ap.add_argument("--controls", default=CONTROLS)
    ap.add_argument("--seed-order", default=SEED_ORDER,
                    help="control sizes in the order their rows of seeds are drawn (module docstring)")
    ap.add_argument("--simulations", type=int, default=200)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--predicates", type=int, default=PREDICATES)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--no-membership", action="store_true", help="leave membership inference out")
    ap.add_argument("--out", default=str(HERE / "results" / "synthetic_calibration"))
    ap.add_argument("--merge", action="store_true",
                    help="keep the other control sizes' rows of OUT.csv and OUT.runs.csv; replace the ones run")
    ap.add_argument("--no-doc", action="store_true", help="leave docs/benchmarks.md alone")
    a = ap.parse_args(argv)
    controls, seed_order = _sizes(a.controls), _sizes(a.seed_order)
    if not controls or len(set(controls)) != len(controls) or min(controls) < 50 or max(controls) > a.training:
        print(f"bench_synthetic_calibration: --controls: expected distinct whole numbers from 50 to --training "
              f"({a.training}), separated by commas, got {a.controls!r}", file=sys.stderr)
        return 2
    if not seed_order or len(set(seed_order)) != len(seed_order) or min(seed_order) < 1:
        print(f"bench_synthetic_calibration: --seed-order: expected distinct whole numbers >= 1, separated by "
              f"commas, got {a.seed_order!r}", file=sys.stderr)
        return 2
    for what, v, lo in (("--training", a.training, 50), ("--simulations", a.simulations, 1),
                        ("--predicates", a.predicates, 1), ("--processes", a.processes, 1)):
        if v < lo:
            print(f"bench_synthetic_calibration: {what}: expected a whole number >= {lo}, got {v}", file=sys.stderr)
            return 2
    out = Path(a.out)
    rows = seed_rows(controls, seed_order)
    run = {"training": a.training, "simulations": a.simulations, "predicates": a.predicates,
           "membership": not a.no_membership, "seed": a.seed, "seed_order": seed_order}
    previous = None
    if a.merge:
        previous = _previous(out, run, rows)
        if isinstance(previous, str):
            print(f"bench_synthetic_calibration: {previous}", file=sys.stderr)
            return 2
    nice = os.nice(0)
    command = ((f"nice -n {nice} " if nice else "") + "python benchmarks/bench_synthetic_calibration.py "
               + " ".join(sys.argv[1:] if argv is None else argv)).strip()
    t0 = time.perf_counter()

    def write(cal: pd.DataFrame, timing: dict) -> None:
        elapsed = time.perf_counter() - t0
        runs = pd.DataFrame([{"control": n, "training": a.training, "simulations": a.simulations,
                              "predicates": a.predicates, "membership": not a.no_membership, "seed": a.seed,
                              "seed row": rows[n], "processes": a.processes, "nice": nice,
                              "median seconds": f"{np.median(s):.2f}", "total seconds": f"{np.sum(s):.0f}",
                              "command": command} for n, s in timing.items()], columns=RUN_COLUMNS)
        cal = cal.reindex(columns=COLUMNS).astype(str)
        runs = runs.astype(str)
        if previous is not None:  # the sizes not run here, from the earlier runs
            old_table, old_runs = previous
            cal = pd.concat([old_table.loc[~old_table["control"].isin(cal["control"])], cal])
            runs = pd.concat([old_runs.loc[~old_runs["control"].isin(runs["control"])], runs])
        # by control size; within a size, the order of assess_synthetic's rows
        cal = cal.sort_values("control", key=lambda c: c.astype(int), kind="stable").reset_index(drop=True)
        runs = runs.sort_values("control", key=lambda c: c.astype(int), kind="stable").reset_index(drop=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        cal.to_csv(out.with_suffix(".csv"), index=False)
        runs.to_csv(out.with_suffix(".runs.csv"), index=False)
        sizes = [int(n) for n in runs["control"]]
        per_call = "; ".join(f"control {int(r['control']):,}: median {r['median seconds']} s, "
                             f"{r['total seconds']} s in all (nice {r['nice']}, {r['processes']} process(es))"
                             for _, r in runs.iterrows())
        commands = "; ".join(f"`{c}` (control {', '.join(f'{int(n):,}' for n in g['control'])})"
                             for c, g in runs.groupby("command", sort=False))
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
            rows_below(cal, TARGET, lambda r: f"control {int(r['control']):,}, {r['criterion']}, "
                       f"{r['secret'] + ': ' if r['secret'] else ''}{r['attack']}"), "",
            f"Seconds per `assess_synthetic` call: {per_call}.", "",
            f"Machine: {machine_text()}, shared with other jobs; the last run: {elapsed:.0f} s.",
            "", f"Commands (seed {a.seed}; seed rows in the order {', '.join(map(str, seed_order))}): {commands}."])
        out.with_suffix(".md").write_text("# Synthetic-release calibration\n\n" + body + "\n")
        if not a.no_doc:
            replace_region(DOC, "synthetic_calibration", body)

    calibration(a.training, controls, a.simulations, a.seed, a.predicates, not a.no_membership, a.processes,
                done=write, seed_order=seed_order)
    return 0


if __name__ == "__main__":
    sys.exit(main())
