"""Calibration of the singling-out and inference criteria at 10^4 records (issue 59, item 4).

    python benchmarks/bench_criteria_calibration.py [--files 200] [--n 10000] [--seed 20260601]
                                                    [--processes 2] [--out benchmarks/results/criteria_calibration]
                                                    [--quick] [--no-doc]

(a) Independent release: ``--files`` pairs of files of ``--n`` records, the original and a
release drawn independently of it from one population model (:func:`population`), so the
release tells nothing about any original record. Every row of
:func:`sdcrisk.criteria.singling_out.singling_out` (exact keys, univariate, multivariate
predicates) and of :func:`sdcrisk.criteria.inference.infer` (each secret; the linked record of a
distance-based linkage, the nearest record, the key cell) is run on every pair; the table gives
per row the share of files whose 95 % interval of the excess risk contains 0, with Wilson's
interval for that share, and whether it reaches 94 %: the excess is the difference (attack minus
baseline, Newcombe's 1998 interval) floored at 0 (:func:`sdcrisk.measures.uncertainty.advantage`),
whose true value is 0 on every row here. Beside it, for the difference itself: the share of
files whose interval contains 0, the share whose lower end is at or below 0 (no risk found
where there is none), and the mean difference; and the mean success rate and baseline.

Population (:func:`population`): four categorical attributes (region, 12 categories of
geometrically falling frequency; sex; education, 5 categories, skewed; occupation, 400
categories of Zipf-like frequency, ``p_k ~ k^-1.5``: rare values at 10^4) and two numeric ones (age, whole years
depending on education; weekly hours to 0.1 h, depending on sex); three secrets independent of
every known attribute: ``job`` (3 equally likely categories: every guess is right with
probability 1/3, so the true excess of every attack over the best constant guess is exactly 0),
``sector`` (3 categories of probability 0.5, 0.3, 0.2) and ``income`` (lognormal). For the
skewed and the numeric secret the release's mode or median is the best guess there is, so an
attack guessing a random release record's value has a true difference *below* 0 (its excess
risk is 0): the difference's two-sided coverage then measures that shortfall, its lower end the
absence of false alarms.

Attacks as called: singling out on all six known attributes (the four categorical ones as
categories), the exact attack with age in 5-year and hours in 5-hour bins, ``--predicates``
conjunctions of 2 to 4 terms, the seed a draw of the file's generator. Inference: the intruder
knows the six attributes; region and sex are blocking keys of the nearest-record attack (education
and occupation enter its mixed distance); the linked record is that of DBRL
(:func:`sdcrisk.linkage.dbrl`) on age and hours; tolerance 5 % for income.

(b) Original released unchanged (one file of ``--n`` records): singling out must single out every
original record unique on the exact attack's (coarsened) keys, and every predicate that isolates a
release record must isolate its original; inference must give away, by the key cell, every secret
whose key cell (the four categorical attributes) holds one value only. The expected sets are
computed here with pandas, not taken from the engine.

Every file's generator is ``numpy.random.default_rng([seed, n, file])`` and the files' results are
gathered in file order: the CSV and the tables are the same whatever ``--processes``.
Writes ``OUT.md``, ``OUT.csv`` and (unless ``--quick`` or ``--no-doc``) the
``criteria_calibration`` region of docs/benchmarks.md.
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

SEED = 20260601
TARGET = 94.0  # per cent of files whose excess interval must contain 0
CATEGORICAL = ["region", "sex", "education", "occupation"]
NUMERIC = ["age", "hours"]
KEYS = CATEGORICAL + NUMERIC
COARSEN = {"age": 5, "hours": 5}
BLOCKING = [True, True, False, False]  # region and sex block the nearest-record search
SECRETS = {"job": True, "sector": True, "income": False}  # name: categorical
PREDICATES = 1000


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` records of the population model (module docstring): categorical attributes as codes."""
    p_region = np.geomspace(1.0, 0.1, 12)
    p_occ = 1.0 / np.arange(1, 401) ** 1.5
    region = rng.choice(12, n, p=p_region / p_region.sum())
    sex = rng.integers(0, 2, n)
    education = rng.choice(5, n, p=[0.15, 0.35, 0.25, 0.17, 0.08])
    occupation = rng.choice(400, n, p=p_occ / p_occ.sum())
    age = np.clip(np.round(rng.normal(38 + 3 * education, 14, n)), 16, 95)
    hours = np.round(rng.normal(np.where(sex == 1, 40.0, 34.0), 8.0, n), 1)
    return pd.DataFrame({"region": region, "sex": sex, "education": education, "occupation": occupation,
                         "age": age, "hours": hours,
                         "job": rng.integers(0, 3, n), "sector": rng.choice(3, n, p=[0.5, 0.3, 0.2]),
                         "income": np.round(np.exp(rng.normal(10.0, 0.6, n)), 2)})


