"""Disclosure risk and information loss of a custodian's own original and masked files.

:func:`assess` runs the record-linkage attacks of :data:`sdcrisk.attacks.KNOWN_ATTRIBUTE_ATTACKS`
(the list ``sdcrisk.assess.default_attacks.ALL_ATTACKS`` holds; by default those no other dominates
on a corpus of releases, :mod:`sdcrisk.assess.default_attacks`), interval disclosure (ID) and the
information-loss measures (IL, IL1..IL5) on one pair of files and returns a tidy table; the
command ``sdcrisk assess`` (:mod:`sdcrisk.cli`) wraps it and writes a report.

Ground truth: the masked record of original record ``i`` is the one with the same value of the
id column (``id=``), or, without one, the record in the same row (said in the result's
``pairing``). The attacks do not see that pairing: the masked file is handed to them in an order
drawn from ``seed``, so an attack that breaks ties by record order gains nothing from the two
files being aligned.

Scenarios (which attributes the intruder knows): ``known=[names]`` is one scenario; ``scenarios=
"lo..hi"`` the first j attributes in column order for j = lo .. hi (``half``, ``all`` allowed),
as in Nin, Herranz & Torra (2007) §3; the default is one scenario with every attribute known.

Units: ``percent`` is the share of original records correctly linked (0-100) for the attacks,
the share of original values inside their masked value's interval (0-100) for ID, and for
information loss a mean relative error in percent (0 = no loss; *not* bounded by 100: IL1..IL4
divide by the original values, see :mod:`sdcrisk.measures.information_loss`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from ..attacks import ATTACKS, BOUNDS
from .categorical import block_codes, block_summary, mixed_matrix
from ..criteria.inference import TOLERANCE
from ..data import release_arrow_memory
from .default_attacks import ATTACK_NAMES, ALL_ATTACKS, DEFAULT_ATTACKS, left_out_reasons
from ..kernels import warm_in_background
from ..linkage.probabilistic import ConvergenceWarning
from ..measures.scenarios import ScenarioRangeError, scenario_range
from .workers import (WORKER_MIN, AttackWorkers, NoRoomError, file_shape, memory_problem,  # noqa: F401 (WORKER_MIN: API)
                      reading_bytes, worker_min)
from .pairing import (READERS, AssessError, read_file, _read, _header, identifier_columns, _label_like, _numeric, _show, _ids, Pair, pair_files, _typed_pair, _thousands, _text_numbers, _refuse_nested, _refuse_all_distinct, _stray_text, _text_among_numbers, RecordsAtRisk, secret_names)  # noqa: F401 (the module's API)
from .criteria import (CRITERION_COLUMNS, EVIDENCE_COLUMNS, INFERENCE_KIND, SINGLING_OUT_PREDICATES,  # noqa: F401 (the module's API)
                       SINGLING_OUT_WORK, _criterion_table_rows, _evidence, _inference, _key_risk, _labels, _singled,
                       _singling_out, criteria_attrs, criteria_results, criterion_rows, records_at_risk, sample_criteria,
                       sample_criterion_rows,
                       singling_out_predicates)
from .rows import (COLUMNS, RISK, LOSS, LINKS, _scenario_label, _mixed_distance_attack, _sizes, MIXED_DISTANCE, _rows, _attack_row, BOUND_MIN, BOUNDED, attack_bound, best_result, bounded_row, _own_order, _finish, _interval_disclosure_row, _loss_rows)  # noqa: F401 (the module's API)

# DEFAULT_ATTACKS: the attacks no other dominates on the corpus of research/dominance (sdcrisk.assess.default_attacks);
# ALL_ATTACKS: every one ("all")
CONCURRENT_MAX = 100_000  # records: up to this many, two attacks run at a time in threads (_run_attacks)
START_ORDER = {"GDBRL": 0, "PRL": 2}  # the others 1 (_run_attacks)




# ----------------------------------------------------------------------------- reading and pairing




































# ----------------------------------------------------------------------------- scenarios and attacks
def scenarios_from(columns: list[str], known: Sequence[str] | None = None,
                   scenarios: str | None = None) -> list[list[int]]:
    """The known-attribute scenarios as lists of column indices (module docstring)."""
    m = len(columns)
    if known is not None and scenarios is not None:
        raise AssessError("give either known attributes or a scenarios range, not both")
    if known is not None:
        known = list(known)
        unknown = [k for k in known if k not in columns]
        if unknown or not known:
            raise AssessError(f"known: {unknown or known!r} not among the attribute columns {columns}")
        if len(set(known)) != len(known):
            raise AssessError(f"known: repeated attribute in {known}")
        return [[columns.index(k) for k in known]]
    if scenarios is None:
        return [list(range(m))]
    try:
        sizes = scenario_range(scenarios, m)
    except ScenarioRangeError as exc:
        raise AssessError(f"scenarios: {exc}") from None
    return [list(range(j)) for j in sizes]


def attack_names(attacks: Sequence[str] | None) -> list[str]:
    """Canonical names of the requested measures. None: the default set (:data:`DEFAULT_ATTACKS`,
    the attacks no other dominates on the corpus, and ID; :mod:`sdcrisk.assess.default_attacks`); "all":
    every one (:data:`ALL_ATTACKS`); a named attack runs whether or not it is in the default."""
    if attacks is None:
        return list(DEFAULT_ATTACKS)
    out = []
    for a in attacks:
        key = str(a).strip().upper()
        if key == "ALL":
            out.extend(name for name in ALL_ATTACKS if name not in out)
            continue
        name = ATTACK_NAMES.get(key, str(a).strip())
        if name not in ALL_ATTACKS and name not in ATTACKS:
            raise AssessError(f"attacks: unknown attack {a!r}; choose from {', '.join(ALL_ATTACKS)} or all")
        if name not in out:
            out.append(name)
    if not out:
        raise AssessError(f"attacks: none given; choose from {', '.join(ALL_ATTACKS)} or all")
    return out


def _pairs_closer_than_chance(pair: Pair, perm: np.ndarray) -> bool:
    """Whether paired records are closer (mixed squared distance, mean over records) than the
    records of a random pairing ``perm``: a check that row order does pair them."""
    xs = mixed_matrix(pair.x, pair.cx, pair.ncat(pair.categorical))
    ys = mixed_matrix(pair.y, pair.cy, pair.ncat(pair.categorical))
    paired = np.mean(((xs - ys) ** 2).sum(axis=1))
    shuffled = np.mean(((xs - ys[perm]) ** 2).sum(axis=1))
    return paired < 0.9 * shuffled


























def attack_workers(n: int, steps: int) -> int:
    """How many worker processes run the attacks on ``n`` records: none (in this process) below
    :data:`WORKER_MIN` records (the environment variable ``SDCRISK_WORKER_MIN`` overrides it),
    else two, or one for a single attack; the workers run two attacks at a time only while their
    expected memory fits the limit (:mod:`sdcrisk.assess.workers`)."""
    try:
        least = worker_min()
    except ValueError as exc:
        raise AssessError(str(exc)) from None
    if n < least or steps == 0:
        return 0
    return min(2, steps)


def _run_attacks(tasks, pair, perm, seed, say, prl_candidates=None, meanwhile=None, pool=None, bounds=False):
    """Results of the attacks ``tasks`` ([(name, cols)]), in order. From :data:`WORKER_MIN`
    records they run in worker processes (:mod:`sdcrisk.assess.workers`; :func:`attack_workers` says how
    many; ``pool``: workers started beforehand, else new ones): OR-Tools' flow solver holds the
    GIL, so threads would wait for it and Ctrl-C with them. Smaller files, where no attack takes long, run in this process, two at a time in
    threads. On first use after an install PRL's kernels are compiled in a second process
    meanwhile (:mod:`sdcrisk.kernels`). Returns the rows and what ``meanwhile()`` returned (called
    while the workers run, else after the attacks). ``bounds``: the workers run an attack with a
    bound last and not to the end where it cannot raise the headline (the default set;
    :meth:`sdcrisk.assess.workers.AttackWorkers.run`)."""
    steps = len(tasks)
    warmup = warm_in_background({name for name, _ in tasks})
    workers = attack_workers(pair.n, steps)
    if workers:
        own = AttackWorkers(workers) if pool is None else None
        use = pool or own
        try:
            use.ensure(workers)
            use.load(pair, perm)
            return use.run(tasks, seed, prl_candidates, pair.n, say, warmup.wait, meanwhile, bounds=bounds,
                           data_bytes=_data_bytes(tasks, pair))
        except NoRoomError as exc:
            say(f"warning: {exc}; the attacks run in this process instead (Ctrl-C may then wait for a solver)")
        finally:
            if own is not None:
                own.close()
    rows = _attacks_in_process(tasks, pair, perm, seed, say, prl_candidates, warmup, bounds)
    return rows, meanwhile() if meanwhile is not None else None


def _data_bytes(tasks, pair: Pair) -> dict:
    """{task: bytes} for the attacks whose memory follows the values (``Needs.data_bytes``), on
    the scenario's numeric known attributes of the whole file (blocks only narrow it)."""
    from ..attacks import NEEDS

    out = {}
    for k, (name, cols) in enumerate(tasks):
        needs = NEEDS.get(name)
        kn = [pair.numeric.index(pair.columns[c]) for c in cols if pair.columns[c] in pair.numeric]
        if needs is not None and needs.data_bytes is not None and kn:
            out[k] = float(needs.data_bytes(pair.x[:, kn], pair.y[:, kn]))
    return out


