"""Synthetic releases: the release holds generated records, none of which corresponds to an
original record. The custodian gives the training originals (``ORIGINAL``, the records the
generator was fitted on) and a control set (``--control FILE``): originals of the same population
that the generator never saw. Release type ``"synthetic"``, chosen from the files (``--control``
given), stated in the report's first line and as ``release_type`` in report.json.

With no record correspondence there is nothing to link a record *to*; the question is whether the
release lets an intruder do more to the training records than to records it was not trained on.
Every attack runs twice, once with every training record as a target and once with every control
record as a target (all records, no sampling), and the risk is the **excess**: the training
targets' success rate minus the control targets' rate, with Newcombe's (1998, method 10) interval
for the difference of two independent proportions
(:func:`sdcrisk.measures.uncertainty.newcombe_difference`), the two absolute rates (Wilson
intervals) beside it. The two sets may differ in size: Newcombe's interval takes each size as it
is, and no correction is fitted (anonymeter's control correction, ``(p_train - p_control) /
(1 - p_control)``, is a ratio estimate whose interval it does not carry; Giomi et al. 2023). Under
the hypothesis that the release is independent of the training records (a sample of the same
population), a training record and a control record are exchangeable with respect to the release,
so each attack's two rates have the same expectation and the excess is centred on zero
(tests/test_synthetic_release.py checks the coverage of the 95 % interval on 200 simulations).

Attacks (:data:`COLUMNS` per row; ``criterion`` as in :mod:`sdcrisk.criteria`):

``linkability``: ``nearest record, split known attributes``
    Anonymeter's linkability (Giomi, Boenisch, Wehmeyer & Tasnádi 2023, "A unified framework for
    quantifying privacy risk in synthetic data", PoPETs 2023(2), section 4.3): the intruder holds
    the target's known attributes in two files, the first half of ``--known`` (in its order,
    ``ceil(k / 2)`` attributes) and the second half, and links each half to its nearest release
    record. Success: both halves lead to the same release record, i.e. the release lets the two
    files be joined on that record. Neighbours are exact (:class:`scipy.spatial.cKDTree`, then
    every release record at the nearest distance); where ``a`` release records tie for the first
    half and ``b`` for the second, the credit is ``|A ∩ B| / (a b)``, the probability that an
    intruder breaking both ties uniformly at random picks the same record. Distance: Euclidean on
    numeric attributes standardised by the pooled mean and standard deviation of training and
    control records, and, for a categorical attribute, its one-hot coding times ``1/sqrt(2)`` (a
    different category adds 1 to the squared distance, one standard deviation's worth). Needs
    two known attributes.
``singling out``: the attacks of :func:`sdcrisk.criteria.singling_out.singling_out`
    on the known attributes, with the training set and then the control set as the originals.
    A predicate singles out when *exactly one* original satisfies it, so its success rate depends
    on the number of originals: the larger of the two sets is split into chunks of the smaller
    one's size (a random order from ``seed``; the last chunk ends at the last record and may
    overlap the one before; at most :data:`CHUNKS` chunks), each chunk is attacked with the same
    predicates, and its rate is the mean over chunks, counted over one chunk's trials (averaging
    only narrows the spread, so the interval is conservative). The trials are the predicates that
    isolate a release record: the same for both sets.
``inference`` (``--secret``): :func:`sdcrisk.criteria.inference.infer` on training targets and on
    control targets (nearest release record on the known attributes, categorical ones in the mixed
    distance; key cell), success as there (the category, or a number within the tolerance).
Membership inference (:func:`sdcrisk.criteria.membership.membership_inference`, members the
    training records, controls the control records, on the numeric attributes): AUC with its
    interval, TPR at FPR 1 % and 0.1 %; in ``attrs["membership"]``, a table of its own (an AUC is
    not a difference of two proportions).

Bad input (:class:`sdcrisk.assess.assessment.AssessError`, exit 2, before any attack): a control
file whose attribute columns differ from the original's; a control set sharing records with the
training set, by ``--id`` (any shared id) or, without it, more than :data:`SHARED_MAX` % of the
control records identical to a training record on every attribute (fewer: a warning); with
``--id``, a release whose id column holds ids of the original (a sample or one-to-one pairing,
which a synthetic release cannot have); options that only apply to record-level releases.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..measures.uncertainty import newcombe_difference, wilson_interval

RELEASE_TYPE = "synthetic"
SHARED_MAX = 1.0  # % of control records identical to a training record beyond which the control set is refused
CHUNKS = 8  # at most this many chunks of the larger set for singling out (module docstring)
LINK_ATTACK = "nearest record, split known attributes"
COLUMNS = ["criterion", "attack", "target", "known", "n_training", "training_successes", "training_percent",
           "training_low", "training_high", "n_control", "control_successes", "control_percent", "control_low",
           "control_high", "excess", "excess_low", "excess_high", "note", "seconds"]
#: options of ``sdcrisk assess`` that concern record-level (one-to-one or sample) releases only
RECORD_OPTIONS = {"scenarios": "--scenarios", "attacks": "--attacks", "prl_candidates": "--prl-candidates",
                  "weights": "--weights"}


# ----------------------------------------------------------------------------- checks
def _columns(table: pd.DataFrame, id: str | None) -> list[str]:
    return [str(c) for c in table.columns if str(c) != id]


def check_files(original: pd.DataFrame, release: pd.DataFrame, control: pd.DataFrame, *, id: str | None = None,
                names: tuple[str, str, str] = ("original", "masked", "control")) -> list[str]:
    """The bad inputs of a synthetic assessment (module docstring), as one-line :class:`AssessError`;
    returns the warnings (a few control records identical to training records)."""
    from .pairing import AssessError, _show

    no, nm, nc = names
    original, release, control = (t.rename(columns=str) for t in (original, release, control))
    if id is not None:
        for t, name in ((original, no), (control, nc)):
            if id not in t.columns:
                raise AssessError(f"{name}: no id column {id!r} (--id); with --control the original and the control "
                                  "file both need it, to check that they share no record")
    cols = _columns(original, id)
    for t, name, what in ((control, nc, "control file"), (release, nm, "synthetic release")):
        other = _columns(t, id)
        if set(other) != set(cols):
            only_o = [c for c in cols if c not in other]
            only_t = [c for c in other if c not in cols]
            raise AssessError(f"{name}: the {what} must have the original's columns ({no}); only in {no}: "
                              f"{only_o or 'none'}; only in {name}: {only_t or 'none'}")
    for t, name in ((original, no), (control, nc), (release, nm)):
        if len(t) < 2:
            raise AssessError(f"{name}: has {len(t)} record(s); expected at least 2")
    warned = []
    if id is not None:
        ids_o = set(original[id])
        shared = control[id].isin(ids_o)
        if shared.any():
            raise AssessError(f"{nc}: {int(shared.sum())} control record(s) share an id (column {id!r}) with the "
                              f"training records of {no}, e.g. {_show(control[id][shared].iloc[0])}; the control set "
                              "must hold originals the generator was not trained on")
        if id in release.columns:
            paired = release[id].isin(ids_o)
            if paired.any():
                raise AssessError(f"{nm}: {int(paired.sum())} record(s) carry ids of {no} (column {id!r}), e.g. "
                                  f"{_show(release[id][paired].iloc[0])}: a release paired with the original's records "
                                  "(one to one or a sample) is not a synthetic release; drop --control for it, or "
                                  "the id column from the synthetic file")
    else:
        same = _identical_share(original[cols], control[cols])
        if same > SHARED_MAX:
            raise AssessError(f"{nc}: {same:.2f} % of the control records are identical to a training record of "
                              f"{no} on every attribute (at most {SHARED_MAX:g} % allowed); the control set must hold "
                              "originals the generator was not trained on (name an id column with --id to check by id)")
        if same > 0:
            warned.append(f"{same:.2f} % of the control records of {nc} are identical to a training record on every "
                          f"attribute (at most {SHARED_MAX:g} % allowed: duplicates occur in a population)")
    return warned


def _identical_share(training: pd.DataFrame, control: pd.DataFrame) -> float:
    """% of the control records equal to some training record on every column (hashes of the rows,
    each column as text so that 3 and 3.0 and "3" match)."""
    both = pd.concat([training, control[list(training.columns)]], ignore_index=True)
    text = pd.DataFrame({c: _canonical(both[c]) for c in both.columns})
    keys = pd.util.hash_pandas_object(text, index=False).to_numpy()
    return 100.0 * float(np.isin(keys[len(training):], keys[:len(training)]).mean())


def _canonical(col: pd.Series) -> pd.Series:
    """A column's values as text with numbers in one form (3, 3.0 and "3" alike)."""
    numbers = pd.to_numeric(col, errors="coerce").astype(np.float64)
    return pd.Series(np.where(numbers.notna(), numbers.map(repr), col.astype(str)), index=col.index)


