"""Membership inference: does a synthetic release reveal that a record was in its training set?

A custodian who generated a release from *members* (the training originals) and holds back
*controls* (originals from the same population not used for training) asks whether an intruder
who holds a record can tell from the release that it was a member. Every member and every control
is scored (all records, no sampling), a higher score meaning "more likely a member"; the scores
of the two groups are compared as a two-sample classification problem.

Files. All three are numeric arrays with the same columns. They are standardised by the pooled
mean and standard deviation (``ddof=0``) of members and controls together: one scale for all
three, fixed by the records being scored and not by the release (a release that shrinks or
inflates a column keeps that distortion on the common scale). A column constant over members and
controls carries no information and is refused, as are NaN or infinite values, files of fewer
than 2 records and fewer than ``k + 2`` controls (the density attack's leave-one-out and jackknife).

Attacks (distances are Euclidean on the standardised columns; the ``k`` nearest neighbours come
from the project's exact k-d tree, :meth:`sdcrisk.linkage.neighbours.KDTree.knn`, so no pair is
approximated and the result equals a brute-force search):

* **distance to the closest release record** (``DCR_ATTACK``): score ``-d_1(x, R)``, members of an
  overfitted generator lie closer to some release record than controls do;
* **density ratio** (``DENSITY_ATTACK``), in the spirit of DOMIAS (van Breugel, Sun, Qian &
  van der Schaar 2023, "Membership inference attacks against synthetic data through overfitting
  detection", AISTATS): the release's density over the population's (the controls') density at
  the record, a generator that memorises raising the first around members only. Both densities
  are k-nearest-neighbour estimates (Loftsgaarden & Quesenberry 1965): a ball of radius ``r_k``
  (the k-th neighbour's distance) around ``x`` holds a probability mass whose logarithm has
  expectation ``psi(k) - psi(n + 1)`` for ``n`` reference records drawn independently of ``x``
  (the mass of the ball to the k-th of ``n`` uniform order statistics is Beta(k, n - k + 1)), so
  ``log p_hat(x) = psi(k) - psi(n + 1) - log V_d - d log r_k`` and the score is::

      log p_hat_R(x) - log p_hat_C(x) = d (log r_k(x, C) - log r_k(x, R)) + psi(n_C' + 1) - psi(n_R + 1)

  (``psi`` the digamma function, ``psi(n + 1) = log n + O(1/n)``, i.e. the log ratio of the two
  file sizes). **Leave-one-out**: a control scored against the control set would find itself at
  distance 0, so its own row is left out: its ``r_k(x, C)`` is the (k+1)-th smallest distance to
  the controls (its own distance, 0, is always among the smallest) and its reference size is
  ``n_C' = n_C - 1``; a member's is ``n_C' = n_C``. Member and control are then both scored
  against controls that do not include them, each with the expected log mass of its own reference
  size, which treats the two groups alike (an exchangeable pair when the release is independent of
  both). A distance of exactly 0 (a record copied into the release, or duplicated among the
  controls) is floored at the smallest normal double, so that the score stays finite and an exact
  copy ranks above any positive distance. The default ``k = 1`` reads the densities at the scale
  of single records: with the members plus 1 % noise as the release the attack's AUC is 1.00 at
  ``k = 1`` and 0.68 / 0.64 at ``k = 2`` / ``3`` (500 members, 300 controls, 6 columns), the k-th
  release neighbour then lying beyond the copied record.

Measures, per attack (:class:`MembershipRow`):

* **AUC**, the Mann-Whitney probability that a member scores above a control, ties counted half
  (from the midranks of ``scipy.stats.rankdata``). Distance attack: DeLong, DeLong &
  Clarke-Pearson's (1988) interval, the variance ``S10 / n_1 + S01 / n_0`` of the structural
  components computed from ranks in O(n log n) (Sun & Xu 2014); given the release, member and
  control scores are two independent samples, as DeLong assumes. Density attack: the controls are
  scored *and* the reference of every score (mutual nearest controls share their distance), so
  DeLong's variance is too small (its interval covered 0.5 in 91 % of 1,000 simulations of an
  independent release); :func:`density_jackknife` gives the delete-one jackknife over both
  samples instead, exact in one pass over the neighbour lists, conservative in expectation
  (Efron & Stein 1981; its standard error was 1.3 and 1.4 times the spread of the AUC over
  simulations at 300 and 3,000 records per group). Both intervals
  are normal intervals clipped to [0, 1];
* **TPR at FPR 1 % and 0.1 %**, the metric of the MIDST challenge (IEEE SaTML 2025): the largest
  share of members classified as members by a threshold rule ``score > t`` that classifies at most
  ``floor(alpha n_0)`` controls as members (the best ROC point with FPR <= alpha), with a
  percentile interval of the stratified bootstrap (members and controls resampled separately).
  The bootstrap distribution is drawn exactly without resampling the records: the threshold of a
  resample is the (f+1)-th largest of ``n_0`` draws from the control scores, i.e. the control
  score at sorted position ``floor(n_0 U)`` with ``U ~ Beta(n_0 - f, f + 1)`` (the matching order
  statistic of ``n_0`` uniforms), and the number of resampled members above it is
  ``Binomial(n_1, p(t))`` with ``p(t)`` the share of members above ``t``; a seeded
  :class:`numpy.random.Generator` draws both, O(B log n) for B resamples.

The TPR intervals hold the release and the reference controls fixed (a conditional interval):
in the null simulations of ``docs/membership.md`` they covered the nominal rate in 90-98 % of runs
with 100-300 controls.

Diagnostics only (:class:`MembershipDiagnostic`, labelled so): the distance to the closest
release record (DCR) and the nearest-neighbour distance ratio ``d_1 / d_2`` to the release (NNDR;
0 for a record whose two nearest release records are both exact copies), summarised per group.
Neither is a risk measure: a DCR or NNDR distribution says nothing about what an intruder learns
without the comparison with controls (Yao, Krco, Ganev & de Montjoye 2025, "The DCR delusion");
they are reported so a reader can compare with tools that report them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from statistics import NormalDist

import numpy as np
from numba import njit
from scipy.special import digamma
from scipy.stats import rankdata

from ..linkage.neighbours import KDTree

DCR_ATTACK = "distance to closest release record"
DENSITY_ATTACK = "density ratio (release / controls, k-NN)"
ATTACKS = (DCR_ATTACK, DENSITY_ATTACK)
FPRS = (0.01, 0.001)  # the MIDST challenge's false-positive rates
DIAGNOSTIC = "diagnostic only"
_TINY = np.finfo(np.float64).tiny


# ---------------------------------------------------------------- inputs
def _check_file(name: str, x) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"membership: {name} must be a numeric array (records x attributes)") from None
    if a.ndim != 2 or a.shape[1] < 1:
        raise ValueError(f"membership: {name} must be a 2-d array of records x attributes, got shape {a.shape}")
    if a.shape[0] < 2:
        raise ValueError(f"membership: {name} must hold at least 2 records, got {a.shape[0]}")
    bad = ~np.isfinite(a)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(f"membership: {name} has a NaN or infinite value (record {r}, column {c}); "
                         "expected finite numbers")
    return a


def standardise(members, controls, release):
    """The three files checked and standardised by the pooled mean and standard deviation
    (``ddof=0``) of members and controls. ValueError (one line) for a non-numeric or non-2-d file,
    fewer than 2 records, a NaN or infinite value, differing column counts, or a column constant
    over members and controls."""
    m = _check_file("members", members)
    c = _check_file("controls", controls)
    r = _check_file("release", release)
    if not (m.shape[1] == c.shape[1] == r.shape[1]):
        raise ValueError(f"membership: the files must have the same columns; members has {m.shape[1]}, "
                         f"controls {c.shape[1]}, release {r.shape[1]}")
    pooled = np.concatenate([m, c])
    mean = pooled.mean(axis=0)
    sd = pooled.std(axis=0)
    const = np.flatnonzero(~(sd > 0))
    if const.size:
        raise ValueError(f"membership: column {int(const[0])} is constant over members and controls; "
                         "drop it (it cannot tell records apart)")
    return (m - mean) / sd, (c - mean) / sd, (r - mean) / sd


# ---------------------------------------------------------------- measures
def _z(level: float) -> float:
    if not (isinstance(level, (int, float)) and 0.0 < float(level) < 1.0):
        raise ValueError(f"membership: level must be a number strictly between 0 and 1, got {level!r}")
    return NormalDist().inv_cdf(0.5 + float(level) / 2.0)


def _scores(pos, neg):
    pos = np.asarray(pos, dtype=np.float64).ravel()
    neg = np.asarray(neg, dtype=np.float64).ravel()
    if pos.size < 2 or neg.size < 2:
        raise ValueError(f"membership: need at least 2 member and 2 control scores, got {pos.size} and {neg.size}")
    if np.isnan(pos).any() or np.isnan(neg).any():
        raise ValueError("membership: a score is NaN")
    return pos, neg


def delong_components(pos, neg):
    """DeLong's structural components from midranks (Sun & Xu 2014): ``v10[i]``, the share of
    controls below member ``i`` (ties half), and ``v01[j]``, the share of members above control
    ``j`` (ties half). Their means are both the AUC."""
    pos, neg = _scores(pos, neg)
    n1, n0 = pos.size, neg.size
    r = rankdata(np.concatenate([pos, neg]))
    v10 = (r[:n1] - rankdata(pos)) / n0
    v01 = 1.0 - (r[n1:] - rankdata(neg)) / n1
    return v10, v01


def auc_delong(pos, neg, level: float = 0.95) -> tuple[float, float, float, float]:
    """``(auc, low, high, variance)``: the Mann-Whitney AUC of member scores ``pos`` over control
    scores ``neg`` (ties half) and DeLong's (1988) interval, ``auc -+ z sqrt(S10/n1 + S01/n0)``
    clipped to [0, 1] (``S``: the sample variances, ``ddof=1``, of the structural components)."""
    z = _z(level)
    v10, v01 = delong_components(pos, neg)
    auc = float(v10.mean())
    var = float(v10.var(ddof=1) / v10.size + v01.var(ddof=1) / v01.size)
    half = z * np.sqrt(var)
    return auc, max(0.0, auc - half), min(1.0, auc + half), var


def _allowed(alpha: float, n0: int) -> int:
    """The number of false positives a rule with FPR at most ``alpha`` may make among ``n0``."""
    return int(np.floor(alpha * n0 + 1e-9))


def tpr_at_fpr(pos, neg, alpha: float) -> float:
    """The largest share of ``pos`` above a threshold ``t`` with at most ``floor(alpha n0)`` of
    ``neg`` above it (the best ROC point with FPR <= alpha): ``t`` is the (f+1)-th largest control
    score."""
    pos, neg = _scores(pos, neg)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"membership: a false-positive rate must lie in (0, 1), got {alpha!r}")
    neg = np.sort(neg)
    t = neg[neg.size - _allowed(alpha, neg.size) - 1]
    return float(np.count_nonzero(pos > t) / pos.size)


def tpr_at_fpr_bootstrap(pos, neg, alpha: float, draws: int, rng: np.random.Generator) -> np.ndarray:
    """``draws`` values of :func:`tpr_at_fpr` under the stratified bootstrap, drawn exactly from
    the order statistic of the resampled controls and a binomial count of resampled members (module
    docstring)."""
    pos, neg = _scores(pos, neg)
    n1, n0 = pos.size, neg.size
    neg = np.sort(neg)
    pos = np.sort(pos)
    f = _allowed(alpha, n0)
    u = rng.beta(n0 - f, f + 1, size=draws)
    t = neg[np.minimum((u * n0).astype(np.int64), n0 - 1)]
    p = (n1 - np.searchsorted(pos, t, side="right")) / n1
    return rng.binomial(n1, p) / n1


# ---------------------------------------------------------------- results
@dataclass(frozen=True)
class MembershipRow:
    """One membership attack's result: AUC with DeLong's interval, TPR at FPR 1 % and 0.1 % with
    stratified-bootstrap percentile intervals (fractions in [0, 1]); ``members``/``controls``: the
    records scored (all of them); ``note``: what a reader needs to read the row."""

    attack: str
    auc: float
    auc_low: float
    auc_high: float
    tpr_1pct: float
    tpr_1pct_low: float
    tpr_1pct_high: float
    tpr_01pct: float
    tpr_01pct_low: float
    tpr_01pct_high: float
    members: int
    controls: int
    auc_interval: str = "DeLong"
    tpr_interval: str = "stratified bootstrap, percentile"
    note: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class MembershipDiagnostic:
    """A distance summary reported for comparison only (``label``: "diagnostic only"), never a risk:
    quantiles of ``measure`` over members and over controls."""

    measure: str
    members_median: float
    controls_median: float
    members_p05: float
    controls_p05: float
    members_zero: float  # share of members at exactly 0 (an exact copy in the release)
    controls_zero: float
    label: str = DIAGNOSTIC

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class MembershipScores:
    """Per-record scores, members first then controls in their input order: ``attack`` -> scores
    (higher: more likely a member); ``dcr``, ``nndr``: the diagnostics' distances."""

    members: int
    controls: int
    attack: dict = field(default_factory=dict)
    dcr: np.ndarray | None = None
    nndr: np.ndarray | None = None
    k: int = 0
    ref_index: np.ndarray | None = None
    left_out: np.ndarray | None = None