def _attacks_in_process(tasks, pair, perm, seed, say, prl_candidates, warmup, bounds=False):
    steps = len(tasks)
    done = []
    if bounds and any(name in BOUNDS for name, _ in tasks):  # the others first, then the bounded ones
        first = [k for k in range(steps) if tasks[k][0] not in BOUNDS]
        rows = dict(zip(first, _attacks_in_process([tasks[k] for k in first], pair, perm, seed, say,
                                                   prl_candidates, warmup)))
        for k in range(steps):
            if k in rows:
                continue
            name, cols = tasks[k]
            t0 = time.perf_counter()
            reach = attack_bound(name, pair, perm, cols)
            best = best_result([(rows[j], tasks[j][0], len(tasks[j][1])) for j in first])
            rows[k] = bounded_row(name, reach, pair.n, best, time.perf_counter() - t0)
            if rows[k] is None:
                warmup.wait(name)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    rows[k] = _attack_row(name, pair, perm, cols, seed, prl_candidates)
            say(f"[{k + 1}/{steps}] {name}, {len(cols)} known attribute(s): {rows[k]['seconds']:.1f} s")
        return [rows[k] for k in range(steps)]

    def one(k):
        name, cols = tasks[k]
        warmup.wait(name)
        out = _attack_row(name, pair, perm, cols, seed, prl_candidates)
        done.append(k)
        say(f"[{len(done)}/{steps}] {name}, {len(cols)} known attribute(s): {out['seconds']:.1f} s")
        return out

    with warnings.catch_warnings():  # a non-converged EM is reported in the note instead
        warnings.simplefilter("ignore", ConvergenceWarning)
        # GDBRL first: its exact assignment runs seconds in scipy's solver without the GIL, beside
        # the others; PRL last, when its kernels are compiled
        order = sorted(range(steps), key=lambda k: START_ORDER.get(tasks[k][0], 1))
        if pair.n > CONCURRENT_MAX or steps < 2:
            results = {k: one(k) for k in order}
            return [results[k] for k in range(steps)]
        with ThreadPoolExecutor(2) as pool:
            futures = {k: pool.submit(one, k) for k in order}
            return [futures[k].result() for k in range(steps)]