def option_problem(args) -> str | None:
    """The first ``sdcrisk assess`` option that does not apply with ``--control`` (None if none)."""
    for attr, flag in RECORD_OPTIONS.items():
        if getattr(args, attr, None) not in (None, False):
            return (f"{flag}: does not apply to a synthetic release (--control); a synthetic assessment runs every "
                    "attack that applies on the --known attributes (docs/assess.md, Synthetic releases)")
    return None


# ----------------------------------------------------------------------------- encoding
def encode(frames: Sequence[pd.DataFrame], columns: Sequence[str], categorical: Sequence[str],
           scale_rows: int) -> list[np.ndarray]:
    """Each frame's ``columns`` as one numeric matrix for Euclidean distances (module docstring):
    numeric columns standardised by the mean and standard deviation over the first ``scale_rows``
    rows of the frames stacked (training and control), categorical ones one-hot times ``1/sqrt(2)``."""
    both = pd.concat([f[list(columns)] for f in frames], ignore_index=True)
    parts = []
    for c in columns:
        if c in categorical:
            code, _ = pd.factorize(both[c].astype(str))
            onehot = np.zeros((len(both), int(code.max()) + 1))
            onehot[np.arange(len(both)), code] = math.sqrt(0.5)
            parts.append(onehot)
        else:
            v = both[c].to_numpy(dtype=np.float64)
            ref = v[:scale_rows]
            sd = float(ref.std())
            parts.append(((v - float(ref.mean())) / (sd if sd > 0 else 1.0))[:, None])
    z = np.hstack(parts) if parts else np.zeros((len(both), 0))
    out, start = [], 0
    for f in frames:
        out.append(z[start:start + len(f)])
        start += len(f)
    return out