def _inference(o: pd.DataFrame, r: pd.DataFrame, links: dict):
    from sdcrisk.criteria.inference import infer

    out = {}
    for secret, categorical in SECRETS.items():
        out[secret] = infer(secret, o[secret].to_numpy(), r[secret].to_numpy(), categorical=categorical,
                            xn=o[NUMERIC].to_numpy(float), yn=r[NUMERIC].to_numpy(float),
                            xc=o[CATEGORICAL].to_numpy(), yc=r[CATEGORICAL].to_numpy(), blocking=BLOCKING,
                            ncat=[12, 2, 5, 400], links=links)
    return out


def _singling_out(o: pd.DataFrame, r: pd.DataFrame, predicates: int, seed):
    from sdcrisk.criteria.singling_out import singling_out

    return singling_out(o[KEYS], r[KEYS], KEYS, categorical=CATEGORICAL, coarsen=COARSEN, predicates=predicates,
                        seed=seed)


def one_file(job: tuple[int, int, int, int]) -> list[tuple]:
    """One independent pair: per criterion row ``(criterion, secret, attack, trials, rate %, baseline
    %, excess, low, high, difference, low, high)``."""
    from sdcrisk.linkage import dbrl

    seed, n, i, predicates = job
    rng = np.random.default_rng([seed, n, i])
    o, r = population(n, rng), population(n, rng)
    rows, _ = _singling_out(o, r, predicates, rng)
    out = []
    for row in rows:
        out.append((row.criterion, "", row.attack, row.trials, row.percent, row.baseline_percent, *row.excess,
                    *row.difference))
    links = {"DBRL": dbrl(o[NUMERIC].to_numpy(float), r[NUMERIC].to_numpy(float)).links}
    for secret, res in _inference(o, r, links).items():
        for row in res.rows:
            out.append((row.criterion, secret, row.attack, row.trials, row.percent, row.baseline_percent,
                        *row.excess, *row.difference))
    return out


_START = time.perf_counter()


def _progress(i: int, files: int, res):
    """Passes ``res`` through, saying on stderr every tenth file done (the outputs carry no progress)."""
    if (i + 1) % 10 == 0 or i + 1 == files:
        print(f"{i + 1} of {files} files, {time.perf_counter() - _START:.0f} s", file=sys.stderr, flush=True)
    return res


def calibration(files: int, n: int, seed: int, predicates: int, processes: int) -> pd.DataFrame:
    """Table (a): per criterion row the coverage of 0 over the independent files."""
    jobs = [(seed, n, i, predicates) for i in range(files)]
    if processes > 1:
        with mp.get_context("spawn").Pool(processes, initializer=one_thread_per_process) as pool:
            results = [_progress(i, files, res) for i, res in enumerate(pool.imap(one_file, jobs, chunksize=1))]
    else:
        results = [_progress(i, files, one_file(j)) for i, j in enumerate(jobs)]
    stats: dict[tuple, list] = {}
    for res in results:  # file order: the same sums whatever the number of processes
        for criterion, secret, attack, trials, rate, base, _excess, low, high, diff, d_low, d_high in res:
            stats.setdefault((criterion, secret, attack), []).append((low <= 0 <= high, d_low <= 0 <= d_high,
                                                                      d_low <= 0, rate, base, diff, trials))
    table = []
    for (criterion, secret, attack), st in stats.items():
        a = np.array(st, dtype=float)
        cover = coverage_columns(a[:, 0], TARGET)
        verdict = cover.pop(f"coverage >= {TARGET:g} %")
        table.append({"criterion": criterion, "secret": secret, "attack": attack, "files": len(st), **cover,
                      "difference: covers 0 %": f"{100.0 * a[:, 1].mean():.1f}",
                      "difference: lower end <= 0 %": f"{100.0 * a[:, 2].mean():.1f}",
                      "mean rate %": f"{a[:, 3].mean():.2f}", "mean baseline %": f"{a[:, 4].mean():.2f}",
                      "mean difference pp": f"{a[:, 5].mean():+.2f}", "mean trials": f"{a[:, 6].mean():.0f}",
                      f"coverage >= {TARGET:g} %": verdict})
    return pd.DataFrame(table)