def assess(original, masked, *, id: str | None = None, known: Sequence[str] | None = None,
           scenarios: str | None = None, attacks: Sequence[str] | None = None, information_loss: bool = True,
           seed: int = 0, progress: Callable[[str], None] | None = None,
           names: tuple[str, str] = ("original", "masked"), prl_candidates: int | None = None,
           categorical: Sequence[str] | None = None, pool: AttackWorkers | None = None,
           idle: Callable[[], None] | None = None, secret: str | Sequence[str] | None = None,
           tolerance: float = TOLERANCE, singling_out: bool = True, weights: str | None = None,
           control=None, links_out: dict | None = None) -> pd.DataFrame:
    """Disclosure risk of every attack and the information loss of ``masked`` against ``original``.

    ``original`` and ``masked`` are pandas DataFrames with the same attribute columns (plus the
    ``id`` column when given), or paths of CSV / parquet files. ``categorical`` names integer-coded
    categorical attributes (text columns are categorical anyway; :mod:`sdcrisk.assess.categorical`): the
    ones the masking left unchanged are the intruder's blocking keys.

    Returns one row per measure and scenario with :data:`COLUMNS`: ``measure`` (attack, ``ID``,
    ``IL``, ``IL1``..``IL5``, ``IL1s``, ``IL-s``), ``kind`` ("disclosure risk" / "information
    loss"), ``scenario`` and ``known`` (the known attributes, comma-separated), ``n_known``, ``n``
    records, ``linked`` (expected correct links, ties broken uniformly at random), ``percent``
    (units in the module docstring), ``low``/``high`` (95 % Wilson interval), ``baseline`` (the
    random-guess rate), ``draws_low``/``draws_high`` (GDBRL: range over its tie draws),
    ``seconds`` (wall time; two attacks may share the machine, :func:`_run_attacks`) and ``note``. ``attrs`` holds ``pairing``, ``warnings``,
    ``files``, ``blocking`` (keys, blocks, share of records unique on the keys) and ``left_out``.
    ``attacks``: None runs the default set (:data:`DEFAULT_ATTACKS`) and ``attrs["left_out"]``
    gives ``{attack: reason}`` for each attack it leaves out (:mod:`sdcrisk.assess.default_attacks`);
    ``["all"]`` runs every attack; named attacks run whether or not they are in the default.
    ``prl_candidates=K`` is PRL's ``max_candidates``: each record keeps its K best candidates
    (on tied blocks its K best pairs agreeing on several attributes), for files whose full
    candidate graph exceeds the memory limit. ``pool``: attack worker processes
    started beforehand (:class:`sdcrisk.assess.workers.AttackWorkers`; the caller closes them), used
    from :data:`WORKER_MIN` records instead of new ones. ``idle()`` is called in this process
    while the attack workers run, after the information loss (the command imports the report's
    plotting library then), or after the attacks where they run in this process.

    ``secret``: attributes whose values the intruder tries to infer (inference, attribute
    disclosure; :mod:`sdcrisk.criteria.inference`), or ``"each"``: every attribute not in
    ``known`` in turn. A secret is never known: without ``known`` the intruder knows every other
    attribute (the linkage attacks too). ``tolerance``: a numeric guess is right within
    ``tolerance`` times the true value (0 < tolerance <= 1). Each secret adds rows of kind
    ``"inference"`` (:data:`CRITERION_COLUMNS` besides :data:`COLUMNS`: the secret in ``target``,
    the attack's successes in ``linked`` out of ``n`` targets, ``baseline`` the best constant
    guess's percent, ``difference`` (attack minus baseline) with Newcombe's interval and
    ``excess``, the difference floored at 0 with its interval); :func:`criterion_rows` gives them as
    :class:`sdcrisk.criteria.CriterionRow`, :func:`records_at_risk` the records each attack
    infers (``attrs["records_at_risk"]``), ``attrs["inference"]`` the l-diversity per secret.

    ``singling_out`` (default True; False leaves it out): the singling-out attacks on the first
    scenario's known attributes (:mod:`sdcrisk.criteria.singling_out`: release records unique on
    the categorical keys that match one original, and :func:`singling_out_predicates` predicates),
    rows of kind ``"singling out"`` like the inference rows; on a sample release the originals are
    every original record (the population). From :data:`WORKER_MIN` records they run in this
    process while the attack workers run. ``attrs["singling_out"]`` says whether they ran.
    ``weights``: the release's sampling-weight column (not an attribute: left out of every attack);
    with it, or with ``singling_out``, ``attrs["key_risk"]`` holds the agencies' measures on the
    release's known categorical attributes (:mod:`sdcrisk.criteria.key_risk`: k-anonymity
    violations, individual risk and expected re-identifications, l-diversity of the secrets).

    ``control``: the control set of a synthetic ``masked`` release (originals not used to train the
    generator; DataFrame or path): the table of :func:`sdcrisk.assess.synthetic.assess_synthetic`
    instead (every attack on training and on control targets, the excess with Newcombe's interval).

    ``links_out``: a dict that receives each linkage attack's links (with a secret) while the
    criteria other than linkability are left to the caller (:func:`criteria_results`; the attack
    jobs of :mod:`sdcrisk.assess.jobs`).
    """
    say = progress or (lambda message: None)
    if control is not None:  # a synthetic release: sdcrisk.assess.synthetic.assess_synthetic's table
        from .synthetic import assess_synthetic

        return assess_synthetic(original, masked, control, id=id, known=known, secret=secret, categorical=categorical,
                                tolerance=tolerance, seed=seed, names=(*names, "control"), progress=progress,
                                singling_out=singling_out)
    if isinstance(original, (str, Path)) and isinstance(masked, (str, Path)):
        problem = memory_problem(original, masked, attack_names(attacks))  # before reading (sdcrisk.assess.workers)
        if problem:
            raise AssessError(problem)
    if isinstance(original, (str, Path)):
        names = (str(original), names[1])
        original = read_file(original)
    if isinstance(masked, (str, Path)):
        names = (names[0], str(masked))
        masked = read_file(masked)
    if prl_candidates is not None and (isinstance(prl_candidates, bool) or not isinstance(prl_candidates, int)
                                       or prl_candidates < 1):
        raise AssessError(f"prl_candidates: expected a whole number >= 1, got {prl_candidates!r}")
    if isinstance(categorical, str):
        categorical = [categorical]
    if not (isinstance(tolerance, (int, float)) and not isinstance(tolerance, bool) and 0.0 < tolerance <= 1.0):
        raise AssessError(f"tolerance: expected a number in (0, 1] (a share of the true value), got {tolerance!r}")
    pair, secrets, known, labels, record_ids, weight_values = _prepared(original, masked, id=id, names=names,
                                                                        categorical=categorical, weights=weights,
                                                                        secret=secret, known=known, scenarios=scenarios)
    original = masked = None  # tables read here go now: the pair holds their values (0.8 GB each at 10^7 x 10)
    release_arrow_memory()
    columns = pair.columns
    sets = scenarios_from(columns, known, scenarios)
    todo = attack_names(attacks)
    if pair.rows is not None:  # a sample of the original's records (sdcrisk.assess.sample)
        from .sample import assess_sample

        table = assess_sample(pair, sets, todo, attacks=attacks, information_loss=information_loss, seed=seed,
                              say=say, names=names, idle=idle)
        if not (singling_out or secrets or weight_values is not None) or links_out is not None:
            return table
        crit = sample_criteria(pair, sets, secrets, tolerance=tolerance, record_ids=record_ids, labels=labels,
                               singling_out=singling_out, seed=seed, weights=weight_values, say=say)
        extra = [c for c in table.columns if c not in COLUMNS]  # e.g. the sample rows' ``records`` (released)
        out = pd.concat([table, sample_criterion_rows(crit["rows"])], ignore_index=True).reindex(columns=COLUMNS + CRITERION_COLUMNS + extra)
        out.attrs.update(table.attrs, singling_out=bool(singling_out),
                         records_at_risk=RecordsAtRisk(_evidence(crit["evidence"])))
        out.attrs.update(criteria_attrs(crit, secrets, tolerance))
        return out
    n = pair.n
    perm = np.random.Generator(np.random.PCG64(seed)).permutation(n)
    warnings_out = list(pair.warnings)
    if id is None and not _pairs_closer_than_chance(pair, perm):
        warnings_out.append("records paired by row order are no closer than random pairs: the masked rows may be in "
                            "another order than the original's; give the id column (--id) if the files have one")
    for w in warnings_out:
        say(f"warning: {w}")
    rows = []
    id_by_attribute = None
    tasks = []
    for cols in sets:
        label, known_names = _scenario_label(cols, columns), ",".join(columns[c] for c in cols)
        for name in todo:
            if name == "ID":
                rows.append(_interval_disclosure_row(pair, cols, label, known_names, id_by_attribute))
                id_by_attribute = rows[-1].pop("by_attribute")
            else:
                rows.append({"measure": name, "kind": RISK, "scenario": label, "known": known_names,
                             "n_known": len(cols), "n": n})
                tasks.append((name, cols))
    say(f"{len(tasks)} attack(s) on {n} records")

    singled = None

    def meanwhile():  # in this process while the attack workers run (from WORKER_MIN records)
        nonlocal singled
        rows = None
        if information_loss:
            say("information loss")
            rows = _loss_rows(pair)
        if singling_out and links_out is None:
            singled = _singled(pair, sets[0], seed, record_ids, say)
        if idle is not None:
            idle()
        return rows

    # the bounds settle linkage only: an inference from the linked record needs every attack's links
    results, loss_rows = _run_attacks(tasks, pair, perm, seed, say, prl_candidates, meanwhile, pool,
                                      bounds=attacks is None and not secret and n >= BOUND_MIN)
    results = iter(results)
    links = {}
    for r in rows:
        if r["measure"] != "ID":
            r.update(next(results))
            if LINKS in r:
                link = r.pop(LINKS)
                if secrets:
                    links[r["measure"]] = link
    rows.extend(loss_rows or [])
    criteria_asked = bool(secrets) or singling_out
    if links_out is not None:  # the criteria are the caller's (sdcrisk.assess.jobs: a release's criteria job)
        links_out.update(links)
        crit = {"rows": [], "evidence": [], "diversity": {}, "key_risk": None}
    else:
        crit = criteria_results(pair, sets, secrets, links, tolerance=tolerance, record_ids=record_ids, labels=labels,
                                singled=singled, singling_out=singling_out, seed=seed, weights=weight_values, say=say)
    rows.extend(crit["rows"])
    out = pd.DataFrame(rows).reindex(columns=COLUMNS + (CRITERION_COLUMNS if criteria_asked else []))
    out.attrs["pairing"] = pair.pairing
    out.attrs["warnings"] = warnings_out
    out.attrs["files"] = {"original": names[0], "masked": names[1]}
    out.attrs["blocking"] = _blocking(pair, sets)
    out.attrs["categorical"] = list(pair.categorical)
    out.attrs["left_out"] = left_out_reasons(attacks)  # {attack: why the default did not run it}
    out.attrs["singling_out"] = bool(singling_out)
    if criteria_asked and links_out is None:
        out.attrs["records_at_risk"] = RecordsAtRisk(_evidence(crit["evidence"]))
    out.attrs.update(criteria_attrs(crit, secrets, tolerance))
    return out