# ----------------------------------------------------------------------------- linkability
class _Nearest:
    """The release's distinct rows of one half of the known attributes, in a k-d tree, and which
    release records share each (records identical on the half are at the same distance from any
    target: the tree holds them once, and a target's nearest set is a union of such groups)."""

    def __init__(self, release: np.ndarray):
        from scipy.spatial import cKDTree

        self.rows, inv = np.unique(release, axis=0, return_inverse=True)
        self.group = np.asarray(inv, dtype=np.int64).reshape(-1)  # each release record's distinct row
        self.size = np.bincount(self.group, minlength=len(self.rows))
        self.order = np.argsort(self.group, kind="stable")
        self.start = np.concatenate([[0], np.cumsum(self.size)])
        self.tree = cKDTree(self.rows)

    def query(self, targets: np.ndarray) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        """Per target, its nearest distinct row (-1 where several distinct rows tie at the smallest
        distance) and, for those targets, the tied distinct rows (exact: the tree's nearest distance,
        then the rows within it, kept when their distance equals it)."""
        k = min(2, len(self.rows))
        d, i = self.tree.query(targets, k=k)
        d, i = d.reshape(len(targets), k), i.reshape(len(targets), k)
        nearest = i[:, 0].astype(np.int64)
        tied = {}
        for t in (np.flatnonzero(d[:, 1] <= d[:, 0] * (1 + 1e-9)) if k == 2 else ()):
            cand = np.asarray(self.tree.query_ball_point(targets[t], d[t, 0] * (1 + 1e-9) + 1e-300), dtype=np.int64)
            dist = np.sqrt(((self.rows[cand] - targets[t]) ** 2).sum(axis=1))
            tied[int(t)] = cand[dist <= dist.min() * (1 + 1e-9) + 1e-300]
            nearest[t] = -1
        return nearest, tied

    def records(self, rows: np.ndarray) -> np.ndarray:
        """The release records of the distinct ``rows``, in increasing order."""
        return np.sort(np.concatenate([self.order[self.start[r]:self.start[r + 1]] for r in rows]))


def nearest_sets(release: np.ndarray, targets: np.ndarray) -> list[np.ndarray]:
    """Per target, every release record at its smallest Euclidean distance, in increasing order
    (:class:`_Nearest`)."""
    near = _Nearest(release)
    nearest, tied = near.query(targets)
    return [near.records(tied[t] if r < 0 else np.array([r])) for t, r in enumerate(nearest)]


