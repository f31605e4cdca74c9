"""Singling out: release records and predicates that isolate exactly one original record.

An intruder *singles out* a person when they can tell that person's record apart from all the
others (Article 29 Working Party, opinion 05/2014 on anonymisation techniques, section 2.2).
Cohen & Nissim (2020, "Towards formalizing the GDPR's notion of singling out", PNAS 117(15))
make this precise as *predicate singling out*: the intruder outputs a predicate ``p`` over
records, and succeeds when exactly one record of the data set satisfies it. A predicate of
weight ``w`` (the probability that a record drawn from the population satisfies it) chosen
without looking at the data isolates a record among ``n`` with probability
``n w (1 - w)^(n-1)``, at most about ``1/e`` (37 %) at ``w = 1/n``: singling out is only
evidence against a release when it succeeds more often than predicates of the same kind and
weight built without the release. Three attacks, each a :class:`~.rows.CriterionRow`:

``exact (keys)``
    Release records unique on the categorical keys (numeric keys enter coarsened to the bins the
    custodian names in ``coarsen``; numeric keys without a bin width are left out of this attack)
    that match exactly one original record: *replicated uniques*. Trials are the release uniques
    (the records the intruder can try), successes the replicated ones; with the original released
    unchanged, every unique original record is singled out (100 %).
``univariate predicates``
    One attribute: ``A == v`` for every value ``v`` of a categorical key that only one release
    record holds (a rare value), ``x <= min`` and ``x >= max`` of every numeric key over the
    release when one release record holds the extreme (the univariate queries of anonymeter,
    Giomi et al. 2023, PoPETs).
``multivariate predicates``
    Conjunctions of 2 to ``max_terms`` attributes, each built from a release record drawn at
    random: ``A == r.A`` for a categorical key, ``x <= r.x`` when ``r.x`` lies at or below the
    release's median of ``x`` and ``x >= r.x`` above it (the tail towards which ``r`` is rare;
    Giomi et al. 2023). Conjunctions are drawn in batches until ``predicates`` distinct ones
    isolate a release record (at most one per record), as anonymeter keeps drawing: the draws
    stop earlier only at a cap counted in draws and in work, never in seconds, so that the
    result depends on the data and the seed alone: ``_MAX_ATTEMPTS`` draws (anonymeter's
    ``max_attempts``, 10^7), ``_COVER`` (3) times the (record, attribute subset) pairs the file
    offers (by then the draws have met ``1 - e^-3``, 95 %, of them), ``_MAX_SCANNED`` candidate
    records checked (in files of millions of records, where few random records are extreme
    enough; the row's ``note`` says when this cap stopped the draws). An original singled out by
    an earlier conjunction is not counted again: the outcomes of predicates about one record are
    one outcome, not independent trials.

Every predicate is a guess the intruder can check on the release first: it is tried (a trial)
when it isolates one release record, as the exact attack tries the release uniques (anonymeter
keeps the same queries); it succeeds when exactly one original record satisfies it. An intruder
holding the originals themselves would succeed with every trial.

Baseline: the same construction from records not in the release. The question is what the
attack would find if the release told nothing about the originals, i.e. were an independent
sample of the same population. Under that hypothesis the release is a sample of the population
unrelated to the originals, and an original record ``o`` added to it is exchangeable with a
release record: the attacks' construction applied to ``o`` within ``release + {o}`` gives a
predicate distributed as the attack's, and it singles out in the originals when exactly one
*other* original satisfies it (``o`` satisfies its own predicate). So the baseline plants
originals one at a time: a predicate built from ``o`` is a trial when it isolates ``o`` in
``release + {o}`` (no release record satisfies it) and a success when exactly one other original
satisfies it (two originals in all). For the exact attack, every original whose key does not
occur in the release; for the rare values, every original holding a categorical value absent
from the release; for the multivariate predicates, originals drawn at random as release records are for the attack, the
predicate built from each as from a release record (the release's medians choose the tails; an
"other original" already counted is not counted again). Originals sharing a key or value have
one outcome between them: the exact and rare-value baselines count them as an effective number
of independent trials, from the variance of a ratio over clusters (:func:`_effective`). An extreme (``x <= min``, ``x >= max``) has its baseline computed exactly
instead: under independence the release is a random ``m`` of the ``n + m`` pooled values, and the
probability that one release value holds the minimum and exactly one original lies at or below
it follows by counting (:func:`_extreme_baseline`; planting originals beyond the release's
extremes would give a ratio of a few small counts, biased in small files). The univariate row
weighs the rare-value rate and the extremes' probabilities as the attack's trials are weighed.
Up to the one planted record
(``m + 1`` release records, ``n - 1`` others in the originals), the baseline's success
probability equals the attack's when the release is independent of the originals, so the excess
(attack minus baseline, Newcombe's interval) is centred on zero there (tests/test_singling_out.py
checks the coverage on 200 simulated files). Where no planted original is isolated by its own
predicate (the release holds records like every original tried, e.g. keys left unchanged by the
masking), the baseline is Cohen & Nissim's trivial adversary at its best, a predicate of weight ``1/n``
that isolates with probability ``(1 - 1/n)^(n-1)``, over as many trials as the attack's, and the
row's ``note`` says so.

Evaluation never scans the table once per predicate: each attribute of either file is sorted
once (an ``argsort`` per attribute); a term ``A == v``, ``x <= t`` or ``x >= t`` is then a
contiguous slice of that order (a category's from its offsets, a tail's by binary search). A
conjunction takes its smallest slice as candidates and checks the other terms on the candidates
only, and stops as soon as three records satisfy it (singling out only needs to know whether the
count is 0, 1, 2 or more). The drawn conjunctions are counted a batch at a time by one compiled
loop (:mod:`.conjunctions`, numba), the counts exact. Column names are used as data, never
parsed, so any name works.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .conjunctions import count_many as _count_many
from .conjunctions import tables as _tables
from .conjunctions import terms_of as _terms_of
from .rows import SINGLING_OUT, CriterionRow

EXACT = "exact (keys)"
UNIVARIATE = "univariate predicates"
MULTIVARIATE = "multivariate predicates"
PLANTED = "same construction from originals planted in the release"
EXTREMES = "planted originals (rare values); an independent release's probability (extremes)"
TRIVIAL = "trivial predicate of weight 1/n (Cohen & Nissim 2020)"
EVIDENCE_COLUMNS = ["record", "criterion", "attack", "evidence"]

_EQ, _LE, _GE = 0, 1, 2
_OPS = {_EQ: "==", _LE: "<=", _GE: ">="}
_FIRST_BATCH, _MAX_BATCH = 1024, 1 << 16  # conjunctions drawn and counted together
_MAX_ATTEMPTS = 10_000_000  # conjunctions drawn, at most (anonymeter's max_attempts)
_COVER = 3  # conjunctions drawn per (record, attribute subset) pair the file offers, at most
_MAX_SCANNED = 200_000_000  # candidate records checked while drawing, at most (the work in large files)
_FIRST_CHUNK = 4096
_MAX_CHUNK = 1 << 20


def _is_numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def _check(original, release, keys, categorical, coarsen, predicates, min_terms, max_terms):
    for name, frame in (("original", original), ("release", release)):
        if not isinstance(frame, pd.DataFrame):
            raise ValueError(f"{name}: expected a pandas DataFrame, got {type(frame).__name__}")
        if len(frame) == 0:
            raise ValueError(f"{name}: has no records")
    if isinstance(keys, str) or not isinstance(keys, (Sequence, pd.Index, np.ndarray)) or len(keys) == 0:
        raise ValueError(f"keys: expected a non-empty list of column names, got {keys!r}")
    keys = list(keys)
    if len(set(keys)) != len(keys):
        raise ValueError(f"keys: a column is named twice in {keys!r}")
    for k in keys:
        for name, frame in (("original", original), ("release", release)):
            if k not in frame.columns:
                raise ValueError(f"keys: column {k!r} is not in the {name}")
    categorical = list(categorical or [])
    for c in categorical:
        if c not in keys:
            raise ValueError(f"categorical: column {c!r} is not one of the keys")
    coarsen = dict(coarsen or {})
    if not isinstance(coarsen, Mapping):
        raise ValueError(f"coarsen: expected a mapping of key column to bin width, got {coarsen!r}")
    for c, w in coarsen.items():
        if c not in keys:
            raise ValueError(f"coarsen: column {c!r} is not one of the keys")
        if c in categorical or not (_is_numeric(original[c]) and _is_numeric(release[c])):
            raise ValueError(f"coarsen: column {c!r} is not numeric in both files")
        if isinstance(w, bool) or not isinstance(w, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(w)) or float(w) <= 0:
            raise ValueError(f"coarsen: width for {c!r} must be a finite number > 0, got {w!r}")
    for what, v, lo, hi in (("predicates", predicates, 1, None), ("max_terms", max_terms, 1, 4)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo or (hi is not None and v > hi):
            expected = f"a whole number >= {lo}" if hi is None else f"a whole number from {lo} to {hi}"
            raise ValueError(f"{what}: expected {expected}, got {v!r}")
    if max_terms >= 2 and (isinstance(min_terms, bool) or not isinstance(min_terms, (int, np.integer))
                           or not 2 <= min_terms <= max_terms):
        raise ValueError(f"min_terms: expected a whole number from 2 to max_terms={max_terms}, got {min_terms!r}")
    return keys, categorical, coarsen


class _Attribute:
    """One key attribute of both files: codes (categorical) or float64 values (numeric), and the
    originals' sorted order for slice lookups."""

    def __init__(self, name: str, o: pd.Series, r: pd.Series, numeric: bool):
        self.name, self.numeric = name, numeric
        if numeric:
            self.o = o.to_numpy(dtype=np.float64, na_value=np.nan)
            self.r = r.to_numpy(dtype=np.float64, na_value=np.nan)
            for what, v in (("original", self.o), ("release", self.r)):
                if np.isnan(v).any():
                    raise ValueError(f"keys: numeric column {name!r} has missing values in the {what}")
            self.labels = None
        elif pd.api.types.is_integer_dtype(o.dtype) and pd.api.types.is_integer_dtype(r.dtype) \
                and not isinstance(o.dtype, pd.api.extensions.ExtensionDtype) \
                and not isinstance(r.dtype, pd.api.extensions.ExtensionDtype):
            # integer codes: shifted to start at 0, no hashing (the labels are the integers)
            ov, rv = o.to_numpy(), r.to_numpy()
            lo = min(int(ov.min()), int(rv.min()))
            hi = max(int(ov.max()), int(rv.max()))
            if hi - lo < 2**20:
                if lo == 0 and (ov.dtype.kind, rv.dtype.kind) == ("i", "i"):
                    self.o, self.r = ov, rv  # already codes from 0: used as they are, no copy
                else:
                    self.o, self.r = np.subtract(ov, lo, dtype=np.int64), np.subtract(rv, lo, dtype=np.int64)
                self.labels = np.arange(lo, hi + 1)
            else:
                self._factorize(o, r)
        else:
            self._factorize(o, r)
        self._index = {}

    def _factorize(self, o: pd.Series, r: pd.Series):
        codes, self.labels = pd.factorize(pd.concat([o, r], ignore_index=True), use_na_sentinel=False)
        codes = codes.astype(np.int64, copy=False)
        self.o, self.r = codes[:len(o)], codes[len(o):]

    def index(self, side: str):
        """``(order, sorted values)`` of the originals (``side="o"``) or the release (``"r"``)."""
        if side not in self._index:
            v = self.o if side == "o" else self.r
            if not self.numeric and len(self.labels) < 2**15:
                order = np.argsort(v.astype(np.int16), kind="stable")  # a radix sort on small codes
            else:
                order = np.argsort(v)
            order = order.astype(np.int32 if v.size < 2**31 else np.int64)
            self._index[side] = (order, v[order])
        return self._index[side]

    def slice(self, side: str, op: int, value):
        _, s = self.index(side)
        if op == _EQ:
            return int(s.searchsorted(value, "left")), int(s.searchsorted(value, "right"))
        if op == _LE:
            return 0, int(s.searchsorted(value, "right"))
        return int(s.searchsorted(value, "left")), s.size

    def render(self, value) -> str:
        if self.numeric:
            return format(float(value), ".10g")
        label = self.labels[int(value)]
        return repr(label.item() if isinstance(label, np.generic) else label)