@dataclass
class MembershipResult:
    rows: tuple
    diagnostics: tuple
    scores: MembershipScores

    def table(self):
        """The attack rows as a pandas DataFrame (one row per attack)."""
        import pandas as pd

        return pd.DataFrame([r.as_dict() for r in self.rows])

    def diagnostics_table(self):
        import pandas as pd

        return pd.DataFrame([d.as_dict() for d in self.diagnostics])


def _g(sorted_scores: np.ndarray, x: np.ndarray, above: bool) -> np.ndarray:
    """Per ``x``: the number of ``sorted_scores`` below it (``above=False``) or above it
    (``above=True``), ties counted half."""
    lo = np.searchsorted(sorted_scores, x, side="left")
    hi = np.searchsorted(sorted_scores, x, side="right")
    return (sorted_scores.size - hi if above else lo) + 0.5 * (hi - lo)


def _groups(ref: np.ndarray, n0: int):
    """CSR lists of the records (rows of ``ref``: their reference controls) per control."""
    owner = np.repeat(np.arange(ref.shape[0]), ref.shape[1])
    j = ref.ravel()
    order = np.argsort(j, kind="stable")
    start = np.zeros(n0 + 1, dtype=np.int64)
    np.cumsum(np.bincount(j, minlength=n0), out=start[1:])
    return start, owner[order]


