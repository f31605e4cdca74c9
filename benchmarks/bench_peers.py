"""sdcrisk's singling-out, inference, linkage and membership attacks beside anonymeter 1.x and
SDMetrics' DCR protection, on the same files in the same run.

    bash benchmarks/peers/setup_peers.sh /work/peers-venv        # once: the peers' own environment
    python benchmarks/bench_peers.py [--sizes 10000,100000] [--peers-python /work/peers-venv/bin/python]
                                     [--n-attacks 500] [--timeout 2400] [--out benchmarks/results/peers]
                                     [--singling-out-only] [--releases noise,independent,synthetic]

Files, per size ``n`` (seeded, written as CSV under ``--work``, never committed):

* ``original``: ``n`` records of a mixed population (:func:`population`): four categorical
  attributes (region of 12 skewed levels, sex, education of 5 levels, marital status of 4 that
  depends on age) and three numeric ones (age, weekly hours that depend on sex, income lognormal
  with a mean that depends on education and age, 2 decimals);
* ``control``: ``n / 5`` more records of the same population, never used to make a release
  (anonymeter's and SDMetrics' control / validation set, sdcrisk's membership controls);
* ``independent``: ``n`` records drawn from the population independently of the original: the
  release from which there is nothing to learn about the originals;
* ``noise``: the original, each numeric value plus normal noise of 10 % of its column's standard
  deviation (age and hours rounded), categorical values unchanged, rows shuffled (ids kept);
* ``synthetic``: ``n`` records sampled from SDV's GaussianCopulaSynthesizer fitted to the original
  (SDV's defaults; a generator of a real library, run in the peers' environment).

Attacks on each release (original = targets, control = control):

* anonymeter (its own definitions, its control correction, ``--n-attacks`` sampled targets or
  queries; the default 500 is its own): SinglingOutEvaluator univariate and multivariate (3
  columns), LinkabilityEvaluator (auxiliary columns split in two halves, 1 neighbour),
  InferenceEvaluator (secret income, then education; every other column known). Each evaluator
  in its own subprocess (benchmarks/peers/peers_driver.py) with a time-out; a crash is recorded
  with its message. At the smallest size, on the independent release, the inference evaluators
  also run (at most 10^4 originals) with every original as a target (``n_attacks = n``) and linkability with as many
  targets as the control set holds (anonymeter draws as many control targets, without
  replacement): their per-target cost at full coverage.
* sdcrisk, what a custodian runs. On the independent and the synthetic release, neither of whose
  records corresponds to an original, ``sdcrisk assess ORIGINAL RELEASE --control CONTROL --id
  rid`` (:func:`sdcrisk.assess.synthetic.assess_synthetic` with its defaults, in process; the
  release's ``rid``, row numbers of the generator, dropped): every attack on every training
  record and on every control record, the training rate, the control rate and the excess with
  Newcombe's interval: linkability ``nearest record, split known attributes`` (anonymeter's
  definition, on the same two halves as anonymeter's auxiliary columns), singling out (exact, rare
  values and extremes, 1,000 conjunctions of 2 to 4 attributes; the training set in chunks of the
  control's size), inference (secret income, then education, every other column known; one call
  per secret, its rows' seconds), membership inference (members the training records, controls
  the control records; the command's numeric attributes). On the noise release, whose records
  correspond one to one with the original's: :func:`sdcrisk.criteria.singling_out.singling_out`
  (exact, univariate and ``--n-attacks`` three-attribute conjunctions, against its baseline of
  planted originals), :func:`sdcrisk.criteria.inference.infer` on the originals and on the
  control records (excess over the control's rate, Newcombe's interval, beside the excess over
  the constant baseline), :func:`sdcrisk.criteria.membership.membership_inference` (numeric
  columns plus one indicator per category), linkability of anonymeter's definition
  (:func:`sdcrisk_split_linkability`: the linkability row of ``assess_synthetic``, every original and
  every control record a target; the per-target ratio's sdcrisk side) and, beside it, the linkage
  attacks of ``sdcrisk assess --id rid`` (8 attacks, the whole command in a subprocess, each
  attack's own seconds from its report).
* SDMetrics' DCROverfittingProtection (training = original, validation = control): a diagnostic,
  not a risk measure. Its brute-force pandas cross join runs on ``--dcr-subsample`` records of each
  file (its own ``num_rows_subsample`` option, one iteration) when the originals are more.

``--singling-out-only``: anonymeter's two singling-out evaluators and sdcrisk's singling out alone
(benchmarks/results/peers_singling_out.md: ``--out benchmarks/results/peers_singling_out --no-doc``).
Times are wall-clock seconds; beside them, in parentheses, the CPU seconds: sdcrisk's process time
during its call, anonymeter's whole child process (reading the files and importing included).

Per-target time ratio: anonymeter's seconds per target it attacks (its targets plus its control
targets; for singling out, its queries) over sdcrisk's seconds per target, every record it attacks:
all originals plus all control records (inference, linkability); for singling out, every release
record it examines for an isolating predicate (the release's size, each record counted once
although the training chunks and the control set are each checked against it, as anonymeter's
queries are counted once although each is checked on the originals and on the control). The last
column divides sdcrisk's singling-out seconds by the predicates it tried instead (its trials on the
originals plus its baseline's, or with ``--control`` its trials on the training chunks plus on the
control), a count that depends on the data and moves with the number of predicates found rather
than with the work done. Which clock each criterion's seconds come from, and what no criterion is
charged: :data:`READING`.

Writes ``OUT.md``, ``OUT.csv`` and the ``peers`` region of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))
from common import machine_text  # noqa: E402

SEED = 1060
CATEGORICAL = ["region", "sex", "education", "marital"]
NUMERIC = ["age", "hours", "income"]
COLUMNS = ["region", "sex", "age", "education", "marital", "hours", "income"]
SECRETS = ["income", "education"]
LINK_AUX = (["region", "sex", "age", "education"], ["marital", "hours", "income"])
EVALUATORS = ["singling_out_univariate", "singling_out_multivariate", "linkability", "inference:income",
              "inference:education"]
RELEASES = ["independent", "synthetic", "noise"]
DRIVER = HERE / "peers" / "peers_driver.py"
RATIO_ASKED = 50  # issue 59: sdcrisk at least 50 times faster per target than anonymeter


# ----------------------------------------------------------------------------- files
def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` records of the mixed population of the module docstring (categoricals as text)."""
    p_region = np.geomspace(1.0, 0.1, 12)
    region = rng.choice(12, n, p=p_region / p_region.sum())
    sex = rng.integers(0, 2, n)
    education = rng.choice(5, n, p=[0.15, 0.35, 0.25, 0.17, 0.08])
    age = np.clip(np.round(rng.normal(45, 15, n)), 18, 90)
    p_married = 1 / (1 + np.exp(-(age - 35) / 8))
    u = rng.random(n)
    marital = np.where(u < 0.8 * (1 - p_married), 0, np.where(u < 0.8 * (1 - p_married) + 0.7 * p_married, 1,
                                                               rng.integers(2, 4, n)))
    hours = np.clip(np.round(rng.normal(np.where(sex == 1, 40, 34), 8)), 0, 80)
    income = np.round(np.exp(rng.normal(9.6 + 0.25 * education + 0.01 * (age - 45), 0.5)), 2)
    return pd.DataFrame({"region": [f"r{v:02d}" for v in region], "sex": np.where(sex == 1, "m", "f"),
                         "age": age.astype(int), "education": [f"e{v}" for v in education],
                         "marital": [f"m{v}" for v in marital], "hours": hours.astype(int), "income": income})