def linkability_credit(release_a: np.ndarray, release_b: np.ndarray, targets_a: np.ndarray,
                       targets_b: np.ndarray) -> np.ndarray:
    """Per target, the probability that its two halves (``targets_a``/``targets_b``, against the
    release's same halves) lead to the same nearest release record: ``|A ∩ B| / (|A| |B|)`` with
    ``A``, ``B`` the nearest sets (ties broken uniformly at random; module docstring).

    Where each half's nearest set is the records of one distinct row (``A`` the records equal to
    row ``a`` on the first half, ``B`` to row ``b`` on the second), ``|A ∩ B|`` is the number of
    release records equal to the pair ``(a, b)``: counted once for the release, looked up per
    target. Targets tied between distinct rows on a half get their sets intersected one by one."""
    na, nb = _Nearest(release_a), _Nearest(release_b)
    (ga, tied_a), (gb, tied_b) = na.query(targets_a), nb.query(targets_b)
    pairs, count = np.unique(na.group * len(nb.rows) + nb.group, return_counts=True)
    code = np.maximum(ga, 0) * len(nb.rows) + np.maximum(gb, 0)
    pos = np.minimum(np.searchsorted(pairs, code), len(pairs) - 1)
    both = np.where(pairs[pos] == code, count[pos], 0)
    out = both / (na.size[np.maximum(ga, 0)] * nb.size[np.maximum(gb, 0)])
    for t in set(tied_a) | set(tied_b):
        a = na.records(tied_a[t] if t in tied_a else np.array([ga[t]]))
        b = nb.records(tied_b[t] if t in tied_b else np.array([gb[t]]))
        out[t] = np.intersect1d(a, b).size / (a.size * b.size)
    return out


def halves(known: Sequence[str]) -> tuple[list[str], list[str]]:
    """The intruder's two files: the first ``ceil(k / 2)`` known attributes and the rest."""
    h = (len(known) + 1) // 2
    return list(known[:h]), list(known[h:])


# ----------------------------------------------------------------------------- rows
def _row(criterion, attack, target, known, k1, n1, k2, n2, note, seconds) -> dict:
    lo1, hi1 = wilson_interval(k1, n1)
    lo2, hi2 = wilson_interval(k2, n2)
    ex, exl, exh = newcombe_difference(k1, n1, k2, n2)
    return {"criterion": criterion, "attack": attack, "target": target, "known": ",".join(known),
            "n_training": int(n1), "training_successes": float(k1), "training_percent": 100.0 * k1 / n1,
            "training_low": lo1, "training_high": hi1, "n_control": int(n2), "control_successes": float(k2),
            "control_percent": 100.0 * k2 / n2, "control_low": lo2, "control_high": hi2, "excess": ex,
            "excess_low": exl, "excess_high": exh, "note": note, "seconds": seconds}