@njit(cache=True)
def _h(a, b):
    return 1.0 if a > b else (0.5 if a == b else 0.0)


@njit(cache=True)
def _left_out_sums(u, p, q, p2, q2, g0p, g0p2, g1q, g1q2, ms, ml, cs, cl):
    """``U`` (the Mann-Whitney count of members ``p`` over controls ``q``) with control ``j`` left
    out, for every ``j``: its own column removed, and the records that had it among their reference
    controls (members ``ml[ms[j]:ms[j+1]]``, controls ``cl[cs[j]:cs[j+1]]``) moved from their scores
    ``p``/``q`` to their left-out scores ``p2``/``q2``. ``g0*``: counts of all controls below a
    member score, ``g1*``: of all members above a control score (ties half), from which the
    unaffected pairs follow; the pairs among affected records are counted here."""
    n0 = q.size
    out = np.empty(n0)
    for j in range(n0):
        t = u - g1q[j]
        for a in range(ms[j], ms[j + 1]):
            i = ml[a]
            t += -g0p[i] + _h(p[i], q[j]) + g0p2[i] - _h(p2[i], q[j])
            for b in range(cs[j], cs[j + 1]):
                l = cl[b]
                t += _h(p[i], q[l]) - _h(p2[i], q[l]) - _h(p[i], q2[l]) + _h(p2[i], q2[l])
        for b in range(cs[j], cs[j + 1]):
            l = cl[b]
            t += -g1q[l] + g1q2[l]
        out[j] = t
    return out