def _quote(name) -> str:
    return "`" + str(name).replace("`", "``") + "`"


def _text(attrs, terms) -> str:
    return " and ".join(f"{_quote(attrs[j].name)} {_OPS[op]} {attrs[j].render(v)}" for j, op, v in terms)


def _count(attrs, terms, side: str = "o", limit: int = 3):
    """Records of the originals (``side="o"``) or the release (``"r"``) satisfying every term, up
    to ``limit``: ``(count capped at limit, their rows)``.

    The smallest term slice gives the candidates; the other terms are checked on them in chunks
    of growing size, stopping once ``limit`` records satisfy the conjunction."""
    slices = [attrs[j].slice(side, op, v) for j, op, v in terms]
    d = min(range(len(terms)), key=lambda i: slices[i][1] - slices[i][0])
    lo, hi = slices[d]
    if hi <= lo:
        return 0, np.empty(0, dtype=np.int64)
    order, _ = attrs[terms[d][0]].index(side)
    others = [t for i, t in enumerate(terms) if i != d]
    found, start, chunk = [], lo, _FIRST_CHUNK
    total = 0
    while start < hi and total < limit:
        ids = order[start:min(hi, start + chunk)]
        start += ids.size
        chunk = min(chunk * 4, _MAX_CHUNK)
        for j, op, v in others:
            x = (attrs[j].o if side == "o" else attrs[j].r)[ids]
            ids = ids[x == v] if op == _EQ else ids[x <= v] if op == _LE else ids[x >= v]
            if ids.size == 0:
                break
        if ids.size:
            found.append(ids[:limit - total])
            total += ids.size
    rows = np.concatenate(found).astype(np.int64) if found else np.empty(0, dtype=np.int64)
    return min(total, limit), rows