def _prepared(original, masked, *, id, names, categorical, weights, secret, known, scenarios) -> tuple:
    """The two tables checked and paired as :func:`assess` pairs them (the weight column taken
    out, :func:`_take_weights`): ``(pair, secrets, known, labels, record_ids, weights)`` with the
    category labels of the categorical secrets and the original's ids (None without ``id``)."""
    weight_values = None
    if weights is not None:
        original, masked, weight_values = _take_weights(original, masked, weights, names)
    pair = pair_files(original, masked, id, names, categorical)
    secrets, known = secret_names(pair.columns, secret, known, scenarios, names)
    labels = {c: _labels(original[c], pair.cx[:, pair.categorical.index(c)]) for c in secrets if c in pair.categorical}
    record_ids = original[id].to_numpy() if id is not None else None
    return pair, secrets, known, labels, record_ids, weight_values


def _take_weights(original: pd.DataFrame, masked: pd.DataFrame, column: str, names) -> tuple:
    """The release's sampling weights out of both files (an attribute of neither): the tables
    without the column and the weights (:class:`AssessError` naming the file where it is
    missing or not positive numbers, :func:`sdcrisk.criteria.key_risk.check_weights`)."""
    from ..criteria.key_risk import check_weights

    if column not in masked.columns:
        raise AssessError(f"weights: {names[1]} has no column {column!r}; expected the release's sampling-weight column")
    try:
        values = check_weights(masked, column)
    except ValueError as exc:
        raise AssessError(f"weights: {names[1]}: {exc}") from None
    return original.drop(columns=[column], errors="ignore"), masked.drop(columns=[column]), values