def density_jackknife(scores: MembershipScores, level: float = 0.95) -> tuple[float, float, float, float]:
    """``(auc, low, high, variance)`` of the density-ratio attack with the delete-one jackknife
    over both samples (Arvesen 1969): a member left out removes its score; a control left out
    removes its score *and* moves every record that had it among its ``k`` reference controls to
    the score with the (k+1)-th neighbour (the reference-size term kept), since the controls are
    both scored and the reference of the control density. DeLong's variance would treat the
    scores as independent, which the shared reference is not (mutual nearest controls share their
    distance): at 200 members and 100 controls its interval covered 0.5 in 91.5 % of 1,000 null
    simulations. Variance ``(n1-1)/n1 sum (A_(-i) - mean)^2 + (n0-1)/n0 sum (A_(-j) - mean)^2``,
    whose expectation is at least the true variance (Efron & Stein 1981): a nearest-neighbour
    distance moves in steps when a control is left out, which makes the interval wider than needed
    (module docstring)."""
    z = _z(level)
    n1, n0 = scores.members, scores.controls
    s = scores.attack[DENSITY_ATTACK]
    p, q = s[:n1], s[n1:]
    p2, q2 = scores.left_out[:n1], scores.left_out[n1:]
    ps, qs = np.sort(p), np.sort(q)
    g0p, g0p2 = _g(qs, p, False), _g(qs, p2, False)
    g1q, g1q2 = _g(ps, q, True), _g(ps, q2, True)
    u = float(g0p.sum())
    auc = u / (n1 * n0)
    ms, ml = _groups(scores.ref_index[:n1], n0)
    cs, cl = _groups(scores.ref_index[n1:], n0)
    a0 = _left_out_sums(u, p, q, p2, q2, g0p, g0p2, g1q, g1q2, ms, ml, cs, cl) / (n1 * (n0 - 1))
    a1 = (u - g0p) / ((n1 - 1) * n0)
    var = float((n1 - 1) / n1 * ((a1 - a1.mean()) ** 2).sum() + (n0 - 1) / n0 * ((a0 - a0.mean()) ** 2).sum())
    half = z * np.sqrt(var)
    return auc, max(0.0, auc - half), min(1.0, auc + half), var