def unchanged(n: int, seed: int, predicates: int) -> pd.DataFrame:
    """Table (b): the original released as is; the sets the attacks must find, computed with pandas."""
    from sdcrisk.criteria.inference import KEY_CELL
    from sdcrisk.criteria.singling_out import EXACT

    rng = np.random.default_rng([seed, n, 10**6])
    o = population(n, rng)
    rows, evidence = _singling_out(o, o.copy(), predicates, rng)
    keyframe = pd.DataFrame({k: (np.floor(o[k] / COARSEN[k]) if k in COARSEN else o[k]) for k in KEYS})
    uniques = np.flatnonzero(~keyframe.duplicated(keep=False).to_numpy())
    table = []
    for row in rows:
        if row.attack == EXACT:
            found = np.sort(evidence.loc[evidence["attack"] == EXACT, "record"].to_numpy())
            ok = row.successes == row.trials == uniques.size and np.array_equal(found, uniques)
            what = "records unique on the coarsened keys, all singled out"
            table.append({"check": "singling out", "secret": "", "attack": row.attack, "must find": uniques.size,
                          "found": int(row.successes), "trials": row.trials, "what": what,
                          "result": "pass" if ok else "FAIL"})
        else:
            ok = row.successes == row.trials
            what = "predicates isolating a release record, each isolating its original"
            table.append({"check": "singling out", "secret": "", "attack": row.attack, "must find": row.trials,
                          "found": int(row.successes), "trials": row.trials, "what": what,
                          "result": "pass" if ok else "FAIL"})
    cell = o[CATEGORICAL].astype(str).agg("|".join, axis=1)
    links = {"DBRL": np.arange(n)}
    for secret, res in _inference(o, o.copy(), links).items():
        distinct = o.groupby(cell)[secret].transform("nunique").to_numpy()
        pure = distinct == 1
        got = res.credit[KEY_CELL][pure]
        table.append({"check": "inference", "secret": secret, "attack": KEY_CELL, "must find": int(pure.sum()),
                      "found": int((got == 1.0).sum()), "trials": n,
                      "what": "records in a key cell of one secret value, each inferred",
                      "result": "pass" if bool(np.all(got == 1.0)) else "FAIL"})
    return pd.DataFrame(table)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--predicates", type=int, default=PREDICATES)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--out", default=str(HERE / "results" / "criteria_calibration"))
    ap.add_argument("--quick", action="store_true", help="20 files of 1,000 records, 200 predicates; docs untouched")
    ap.add_argument("--no-doc", action="store_true", help="leave docs/benchmarks.md alone")
    a = ap.parse_args(argv)
    if a.quick:
        a.files, a.n, a.predicates = min(a.files, 20), min(a.n, 1000), min(a.predicates, 200)
    for what, v, lo in (("--files", a.files, 1), ("--n", a.n, 50), ("--predicates", a.predicates, 1),
                        ("--processes", a.processes, 1)):
        if v < lo:
            print(f"bench_criteria_calibration: {what}: expected a whole number >= {lo}, got {v}", file=sys.stderr)
            return 2
    t0 = time.perf_counter()
    cal = calibration(a.files, a.n, a.seed, a.predicates, a.processes)
    same = unchanged(a.n, a.seed, a.predicates)
    elapsed = time.perf_counter() - t0
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    both = pd.concat([cal.astype(object).assign(table="independent release"),
                      same.astype(object).assign(table="original released unchanged")], ignore_index=True)
    both = both[["table"] + [c for c in both.columns if c != "table"]].astype(object).fillna("")
    both.to_csv(out.with_suffix(".csv"), index=False)
    command = "python benchmarks/bench_criteria_calibration.py " + " ".join(sys.argv[1:] if argv is None else argv)
    body = "\n".join([
        f"Singling out and inference on releases drawn independently of the originals: {a.files} files of "
        f"{a.n:,} records, {a.predicates} multivariate predicates "
        "(`benchmarks/bench_criteria_calibration.py`; population and attacks in its docstring). "
        "Coverage: the share of files whose 95 % interval of the excess risk contains 0 (target "
        f">= {TARGET:g} %), with Wilson's interval. The excess risk is the difference (attack minus "
        "baseline, Newcombe's interval) floored at 0: an intruder holding the baseline loses nothing "
        "to an attack worse than it. The difference's own columns beside it: the share of files whose "
        "interval contains 0, and whose lower end is <= 0 (no risk found). `job` is uniform (true "
        "difference 0); `sector` (skewed) and `income` (numeric) have the best constant guess as "
        "baseline, which a guess copied from a release record does worse than (true difference below "
        "0, true excess risk 0).", "",
        cal.to_markdown(index=False), "",
        rows_below(cal, TARGET, lambda r: f"{r['secret'] + ': ' if r['secret'] else ''}{r['attack']}"), "",
        f"Original released unchanged ({a.n:,} records; the sets to find computed with pandas):", "",
        same.to_markdown(index=False), "",
        f"Machine: {machine_text()}, shared with other jobs; {a.processes} process(es); {elapsed:.0f} s in all.", "",
        f"Command: `{command.strip()}`."])
    out.with_suffix(".md").write_text("# Singling-out and inference calibration\n\n" + body + "\n")
    if not (a.quick or a.no_doc):
        replace_region(DOC, "criteria_calibration", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