def _blocking(pair: Pair, sets: list[list[int]]) -> dict:
    """The blocks the attacks ran within: the keys the intruder knows (the unchanged categorical
    attributes among a scenario's known ones), their number of blocks and the share of records
    unique on them. Scenarios knowing different keys: the widest scenario's at the top level and
    every scenario's under ``by_scenario``."""
    def summary(cols):
        keys = [pair.columns[c] for c in cols if pair.columns[c] in pair.keys]
        if not keys:
            return {"keys": []}
        return {"keys": keys, **block_summary(block_codes(pair.cx[:, [pair.categorical.index(c) for c in keys]]))}

    each = [summary(cols) for cols in sets]
    out = dict(each[max(range(len(sets)), key=lambda k: len(sets[k]))])
    if any(e["keys"] != out["keys"] for e in each):
        out["by_scenario"] = [{"scenario": _scenario_label(cols, pair.columns), "n_known": len(cols), **e}
                              for cols, e in zip(sets, each)]
    return out






__all__ = ["assess", "AssessError", "read_file", "pair_files", "Pair", "scenarios_from", "attack_names",
           "DEFAULT_ATTACKS", "ALL_ATTACKS", "COLUMNS", "CRITERION_COLUMNS", "criterion_rows", "records_at_risk",
           "secret_names"]
