"""Re-identification as belief functions compatible with a true probability (Torra, Stokes et al. (compatible probabilities)).

Torra & Stokes, "A formalization of re-identification in terms of compatible probabilities"
(Torra, Stokes et al. (compatible probabilities)). The frame is the set of records ``0..n-1`` of the masked file; a re-identification
method "expressing uncertainty" (Def. reidentification.amb.belief) returns a basic probability
assignment (mass) ``m`` over subsets of the frame, and a usable probability is its pignistic
transformation (Def. pignistictransformation, Smets' transferable belief model).

Representation (sparse, for frames of a few thousand records): a :class:`MassAssignment` holds
its focal sets as sorted ``int64`` index arrays with one mass each. All set operations go
through one concatenated index vector ``flat`` with ``owner[k]`` = focal set of ``flat[k]``,
so Bel, Pl and BetP are single ``np.bincount`` calls.

Conventions checked against the seed text:

* ``Bel(A) = sum_{B subset A} m(B)``, ``Pl(A) = 1 - Bel(complement A)`` (Sec. 2.1, proposition
  relating assignments and belief functions).
* ``BetP(x) = sum_{B ni x} m(B) / |B|`` (Def. pignistictransformation).
* Compatibility of ``Bel`` with a probability ``P``: ``Bel(A) <= P(A)`` for every ``A``
  (Sec. 4, definition following Chateauneuf).
* Entropy of a belief function = Shannon entropy of its pignistic probability (Sec. 5). The
  printed values of the two worked examples (2.0317593, 1.8300099, 2.2538579, 2.2989538) are in
  nats, so :func:`MassAssignment.entropy` defaults to ``base=e``.
* Nonspecificity ``N(m) = sum_A m(A) log2 |A|`` (Dubois & Prade, cited in Sec. 5; the formula
  itself is lost in the extraction, the log2 base is the one of Dubois-Prade / Klir-Wierman).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..validation import check_int, check_real

MASS_TOL = 1e-9


def as_index_set(a, n: int, name: str = "subset") -> np.ndarray:
    """Return a subset of ``0..n-1`` as a sorted unique ``int64`` index array.

    ``a`` may be a boolean mask of length ``n``, an iterable of record indices, or a
    ``frozenset``/``set`` of indices.
    """
    if isinstance(a, (set, frozenset)):
        a = sorted(a)
    arr = np.asarray(a)
    if arr.dtype == bool:
        if arr.ndim != 1 or arr.size != n:
            raise ValueError(f"{name}: a boolean mask must have length n={n}, got shape {arr.shape}")
        return np.flatnonzero(arr).astype(np.int64)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name}: expected a boolean mask or a 1-D list of record indices in [0, {n - 1}], got {a!r}")
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"{name}: record indices must lie in [0, {n - 1}], got range [{arr.min()}, {arr.max()}]")
    return np.unique(arr.astype(np.int64))


def as_mask(a, n: int, name: str = "subset") -> np.ndarray:
    """Boolean mask of length ``n`` for a subset given in any form accepted by :func:`as_index_set`."""
    arr = np.asarray(a) if not isinstance(a, (set, frozenset)) else None
    if arr is not None and arr.dtype == bool and arr.ndim == 1 and arr.size == n:
        return arr
    mask = np.zeros(n, dtype=bool)
    mask[as_index_set(a, n, name)] = True
    return mask


@dataclass(frozen=True)
class MassAssignment:
    """A basic probability assignment on the frame ``{0, ..., n-1}`` (Torra, Stokes et al. (compatible probabilities), Sec. 2.1).

    ``focal[i]`` is a non-empty sorted index array and ``masses[i] > 0`` its mass; masses sum
    to one. Build with :meth:`from_sets` (validates and merges duplicate focal sets).
    """

    n: int
    focal: tuple[np.ndarray, ...]
    masses: np.ndarray
    flat: np.ndarray = field(repr=False)
    owner: np.ndarray = field(repr=False)
    sizes: np.ndarray = field(repr=False)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_sets(cls, sets: Sequence, masses: Sequence[float] | None = None, n: int | None = None) -> "MassAssignment":
        """Mass assignment with ``m(sets[i]) = masses[i]`` (duplicates are summed, zeros dropped).

        ``sets`` items are boolean masks or index collections; ``n`` is the frame size
        (inferred from a boolean mask when omitted). Raises ``ValueError`` naming ``masses``
        when a mass is negative or the total differs from 1, ``sets`` for an empty focal set.
        """
        sets = list(sets)
        if not sets:
            raise ValueError("sets: expected at least one focal set")
        if n is None:
            first = np.asarray(sets[0]) if not isinstance(sets[0], (set, frozenset)) else None
            if first is None or first.dtype != bool:
                raise ValueError("n: the frame size is required unless the focal sets are boolean masks")
            n = first.size
        n = check_int("n", n, 1)
        if masses is None:
            if len(sets) != 1:
                raise ValueError("masses: required when more than one focal set is given")
            masses = [1.0]
        m = np.asarray(masses, dtype=np.float64)
        if m.ndim != 1 or m.size != len(sets):
            raise ValueError(f"masses: expected {len(sets)} values (one per focal set), got shape {m.shape}")
        if not np.isfinite(m).all() or (m < 0).any():
            raise ValueError(f"masses: every mass must be a finite number in [0, 1], got {m.tolist()}")
        if abs(m.sum() - 1.0) > MASS_TOL:
            raise ValueError(f"masses: must sum to 1 (basic probability assignment), got sum {m.sum():.12g}")
        merged: dict[bytes, tuple[np.ndarray, float]] = {}
        for k, (s, w) in enumerate(zip(sets, m)):
            idx = as_index_set(s, n, f"sets[{k}]")
            if idx.size == 0:
                raise ValueError(f"sets[{k}]: a focal set must be non-empty (m(empty set) = 0)")
            if w == 0.0:
                continue
            key = idx.tobytes()
            merged[key] = (idx, merged[key][1] + w) if key in merged else (idx, w)
        focal = tuple(v[0] for v in merged.values())
        mass = np.array([v[1] for v in merged.values()], dtype=np.float64)
        mass /= mass.sum()
        return cls._build(n, focal, mass)

    @classmethod
    def from_dict(cls, assignment: Mapping, n: int) -> "MassAssignment":
        """Mass assignment from ``{focal set: mass}`` (focal sets as frozensets or tuples of indices)."""
        return cls.from_sets(list(assignment.keys()), list(assignment.values()), n)

    @classmethod
    def vacuous(cls, n: int) -> "MassAssignment":
        """Total ignorance: ``m(X) = 1`` (Torra, Stokes et al. (compatible probabilities), Sec. 2.1)."""
        n = check_int("n", n, 1)
        return cls._build(n, (np.arange(n, dtype=np.int64),), np.ones(1))

    @classmethod
    def bayesian(cls, p: Sequence[float]) -> "MassAssignment":
        """Bayesian assignment ``m({x}) = p(x)``: the belief function is the probability ``p``."""
        p = check_probability(p)
        idx = np.flatnonzero(p > 0)
        return cls._build(p.size, tuple(np.array([i], dtype=np.int64) for i in idx), p[idx] / p[idx].sum())

    @classmethod
    def _build(cls, n: int, focal: tuple[np.ndarray, ...], masses: np.ndarray) -> "MassAssignment":
        sizes = np.array([f.size for f in focal], dtype=np.int64)
        flat = np.concatenate(focal) if focal else np.zeros(0, dtype=np.int64)
        owner = np.repeat(np.arange(len(focal)), sizes)
        return cls(n, focal, masses, flat, owner, sizes)

    # ------------------------------------------------------------------ set functions
    def _hits(self, a, name: str) -> np.ndarray:
        """Number of elements of each focal set lying in ``a``."""
        mask = as_mask(a, self.n, name)
        return np.bincount(self.owner, weights=mask[self.flat], minlength=len(self.focal))

    def belief(self, a) -> float:
        """``Bel(A) = sum_{B subset A} m(B)`` (Torra, Stokes et al. (compatible probabilities), Sec. 2.1)."""
        hits = self._hits(a, "a")
        return float(self.masses[hits == self.sizes].sum())

    def plausibility(self, a) -> float:
        """``Pl(A) = sum_{B cap A != empty} m(B) = 1 - Bel(complement A)``."""
        hits = self._hits(a, "a")
        return float(self.masses[hits > 0].sum())

    def pignistic(self) -> np.ndarray:
        """Pignistic probability ``BetP(x) = sum_{B ni x} m(B)/|B|`` (Torra, Stokes et al. (compatible probabilities), Def. pignistictransformation)."""
        return np.bincount(self.flat, weights=(self.masses / self.sizes)[self.owner], minlength=self.n)

    def entropy(self, base: float = math.e) -> float:
        """Entropy of the belief function = Shannon entropy of ``BetP`` (Torra, Stokes et al. (compatible probabilities), Sec. 5; nats by default)."""
        return shannon_entropy(self.pignistic(), base)

    def nonspecificity(self, base: float = 2.0) -> float:
        """Dubois-Prade nonspecificity ``N(m) = sum_A m(A) log |A|`` (Torra, Stokes et al. (compatible probabilities), Sec. 5; bits by default)."""
        base = check_real("base", base, 1.0, math.inf, low_open=True, high_open=True)
        return float(np.dot(self.masses, np.log(self.sizes)) / math.log(base))

    def is_bayesian(self) -> bool:
        """True when every focal set is a singleton (the belief function is a probability)."""
        return bool((self.sizes == 1).all())

    def support(self) -> np.ndarray:
        """Records with positive pignistic probability (union of the focal sets)."""
        return np.unique(self.flat)

    def as_dict(self) -> dict[frozenset, float]:
        """``{frozenset(focal set): mass}`` (convenient for small frames)."""
        return {frozenset(f.tolist()): float(w) for f, w in zip(self.focal, self.masses)}

    def transfer(self, source, target, amount: float) -> "MassAssignment":
        """Move ``amount`` of mass from focal set ``source`` to its proper subset ``target``.

        The "new evidence" update of Torra, Stokes et al. (compatible probabilities), Sec. 5 (Prop. beliefs.nonspecificity):
        ``m'(A) = m(A) + d``, ``m'(B) = m(B) - d`` with ``A`` a proper subset of ``B`` and
        ``0 <= d <= m(B)``; all other masses unchanged.
        """
        src = as_index_set(source, self.n, "source")
        tgt = as_index_set(target, self.n, "target")
        if tgt.size == 0 or tgt.size >= src.size or not np.isin(tgt, src).all():
            raise ValueError("target: must be a non-empty proper subset of source")
        m_src = self.as_dict().get(frozenset(src.tolist()), 0.0)
        amount = check_real("amount", amount, 0.0, m_src + MASS_TOL)
        sets = list(self.focal) + [tgt, src]
        masses = list(self.masses) + [amount, -amount]
        d: dict[frozenset, float] = {}
        for s, w in zip(sets, masses):
            key = frozenset(np.asarray(s).tolist())
            d[key] = d.get(key, 0.0) + w
        d = {k: v for k, v in d.items() if v > 0.0}  # m'(B) = 0 (to rounding) leaves the focal sets
        return MassAssignment.from_dict(d, self.n)


# ---------------------------------------------------------------------- probabilities
def check_probability(p, name: str = "p") -> np.ndarray:
    """Check a probability vector (finite, non-negative, summing to 1) and return it as float64."""
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or p.size == 0 or not np.isfinite(p).all() or (p < 0).any():
        raise ValueError(f"{name}: expected a 1-D vector of probabilities in [0, 1], got {p!r}")
    if abs(p.sum() - 1.0) > MASS_TOL:
        raise ValueError(f"{name}: probabilities must sum to 1, got sum {p.sum():.12g}")
    return p


def shannon_entropy(p, base: float = math.e) -> float:
    """``-sum p log p`` with ``0 log 0 = 0``."""
    base = check_real("base", base, 1.0, math.inf, low_open=True, high_open=True)
    p = check_probability(p)
    q = p[p > 0]
    return float(-(q * np.log(q)).sum() / math.log(base))


def uniform_on(candidates, n: int) -> np.ndarray:
    """True probability of Torra, Stokes et al. (compatible probabilities), Example kanon.probs: uniform on the true candidate set, 0 elsewhere."""
    idx = as_index_set(candidates, n, "candidates")
    if idx.size == 0:
        raise ValueError("candidates: the true candidate set must be non-empty")
    p = np.zeros(n)
    p[idx] = 1.0 / idx.size
    return p


def is_compatible(m: MassAssignment, p, method: str = "auto", tol: float = 1e-9) -> bool:
    """Is ``Bel`` (from ``m``) compatible with probability ``p``: ``Bel(A) <= P(A)`` for all ``A``?

    Torra, Stokes et al. (compatible probabilities), Sec. 4 (definition after Chateauneuf). ``method="exhaustive"`` checks all
    ``2^n`` subsets (``n <= 16``). ``method="flow"`` uses the equivalent allocation form
    (``p`` lies in the credal set of ``Bel`` iff each focal mass ``m(B)`` can be split over the
    elements of ``B`` so that element ``x`` receives exactly ``p(x)``; a transportation
    feasibility problem solved with ``scipy.optimize.linprog``). ``"auto"`` first tries two
    exact shortcuts: a focal set disjoint from ``supp(p)`` means incompatible
    (``Bel(X \\ supp p) > 0``); if spreading each ``m(B)`` over ``B`` proportionally to ``p``
    reproduces ``p``, compatible (always the case for categorical ``m(B) = 1`` with
    ``supp p`` inside ``B``, the situation of the candidate-set examples). Otherwise it checks
    exhaustively for ``n <= 12`` and by the transportation LP above that.
    """
    p = check_probability(p)
    if p.size != m.n:
        raise ValueError(f"p: expected length n={m.n}, got {p.size}")
    if method not in ("auto", "exhaustive", "flow"):
        raise ValueError(f"method must be one of 'auto', 'exhaustive', 'flow', got {method!r}")
    if method == "exhaustive":
        return _compatible_exhaustive(m, p, tol)
    pos = p > tol
    hits = np.bincount(m.owner, weights=pos[m.flat], minlength=len(m.focal))
    if (hits == 0).any():  # a focal set outside supp(p): Bel(X \ supp p) > 0 = P(X \ supp p)
        return False
    # Proportional split: every focal set B gives m(B) p(x) / P(B) to x in B.
    pb = np.bincount(m.owner, weights=p[m.flat], minlength=len(m.focal))
    got = np.bincount(m.flat, weights=(m.masses / pb)[m.owner] * p[m.flat], minlength=m.n)
    if np.allclose(got, p, atol=tol, rtol=0):
        return True
    if method == "auto" and m.n <= 12:
        return _compatible_exhaustive(m, p, tol)
    return _compatible_flow(m, p, tol)


def _compatible_exhaustive(m: MassAssignment, p: np.ndarray, tol: float) -> bool:
    if m.n > 16:
        raise ValueError(f"method='exhaustive' needs n <= 16, got n={m.n}")
    masks = (np.arange(2**m.n)[:, None] >> np.arange(m.n)[None, :]) & 1
    prob = masks @ p
    focal_bits = np.array([int((1 << f).sum()) for f in m.focal], dtype=np.int64)
    codes = np.arange(2**m.n, dtype=np.int64)
    bel = ((codes[:, None] & focal_bits[None, :]) == focal_bits[None, :]).astype(float) @ m.masses
    return bool((bel <= prob + tol).all())


def _compatible_flow(m: MassAssignment, p: np.ndarray, tol: float) -> bool:
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    k = m.flat.size
    cols = np.arange(k)
    rows = np.concatenate([m.owner, len(m.focal) + m.flat])
    a_eq = coo_matrix((np.ones(2 * k), (rows, np.concatenate([cols, cols]))), shape=(len(m.focal) + m.n, k)).tocsr()
    b_eq = np.concatenate([m.masses, p])
    res = linprog(np.zeros(k), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    return bool(res.status == 0)


# ---------------------------------------------------------------------- construction from linkage
def mass_from_candidate_sets(sets: Sequence, n: int, weights: Sequence[float] | None = None) -> MassAssignment:
    """Mass assignment of one protected record from one or several candidate sets.

    Torra, Stokes et al. (compatible probabilities), Example kanon.probs.belief: the re-identification method that knows only the
    attributes ``attrs(j)`` returns ``m_j(candidateset_{attrs(j)}(y)) = 1``. With several
    candidate sets (several known-attribute subsets) and ``weights`` summing to one, the result
    is the mixture ``m(B_j) = w_j``; a mixture of belief functions compatible with the true
    probability is compatible with it, because the constraints ``Bel(A) <= P(A)`` are linear.
    Without weights several sets are weighted equally.
    """
    sets = list(sets)
    if weights is None:
        weights = np.full(len(sets), 1.0 / max(len(sets), 1))
    return MassAssignment.from_sets(sets, weights, n)


def belief_from_candidate_sets(candidates, n: int | None = None, *, empty: str = "raise") -> list[MassAssignment]:
    """One categorical mass assignment ``m_i(B_i) = 1`` per record from its candidate set ``B_i``.

    Torra, Stokes et al. (compatible probabilities), Example kanon.probs.belief, applied to any attack that returns candidate sets
    (e.g. RS-RL on rank swapping, Nin, Herranz & Torra (2008, rank swapping)). ``candidates`` is a boolean matrix (records x
    frame) or a sequence of boolean masks / index arrays (then ``n`` is required unless masks).
    ``empty="vacuous"`` maps an empty candidate set to total ignorance ``m(X) = 1``;
    ``empty="raise"`` (default) rejects it, since an empty set means the attack contradicts
    the evidence.
    """
    if empty not in ("raise", "vacuous"):
        raise ValueError(f"empty must be 'raise' or 'vacuous', got {empty!r}")
    arr = candidates if isinstance(candidates, np.ndarray) else None
    if arr is not None and arr.dtype == bool and arr.ndim == 2:
        n = arr.shape[1] if n is None else check_int("n", n, 1)
        if arr.shape[1] != n:
            raise ValueError(f"candidates: expected {n} columns (frame size), got {arr.shape[1]}")
        rows = [np.flatnonzero(r) for r in arr]
    else:
        rows = list(candidates)
        if n is None:
            if not rows or np.asarray(rows[0]).dtype != bool:
                raise ValueError("n: the frame size is required unless candidates are boolean masks")
            n = np.asarray(rows[0]).size
        n = check_int("n", n, 1)
        rows = [as_index_set(r, n, f"candidates[{i}]") for i, r in enumerate(rows)]
    out = []
    for i, idx in enumerate(rows):
        if idx.size == 0:
            if empty == "raise":
                raise ValueError(f"candidates[{i}]: empty candidate set (use empty='vacuous' to map it to m(X)=1)")
            out.append(MassAssignment.vacuous(n))
        else:
            out.append(MassAssignment._build(n, (idx.astype(np.int64),), np.ones(1)))
    return out


def summarise(masses: Sequence[MassAssignment], true_index=None, *, entropy_base: float = math.e,
              nonspecificity_base: float = 2.0) -> dict:
    """Per-file summary of re-identification belief functions (Torra, Stokes et al. (compatible probabilities) applied to an attack).

    ``masses[i]`` is the assignment for protected record ``i`` and ``true_index[i]`` the
    original record it comes from (default ``i``). Returns the mean nonspecificity (bits),
    mean pignistic entropy (nats), the fraction of records whose true record has positive
    pignistic probability (Prop. 16: necessary for compatibility), the fraction whose
    assignment is compatible with the Dirac true probability at the true record (Lemma
    bel.i.p.singleton: every focal set contains it), the mean pignistic probability of the
    true record (expected proportion of correct links when guessing from BetP) and the mean
    mass-weighted focal-set size.
    """
    masses = list(masses)
    r = len(masses)
    if r == 0:
        raise ValueError("masses: expected at least one mass assignment")
    t = np.arange(r) if true_index is None else np.asarray(true_index)
    if t.shape != (r,) or not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"true_index: expected {r} integer record indices, got shape {t.shape}")
    ns = np.empty(r)
    ent = np.empty(r)
    ptrue = np.empty(r)
    dirac_ok = np.empty(r, dtype=bool)
    size = np.empty(r)
    for i, m in enumerate(masses):
        if not 0 <= t[i] < m.n:
            raise ValueError(f"true_index[{i}] must lie in [0, {m.n - 1}], got {t[i]}")
        bet = m.pignistic()
        ns[i] = m.nonspecificity(nonspecificity_base)
        ent[i] = shannon_entropy(bet, entropy_base)
        ptrue[i] = bet[t[i]]
        contains = np.bincount(m.owner, weights=(m.flat == t[i]), minlength=len(m.focal)) > 0
        dirac_ok[i] = contains.all()
        size[i] = float(np.dot(m.masses, m.sizes))
    return {
        "n_records": r,
        "mean_nonspecificity": float(ns.mean()),
        "mean_pignistic_entropy": float(ent.mean()),
        "fraction_true_positive": float((ptrue > 0).mean()),
        "fraction_compatible": float(dirac_ok.mean()),
        "mean_true_pignistic": float(ptrue.mean()),
        "mean_focal_size": float(size.mean()),
    }


def summarise_by_group(groups: Mapping, true_index=None, **kwargs) -> list[dict]:
    """:func:`summarise` for each group (e.g. number of known attributes), one row per key."""
    return [{"group": key, **summarise(ms, true_index, **kwargs)} for key, ms in groups.items()]


# ---------------------------------------------------------------------- propositions
def support_contains_true_support(m: MassAssignment, p) -> bool:
    """Prop. 16 of Torra, Stokes et al. (compatible probabilities): if ``Bel`` is compatible with ``p`` then ``supp p subset supp BetP``."""
    p = check_probability(p)
    return bool(np.all(m.pignistic()[p > 0] > 0))


def max_pignistic_outside(n: int, candidates, outsider: int) -> MassAssignment:
    """Belief function of Torra, Stokes et al. (compatible probabilities), Prop. maxim.p.no.solucio (reconstruction).

    True probability uniform on a candidate set ``A`` of ``k >= 2`` records; ``outsider``
    ``x0`` is not in ``A``. Assign ``m({a, x0}) = 1/k`` for each ``a`` in ``A``: then
    ``Bel(B) = P(B)`` if ``x0 in B`` and ``Bel(B) = 0`` otherwise (the two cases of the
    proof), so ``Bel`` is compatible, while ``BetP(x0) = 1/2 > BetP(a) = 1/(2k)``. The focal
    sets themselves are lost in the extraction; this is the construction satisfying every
    step of the printed proof.
    """
    n = check_int("n", n, 3)
    a = as_index_set(candidates, n, "candidates")
    if a.size < 2:
        raise ValueError(f"candidates: need at least 2 records, got {a.size}")
    outsider = check_int("outsider", outsider, 0, n - 1)
    if outsider in set(a.tolist()):
        raise ValueError("outsider: must not belong to candidates")
    return MassAssignment.from_sets([[int(x), outsider] for x in a], np.full(a.size, 1.0 / a.size), n)


def all_subsets(n: int) -> Iterable[np.ndarray]:
    """Every subset of ``0..n-1`` as a boolean mask (for exhaustive checks on small frames)."""
    n = check_int("n", n, 0, 20)
    for code in range(2**n):
        yield ((code >> np.arange(n)) & 1).astype(bool)