# ---------------------------------------------------------------- scoring
def _check_k(k, n_controls: int, n_release: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"membership: k must be a whole number >= 1, got {k!r}")
    k = int(k)
    if k > n_controls - 2 or k > n_release:
        raise ValueError(f"membership: k = {k} needs at least {k + 2} controls and {k} release records, "
                         f"got {n_controls} and {n_release}")
    return k


def _control_neighbours(ctree: KDTree, c: np.ndarray, k: int):
    """Per control: its ``k`` nearest *other* controls (indices, ascending by distance then index)
    and the squared distances of the k-th and (k+1)-th of them. The search asks for ``k + 2``
    neighbours, the record's own row (distance 0) among them, and drops that row; when it is not
    listed (more than ``k + 1`` exact duplicates with lower indices, all at distance 0) the last
    one is dropped, which leaves the same distances."""
    n = c.shape[0]
    kk = min(k + 2, n)
    dd, ii = ctree.knn(c, kk)
    own = ii == np.arange(n)[:, None]
    drop = np.where(own.any(axis=1), own.argmax(axis=1), kk - 1)
    keep = np.ones((n, kk), dtype=bool)
    keep[np.arange(n), drop] = False
    dd = dd[keep].reshape(n, kk - 1)
    ii = ii[keep].reshape(n, kk - 1)
    return ii[:, :k], dd[:, k - 1], dd[:, k]