def _chunks(n: int, size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Chunks of ``size`` rows covering a random order of ``n`` rows (the last ends at the last row),
    at most :data:`CHUNKS` of them."""
    if n == size:
        return [np.arange(n)]
    order = rng.permutation(n)
    count = min(-(-n // size), CHUNKS)
    return [order[min(j * size, n - size):min(j * size, n - size) + size] for j in range(count)]


def _singling_out_rows(training, control, release, known, categorical, seed, predicates=1000) -> list[dict]:
    from ..criteria.singling_out import singling_out

    rng = np.random.Generator(np.random.PCG64(seed))
    size = min(len(training), len(control))
    found = {}
    for role, frame in (("training", training), ("control", control)):
        for part in _chunks(len(frame), size, rng):
            rows, _ = singling_out(frame.iloc[part][list(known)].reset_index(drop=True), release[list(known)],
                                   known, categorical=[c for c in known if c in categorical], seed=seed,
                                   predicates=predicates)
            for r in rows:
                found.setdefault(r.attack, {}).setdefault(role, []).append((r.successes, r.trials))
    out = []
    for attack, by in found.items():
        if set(by) != {"training", "control"}:
            continue
        (k1, n1), (k2, n2) = [(float(np.mean([s for s, _ in by[r]])), int(round(np.mean([t for _, t in by[r]]))))
                              for r in ("training", "control")]
        chunks = max(len(by["training"]), len(by["control"]))
        note = (f"the larger set in {chunks} chunk(s) of {size:,} records (the smaller set's size): the mean rate "
                "over chunks") if chunks > 1 else ""
        out.append(_row("singling out", attack, "", known, min(k1, n1), n1, min(k2, n2), n2, note, math.nan))
    return out


def _inference_rows(zt, zc, zr, training, control, release, secret, categorical, tolerance, known):
    from ..criteria.inference import infer

    cat = secret in categorical
    if cat:
        code, _ = pd.factorize(pd.concat([training[secret], control[secret], release[secret]],
                                         ignore_index=True).astype(str))
        st, sc, sr = code[:len(training)], code[len(training):len(training) + len(control)], \
            code[len(training) + len(control):]
    else:
        st, sc, sr = (t[secret].to_numpy(dtype=np.float64) for t in (training, control, release))
    res = {role: infer(secret, s, sr, categorical=cat, xn=z, yn=zr, tolerance=tolerance)
           for role, s, z in (("training", st, zt), ("control", sc, zc))}
    out = []
    for a, b in zip(res["training"].rows, res["control"].rows):
        note = (f"training targets' baseline ({a.baseline}) {a.baseline_percent:.1f} %, control targets' "
                f"{b.baseline_percent:.1f} %")
        out.append(_row("inference", a.attack, secret, known, a.successes, a.trials, b.successes, b.trials,
                        note, math.nan))
    return out


def _membership(training, control, release, columns, numeric, seed) -> dict:
    from ..criteria.membership import membership_inference

    cols = [c for c in columns if c in numeric]
    pooled = pd.concat([training[cols], control[cols]], ignore_index=True)
    cols = [c for c in cols if pooled[c].nunique() > 1]
    if not cols:
        return {"note": "not applicable: no numeric attribute that varies", "rows": [], "diagnostics": []}
    try:
        m = membership_inference(*(t[cols].to_numpy(dtype=np.float64) for t in (training, control, release)),
                                 seed=seed)
    except ValueError as exc:
        return {"note": f"not run: {exc}", "rows": [], "diagnostics": []}
    return {"note": f"on the numeric attributes {', '.join(cols)}", "attributes": cols,
            "rows": [r.as_dict() for r in m.rows], "diagnostics": [d.as_dict() for d in m.diagnostics]}


def assess_synthetic(original, release, control, *, id: str | None = None, known: Sequence[str] | None = None,
                     secret: str | Sequence[str] | None = None, categorical: Sequence[str] | None = None,
                     tolerance: float = 0.05, seed: int = 0, membership: bool = True, predicates: int = 1000,
                     singling_out: bool = True,
                     names: tuple[str, str, str] = ("original", "masked", "control"),
                     progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Every attack that applies to a synthetic ``release`` of the training records ``original``
    with the control records ``control`` (module docstring). DataFrames or file paths. Returns one
    row per attack with :data:`COLUMNS`; ``attrs``: ``release_type`` ("synthetic"), ``files``,
    ``sizes``, ``known``, ``halves``, ``warnings``, ``membership`` (its rows and diagnostics),
    ``records_at_risk`` (the training records the linkability attack links, credit 1). ``predicates``:
    the multivariate singling-out predicates to try (:func:`sdcrisk.criteria.singling_out.singling_out`);
    ``membership=False`` / ``singling_out=False`` leave membership inference / singling out out."""
    from .pairing import AssessError, RecordsAtRisk, read_file, secret_names
    from .categorical import split_columns

    say = progress or (lambda m: None)
    tables = []
    for t, k in ((original, 0), (release, 1), (control, 2)):
        if isinstance(t, (str, Path)):
            names = tuple(str(t) if j == k else n for j, n in enumerate(names))
            t = read_file(t)
        tables.append(t.rename(columns=str))
    training, release, control = tables
    warned = check_files(training, release, control, id=id, names=names)
    columns = _columns(training, id)
    if release is not None and id in release.columns:
        release = release.drop(columns=[id])
    if isinstance(categorical, str):
        categorical = [categorical]
    unknown = [c for c in (categorical or []) if c not in columns]
    if unknown:
        raise AssessError(f"categorical: {unknown} not among the attribute columns {columns}")
    if known is not None:
        missing = [k for k in known if k not in columns]
        if missing:
            raise AssessError(f"known: {missing[0]!r} is not an attribute of {names[0]} (attributes: {columns})")
    secrets, known = secret_names(columns, secret, known, None, names[:2])
    known = list(known) if known is not None else list(columns)
    cats = split_columns(pd.concat([training[columns], control[columns], release[columns]], ignore_index=True),
                         columns, categorical)
    for t, name in ((training, names[0]), (release, names[1]), (control, names[2])):
        for c in columns:
            if c not in cats and t[c].isna().any():
                raise AssessError(f"{name}: numeric column {c!r} has missing values; expected numbers in every record")
    numeric = [c for c in columns if c not in cats]
    nt, nc = len(training), len(control)
    say(f"synthetic release: {len(release):,} records; {nt:,} training and {nc:,} control targets")
    rows = []
    t0 = time.perf_counter()
    first, second = halves(known)
    evidence = pd.DataFrame(columns=["record", "criterion", "attack", "evidence"])
    if second:
        za = encode([training, control, release], first, cats, nt + nc)
        zb = encode([training, control, release], second, cats, nt + nc)
        ct = linkability_credit(za[2], zb[2], za[0], zb[0])
        cc = linkability_credit(za[2], zb[2], za[1], zb[1])
        note = f"halves: {', '.join(first)} | {', '.join(second)}; ties counted |A∩B|/(|A||B|)"
        rows.append(_row("linkability", LINK_ATTACK, "", known, float(ct.sum()), nt, float(cc.sum()), nc, note,
                         time.perf_counter() - t0))
        hit = np.flatnonzero(ct == 1.0)
        ids = training[id].to_numpy()[hit] if id is not None else hit + 1
        evidence = pd.DataFrame({"record": ids, "criterion": "linkability", "attack": LINK_ATTACK,
                                 "evidence": "both halves of the known attributes lead to the same release record"})
    else:
        say("linkability: needs two known attributes (one for each of the intruder's files); not run")
    t0 = time.perf_counter()
    so = _singling_out_rows(training, control, release, known, cats, seed, predicates) if singling_out else []
    for r in so:
        r["seconds"] = (time.perf_counter() - t0) / max(len(so), 1)
    rows.extend(so)
    if secrets:
        z = encode([training, control, release], known, cats, nt + nc)
        for s in secrets:
            say(f"inference of {s}")
            t0 = time.perf_counter()
            got = _inference_rows(z[0], z[1], z[2], training, control, release, s, cats, tolerance, known)
            for r in got:
                r["seconds"] = (time.perf_counter() - t0) / len(got)
            rows.extend(got)
    member = {"note": "not run", "rows": [], "diagnostics": []}
    if membership:
        say("membership inference")
        member = _membership(training, control, release, columns, numeric, seed)
    out = pd.DataFrame(rows, columns=COLUMNS)
    out.attrs.update(release_type=RELEASE_TYPE, files={"original": names[0], "masked": names[1], "control": names[2]},
                     sizes={"training": nt, "control": nc, "release": len(release)}, known=known,
                     halves=[first, second], warnings=warned, membership=member, categorical=cats,
                     records_at_risk=RecordsAtRisk(evidence), secrets=secrets, tolerance=tolerance,
                     singling_out=bool(singling_out))
    return out


def criterion_rows(table: pd.DataFrame) -> list:
    """The rows as :class:`sdcrisk.criteria.CriterionRow`: training targets as the successes, control
    targets as the baseline (so the row's ``difference`` is the table's ``excess``, training minus
    control with Newcombe's interval; the row's ``excess`` floors it at 0)."""
    from ..criteria import CriterionRow

    return [CriterionRow(criterion=r.criterion, attack=r.attack, successes=r.training_successes,
                         trials=int(r.n_training), baseline="control targets",
                         baseline_successes=r.control_successes, baseline_trials=int(r.n_control),
                         target=r.target, note=r.note) for r in table.itertuples()]


# ----------------------------------------------------------------------------- command and report
def gate(tables: list[pd.DataFrame], masked: Sequence[str], limit) -> dict:
    """The ``--max-risk`` verdict of synthetic releases: ``"fail"`` when an attack's excess
    (training minus control targets, in points) exceeds its criterion's limit (one number for
    every criterion, or ``{criterion: limit}``; a criterion not named is not gated), else
    ``"undecided"`` when a gated criterion has no row in a file (e.g. linkability with one known
    attribute: nothing vouches for it), else ``"pass"``. Membership inference reports an AUC, not
    a difference of two proportions, and is not gated. ``lines``: the verdict as printed."""
    from .report import FAIL, PASS, UNDECIDED, _exact, _limit_of, _limit_text

    failed, undecided = [], []
    criteria = list(limit) if isinstance(limit, dict) else sorted({c for t in tables for c in t.criterion})
    for t, path in zip(tables, masked):
        for criterion in criteria:
            cap = _limit_of(limit, criterion)
            rows = t[t.criterion == criterion]
            if cap is None:
                continue
            if not len(rows):
                undecided.append(f"{criterion} has no attack that applies to {path}")
            for r in rows.itertuples():
                if float(r.excess) > cap:
                    failed.append(f"{criterion}: {r.attack}" + (f" on {r.target}" if r.target else "")
                                  + f" exceeds the control targets by {r.excess:.2f} points in {path} (training "
                                  f"{r.training_percent:.1f} % against control {r.control_percent:.1f} %): above "
                                  f"--max-risk {criterion}={_exact(cap)}")
    status = FAIL if failed else UNDECIDED if undecided else PASS
    if status == PASS:
        lines = [f"every excess risk at or below --max-risk {_limit_text(limit)}"]
    else:
        lines = failed + [f"undecided: {u}" for u in undecided]
    return {"status": status, "limit": limit, "failed": failed, "undecided": undecided, "lines": lines}


def run(args, progress: Callable[[str], None]) -> int:
    """``sdcrisk assess ORIGINAL SYNTHETIC --control CONTROL``: every masked file assessed as a
    synthetic release, the summary printed, the report written (exit status; 2 for bad input)."""
    from .arguments import EXIT_GATE, EXIT_INPUT, EXIT_OK, EXIT_UNDECIDED, max_risk_limits, secrets, split
    from .report import FAIL, UNDECIDED
    from .pairing import AssessError

    problem = option_problem(args)
    if problem:
        raise AssessError(problem)
    tables = []
    for path in args.masked:
        progress(f"{path}")
        t = assess_synthetic(args.original, path, args.control, id=args.id, known=split(args.known),
                             secret=secrets(args.secret), categorical=split(args.categorical),
                             tolerance=args.tolerance_value, seed=args.seed, progress=progress,
                             singling_out=args.singling_out)
        tables.append(t)
    print(summary_text(tables, args.masked))
    for t, path in zip(tables, args.masked):
        for w in t.attrs["warnings"]:
            print(f"warning: {path}: {w}", file=__import__("sys").stderr)
    limit = max_risk_limits(args.max_risk)
    verdict = gate(tables, args.masked, limit) if limit is not None else None
    files = write_report(tables, args.masked, Path(args.out), {"original": args.original, "control": args.control,
                                                                "seed": args.seed, "command": " ".join(
                                                                    ["sdcrisk", *getattr(args, "argv", [])]),
                                                                "max_risk": limit},
                         timings=not args.no_timings, verdict=verdict)
    print("report: " + ", ".join(str(f) for f in files))
    if not files:
        return EXIT_INPUT
    if verdict is None:
        return EXIT_OK
    for line in verdict["lines"]:
        print(f"risk gate ({verdict['status']}): {line}")
    return {FAIL: EXIT_GATE, UNDECIDED: EXIT_UNDECIDED}.get(verdict["status"], EXIT_OK)


def _rate(p, lo, hi) -> str:
    return f"{p:.2f} % ({lo:.2f}-{hi:.2f})"


def summary_text(tables: list[pd.DataFrame], masked: Sequence[str]) -> str:
    """One line per file: its highest excess (training minus control, points) and the attack."""
    out = []
    for t, path in zip(tables, masked):
        if len(t):
            r = t.loc[t.excess.idxmax()]
            out.append(f"{path} (synthetic release): highest excess risk {r.excess:+.2f} points (95 % interval "
                       f"{r.excess_low:+.2f} to {r.excess_high:+.2f}), {r.criterion}, {r.attack}: training targets "
                       f"{r.training_percent:.2f} %, control targets {r.control_percent:.2f} %")
        else:
            out.append(f"{path} (synthetic release): no attack applied")
        for m in t.attrs["membership"]["rows"]:
            out.append(f"  membership, {m['attack']}: AUC {m['auc']:.3f} ({m['auc_low']:.3f}-{m['auc_high']:.3f})")
    return "\n".join(out)


def _markdown(tables, masked, meta, verdict: dict | None = None) -> list[str]:
    sizes = tables[0].attrs["sizes"]
    md = ["# Disclosure risk (synthetic release)", "",
          f"Training file: `{meta['original']}` ({sizes['training']:,} records). Control file: `{meta['control']}` "
          f"({sizes['control']:,} records). {meta.get('stamp', '')}", "",
          "Release type: synthetic (chosen from the files: --control given). No record of the release corresponds "
          "to an original record; every attack runs on every training record and on every control record as "
          "targets, and the risk is the excess: training targets' success minus control targets' success, in "
          "percentage points, with Newcombe's (1998) interval; the absolute rates (Wilson intervals) beside it "
          "(docs/assess.md, Synthetic releases).", "",
          *(["- inference: not assessed: name --secret (the attribute the intruder tries to learn; a secret is the "
             "custodian's choice)", ""] if not tables[0].attrs.get("secrets") else []),
          *(["- singling out: not assessed (--no-singling-out)", ""]
            if not tables[0].attrs.get("singling_out", True) else [])]
    if verdict is not None:
        md += [f"**Risk gate: {verdict['status']}**", "", *[f"- {line}" for line in verdict["lines"]], ""]
    for t, path in zip(tables, masked):
        md += [f"## `{path}` ({t.attrs['sizes']['release']:,} records)", "",
               *[f"**Warning:** {w}\n" for w in t.attrs["warnings"]],
               "| criterion | attack | target | training % (95 %) | control % (95 %) | excess (points) | "
               "excess 95 % interval | note |", "|---|---|---|---|---|---|---|---|"]
        for r in t.itertuples():
            md.append(f"| {r.criterion} | {r.attack} | {r.target} | "
                      f"{_rate(r.training_percent, r.training_low, r.training_high)} | "
                      f"{_rate(r.control_percent, r.control_low, r.control_high)} | {r.excess:+.2f} | "
                      f"{r.excess_low:+.2f} to {r.excess_high:+.2f} | {r.note} |")
        m = t.attrs["membership"]
        md += ["", f"Membership inference (members: training records, controls: control records; {m['note']}):", ""]
        if m["rows"]:
            md += ["| attack | AUC | 95 % interval | TPR at FPR 1 % | TPR at FPR 0.1 % |", "|---|---|---|---|---|"]
            for x in m["rows"]:
                md.append(f"| {x['attack']} | {x['auc']:.3f} | {x['auc_low']:.3f}-{x['auc_high']:.3f} | "
                          f"{x['tpr_1pct']:.3f} ({x['tpr_1pct_low']:.3f}-{x['tpr_1pct_high']:.3f}) | "
                          f"{x['tpr_01pct']:.3f} ({x['tpr_01pct_low']:.3f}-{x['tpr_01pct_high']:.3f}) |")
            md += ["", "Diagnostics only (not a risk): " + "; ".join(
                f"{d['measure']}: median {d['members_median']:.3g} (members) vs {d['controls_median']:.3g} (controls)"
                for d in m["diagnostics"]), ""]
        md.append("")
    return md


def _plain(v):
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if not math.isfinite(float(v)) else float(v)
    return v


def write_report(tables, masked, out: Path, meta: dict, *, timings: bool = True,
                 verdict: dict | None = None) -> list[Path]:
    """report.json (``release_type`` "synthetic"), report.md and report.html (its first line names
    the release type) and records_at_risk.csv, moved into ``out`` only when all are written;
    ``verdict``: :func:`gate`'s, when ``--max-risk`` was given (opens report.md, ``gate`` in report.json)."""
    from .. import __version__

    out.mkdir(parents=True, exist_ok=True)
    cols = [c for c in COLUMNS if timings or c != "seconds"]
    meta = {**meta, "stamp": f"sdcrisk {__version__}, seed {meta.get('seed', 0)}."}
    doc = {"release_type": RELEASE_TYPE, "meta": _plain(meta),
           "files": [_plain({"masked": p, **t.attrs["sizes"], "known": t.attrs["known"], "halves": t.attrs["halves"],
                             "warnings": t.attrs["warnings"], "results": t[cols].to_dict("records"),
                             "membership": t.attrs["membership"]}) for t, p in zip(tables, masked)]}
    if verdict is not None:
        doc["gate"] = _plain(verdict)
    md = _markdown(tables, masked, meta, verdict)
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>sdcrisk report</title></head>"
            "<body>\n<h1>Disclosure risk (synthetic release)</h1>\n<pre>" + html.escape("\n".join(md[2:]))
            + "</pre>\n</body></html>\n")
    records = pd.concat([t.attrs["records_at_risk"].table.assign(masked=p) for t, p in zip(tables, masked)],
                        ignore_index=True)
    from .report import write_files

    return write_files(out, doc, md, page, records)


__all__ = ["assess_synthetic", "check_files", "linkability_credit", "nearest_sets", "halves", "encode",
           "criterion_rows", "option_problem", "run", "gate", "write_report", "summary_text", "RELEASE_TYPE", "SHARED_MAX",
           "COLUMNS", "LINK_ATTACK", "CHUNKS"]