def _trivial_successes(n: int, trials: int) -> float:
    """Expected successes of ``trials`` predicates of weight ``1/n`` (Cohen & Nissim 2020)."""
    p = 1.0 if n == 1 else (1.0 - 1.0 / n) ** (n - 1)
    return trials * p


def _effective(sizes: np.ndarray) -> tuple[float, int]:
    """The planted-original baseline in effective trials.

    Originals sharing a key (or value) are planted together and have one outcome between them:
    a cluster of ``c`` originals succeeds when ``c == 2`` (each then singles out the other) and
    fails otherwise, so the baseline rate ``p = sum(c [c == 2]) / sum(c)`` is a ratio over
    clusters. Its variance is the ratio estimator's over clusters, ``sum(c^2 (y - p)^2) /
    sum(c)^2`` with ``y`` the cluster's outcome (the linearised variance of a ratio estimate over
    clusters; Cochran 1977, *Sampling Techniques*, ch. 6), and the effective number of independent
    trials is the ``n_eff`` with ``p (1 - p) / n_eff`` equal to it. Kish's (1965, *Survey Sampling*) design
    effect for unequal cluster sizes alone, ``sum(c)^2 / sum(c^2)``, ignores that the outcome itself depends
    on the size (every success is a cluster of 2), and its interval covered 0 in 91 % of 200
    independent releases at 10^4 records (benchmarks/results/criteria_calibration.md); it is kept
    where the ratio variance is undefined (``p`` 0 or 1). Returns ``(successes, trials)``
    in effective trials (rounded, from 1 to the number of originals planted), the rate unchanged.
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    total = float(sizes.sum())
    if total == 0:
        return 0.0, 0
    won = sizes == 2
    successes = float(sizes[won].sum())
    p = successes / total
    squares = sizes * sizes
    if 0.0 < p < 1.0:
        spread = (1.0 - p) ** 2 * float(squares[won].sum()) + p * p * float(squares[~won].sum())
        eff = p * (1.0 - p) * total * total / spread
    else:
        eff = total * total / float(squares.sum())
    eff = int(min(total, max(1, round(eff))))
    return successes * eff / total, eff


def _row(attack, successes, trials, b_successes, b_trials, n, note=""):
    if trials < 1:
        return None
    baseline = PLANTED
    if b_trials < 1:
        baseline, b_trials = TRIVIAL, trials
        b_successes = _trivial_successes(n, trials)
        extra = "no original planted in the release was isolated there by its own predicate (the release " \
                "holds records like every original tried); baseline: the trivial adversary's best"
        note = f"{note}; {extra}" if note else extra
    return CriterionRow(criterion=SINGLING_OUT, attack=attack, successes=float(successes), trials=int(trials),
                        baseline=baseline, baseline_successes=float(b_successes), baseline_trials=int(b_trials),
                        note=note)


_DENSE = 2**27  # combined keys counted in an array of that many cells at most (1 GiB of counts)


def _combine(codes_o: list[np.ndarray], codes_r: list[np.ndarray]):
    """One code per record for the combination of several code columns (joint over both files):
    ``(codes of the originals, codes of the release, number of codes)``. The mixed-radix number
    of the codes when the product of the cardinalities is small enough to count in an array
    (``_DENSE`` cells, at most 8 per record), otherwise those numbers renumbered (``pd.factorize``,
    a hash table, whenever the product would pass 2^62 and at the end)."""
    n, m = codes_o[0].size, codes_r[0].size
    ko, kr = np.zeros(n, dtype=np.int64), np.zeros(m, dtype=np.int64)
    card = 1
    for co, cr in zip(codes_o, codes_r):
        k = max(int(co.max()) if co.size else 0, int(cr.max()) if cr.size else 0) + 1
        if card * k >= 2**62:
            key, uniques = pd.factorize(np.concatenate([ko, kr]))
            ko, kr, card = key[:n].astype(np.int64), key[n:].astype(np.int64), len(uniques)
        ko *= k
        ko += co
        kr *= k
        kr += cr
        card *= k
    if card <= min(_DENSE, 8 * (n + m)):
        return ko, kr, card
    key, uniques = pd.factorize(np.concatenate([ko, kr]))
    return key[:n], key[n:], len(uniques)


def _exact(original, release, keys, cat, coarsen, n):
    parts_o, parts_r, describe = [], [], []
    for k in keys:
        if k in coarsen:
            w = float(coarsen[k])
            bo = np.floor(original[k].to_numpy(dtype=np.float64) / w)
            br = np.floor(release[k].to_numpy(dtype=np.float64) / w)
            both = np.concatenate([bo, br])
            if np.isnan(both).any():
                raise ValueError(f"coarsen: column {k!r} has missing values")
            codes, uniq = pd.factorize(both)
            parts_o.append(codes[:n].astype(np.int64))
            parts_r.append(codes[n:].astype(np.int64))
            describe.append((k, "bin", w, uniq))
        elif k in cat:
            a = cat[k]
            parts_o.append(a.o)
            parts_r.append(a.r)
            describe.append((k, "value", None, a))
    if not parts_o:
        return None, None
    ko, kr, size = _combine(parts_o, parts_r)
    co = np.bincount(ko, minlength=size)
    cr = np.bincount(kr, minlength=size)
    release_unique = cr[kr] == 1
    trials = int(release_unique.sum())
    replicated = release_unique & (co[kr] == 1)
    successes = int(replicated.sum())
    absent = cr == 0  # keys of the originals the release lacks: each original holding one is planted
    sizes = co[absent]
    b_succ, b_trials = _effective(sizes)
    row = _row(EXACT, successes, trials, b_succ, b_trials, n,
               note=f"keys: {', '.join(map(str, (d[0] for d in describe)))}")
    records = np.flatnonzero((co[ko] == 1) & (cr[ko] == 1))
    # the evidence: the words written once per category (the first key's with the sentence's
    # start, the last key's with its end), then joined per record by numpy's element-wise string
    # concatenation of object arrays (millions of records at scale)
    text = None
    last = len(describe) - 1
    for j, (k, kind, w, extra) in enumerate(describe):
        if kind == "bin":
            words = [f"{_quote(k)} in [{format(b * w, '.10g')}, {format((b + 1) * w, '.10g')})" for b in extra]
        else:
            words = [f"{_quote(k)} == {extra.render(c)}" for c in range(len(extra.labels))]
        head = "the only record with " if j == 0 else " and "
        tail = " in the original and in the release" if j == last else ""
        words = np.asarray([head + x + tail for x in words], dtype=object)[parts_o[j][records]]
        text = words if text is None else text + words
    frame = pd.DataFrame({"record": records.astype(np.int64), "attack": EXACT, "evidence": text})
    return row, frame


def singling_out(original: pd.DataFrame, release: pd.DataFrame, keys: Sequence[str], *,
                 categorical: Sequence[str] | None = None, coarsen: Mapping[str, float] | None = None,
                 predicates: int = 1000, min_terms: int = 2, max_terms: int = 4,
                 seed: int | np.random.Generator) -> tuple[list[CriterionRow], pd.DataFrame]:
    """Singling-out attacks of ``release`` against ``original`` on the intruder's ``keys``.

    Parameters
    ----------
    original, release
        The original records (the targets) and the released ones; every key column in both.
    keys
        The attributes the intruder knows. Numeric columns are numeric keys (tail predicates),
        others, and those named in ``categorical``, categorical ones (equality).
    coarsen
        Bin width per numeric key: the exact attack uses the key coarsened to
        ``floor(x / width)`` (a width > 0).
    predicates
        Number of multivariate conjunctions that isolate a release record to try (drawn until
        found or a cap of draws and work is reached, see the module's docstring; as many for the
        baseline); >= 1.
    min_terms, max_terms
        Terms per conjunction, drawn uniformly in ``min_terms..max_terms`` (``2 <= min_terms``,
        ``max_terms`` from 1 to 4; 1 keeps the univariate predicates only).
    seed
        Seed or ``numpy.random.Generator`` for the records and attributes drawn.

    Returns
    -------
    rows, evidence
        One :class:`~.rows.CriterionRow` per attack that had something to try (``exact (keys)``,
        ``univariate predicates``, ``multivariate predicates``), and one row per original record
        singled out per attack: ``record`` (its position in ``original``), ``criterion``,
        ``attack``, ``evidence`` (the predicate, readable; the shortest when several did).

    Raises ``ValueError`` (one line naming the field) for keys missing from a file, a bin width
    <= 0, ``predicates < 1``, ``max_terms`` outside 1..4, a numeric key with missing values.
    """
    keys, categorical, coarsen = _check(original, release, keys, categorical, coarsen,
                                        predicates, min_terms, max_terms)
    rng = np.random.default_rng(seed)
    n, m = len(original), len(release)
    attrs = [_Attribute(k, original[k], release[k],
                        numeric=k not in categorical and _is_numeric(original[k]) and _is_numeric(release[k]))
             for k in keys]
    cat = {a.name: a for a in attrs if not a.numeric}
    rows: list[CriterionRow] = []
    evidence: list[tuple[int, str, str]] = []

    exact_row, exact_evidence = _exact(original, release, keys, cat, coarsen, n)
    if exact_row is not None:
        rows.append(exact_row)

    # univariate: rare categorical values and numeric extremes of the release (attack); the
    # baseline of a rare value plants originals whose value the release lacks, that of an extreme
    # is its probability under a random split of the pooled values (_extreme_baseline)
    cat_succ = cat_trials = 0
    planted_sizes = []
    num_succ = num_trials = 0
    num_base = 0.0
    u_found: dict[int, list[str]] = {}
    for j, a in enumerate(attrs):
        if a.numeric:
            _, so = a.index("o")
            _, sr = a.index("r")
            sides = []
            if sr.size < 2 or sr[1] > sr[0]:
                sides.append(([(j, _LE, sr[0])], _extreme_baseline(so, sr)))
            if sr.size < 2 or sr[-2] < sr[-1]:
                sides.append(([(j, _GE, sr[-1])], _extreme_baseline(-so[::-1], -sr[::-1])))
            for terms, p in sides:
                num_trials += 1
                num_base += p
                c, ids = _count(attrs, terms)
                if c == 1:
                    num_succ += 1
                    u_found.setdefault(int(ids[0]), []).append(_text(attrs, terms))
        else:
            cr = np.bincount(a.r, minlength=len(a.labels))
            co = np.bincount(a.o, minlength=len(a.labels))
            rare = np.flatnonzero(cr == 1)
            cat_trials += rare.size
            for v in rare[co[rare] == 1]:
                cat_succ += 1
                u_found.setdefault(int(np.flatnonzero(a.o == v)[0]), []).append(_text(attrs, [(j, _EQ, v)]))
            c = co[(cr == 0) & (co > 0)]  # values the release lacks: each original holding one is planted
            planted_sizes.append(c)
    row = _univariate_row(cat_succ, cat_trials, np.concatenate(planted_sizes or [np.empty(0)]), num_succ,
                          num_trials, num_base, n)
    if row is not None:
        rows.append(row)
    evidence += _predicate_evidence(u_found, UNIVARIATE)

    # multivariate: conjunctions from random release records that isolate their record in the
    # release (attack); from random originals that no release record satisfies (baseline)
    if max_terms >= 2 and len(attrs) >= 2:
        top = min(max_terms, len(attrs))
        low = min(min_terms, top)
        medians = [float(np.median(a.r)) if a.numeric else None for a in attrs]

        k = len(attrs)
        # the attribute subsets of each size, listed once: a subset of a drawn size is one index
        subsets_of = {t: np.array(list(itertools.combinations(range(k), t)), dtype=np.int64).reshape(-1, t)
                      for t in range(low, top + 1)}
        space = sum(len(c) for c in subsets_of.values())
        numeric = np.array([a.numeric for a in attrs])
        medians_ = np.array([np.nan if med is None else med for med in medians])

        def draw(values, size, keep_count, side_limit):
            """Conjunctions built from random records of ``values`` (a file's key values, record
            by record; a term count, then a subset of
            the attributes of that size, uniformly), at most one kept per record, a conjunction
            kept once (when its count in the release, up to ``side_limit``, is ``keep_count``),
            drawn in batches until ``predicates`` are kept or the cap is reached: at most
            ``_MAX_ATTEMPTS`` (anonymeter's default) and ``_COVER`` times as many as the records
            and attribute subsets (the draws then have met nearly every conjunction the file
            offers, ``1 - exp(-_COVER)`` of them). The cap counts draws, not seconds: the result
            depends on the data and the seed alone."""
            sources, kept_terms = set(), set()
            kept = []  # (terms, record)
            last = 0
            cap = min(_MAX_ATTEMPTS, _COVER * size * space)
            attempts = 0
            batch = _FIRST_BATCH
            scanned = 0
            while attempts < cap and scanned < _MAX_SCANNED and len(kept) < predicates:
                b = min(batch, cap - attempts)
                attempts += b
                records = rng.integers(size, size=b)
                sizes = rng.integers(low, top + 1, size=b)
                pick = rng.random(b)
                J = np.full((b, top), -1, dtype=np.int64)
                for t, combos in subsets_of.items():
                    rows_t = np.flatnonzero(sizes == t)
                    J[rows_t, :t] = combos[(pick[rows_t] * len(combos)).astype(np.int64)]
                used = J >= 0
                Jc = np.where(used, J, 0)
                V = np.where(used, values[records[:, None], Jc], 0.0) + 0.0  # -0.0 and 0.0: one predicate
                OP = np.where(used & numeric[Jc], np.where(V <= medians_[Jc], _LE, _GE), _EQ)
                c, _, work = _count_many(attrs, J, OP, V, "r", side_limit)
                scanned += work
                for i in np.flatnonzero(c == keep_count).tolist():
                    if len(kept) == predicates:
                        break
                    last = attempts - b + i + 1  # the draws up to this one
                    r = int(records[i])
                    if r in sources:
                        continue
                    terms = _terms_of(J[i], OP[i], V[i], attrs)
                    if terms in kept_terms:  # the same conjunction from another record
                        continue
                    sources.add(r)
                    kept_terms.add(terms)
                    kept.append((terms, r))
                # the next batch: about as many as the rate so far needs, between the first size and
                # the largest (double the last while none is kept)
                need = (predicates - len(kept)) * attempts // len(kept) + 1 if kept else 2 * b
                batch = int(min(max(need, _FIRST_BATCH), _MAX_BATCH))
            return kept, (last if len(kept) == predicates else attempts), scanned

        def outcomes(kept):
            """Counts (up to 3) and records of the kept conjunctions in the originals."""
            if not kept:
                return np.empty(0, dtype=np.int64), np.empty((0, 3), dtype=np.int64)
            top_ = max(len(t) for t, _ in kept)
            J = np.full((len(kept), top_), -1, dtype=np.int64)
            OP = np.zeros((len(kept), top_), dtype=np.int64)
            V = np.zeros((len(kept), top_), dtype=np.float64)
            for i, (terms, _) in enumerate(kept):
                for t, (j, op, v) in enumerate(terms):
                    J[i, t], OP[i, t], V[i, t] = j, op, v
            c, ids, _ = _count_many(attrs, J, OP, V, "o", 3)
            return c, ids

        # attack: conjunctions that isolate their record in the release; baseline: conjunctions
        # from originals that no release record satisfies (they isolate o in release + {o})
        tried, drawn, scanned = draw(_tables(attrs, "r")[0], m, 1, 2)
        # an original singled out by an earlier conjunction is not counted again (its predicates'
        # outcomes are one, not independent trials); the baseline likewise for the other original
        m_succ = m_trials = 0
        m_found: dict[int, list[str]] = {}
        counts, found = outcomes(tried)
        for (terms, _), c, ids in zip(tried, counts.tolist(), found):
            if c == 1 and int(ids[0]) in m_found:
                m_found[int(ids[0])].append(_text(attrs, terms))
                continue
            m_trials += 1
            if c == 1:
                m_succ += 1
                m_found[int(ids[0])] = [_text(attrs, terms)]
        planted, planted_drawn, planted_scanned = draw(_tables(attrs, "o")[0], n, 0, 1)
        mb_succ = mb_trials = 0
        others = set()
        counts, found = outcomes(planted)
        for (terms, o), c, ids in zip(planted, counts.tolist(), found):
            ids = ids[:c]
            other = int(ids[ids != o][0]) if c == 2 else -1
            if other in others:
                continue
            mb_trials += 1
            if c == 2:
                mb_succ += 1
                others.add(other)
        row = _row(MULTIVARIATE, m_succ, m_trials, mb_succ, mb_trials, n,
                   note=f"{len(tried)} of {drawn} conjunctions of {low} to {top} terms drawn from "
                        f"release records isolate a release record; baseline: {len(planted)} of {planted_drawn} "
                        f"drawn from originals are satisfied by no release record"
                        + "".join(f"; the {what} draws stopped at {_MAX_SCANNED:,} candidate records checked"
                                  for what, work in (("attack's", scanned), ("baseline's", planted_scanned))
                                  if work >= _MAX_SCANNED))
        if row is not None:
            rows.append(row)
        evidence += _predicate_evidence(m_found, MULTIVARIATE)

    # ordered by record, then attack: the attacks' frames in the order of their names (EXACT's
    # sorts first), then a stable sort by record alone (the exact attack's records already sorted)
    frames = [pd.DataFrame([e for e in evidence if e[1] == attack], columns=["record", "attack", "evidence"])
              for attack in sorted({e[1] for e in evidence})]
    if exact_evidence is not None:
        frames.insert(0, exact_evidence)
    frames = [f for f in frames if len(f)] or [pd.DataFrame(columns=["record", "attack", "evidence"])]
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    record = frame["record"].to_numpy(dtype=np.int64)
    order = np.argsort(record, kind="stable")
    out = pd.DataFrame({"record": record[order], "criterion": SINGLING_OUT,
                        "attack": frame["attack"].to_numpy(dtype=object)[order],
                        "evidence": frame["evidence"].to_numpy(dtype=object)[order]})
    return rows, out[EVIDENCE_COLUMNS]


def _extreme_baseline(so: np.ndarray, sr: np.ndarray) -> float:
    """Probability that ``x <= min(release)`` isolates one original when the release is
    independent of the originals, given that one release record holds the minimum.

    Under independence (the same population) the ``n + m`` pooled values are exchangeable: the
    release is a random ``m`` of them. Walking up the distinct pooled values (counts ``c_t``, ``S``
    values below level ``t``): the release's minimum is a single record at level ``t`` when every
    value below is an original and exactly one of the ``c_t`` at level ``t`` is a release value;
    it isolates one original when ``S + c_t - 1 = 1``. ``so``, ``sr``: the sorted values."""
    from scipy.special import gammaln

    def log_comb(a, b):
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            out = gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)
        return np.where((b < 0) | (b > a), -np.inf, out)

    n, m = so.size, sr.size
    big = n + m
    take = min(big, 64 + 64 * max(1, n // max(m, 1)))
    while True:
        low = np.sort(np.concatenate([so[:take], sr[:take]]))[:take]
        _, counts = np.unique(low, return_counts=True)
        if take < big:
            counts = counts[:-1]  # the last level may go on beyond the values taken
        below = np.concatenate([[0], np.cumsum(counts)[:-1]])
        # splits with the levels below all originals, one release value at this level, the
        # other m - 1 release values above it: c * C(N - S - c, m - 1) of C(N, m)
        log_kept = np.log(counts) + log_comb(big - below - counts, m - 1)
        tail = log_comb(big - int(counts.sum()), m) - log_comb(big, m)  # all values taken are originals
        if take >= big or tail < np.log(1e-17):
            break
        take = min(big, 4 * take)
    if not np.isfinite(log_kept).any():
        return 0.0
    top = log_kept[np.isfinite(log_kept)].max()
    weights = np.exp(log_kept - top)
    return float(weights[below + counts - 1 == 1].sum() / weights.sum())


def _univariate_row(cat_succ, cat_trials, planted_sizes, num_succ, num_trials, num_base, n):
    """The univariate row: rare values and extremes together, the baseline weighted as the
    attack's trials are (its rare-value rate over as many trials as the attack's rare values,
    each extreme's probability beside the extreme)."""
    trials = cat_trials + num_trials
    if trials < 1:
        return None
    note, base = [], float(num_base)
    eff_succ, eff_trials = _effective(planted_sizes)
    if cat_trials:
        if eff_trials:
            base += cat_trials * eff_succ / eff_trials
        else:
            base += _trivial_successes(n, cat_trials)
            note.append("rare values: no original holds a value the release lacks; their baseline is the "
                        "trivial adversary's best (a predicate of weight 1/n)")
    b_trials = (eff_trials if cat_trials else 0) + num_trials
    if b_trials < 1:
        b_trials = trials
    return CriterionRow(criterion=SINGLING_OUT, attack=UNIVARIATE, successes=float(cat_succ + num_succ),
                        trials=int(trials), baseline=EXTREMES, baseline_successes=base / trials * b_trials,
                        baseline_trials=int(b_trials), note="; ".join(note))


def _predicate_evidence(found: dict[int, list[str]], attack: str):
    out = []
    for record, texts in found.items():
        best = min(texts, key=lambda t: (len(t), t))
        more = f" (and {len(texts) - 1} other predicates)" if len(texts) > 1 else ""
        out.append((record, attack, f"the only original record with {best}{more}"))
    return out


__all__ = ["singling_out", "EXACT", "UNIVARIATE", "MULTIVARIATE", "PLANTED", "EXTREMES", "TRIVIAL",
           "EVIDENCE_COLUMNS"]
