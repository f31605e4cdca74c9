"""Runs one peer measurement in the peers' virtual environment (benchmarks/peers/setup_peers.sh);
started by benchmarks/bench_peers.py as a subprocess, one call per measurement, so that a peer's
crash or time-out ends that measurement only.

    /work/peers-venv/bin/python benchmarks/peers/peers_driver.py JOB.json

JOB.json holds ``task`` and its arguments; the result (a JSON object) is written to ``job["out"]``.
Tasks:

``synthesize``
    SDV's GaussianCopulaSynthesizer fitted to ``train`` (a CSV file), ``rows`` records sampled
    into ``out_csv`` (SDV's own default transformers and distributions; ``seed`` fixes the sample).
``anonymeter``
    One anonymeter 1.x evaluator with its own definitions and its control set: ``evaluator`` is
    ``singling_out_univariate``, ``singling_out_multivariate``, ``linkability`` or ``inference``;
    ``ori``, ``syn``, ``control`` are CSV files, ``n_attacks`` its targets (queries), ``aux_cols``
    (linkability: two lists), ``secret`` (inference). Records wall time of the evaluator's
    ``evaluate`` and ``risk`` calls, its success rates (attack, baseline, control, each with its
    error) and its risk with the interval; an exception is recorded with its type and message.
``sdmetrics_dcr``
    SDMetrics' DCROverfittingProtection (``real_training_data`` = ``ori``, ``real_validation_data``
    = ``control``): the score and the share of synthetic records closer to the training set; a
    diagnostic, not a risk measure (Yao, Krco, Ganev & de Montjoye 2025).

The identifier column ``rid`` is dropped before any peer sees a file.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from importlib.metadata import version

import pandas as pd


def _read(path: str) -> pd.DataFrame:
    frame = pd.read_csv(path)
    return frame.drop(columns=[c for c in ("rid",) if c in frame.columns])


def _rate(r) -> dict | None:
    return None if r is None else {"value": float(r.value), "error": float(r.error)}


def synthesize(job: dict) -> dict:
    from sdv.metadata import Metadata
    from sdv.single_table import GaussianCopulaSynthesizer

    train = _read(job["train"])
    cats = set(job.get("categorical", []))
    metadata = Metadata.load_from_dict({"tables": {"t": {"columns": {
        c: {"sdtype": "categorical" if c in cats else "numerical"} for c in train.columns}}}})
    t0 = time.perf_counter()
    synth = GaussianCopulaSynthesizer(metadata)
    synth.fit({"t": train})  # SDV 2 takes and returns {table name: frame}
    fit = time.perf_counter() - t0
    try:
        synth._set_random_state(int(job["seed"]))  # SDV's own seeding hook for sampling
    except AttributeError:
        pass
    t0 = time.perf_counter()
    out = synth.sample(num_rows=int(job["rows"]))
    if isinstance(out, dict):
        out = next(iter(out.values()))
    sample = time.perf_counter() - t0
    out.insert(0, "rid", range(1, len(out) + 1))
    out.to_csv(job["out_csv"], index=False)
    return {"generator": "sdv.single_table.GaussianCopulaSynthesizer", "sdv": version("sdv"),
            "fit_s": fit, "sample_s": sample, "rows": len(out)}


def _evaluate(job: dict, ori, syn, control, n_attacks: int):
    from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator

    name = job["evaluator"]
    if name.startswith("singling_out"):
        ev = SinglingOutEvaluator(ori=ori, syn=syn, control=control, n_attacks=n_attacks,
                                  n_cols=int(job.get("n_cols", 3)), seed=int(job["seed"]))
        return ev.evaluate(mode=name.rsplit("_", 1)[1])
    if name == "linkability":
        a, b = job["aux_cols"]
        ev = LinkabilityEvaluator(ori=ori, syn=syn, control=control, n_attacks=n_attacks, aux_cols=(a, b),
                                  n_neighbors=int(job.get("n_neighbors", 1)))
        return ev.evaluate(n_jobs=int(job.get("n_jobs", 1)))
    if name == "inference":
        aux = [c for c in ori.columns if c != job["secret"]]
        ev = InferenceEvaluator(ori=ori, syn=syn, control=control, aux_cols=aux, secret=job["secret"],
                                regression=bool(job["regression"]), n_attacks=n_attacks)
        return ev.evaluate(n_jobs=int(job.get("n_jobs", 1)))
    raise ValueError(f"unknown evaluator {name!r}")


def anonymeter(job: dict) -> dict:
    ori, syn, control = _read(job["ori"]), _read(job["syn"]), _read(job["control"])
    name, n_attacks = job["evaluator"], int(job["n_attacks"])
    res: dict = {"anonymeter": version("anonymeter"), "evaluator": name, "n_attacks": n_attacks,
                 "ori_rows": len(ori), "syn_rows": len(syn), "control_rows": len(control)}
    if name in ("linkability", "inference"):  # numba compilation of its neighbour search, not timed
        _evaluate(job, ori.iloc[:60], syn.iloc[:60], control.iloc[:60], 20)
    t0 = time.perf_counter()
    try:
        ev = _evaluate(job, ori, syn, control, n_attacks)
        if name.startswith("singling_out"):
            res["queries_found"] = len(ev.queries())
        results = ev.results()
        risk = ev.risk()
        res["wall_s"] = time.perf_counter() - t0
        res.update(status="ok", attack_rate=_rate(results.attack_rate), baseline_rate=_rate(results.baseline_rate),
                   control_rate=_rate(results.control_rate), n_success=float(results.n_success),
                   n_baseline=float(results.n_baseline),
                   n_control=None if results.n_control is None else float(results.n_control),
                   n_attacks_ori=int(results.n_attacks_ori), n_attacks_control=int(results.n_attacks_control),
                   risk=float(risk.value), risk_low=float(risk.ci[0]), risk_high=float(risk.ci[1]))
    except Exception as exc:  # a peer's failure is a result: recorded, not hidden
        res["wall_s"] = time.perf_counter() - t0
        tb = traceback.extract_tb(exc.__traceback__)
        res.update(status="error", error=f"{type(exc).__name__}: {exc}".splitlines()[0][:300],
                   where=f"{tb[-1].name} ({tb[-1].filename.rsplit('/', 1)[-1]})" if tb else "")
    return res


def sdmetrics_dcr(job: dict) -> dict:
    from sdmetrics.single_table import DCROverfittingProtection

    ori, syn, control = _read(job["ori"]), _read(job["syn"]), _read(job["control"])
    columns = {c: ({"sdtype": "categorical"} if c in job["categorical"] else {"sdtype": "numerical"})
               for c in ori.columns}
    metadata = {"columns": columns}
    sub = job.get("subsample")
    t0 = time.perf_counter()
    out = DCROverfittingProtection.compute_breakdown(real_training_data=ori, synthetic_data=syn,
                                                     real_validation_data=control, metadata=metadata,
                                                     table_name=None, num_rows_subsample=sub, num_iterations=1)
    return {"sdmetrics": version("sdmetrics"), "wall_s": time.perf_counter() - t0, "status": "ok",
            "score": float(out["score"]),
            "closer_to_training": float(out["synthetic_data_percentages"]["closer_to_training"]),
            "subsample": sub, "ori_rows": len(ori), "syn_rows": len(syn), "control_rows": len(control)}


def main(argv: list[str]) -> int:
    job = json.loads(open(argv[1]).read())
    result = {"synthesize": synthesize, "anonymeter": anonymeter, "sdmetrics_dcr": sdmetrics_dcr}[job["task"]](job)
    with open(job["out"], "w") as fh:
        json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