def noisy(original: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    out = original.copy()
    for col in NUMERIC:
        x = original[col].to_numpy(dtype=float)
        y = x + rng.normal(0.0, 0.1 * x.std(), x.size)
        out[col] = np.round(y, 2) if col == "income" else np.round(y).astype(int)
    return out.iloc[rng.permutation(len(out))].reset_index(drop=True)


def with_id(frame: pd.DataFrame, start: int = 1) -> pd.DataFrame:
    out = frame.copy()
    out.insert(0, "rid", np.arange(start, start + len(out)))
    return out


def peer(python: str, job: dict, timeout: float, work: Path) -> dict:
    """One peer measurement in the peers' environment (peers_driver.py); a time-out or a crash of
    the interpreter is a recorded result."""
    for old in sorted(work.glob("tmp*.json")):  # a finished measurement of the same job in --work: reused
        done = Path(str(old) + ".out")
        if done.exists():
            earlier = json.loads(old.read_text())
            earlier.pop("out", None)
            if earlier == job:
                return {**json.loads(done.read_text()), "reused": True}
    fd, path = tempfile.mkstemp(suffix=".json", dir=work)
    os.close(fd)
    job = {**job, "out": path + ".out"}
    Path(path).write_text(json.dumps(job))
    t0 = time.perf_counter()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0 = used.ru_utime + used.ru_stime
    try:
        proc = subprocess.run([python, str(DRIVER), path], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        out = {"status": "timeout", "wall_s": time.perf_counter() - t0, "error": f"no result within {timeout:g} s"}
        Path(job["out"]).write_text(json.dumps(out))
        return out
    if proc.returncode != 0 or not Path(job["out"]).exists():
        last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        out = {"status": "error", "wall_s": time.perf_counter() - t0, "error": last[:300]}
        Path(job["out"]).write_text(json.dumps(out))
        return out
    out = json.loads(Path(job["out"]).read_text())
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    out["process_cpu_s"] = used.ru_utime + used.ru_stime - cpu0  # the whole child: reading, importing, evaluating
    Path(job["out"]).write_text(json.dumps(out))
    return out


def make_files(n: int, work: Path, python: str, timeout: float) -> dict:
    rng = np.random.default_rng([SEED, n])
    original = population(n, rng)
    files = {"original": with_id(original), "control": with_id(population(n // 5, rng), start=n + 1),
             "independent": with_id(population(n, rng), start=2 * n + 1)}
    files["noise"] = noisy(files["original"], rng)
    paths = {}
    for name, frame in files.items():
        paths[name] = work / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    paths["synthetic"] = work / "synthetic.csv"
    info = peer(python, {"task": "synthesize", "train": str(paths["original"]), "rows": n, "seed": SEED,
                         "categorical": CATEGORICAL, "out_csv": str(paths["synthetic"])}, timeout, work)
    if info.get("status") in ("error", "timeout"):
        raise SystemExit(f"bench_peers: the synthetic generator failed: {info['error']}")
    return {"paths": paths, "generator": info}


# ----------------------------------------------------------------------------- sdcrisk's side
def codes(frames: list[pd.DataFrame], col: str) -> list[np.ndarray]:
    cats = pd.Index(sorted(set().union(*(set(f[col].astype(str)) for f in frames))))
    return [cats.get_indexer(f[col].astype(str)) for f in frames]


def sdcrisk_inference(original, control, release, secret: str) -> dict:
    from sdcrisk.criteria.inference import infer
    from sdcrisk.measures.uncertainty import newcombe_difference

    known = [c for c in COLUMNS if c != secret]
    kc = [c for c in known if c in CATEGORICAL]
    kn = [c for c in known if c in NUMERIC]
    categorical = secret in CATEGORICAL
    out = {}
    runs = {}
    w = original.iloc[:200]
    infer(secret, *(codes([w, w], secret) if categorical else (w[secret].to_numpy(float),) * 2),
          categorical=categorical, xn=w[kn].to_numpy(float), yn=w[kn].to_numpy(float))  # numba compilation, not timed
    t0 = time.perf_counter()
    for label, targets in (("original", original), ("control", control)):
        cc = [codes([targets, release], c) for c in kc]
        xc = np.column_stack([a for a, _ in cc]) if cc else None
        yc = np.column_stack([b for _, b in cc]) if cc else None
        if categorical:
            sx, sy = codes([targets, release], secret)
        else:
            sx, sy = targets[secret].to_numpy(float), release[secret].to_numpy(float)
        runs[label] = infer(secret, sx, sy, categorical=categorical, xn=targets[kn].to_numpy(float),
                            yn=release[kn].to_numpy(float), xc=xc, yc=yc)
    out["wall_s"] = time.perf_counter() - t0
    out["targets"] = out["targets_new"] = out["targets_old"] = len(original) + len(control)
    rows = []
    for row, crow in zip(runs["original"].rows, runs["control"].rows):
        ex, lo, hi = row.excess
        cx, clo, chi = newcombe_difference(row.successes, row.trials, crow.successes, crow.trials)
        rows.append({"attack": row.attack, "rate": row.percent, "baseline": row.baseline_percent, "excess": ex,
                     "excess_low": lo, "excess_high": hi, "control_rate": crow.percent, "vs_control": cx,
                     "vs_control_low": clo, "vs_control_high": chi, "trials": row.trials})
    out["rows"] = rows
    return out


def sdcrisk_singling_out(original, release, predicates: int) -> dict:
    from sdcrisk.criteria.singling_out import singling_out

    t0, c0 = time.perf_counter(), time.process_time()
    rows, _ = singling_out(original[COLUMNS], release[COLUMNS], COLUMNS, predicates=predicates, min_terms=3,
                           max_terms=3, seed=SEED)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()  # the exact and univariate attacks alone (max_terms=1): anonymeter's univariate mode
    singling_out(original[COLUMNS], release[COLUMNS], COLUMNS, predicates=predicates, max_terms=1, seed=SEED)
    univariate = time.perf_counter() - t0
    out = []
    for r in rows:
        ex, lo, hi = r.excess
        out.append({"attack": r.attack, "rate": r.percent, "low": r.interval[0], "high": r.interval[1],
                    "baseline": r.baseline_percent, "excess": ex, "excess_low": lo, "excess_high": hi,
                    "trials": r.trials, "baseline_trials": r.baseline_trials})
    trials = sum(r.trials + r.baseline_trials for r in rows)
    return {"kind": "baseline", "wall_s": wall, "cpu_s": cpu, "univariate_wall_s": univariate, "rows": out,
            "trials": trials,
            "targets_new": len(release), "targets_old": trials,
            "note": next((r.note for r in rows if r.attack == "multivariate predicates"), "")}


def sdcrisk_synthetic(original, control, release) -> dict:
    """What a custodian runs on a release with no record correspondence: ``sdcrisk assess ORIGINAL
    RELEASE --control CONTROL --id rid`` (:func:`sdcrisk.assess.synthetic.assess_synthetic`, its
    defaults): every attack on every training record and on every control record, the excess of the
    training rate over the control rate with Newcombe's interval. One call with every column known
    (linkability on the halves region, sex, age, education | marital, hours, income, which are
    anonymeter's auxiliary columns here; singling out; membership), then one call per secret with
    every other column known (inference only; its rows' own seconds are reported). Returns one entry
    per criterion of :data:`SDC_FOR` with the call's seconds for that criterion and the two per-target
    denominators of the module docstring."""
    from sdcrisk.assess.synthetic import LINK_ATTACK, assess_synthetic, encode

    rel = release.drop(columns=["rid"])  # the generator's row numbers, not ids of anyone
    kw = {"id": "rid", "categorical": CATEGORICAL, "seed": SEED}
    w = [f.iloc[:300] for f in (original, rel, control)]
    assess_synthetic(*w, secret=SECRETS, **kw)  # numba compilation, not timed
    stamps = []
    t0, c0 = time.perf_counter(), time.process_time()
    table = assess_synthetic(original, rel, control, known=COLUMNS, progress=lambda m: stamps.append(
        (time.perf_counter(), m)), **kw)
    end, cpu = time.perf_counter(), time.process_time() - c0
    nt, nc = len(original), len(control)

    def rows(frame):
        return [{"attack": r.attack, "target": r.target, "rate": r.training_percent, "control_rate": r.control_percent,
                 "excess": r.excess, "excess_low": r.excess_low, "excess_high": r.excess_high,
                 "n_training": int(r.n_training), "n_control": int(r.n_control), "note": r.note}
                for r in frame.itertuples()]

    out = {"assess_call": {"wall_s": end - t0, "cpu_s": cpu}}
    link = table[table.attack == LINK_ATTACK]
    out["linkage"] = {"kind": "control", "wall_s": float(link.seconds.sum()), "rows": rows(link),
                      "targets_new": nt + nc, "targets_old": nt + nc}
    so = table[table.criterion == "singling out"]
    out["singling_out"] = {"kind": "control", "wall_s": float(so.seconds.sum()), "rows": rows(so),
                           "univariate_wall_s": univariate_seconds(original, control, rel),
                           "targets_new": len(rel), "targets_old": int((so.n_training + so.n_control).sum())}
    t_member = next((t for t, m in stamps if m.startswith("membership")), end)
    member = table.attrs["membership"]
    out["membership"] = {"wall_s": end - t_member, "targets": nt + nc, "note": member.get("note", ""),
                         "rows": [{k: r[k] for k in ("attack", "auc", "auc_low", "auc_high", "tpr_1pct", "tpr_01pct")}
                                  for r in member["rows"]]}
    for secret in SECRETS:
        known = [c for c in COLUMNS if c != secret]
        t0 = time.perf_counter()  # the call's standardisation of the known attributes, before its rows' clocks
        encode([original, control, rel], known, CATEGORICAL, nt + nc)
        standardise = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), time.process_time()
        t = assess_synthetic(original, rel, control, secret=secret, singling_out=False, membership=False, **kw)
        call_wall, call_cpu = time.perf_counter() - t0, time.process_time() - c0
        inf = t[t.criterion == "inference"]
        out[f"inference:{secret}"] = {"kind": "control", "wall_s": float(inf.seconds.sum()) + standardise,
                                      "rows_s": float(inf.seconds.sum()), "standardise_s": standardise,
                                      "rows": rows(inf), "call_wall_s": call_wall, "call_cpu_s": call_cpu,
                                      "targets_new": nt + nc, "targets_old": nt + nc}
    return out


def univariate_seconds(original, control, release) -> float:
    """Wall seconds of the exact and univariate singling-out attacks alone (``max_terms=1``) on the
    chunks ``assess_synthetic`` draws (the same seed, so the same chunks; every chunk of the training
    set and the control set against the release): sdcrisk's side of anonymeter's univariate mode,
    which the whole singling-out step (multivariate conjunctions included) would overstate."""
    from sdcrisk.assess.synthetic import _chunks
    from sdcrisk.criteria.singling_out import singling_out

    rng = np.random.Generator(np.random.PCG64(SEED))
    size = min(len(original), len(control))
    t0 = time.perf_counter()
    for frame in (original, control):
        for part in _chunks(len(frame), size, rng):
            singling_out(frame.iloc[part][COLUMNS].reset_index(drop=True), release[COLUMNS], COLUMNS,
                         categorical=CATEGORICAL, seed=SEED, max_terms=1)
    return time.perf_counter() - t0


def sdcrisk_split_linkability(original, control, release) -> dict:
    """anonymeter's linkability definition on a release of any kind: every original and every
    control record a target, its two halves of the known attributes (:data:`LINK_AUX`, anonymeter's
    auxiliary columns) each matched to the nearest release record, success when both lead to the
    same record; the call :func:`sdcrisk.assess.synthetic.assess_synthetic` makes for its
    linkability row (singling out, inference and membership left out), so that anonymeter's
    single attack is compared with one attack of the same definition. Its seconds: the row's own
    (both halves' standardisation and nearest-record searches, training and control targets)."""
    from sdcrisk.assess.synthetic import LINK_ATTACK, assess_synthetic

    rel = release.drop(columns=["rid"])
    kw = {"id": "rid", "categorical": CATEGORICAL, "seed": SEED, "known": COLUMNS, "singling_out": False,
          "membership": False}
    assess_synthetic(*(f.iloc[:300] for f in (original, rel, control)), **kw)  # warm-up, not timed
    t0, c0 = time.perf_counter(), time.process_time()
    table = assess_synthetic(original, rel, control, **kw)
    call_wall, call_cpu = time.perf_counter() - t0, time.process_time() - c0
    link = table[table.attack == LINK_ATTACK]
    return {"kind": "control", "wall_s": float(link.seconds.sum()), "call_wall_s": call_wall, "call_cpu_s": call_cpu,
            "rows": [{"attack": r.attack, "target": r.target, "rate": r.training_percent,
                      "control_rate": r.control_percent, "excess": r.excess, "excess_low": r.excess_low,
                      "excess_high": r.excess_high, "n_training": int(r.n_training), "n_control": int(r.n_control),
                      "note": r.note} for r in link.itertuples()],
            "targets_new": len(original) + len(control), "targets_old": len(original) + len(control)}


def mixed_numeric(frames: list[pd.DataFrame]) -> list[np.ndarray]:
    parts = [[f[NUMERIC].to_numpy(float)] for f in frames]
    for col in CATEGORICAL:
        cs = codes(frames, col)
        k = max(int(c.max()) for c in cs) + 1
        for p, c in zip(parts, cs):
            p.append(np.eye(k)[c])
    return [np.hstack(p) for p in parts]


def sdcrisk_membership(original, control, release) -> dict:
    from sdcrisk.criteria.membership import membership_inference

    m, c, r = mixed_numeric([original, control, release])
    small = [a[:300] for a in (m, c, r)]
    membership_inference(*small, bootstrap=10)  # numba compilation, not timed
    t0 = time.perf_counter()
    res = membership_inference(m, c, r, bootstrap=1000, seed=SEED)
    wall = time.perf_counter() - t0
    rows = [{"attack": x.attack, "auc": x.auc, "auc_low": x.auc_low, "auc_high": x.auc_high,
             "tpr_1pct": x.tpr_1pct, "tpr_01pct": x.tpr_01pct} for x in res.rows]
    return {"wall_s": wall, "targets": len(m) + len(c), "rows": rows}


def sdcrisk_linkage(paths: dict, work: Path, timeout: float) -> dict:
    out = work / "assess-noise"
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "sdcrisk.cli", "assess", str(paths["original"]), str(paths["noise"]),
                               "--id", "rid", "--known", ",".join(COLUMNS), "--out", str(out), "--quiet"],
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "wall_s": time.perf_counter() - t0, "error": f"no result within {timeout:g} s"}
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1) or not (out / "report.json").exists():
        return {"status": "error", "wall_s": wall, "error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    report = json.loads((out / "report.json").read_text())
    rows = [{"attack": r["measure"], "rate": r["percent"], "low": r["low"], "high": r["high"],
             "baseline": r.get("baseline"), "seconds": r.get("seconds")}
            for r in report["results"] if r.get("kind") == "disclosure risk" and r.get("percent") is not None]
    attacks_s = sum(r["seconds"] or 0.0 for r in rows)
    n = len(pd.read_csv(paths["original"], usecols=["rid"]))
    return {"status": "ok", "kind": "one-to-one", "wall_s": wall, "attacks_s": attacks_s, "rows": rows,
            "targets_new": n, "targets_old": n}


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for pkg in ("numpy", "pandas", "scipy", "numba"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "absent"
    return out


def _peer_versions(python: str) -> dict:
    code = ("import json;from importlib.metadata import version as v;"
            "print(json.dumps({p: v(p) for p in ['anonymeter','sdmetrics','sdv','pandas','polars','numpy']}))")
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True)
    return json.loads(proc.stdout) if proc.returncode == 0 else {"error": proc.stderr[-200:]}


# ----------------------------------------------------------------------------- run one size
def run_size(n: int, args, work: Path, save=None) -> dict:
    work.mkdir(parents=True, exist_ok=True)
    print(f"[n={n}] files", flush=True)
    made = make_files(n, work, args.peers_python, args.timeout)
    paths = made["paths"]
    frames = {k: pd.read_csv(p) for k, p in paths.items()}
    result = {"n": n, "control": len(frames["control"]), "generator": made["generator"], "releases": {}}

    def dcr(n: int, rel: str) -> dict:
        sub = None if n <= args.dcr_subsample else min(args.dcr_subsample, len(frames["control"]))
        out = peer(args.peers_python, {"task": "sdmetrics_dcr", "ori": str(paths["original"]), "syn": str(paths[rel]),
                                       "control": str(paths["control"]), "categorical": CATEGORICAL,
                                       "subsample": sub}, args.timeout, work)
        print(f"  sdcrisk done; sdmetrics {out.get('wall_s', 0):.1f} s ({out.get('status')})", flush=True)
        return out

    for rel in args.releases:
        print(f"[n={n}] {rel}", flush=True)
        entry = {"anonymeter": {}, "sdcrisk": {}}
        release = frames[rel]
        for ev in EVALUATORS:
            if args.singling_out_only and not ev.startswith("singling_out"):
                continue
            name, _, secret = ev.partition(":")
            job = {"task": "anonymeter", "evaluator": name, "ori": str(paths["original"]), "syn": str(paths[rel]),
                   "control": str(paths["control"]), "n_attacks": args.n_attacks, "seed": SEED, "n_cols": 3,
                   "aux_cols": list(LINK_AUX), "secret": secret,
                   "regression": secret in NUMERIC}
            entry["anonymeter"][ev] = peer(args.peers_python, job, args.timeout, work)
            if n == min(args.sizes) and n <= 10_000 and rel == "independent" and name in ("inference", "linkability"):
                # anonymeter draws as many control targets as targets, without replacement: linkability
                # can take at most the control's size
                full = n if name == "inference" else len(frames["control"])
                entry["anonymeter"][ev + " (all targets)"] = peer(args.peers_python, {**job, "n_attacks": full},
                                                                  args.timeout, work)
            print(f"  anonymeter {ev}: {entry['anonymeter'][ev].get('status')} "
                  f"{entry['anonymeter'][ev].get('wall_s', 0):.1f} s", flush=True)
        original, control = frames["original"], frames["control"]
        if rel != "noise" and not args.singling_out_only:
            entry["sdcrisk"] = sdcrisk_synthetic(original, control, release)
            entry["sdmetrics_dcr"] = dcr(n, rel)
            result["releases"][rel] = entry
            if save:
                save(result)
            continue
        try:
            entry["sdcrisk"]["singling_out"] = sdcrisk_singling_out(original, release, args.n_attacks)
        except ImportError as exc:
            entry["sdcrisk"]["singling_out"] = {"status": "missing", "error": str(exc)}
        if args.singling_out_only:
            result["releases"][rel] = entry
            continue
        for secret in SECRETS:
            try:
                entry["sdcrisk"][f"inference:{secret}"] = sdcrisk_inference(original, control, release, secret)
            except ImportError as exc:
                entry["sdcrisk"][f"inference:{secret}"] = {"status": "missing", "error": str(exc)}
        try:
            entry["sdcrisk"]["membership"] = sdcrisk_membership(original, control, release)
        except ImportError as exc:
            entry["sdcrisk"]["membership"] = {"status": "missing", "error": str(exc)}
        if rel == "noise":
            entry["sdcrisk"]["linkage"] = sdcrisk_split_linkability(original, control, release)
            entry["sdcrisk"]["linkage_command"] = sdcrisk_linkage(paths, work, args.timeout)
        entry["sdmetrics_dcr"] = dcr(n, rel)
        result["releases"][rel] = entry
        if save:
            save(result)
    return result


# ----------------------------------------------------------------------------- calibration
def calibration(n: int, repeats: int, args, work: Path) -> str:
    """Singling out on ``repeats`` releases drawn independently of their originals (each repeat a
    new original, control and release, seeded ``[SEED, n, r]``): anonymeter's risk and interval
    with its control correction beside sdcrisk's excess and Newcombe interval. Nothing is there to
    find, so an interval that excludes 0 is a false alarm."""
    lines = [f"Independent releases, {n:,} originals, {n // 5:,} control records, {repeats} files "
             f"(`--calibration {repeats} --sizes {n}`):", "",
             "| file | anonymeter multivariate: risk [95 % CI] (attack / control rate), s | anonymeter univariate: "
             "risk [95 % CI] | sdcrisk multivariate: excess [95 % CI] (rate / baseline), s | sdcrisk exact: "
             "excess [95 % CI] |", "|---|---|---|---|---|"]
    false = {"a_multi": 0, "a_uni": 0, "s_multi": 0, "s_exact": 0}
    for r in range(repeats):
        d = work / f"cal{r}"
        d.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng([SEED, n, r, 7])
        files = {"original": with_id(population(n, rng)), "control": with_id(population(n // 5, rng), start=n + 1),
                 "independent": with_id(population(n, rng), start=2 * n + 1)}
        paths = {}
        for name, frame in files.items():
            paths[name] = d / f"{name}.csv"
            frame.to_csv(paths[name], index=False)
        a = {}
        for mode in ("multivariate", "univariate"):
            a[mode] = peer(args.peers_python, {"task": "anonymeter", "evaluator": f"singling_out_{mode}",
                                               "ori": str(paths["original"]), "syn": str(paths["independent"]),
                                               "control": str(paths["control"]), "n_attacks": args.n_attacks,
                                               "seed": SEED + r, "n_cols": 3}, args.timeout, d)
        s = sdcrisk_singling_out(files["original"], files["independent"], args.n_attacks)
        sm = next((x for x in s["rows"] if x["attack"] == "multivariate predicates"), None)
        se = next((x for x in s["rows"] if x["attack"] == "exact (keys)"), None)
        false["a_multi"] += a["multivariate"].get("status") == "ok" and a["multivariate"]["risk_low"] > 0
        false["a_uni"] += a["univariate"].get("status") == "ok" and a["univariate"]["risk_low"] > 0
        false["s_multi"] += bool(sm) and (sm["excess_low"] > 0 or sm["excess_high"] < 0)
        false["s_exact"] += bool(se) and (se["excess_low"] > 0 or se["excess_high"] < 0)
        am = a["multivariate"]
        rates = (f" ({100 * am['attack_rate']['value']:.1f} / {100 * am['control_rate']['value']:.1f} %), "
                 f"{am['wall_s']:.1f} s" if am.get("status") == "ok" else "")
        lines.append(f"| {r + 1} | {_risk(am)}{rates} | {_risk(a['univariate'])} | "
                     + (f"{sm['excess']:+.1f} [{sm['excess_low']:+.1f}, {sm['excess_high']:+.1f}] "
                        f"({sm['rate']:.1f} / {sm['baseline']:.1f} %), " if sm else "no trial, ")
                     + f"{s['wall_s']:.2f} s | "
                     + (f"{se['excess']:+.1f} [{se['excess_low']:+.1f}, {se['excess_high']:+.1f}]" if se else "")
                     + " |")
        print(lines[-1], flush=True)
    lines += ["", f"Intervals excluding 0: anonymeter multivariate {false['a_multi']} of {repeats}, univariate "
              f"{false['a_uni']} of {repeats}; sdcrisk multivariate {false['s_multi']} of {repeats}, exact "
              f"{false['s_exact']} of {repeats}.", ""]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- tables
def _fmt(x, d=1):
    return "" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{d}f}"


def _risk(a: dict) -> str:
    if a.get("status") != "ok":
        return f"{a.get('status')}: {a.get('error', '')}"
    return f"{a['risk']:.3f} [{a['risk_low']:.3f}, {a['risk_high']:.3f}]"


def _per_target(a: dict) -> float:
    if a.get("status") != "ok":
        return float("nan")
    t = a["n_attacks_ori"] + max(a["n_attacks_control"], 0)
    if a["evaluator"].startswith("singling_out"):
        t = a["n_attacks"]
    return a["wall_s"] / t


SDC_FOR = {"singling_out_univariate": "singling_out", "singling_out_multivariate": "singling_out",
           "inference:income": "inference:income", "inference:education": "inference:education",
           "linkability": "linkage"}


def _sdc_seconds(s: dict, key: str) -> float | None:
    """sdcrisk's seconds for anonymeter's criterion ``key``: for the univariate singling-out mode
    the exact and univariate attacks alone when measured, otherwise the criterion's seconds."""
    x = s.get(SDC_FOR[key], {})
    if key == "singling_out_univariate" and "univariate_wall_s" in x:
        return x["univariate_wall_s"]
    return x.get("wall_s")


def _sdc_per_target(s: dict, key: str) -> tuple[float, float]:
    """sdcrisk's seconds per target, (module docstring's definition, the former one)."""
    x = s.get(SDC_FOR[key], {})
    if "wall_s" not in x or x.get("status") == "error" or not x.get("targets_new"):
        return float("nan"), float("nan")
    sec = _sdc_seconds(s, key)
    return sec / x["targets_new"], sec / max(x["targets_old"], 1)


def _want(key: str):
    if key.startswith("singling"):
        want = {"univariate predicates", "exact (keys)"} if key.endswith("univariate") else {"multivariate predicates"}
        return lambda r: r["attack"] in want
    return lambda r: True


def _sdc_rate(s: dict, key: str) -> str:
    x = s.get(SDC_FOR[key], {})
    if x.get("status") == "missing":
        return "missing: " + x["error"]
    if "rows" not in x:
        return x.get("error", "not applicable")
    if x.get("kind") == "control":
        d = 2 if key == "linkability" else 1  # links between independent files are a few in 10^4
        return "; ".join(f"{r['attack']}: {r['rate']:.{d}f} % of {int(r['n_training']):,} (control "
                         f"{r['control_rate']:.{d}f} % of {int(r['n_control']):,}), excess {r['excess']:+.{d}f} "
                         f"[{r['excess_low']:+.{d}f}, {r['excess_high']:+.{d}f}]" for r in x["rows"] if _want(key)(r))
    if key.startswith("singling"):
        return "; ".join(f"{r['attack']}: {r['rate']:.1f} % of {int(r['trials'])} (baseline {r['baseline']:.1f} %, excess "
                         f"{r['excess']:+.1f} [{r['excess_low']:+.1f}, {r['excess_high']:+.1f}])"
                         for r in x["rows"] if _want(key)(r))
    if key.startswith("inference"):
        return "; ".join(f"{r['attack']}: {r['rate']:.1f} % (constant {r['baseline']:.1f} %, control "
                         f"{r['control_rate']:.1f} %, excess over control {r['vs_control']:+.1f} "
                         f"[{r['vs_control_low']:+.1f}, {r['vs_control_high']:+.1f}])" for r in x["rows"])
    best = max(x["rows"], key=lambda r: r["rate"]) if x["rows"] else None
    return f"best of {len(x['rows'])} linkage rows: {best['attack']} {best['rate']:.1f} %" if best else "no rows"


def _in_order(releases: dict) -> list[tuple[str, dict]]:
    """The measured releases in :data:`RELEASES`' order, whatever order ``--releases`` ran them in."""
    return sorted(releases.items(), key=lambda kv: RELEASES.index(kv[0]))


def tables(results: list[dict], meta: dict) -> tuple[str, list[dict]]:
    lines, csv_rows = [], []
    for res in results:
        n = res["n"]
        g = res["generator"]
        lines += [f"### {n:,} originals, {res['control']:,} control records", "",
                  f"Synthetic release: {g['generator']} (SDV {g['sdv']}), fitted in {g['fit_s']:.1f} s, "
                  f"{g['rows']:,} records sampled in {g['sample_s']:.1f} s.", "",
                  "| release | criterion | anonymeter: targets | anonymeter: s (CPU s of its process) | anonymeter: attack / "
                  "baseline / control rate | anonymeter: risk [95 % CI] | sdcrisk: s (CPU s) | sdcrisk: rate, excess [95 % CI] "
                  "(all records) | per-target time ratio, anonymeter / sdcrisk | the same, former definition |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for rel, entry in _in_order(res["releases"]):
            for key, a in entry["anonymeter"].items():
                base = key.replace(" (all targets)", "")
                s_pt, s_old = _sdc_per_target(entry["sdcrisk"], base)
                a_pt = _per_target(a)
                ratio = a_pt / s_pt if s_pt > 0 else float("nan")
                ratio_old = a_pt / s_old if s_old > 0 else float("nan")
                rates = ("" if a.get("status") != "ok" else
                         f"{100 * a['attack_rate']['value']:.1f} / {100 * a['baseline_rate']['value']:.1f} / "
                         + (f"{100 * a['control_rate']['value']:.1f} %" if a.get("control_rate") else "-"))
                targets = (f"{a.get('n_attacks_ori', a.get('n_attacks', ''))} + {a.get('n_attacks_control', '')}"
                           if a.get("status") == "ok" else str(a.get("n_attacks", "")))
                if key.startswith("singling") and a.get("status") == "ok":
                    targets = f"{a['n_attacks']} queries asked, {a.get('queries_found', '')} found"
                sdc = entry["sdcrisk"].get(SDC_FOR[base], {})
                sdc_s = _fmt(_sdc_seconds(entry["sdcrisk"], base), 2) if "wall_s" in sdc else ""
                if "cpu_s" in sdc and base != "singling_out_univariate":
                    sdc_s += f" ({_fmt(sdc['cpu_s'], 2)})"
                a_s = _fmt(a.get("wall_s"), 2) + (f" ({_fmt(a['process_cpu_s'], 1)})" if "process_cpu_s" in a else "")
                if a.get("reused"):
                    a_s += " (r)"
                lines.append(f"| {rel} | {key} | {targets} | {a_s} | {rates} | {_risk(a)} | "
                             f"{sdc_s} | {_sdc_rate(entry['sdcrisk'], base)} | {_fmt(ratio, 0)} | {_fmt(ratio_old, 0)} |")
                csv_rows.append({"n": n, "release": rel, "criterion": key, "anonymeter_status": a.get("status"),
                                 "anonymeter_s": a.get("wall_s"), "anonymeter_targets": targets,
                                 "anonymeter_attack_rate": a.get("attack_rate", {}) and a["attack_rate"]["value"]
                                 if a.get("status") == "ok" else None,
                                 "anonymeter_baseline_rate": a["baseline_rate"]["value"] if a.get("status") == "ok"
                                 else None,
                                 "anonymeter_control_rate": (a["control_rate"] or {}).get("value")
                                 if a.get("status") == "ok" else None,
                                 "anonymeter_risk": a.get("risk"), "anonymeter_risk_low": a.get("risk_low"),
                                 "anonymeter_risk_high": a.get("risk_high"), "anonymeter_error": a.get("error", ""),
                                 "sdcrisk_s": _sdc_seconds(entry["sdcrisk"], base),
                                 "sdcrisk_rates": _sdc_rate(entry["sdcrisk"], base),
                                 "sdcrisk_kind": sdc.get("kind", ""),
                                 "sdcrisk_targets": sdc.get("targets_new"), "sdcrisk_targets_former": sdc.get("targets_old"),
                                 "per_target_ratio": ratio, "per_target_ratio_former": ratio_old})
        low = [f"{r['release']} {r['criterion']} {r['per_target_ratio']:.0f}" for r in csv_rows
               if r["n"] == n and r.get("per_target_ratio") is not None and r["per_target_ratio"] < RATIO_ASKED]
        lines += ["", f"Per-target ratios below {RATIO_ASKED} at {n:,} originals: " + ("; ".join(low) or "none") + "."]
        if not any("sdmetrics_dcr" in e for e in res["releases"].values()):
            lines.append("")
            continue
        lines += ["", "Membership (sdcrisk, every original a member target and every control record a control "
                  "target) and SDMetrics' DCROverfittingProtection (a diagnostic, not a risk measure):", "",
                  "| release | sdcrisk membership: s | AUC [95 % CI], TPR at FPR 1 % / 0.1 % | SDMetrics DCR: s | "
                  "score (1 = protected), share closer to training |", "|---|---|---|---|---|"]
        for rel, entry in _in_order(res["releases"]):
            m = entry["sdcrisk"].get("membership", {})
            d = entry["sdmetrics_dcr"]
            mt = "; ".join(f"{r['attack']}: {r['auc']:.3f} [{r['auc_low']:.3f}, {r['auc_high']:.3f}], "
                           f"{100 * r['tpr_1pct']:.1f} % / {100 * r['tpr_01pct']:.1f} %" for r in m.get("rows", []))
            dt = (f"{d['score']:.3f}, {100 * d['closer_to_training']:.1f} %"
                  + (f" (subsample {d['subsample']:,})" if d.get("subsample") else "")
                  if d.get("status") == "ok" else f"{d.get('status')}: {d.get('error', '')}")
            if m.get("note"):
                mt += f" ({m['note']})"
            lines.append(f"| {rel} | {_fmt(m.get('wall_s'), 2)} | {mt or m.get('error', '')} | "
                         f"{_fmt(d.get('wall_s'), 1)} | {dt} |")
            csv_rows.append({"n": n, "release": rel, "criterion": "membership / DCR", "sdcrisk_s": m.get("wall_s"),
                             "sdcrisk_rates": mt, "sdmetrics_dcr_s": d.get("wall_s"),
                             "sdmetrics_dcr": d.get("score"), "sdmetrics_closer_to_training": d.get("closer_to_training"),
                             "anonymeter_error": d.get("error", "")})
            lk = entry["sdcrisk"].get("linkage_command") or (entry["sdcrisk"].get("linkage", {})
                                                              if entry["sdcrisk"].get("linkage", {}).get("kind")
                                                              == "one-to-one" else None)
            if lk:
                a = entry["anonymeter"].get("linkability", {})
                ratio = (_per_target(a) / (lk["wall_s"] / lk["targets_new"])
                         if lk.get("status") == "ok" and lk.get("targets_new") else float("nan"))
                lines.append(f"| {rel} | sdcrisk assess --id rid (8 linkage attacks, whole command): "
                             f"{_fmt(lk.get('wall_s'), 2)} s, per-target ratio {_fmt(ratio, 1)} | "
                             + ("; ".join(f"{r['attack']} {r['rate']:.1f} % ({_fmt(r.get('seconds'), 2)} s)"
                                          for r in lk.get("rows", [])) or f"{lk.get('status')}: {lk.get('error', '')}")
                             + " | | |")
                csv_rows.append({"n": n, "release": rel, "criterion": "linkage attacks (sdcrisk assess --id, whole "
                                 "command)", "sdcrisk_s": lk.get("wall_s"), "sdcrisk_targets": lk.get("targets_new"),
                                 "sdcrisk_rates": "; ".join(f"{r['attack']} {r['rate']:.1f} %"
                                                            for r in lk.get("rows", [])),
                                 "per_target_ratio": ratio, "anonymeter_error": lk.get("error", "")})
        missing = [r for r in RELEASES if r not in res["releases"]]
        if missing:
            lines += ["", f"Not measured at {n:,} (not among this run's --releases, or the run was stopped before "
                      f"them): {', '.join(missing)} release."]
        if any(a.get("reused") for e in res["releases"].values() for a in e["anonymeter"].values()):
            lines += ["", "(r): measured in this command's first pass over the same `--work` folder and reused "
                      "when the command was restarted there (the same job on the same files)."]
        calls = [(rel, e["sdcrisk"]["assess_call"]) for rel, e in _in_order(res["releases"])
                 if "assess_call" in e["sdcrisk"]]
        if calls:
            lines.append("")
        for rel, call in calls:
            entry = res["releases"][rel]
            sd = entry["sdcrisk"]
            if call:
                timed = sum(sd.get(k, {}).get("wall_s", 0.0) for k in ("linkage", "singling_out", "membership"))
                inf = []
                for sec in SECRETS:
                    x = sd[f"inference:{sec}"]
                    inf.append(f"{sec} {_fmt(x.get('call_wall_s'), 2)} s ({x['call_cpu_s']:.2f} CPU s), its rows "
                               f"{_fmt(x.get('rows_s', x['wall_s']), 2)} s"
                               + (f" + standardisation {x['standardise_s']:.2f} s" if "standardise_s" in x else ""))
                lines.append(f"* sdcrisk's assess call on the {rel} release, every column known (linkability, "
                             f"singling out, membership): {call['wall_s']:.2f} s ({call['cpu_s']:.2f} CPU s), of "
                             f"which {timed:.2f} s on the criteria's clocks and {call['wall_s'] - timed:.2f} s "
                             "outside them (the files' checks and the categorical split), charged to no criterion; "
                             "inference, one call per secret (each call also runs the linkability attack on the "
                             "other six attributes, charged to no criterion here): " + "; ".join(inf) + ".")
        for rel, e in _in_order(res["releases"]):
            lk = e["sdcrisk"].get("linkage", {})
            if lk.get("kind") == "control" and "call_wall_s" in lk:
                lines.append(f"* sdcrisk's linkability of anonymeter's definition on the {rel} release (the call "
                             f"assess_synthetic makes for its linkability row): {lk['wall_s']:.2f} s on the row's "
                             f"clock, the call {lk['call_wall_s']:.2f} s ({lk['call_cpu_s']:.2f} CPU s).")
        lines.append("")
    return "\n".join(lines), csv_rows


READING = """\
What each side runs. anonymeter 1.1.0 with its defaults: 500 targets (singling out: 500 queries)
and as many control targets; risk = (attack rate - control rate) / (1 - control rate) with its
interval. sdcrisk: on the independent and the synthetic release, what `sdcrisk assess ORIGINAL
RELEASE --control CONTROL --id rid` runs (`sdcrisk.assess.synthetic.assess_synthetic`, its
defaults): every training record and every control record a target, the rate on each and the
excess (training - control) with Newcombe's interval; linkability is anonymeter's definition
(nearest release record on each half of the known attributes, the same halves as anonymeter's
auxiliary columns; success when both lead to the same record), singling out tries 1,000
conjunctions of 2 to 4 attributes besides the exact keys, rare values and extremes, on chunks
of the training set of the control's size. On the noise release (records one to one with the
originals) sdcrisk runs its record-level criteria: singling out against planted originals
(`--n-attacks` three-attribute conjunctions), inference on originals and control records; its
linkability row is the same attack of anonymeter's definition as on the other releases (the
call `assess_synthetic` makes for its linkability row, every original and every control record
a target), so that the ratio compares one attack with one attack of the same definition. The
linkage attacks of `sdcrisk assess --id rid` (8 attacks: distance-, rank- and probability-based,
each with its own seconds in the report) are listed beside, with the whole command's seconds
(a subprocess: imports, reading, numba compilation included) and its per-target ratio; that
ratio sets anonymeter's one attack against eight and is not the like-for-like one.

Per-target time ratio: anonymeter's seconds per target it attacks (its targets plus its control
targets; for singling out, its queries) over sdcrisk's seconds per target: every record it
attacks, all originals plus all control records (inference, linkability); for singling out,
every release record it examines for an isolating predicate (the release's size, each release
record counted once, as anonymeter's queries are counted once though each is evaluated on the
originals and on the control). The former definition, in the last column, divided sdcrisk's
singling-out seconds by the predicates it tried (trials on the originals plus its baseline's;
with a control set, trials on the training chunks plus on the control set). That count is what
the data let the attack find, not the work done, so the former ratio moves with what is found.
For the other criteria the two definitions agree.

Whose clock. anonymeter's seconds are its evaluator's construction, `evaluate` and `risk` calls
(the files read and the numba kernels of its neighbour search compiled before the clock starts;
its whole process's CPU seconds beside them, imports and reading included). sdcrisk's are each
criterion's own wall seconds inside the call, numba compiled before timing (a warm-up call on
300 records): linkability, its row's clock (both halves standardised and searched, training and
control targets); singling out, the whole singling-out step (exact keys, rare values and
extremes, multivariate conjunctions; every chunk and the control set) for anonymeter's
multivariate mode, and for its univariate mode the exact and univariate attacks alone
(`max_terms=1`, the same chunks, timed in a call of their own); inference, its rows' clock plus the standardisation
of the known attributes that the call does before that clock starts (timed separately on the
same frames); the noise release's criteria, the bench's own call of each. Not charged to any
criterion: imports, reading the files, and each call's checks of the files and categorical
split (their seconds are listed under each size, the call's total minus its criteria's). This
run was at normal priority while other agents' jobs ran niced; where a wall time is far above
its CPU time, the process still waited for a core, and the ratios (wall over wall) are only as
fair as the two waits were alike.
"""


def write(results: list[dict], meta: dict, out: Path, no_doc: bool) -> str:
    body, rows = tables(results, meta)
    head = (f"Machine: {meta['machine']}, shared with other agents' jobs (niced) while this ran at normal "
            f"priority (wall times are upper bounds of an unshared run). Command: `{meta['command']}`. "
            "sdcrisk's environment: "
            + ", ".join(f"{k} {v}" for k, v in meta["sdcrisk_env"].items()) + ". Peers' environment "
            "(benchmarks/peers/requirements.txt): " + ", ".join(f"{k} {v}" for k, v in meta["peers_env"].items()) + ".")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"meta": meta, "results": results}, indent=1, default=str))
    head += "\n\n" + READING
    out.with_suffix(".md").write_text("# sdcrisk beside anonymeter and SDMetrics\n\n" + head + "\n" + body)
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    if not no_doc:
        from common import DOC, replace_region

        replace_region(DOC, "peers", head + "\n" + body)
    return body


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--peers-python", default="/work/peers-venv/bin/python")
    ap.add_argument("--n-attacks", type=int, default=500)
    ap.add_argument("--timeout", type=float, default=2400.0)
    ap.add_argument("--dcr-subsample", type=int, default=10_000)
    ap.add_argument("--work", default=None, help="folder for the generated files (default: a temporary one)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "peers"))
    ap.add_argument("--no-doc", action="store_true", help="leave docs/benchmarks.md as it is")
    ap.add_argument("--singling-out-only", action="store_true",
                    help="anonymeter's singling-out evaluators and sdcrisk's singling out only (no inference, "
                         "linkage, membership, DCR); the tables then hold those rows alone")
    ap.add_argument("--calibration", type=int, default=0, metavar="R",
                    help="instead of the comparison: singling out on R independent releases at each size, "
                         "written to OUT_calibration.md")
    ap.add_argument("--from-json", default=None, metavar="A.json,B.json",
                    help="write the page from the results of earlier runs (OUT.json files, e.g. one per size run "
                         "side by side), their commands joined; runs nothing")
    ap.add_argument("--releases", default=",".join(RELEASES),
                    help="the releases to measure, in this order (default: %(default)s)")
    args = ap.parse_args(argv)
    args.releases = [r for r in args.releases.split(",") if r]
    if any(r not in RELEASES for r in args.releases):
        print(f"bench_peers: --releases {','.join(args.releases)}: expected a comma-separated subset of "
              f"{','.join(RELEASES)}", file=sys.stderr)
        return 2
    if args.from_json:
        runs = [json.loads(Path(p).read_text()) for p in args.from_json.split(",")]
        this = "python benchmarks/bench_peers.py " + " ".join(sys.argv[1:] if argv is None else argv)
        meta = {**runs[0]["meta"], "command": "` and `".join([r["meta"]["command"] for r in runs] + [this])}
        results = sorted((x for r in runs for x in r["results"]), key=lambda x: x["n"])
        print(write(results, meta, Path(args.out), args.no_doc))
        return 0
    args.sizes = [int(s) for s in args.sizes.split(",")]
    if not Path(args.peers_python).exists():
        print(f"bench_peers: --peers-python {args.peers_python}: not found; run benchmarks/peers/setup_peers.sh",
              file=sys.stderr)
        return 2
    base = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench_peers_"))
    meta = {"machine": machine_text(),
            "command": "python benchmarks/bench_peers.py " + " ".join(sys.argv[1:] if argv is None else argv),
            "sdcrisk_env": _versions(), "peers_env": _peer_versions(args.peers_python)}
    if args.calibration:
        text = "\n".join(calibration(n, args.calibration, args, base / f"cal{n}") for n in args.sizes)
        Path(str(args.out) + "_calibration.md").write_text(
            "# Singling out on independent releases: anonymeter beside sdcrisk\n\nMachine: " + meta["machine"]
            + ", shared with other agents' jobs. Command: `" + meta["command"] + "`. Peers' environment: "
            + ", ".join(f"{k} {v}" for k, v in meta["peers_env"].items()) + ".\n\n" + text)
        print(text)
        return 0
    results = []
    for n in args.sizes:  # the outputs are rewritten after each release, so a long run loses what is done only
        results.append(run_size(n, args, base / f"n{n}",
                                save=lambda part: write(results + [part], meta, Path(args.out), args.no_doc)))
        body = write(results, meta, Path(args.out), args.no_doc)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