def score_membership(members, controls, release, k: int = 1) -> MembershipScores:
    """Every member's and control's score under both attacks, and the diagnostics' distances
    (module docstring). ``k``: the neighbour whose distance sets the density estimates. The
    scores also carry what :func:`density_jackknife` needs: each record's ``k`` reference controls
    (``ref_index``) and its density score with one of them left out (``left_out``)."""
    m, c, r = standardise(members, controls, release)
    k = _check_k(k, c.shape[0], r.shape[0])
    n1, n0, nr, d = m.shape[0], c.shape[0], r.shape[0], m.shape[1]
    dr = KDTree(r, unique=False).knn(np.concatenate([m, c]), max(k, 2))[0]  # squared, ascending (n_R >= 2)
    ctree = KDTree(c, unique=False)
    dm, im = ctree.knn(m, k + 1)
    ic, dc_k, dc_next = _control_neighbours(ctree, c, k)
    del ctree
    dc = np.concatenate([dm[:, k - 1], dc_k])
    dc_next = np.concatenate([dm[:, k], dc_next])
    ref = np.where(np.arange(n1 + n0) < n1, n0, n0 - 1).astype(np.float64)
    const = digamma(ref + 1.0) - digamma(nr + 1.0)
    log_rr = np.log(np.maximum(dr[:, k - 1], _TINY))
    density = 0.5 * d * (np.log(np.maximum(dc, _TINY)) - log_rr) + const
    # one reference control left out: the k-th neighbour becomes the (k+1)-th; the size term is kept
    left_out = 0.5 * d * (np.log(np.maximum(dc_next, _TINY)) - log_rr) + const
    dcr = np.sqrt(dr[:, 0])
    nndr = np.divide(dcr, np.sqrt(dr[:, 1]), out=np.zeros(n1 + n0), where=dr[:, 1] > 0)
    return MembershipScores(members=n1, controls=n0, attack={DCR_ATTACK: -dcr, DENSITY_ATTACK: density},
                            dcr=dcr, nndr=nndr, k=k, ref_index=np.concatenate([im[:, :k], ic]),
                            left_out=left_out)


def _diagnostic(name: str, values: np.ndarray, n1: int) -> MembershipDiagnostic:
    a, b = values[:n1], values[n1:]
    return MembershipDiagnostic(name, float(np.median(a)), float(np.median(b)), float(np.quantile(a, 0.05)),
                                float(np.quantile(b, 0.05)), float(np.mean(a == 0)), float(np.mean(b == 0)))


def membership_inference(members, controls, release, *, k: int = 1, bootstrap: int = 1000, seed: int = 0,
                         level: float = 0.95) -> MembershipResult:
    """Score every member and control of a release (:func:`score_membership`) and measure each
    attack: AUC with DeLong's interval, TPR at FPR 1 % and 0.1 % with ``bootstrap`` stratified
    bootstrap draws (a :class:`numpy.random.Generator` seeded with ``seed``), intervals at
    ``level``; DCR and NNDR summaries as diagnostics. See the module docstring."""
    _z(level)
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or bootstrap < 1:
        raise ValueError(f"membership: bootstrap must be a whole number >= 1, got {bootstrap!r}")
    s = score_membership(members, controls, release, k)
    n1 = s.members
    rng = np.random.default_rng(seed)
    q = [100 * (1 - level) / 2, 100 * (1 + level) / 2]
    rows = []
    for name in ATTACKS:
        pos, neg = s.attack[name][:n1], s.attack[name][n1:]
        if name == DENSITY_ATTACK:
            auc, lo, hi, _ = density_jackknife(s, level)
        else:
            auc, lo, hi, _ = auc_delong(pos, neg, level)
        tprs = []
        for alpha in FPRS:
            point = tpr_at_fpr(pos, neg, alpha)
            blo, bhi = np.percentile(tpr_at_fpr_bootstrap(pos, neg, alpha, int(bootstrap), rng), q)
            tprs += [point, float(blo), float(bhi)]
        note = f"k = {s.k}; leave-one-out for controls" if name == DENSITY_ATTACK else ""
        if s.controls < 1000:
            note = (note + "; " if note else "") + "fewer than 1,000 controls: TPR at FPR 0.1 % uses the largest control score"
        rows.append(MembershipRow(name, auc, lo, hi, *tprs, members=n1, controls=s.controls, note=note,
                                  auc_interval="jackknife" if name == DENSITY_ATTACK else "DeLong"))
    diags = (_diagnostic("DCR: distance to closest release record", s.dcr, n1),
             _diagnostic("NNDR: nearest / second-nearest release distance", s.nndr, n1))
    return MembershipResult(tuple(rows), diags, s)


__all__ = ["membership_inference", "score_membership", "standardise", "auc_delong", "delong_components",
           "tpr_at_fpr", "tpr_at_fpr_bootstrap", "MembershipRow", "MembershipDiagnostic", "MembershipScores",
           "MembershipResult", "ATTACKS", "DCR_ATTACK", "DENSITY_ATTACK", "FPRS", "DIAGNOSTIC"]
