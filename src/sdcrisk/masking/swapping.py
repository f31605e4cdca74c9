"""Rank swapping and its two variants of Nin, Herranz & Torra (2008).

All three methods work attribute by attribute on the *sorted* column (stable sort, ties broken by
record index): a kernel builds an involution ``partner`` of the sorted positions (``partner[q]`` =
the sorted position whose value lands at ``q``; ``partner[q] == q`` = value kept), the swap is
applied and the sort undone. Records are visited in increasing rank; a position that has been
used as a partner is skipped ("still unswapped" in the papers).

* ``rankswap`` -- standard rank swapping (Moore 1996; Nin, Herranz & Torra (2008, rank swapping) §2.3, Nin, Herranz & Torra (2007) §2.1, Muralidhar & Domingo-Ferrer (2016) §4):
  the partner of the value at position i is drawn from the still-unswapped positions in its
  window of P ranks above i; with none left the value stays. P = :func:`rank_distance` of p % of
  n. Three partner rules (``variant``, see :func:`rankswap_partners`); the default "inclusive"
  lets the record itself be drawn, which alone reproduces the one-attribute row of Nin, Herranz & Torra (2007)
  Table 1 (RS-RL links only kept values there; the other rules keep none).
* ``rankswap_pdist`` -- rank swapping p-distribution (Nin, Herranz & Torra (2008, rank swapping) §4.1; Muralidhar & Domingo-Ferrer (2016) §4): the swap
  distance (or its bound) of each record is drawn from N(mu = sigma = P/2); three readings of
  the garbled definition, see :func:`pdist_partners`.
* ``rankswap_pbuckets`` -- rank swapping p-buckets (Nin, Herranz & Torra (2008, rank swapping) §4.2): the sorted column is cut into
  ``buckets`` equal buckets and the partner's bucket is drawn with probability decreasing in the
  bucket distance, see :func:`pbuckets_partners`.

Random draws come from the ``numpy.random.Generator`` passed in (numba consumes its bit generator
directly, so the caller's generator advances). Uniform choice among still-unswapped positions
uses a Fenwick tree: O(n log n) per attribute whatever p; standard rank swapping's tree counts
only the window, in a ring of at least P + 1 slots (:func:`_rankswap_kernel`). From
:data:`PIPELINE_MIN` records a second thread sorts and swaps the columns while the partners of the
next are drawn (:func:`_per_column`).
"""
# The published rows the choices recorded in this module's docstrings were compared with
# (docs/calibration.yaml; the check makes them calibration rows):
# compares: [{paper: nin2007_location_rl, tables: [T1]}, {paper: muralidhar2016_rank_rl, tables: [T2, T3]}]


from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ..validation import check_int, check_real
from .radix import argsort_values
from .registry import Param, per_value, register

__all__ = [
    "RANKSWAP_VARIANTS",
    "RANKSWAP_DEFAULT",
    "rank_distance",
    "sorted_order",
    "apply_partners",
    "rankswap_partners",
    "pdist_partners",
    "pbuckets_partners",
    "bucket_bounds",
    "bucket_probabilities",
    "rankswap",
    "rankswap_pdist",
    "rankswap_pbuckets",
]

ROUNDINGS = ("floor", "round", "ceil")
RANKSWAP_VARIANTS = ("inclusive", "moore", "argus")
RANKSWAP_DEFAULT = "inclusive"
PIPELINE_MIN = 100_000  # records from which a second thread sorts the columns (_per_column)
_RANKSWAP_MODE = {"moore": 0, "inclusive": 1, "argus": 2}
PDIST_VARIANTS = ("distance", "window", "direct")
_PDIST_MODE = {"window": 0, "direct": 1, "distance": 2}


def rank_distance(p_pct: float, n: int, rounding: str = "floor") -> int:
    """Maximum rank distance P for a swap range of ``p_pct`` percent of ``n`` records.

    ``rounding`` turns n * p / 100 into an integer: "floor" (the default) is the mu-ARGUS /
    sdcMicro ``argus_rankswap`` rule ``(n * percent) / 100`` in integer arithmetic
    (REPLICATION.md); "round" (half up) and "ceil" are the alternatives. The result is
    clipped to ``[1, n - 1]`` so that every p > 0 swaps something and no window exceeds the file.
    """
    n = check_int("n", n, 2)
    p = check_real("p", p_pct, 0.0, 100.0, low_open=True)
    if rounding not in ROUNDINGS:
        raise ValueError(f"rounding must be one of {list(ROUNDINGS)}, got {rounding!r}")
    exact = n * p / 100.0
    # guard against binary noise such as 1080 * 0.35 = 377.99999999999994
    near = round(exact)
    if abs(exact - near) < 1e-9 * max(1.0, exact):
        exact = float(near)
    if rounding == "floor":
        d = math.floor(exact)
    elif rounding == "ceil":
        d = math.ceil(exact)
    else:
        d = math.floor(exact + 0.5)
    return int(min(max(d, 1), n - 1))


def sorted_order(column: np.ndarray) -> np.ndarray:
    """Record indices in increasing order of value, ties broken by record index (stable sort;
    :func:`.radix.argsort_values`)."""
    return argsort_values(column)


def apply_partners(column: np.ndarray, partner: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """Masked column: record ``order[q]`` receives the value of record ``order[partner[q]]``."""
    if order is None:
        order = sorted_order(column)
    out = np.empty_like(column)
    out[order] = column[order[partner]]
    return out


# --------------------------------------------------------------------------------------------
# Fenwick tree over "still unswapped" flags (1 = available), 1-based internally.


@njit(cache=True)
def _bit_init(n):
    tree = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        tree[i] = i & (-i)  # all ones
    top = 1
    while top * 2 <= n:
        top *= 2
    return tree, top


@njit(cache=True)
def _bit_add(tree, pos, delta):
    i = pos + 1
    n = tree.shape[0] - 1
    while i <= n:
        tree[i] += delta
        i += i & (-i)


@njit(cache=True)
def _bit_prefix(tree, pos):
    """Number of available positions in [0, pos] (0 when pos < 0)."""
    s = 0
    i = pos + 1
    while i > 0:
        s += tree[i]
        i -= i & (-i)
    return s


@njit(cache=True)
def _bit_kth(tree, top, k):
    """0-based position of the k-th (1-based) available position."""
    pos = 0
    n = tree.shape[0] - 1
    step = top
    while step > 0:
        nxt = pos + step
        if nxt <= n and tree[nxt] < k:
            pos = nxt
            k -= tree[nxt]
        step //= 2
    return pos  # 1-based pos + 1 - 1


@njit(cache=True)
def _pick_available(tree, top, lo, hi, rng):
    """Uniform still-unswapped position in [lo, hi], or -1 when there is none."""
    if lo > hi:
        return -1
    before = _bit_prefix(tree, lo - 1)
    c = _bit_prefix(tree, hi) - before
    if c <= 0:
        return -1
    k = rng.integers(0, c)
    return _bit_kth(tree, top, before + k + 1)


@njit(cache=True, nogil=True)
def _window_pick(tree, W, lo, total, rng):
    """Uniform still-unswapped position of the window ``[lo, lo + ...]`` held by the ring Fenwick
    tree of :func:`_rankswap_kernel` (``total`` available), or -1 when there is none. The same
    draw and the same position as :func:`_pick_available` on the whole column: the k-th available
    position from ``lo`` on, slots ``lo mod W .. W - 1`` first, then the wrapped ones from 0."""
    if total <= 0:
        return -1
    k = rng.integers(0, total)
    sa = lo & (W - 1)
    before = _bit_prefix(tree, sa - 1)  # wrapped slots (positions beyond W - sa from lo)
    if k < total - before:
        return lo + _bit_kth(tree, W, before + k + 1) - sa
    return lo + W - sa + _bit_kth(tree, W, k - (total - before) + 1)


@njit(cache=True, nogil=True)
def _rankswap_kernel(n, P, mode, rng):
    """mode 0 = moore, 1 = inclusive, 2 = argus (see :func:`rankswap_partners`).

    The still-unswapped positions that a draw can reach are those of the window ``[i, i + P]``:
    every position below i has had its turn, and none beyond ``i + P`` can have been taken yet.
    They are counted in a Fenwick tree over a ring of ``W >= P + 1`` slots (position q in slot
    ``q mod W``; a slot is reused only once its previous position has fallen below the window),
    which stays in the CPU's caches where a tree over all n positions does not (at 10^7 records
    and p = 5 %, 2 MiB instead of 80 MB). The draws and positions are those of
    :func:`_pick_available` on the whole column (tests compare the two)."""
    partner = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    W = 1
    while W < min(P + 1, n):
        W *= 2
    tree = np.zeros(W + 1, dtype=np.int32)
    loaded = -1  # positions up to here are in the ring
    total = 0  # still-unswapped positions in [i, loaded]
    for i in range(n):
        hi = min(i + P, n - 1)
        while loaded < hi:
            loaded += 1
            _bit_add(tree, loaded & (W - 1), 1)
            total += 1
        if not avail[i]:
            continue
        if mode == 1:  # the record itself is one of the candidates
            l = _window_pick(tree, W, i, total, rng)
        avail[i] = False
        _bit_add(tree, i & (W - 1), -1)
        total -= 1
        if mode == 0:
            l = _window_pick(tree, W, i + 1, total, rng)
        elif mode == 2:
            l = -1
            if i < n - 1:
                k = min(i + 1 + rng.integers(0, P), n - 1)
                j = k  # nearest still-unswapped position at or below the target ...
                while j > i + 1 and not avail[j]:
                    j -= 1
                if not avail[j]:  # ... else at or above it, inside the window
                    j = k
                    while j < hi and not avail[j]:
                        j += 1
                if avail[j]:
                    l = j
        if l > i:
            avail[l] = False
            _bit_add(tree, l & (W - 1), -1)
            total -= 1
            partner[i] = l
            partner[l] = i
    return partner


@njit(cache=True)
def _pdist_bound(i, n, half, redraw, rng):
    """Swap distance bound m ~ N(P/2, P/2), rounded (redrawn while 0), clipped to the file
    (``redraw``: drawn again until i + m lies in the file instead; compared in
    ``research/pdist_bounds.py``)."""
    while True:
        m = int(np.rint(rng.normal(half, half)))
        if m != 0 and (not redraw or 0 <= i + m <= n - 1):
            return min(max(m, -i), n - 1 - i)


@njit(cache=True)
def _pdist_target(i, m, n, mode, avail, tree, top, rng):
    """Partner of position i for the bound m under reading ``mode`` (see :func:`pdist_partners`),
    -1 if none (also when m == 0: the edge of the file in the drawn direction)."""
    if m == 0:
        return -1
    if mode == 0:
        return _pick_available(tree, top, i + 1, i + m, rng) if m > 0 else _pick_available(tree, top, i + m, i - 1, rng)
    r = rng.integers(1, abs(m) + 1) if mode == 1 else abs(m)
    l = i + r if m > 0 else i - r
    if avail[l]:
        return l
    if mode == 1:
        return -1
    c = _bit_prefix(tree, l)  # distance: nearest still-unswapped position beyond the target
    if m > 0:
        return _bit_kth(tree, top, c + 1) if c < _bit_prefix(tree, n - 1) else -1
    return _bit_kth(tree, top, c) if c > 0 else -1


PDIST_MAX_DRAWS = 1000


@njit(cache=True, nogil=True)
def _pdist_kernel(n, P, mode, rng, draws=PDIST_MAX_DRAWS, redraw=False):
    """mode 0 = window, 1 = direct, 2 = distance (see :func:`pdist_partners`); ``draws``: tries
    per record before its value stays; ``redraw``: boundary rule of :func:`_pdist_bound`."""
    partner = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    tree, top = _bit_init(n)
    half = 0.5 * P
    for i in range(n):
        if not avail[i]:
            continue
        avail[i] = False
        _bit_add(tree, i, -1)
        l = -1
        if _bit_prefix(tree, n - 1) > 0:  # some other position is still unswapped
            for _ in range(draws):
                l = _pdist_target(i, _pdist_bound(i, n, half, redraw, rng), n, mode, avail, tree, top, rng)
                if l >= 0:
                    break
        if l >= 0:
            avail[l] = False
            _bit_add(tree, l, -1)
            partner[i] = l
            partner[l] = i
        else:  # no partner: the value stays but may still be chosen by a later record
            avail[i] = True
            _bit_add(tree, i, 1)
    return partner


@njit(cache=True, nogil=True)
def _pbuckets_kernel(n, starts, probs, rng):
    """starts: bucket b covers sorted positions [starts[b], starts[b+1]); probs: (nb, nb) rows
    of bucket-choice probabilities given the current bucket."""
    nb = starts.shape[0] - 1
    partner = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    tree, top = _bit_init(n)
    r = 0
    for i in range(n):
        while i >= starts[r + 1]:
            r += 1
        if not avail[i]:
            continue
        avail[i] = False
        _bit_add(tree, i, -1)
        u = rng.random()
        s = 0
        acc = probs[r, 0]
        while u >= acc and s < nb - 1:
            s += 1
            acc += probs[r, s]
        lo = starts[s]
        if s == r:
            lo = i + 1
        l = _pick_available(tree, top, lo, starts[s + 1] - 1, rng)
        if l >= 0:
            avail[l] = False
            _bit_add(tree, l, -1)
            partner[i] = l
            partner[l] = i
        else:  # chosen bucket exhausted: the value stays, still eligible as a later partner
            avail[i] = True
            _bit_add(tree, i, 1)
    return partner


# --------------------------------------------------------------------------------------------
# Partner generators (pure functions of n, the parameter and the generator).


def rankswap_partners(n: int, P: int, rng: np.random.Generator, variant: str = RANKSWAP_DEFAULT) -> np.ndarray:
    """Standard rank swapping on sorted positions 0..n-1 with maximum rank distance ``P``.

    Positions are visited in increasing rank; a still-unswapped position i takes a partner in its
    window, chosen according to ``variant``:

    * ``"inclusive"`` (default): uniform among the still-unswapped positions of ``[i, i + P]``,
      i itself included; drawing i keeps the value;
    * ``"moore"``: uniform among the still-unswapped positions of ``(i, i + P]`` (the written
      definition, Nin, Herranz & Torra (2007) §2.1 and Nin, Herranz & Torra (2008, rank swapping) §2.3: "i < l <= i + p");
    * ``"argus"``: the mu-ARGUS rule that sdcMicro ships as ``argus_rankswap``
      (``CRankSwap::generate_swap``): a target ``k`` uniform in ``i+1 .. i+P``, then the nearest
      still-unswapped position at or below k (down to i + 1), else at or above k (up to i + P).

    With no still-unswapped position in the window the value stays, so no value ever moves more
    than P ranks. Returns the involution ``partner`` (``partner[q] == q``: value kept).

    Why "inclusive" is the default (Census, 5-20 maskings, this package's RS-RL / DBRL / RBRL):
    with one known attribute, RS-RL links a record only when its value stayed. Nin, Herranz & Torra (2007) Table 1
    reports such links for every p (falling as p grows); "moore" and "argus" keep no value and
    link none, "inclusive" reproduces that row within sampling error and fits the 2- and
    3-attribute rows better than "moore". Muralidhar & Domingo-Ferrer (2016) Table 2 (Census and EIA, all attributes) is
    matched within sampling error by "moore" and within 0.7 percentage points by "inclusive";
    "argus" links clearly too many there (RBRL-Sum about 5 points high at p = 10 and 25), as its
    nearest-free rule favours short swaps. "inclusive" is the one rule close to both papers.
    """
    n = check_int("n", n, 2)
    P = check_int("P", P, 1, n - 1)
    if variant not in RANKSWAP_VARIANTS:
        raise ValueError(f"variant must be one of {list(RANKSWAP_VARIANTS)}, got {variant!r}")
    return _rankswap_kernel(n, P, _RANKSWAP_MODE[variant], rng)


def pdist_partners(n: int, P: int, rng: np.random.Generator, variant: str = "distance") -> np.ndarray:
    """Rank swapping p-distribution on sorted positions (Nin, Herranz & Torra (2008, rank swapping) §4.1, Muralidhar & Domingo-Ferrer (2016) §4).

    For each still-unswapped position i (increasing rank) an integer ``m = rint(N(P/2, P/2))``
    is drawn (redrawn while it rounds to 0; negative m points towards lower ranks) and clipped so
    that ``i + m`` stays in ``[0, n - 1]`` (Muralidhar & Domingo-Ferrer (2016): "one cannot swap the current record to an
    index below 0 or greater than n"). A draw that yields no partner is repeated (up to
    ``PDIST_MAX_DRAWS`` times, so in practice every record finds a partner while another position
    is free). Without the repetition the records near the top of the file keep their values at
    large p (Census, p = 100: DBRL 2.3 %, RBRL-Sum 5.4 %, where Muralidhar & Domingo-Ferrer (2016) Table 3 prints 0.0; with
    it 0.0 and 0.0, ``research/pdist_bounds.py``). The repetition was chosen on that Table 3
    alone; the Nin, Herranz & Torra (2008, rank swapping) Table 7 counts (EIA, annotated-union
    RS-RL / DBRL, p = 2 and 4; published 1443 / 1267, 419 / 330) were then compared under both
    versions: 1510 / 1317, 494 / 401 without it, 1455 / 1243, 441 / 341 with it (docs/differences.md,
    group 6; ``research/pdist_bounds.py --table7``), so they are calibration rows too. The three
    readings of the garbled definition:

    * ``"distance"`` (default; Nin, Herranz & Torra (2008, rank swapping): "x_ij and x_lj are swapped, where l = i + r", r the
      normal draw): the partner is i + m; if it is already swapped, the nearest still-unswapped
      position beyond it (away from i) is taken instead;
    * ``"window"`` (Nin, Herranz & Torra (2008, rank swapping): the normal "defines the swap interval", inside which the method
      works as standard rank swapping): the partner is uniform among the still-unswapped
      positions between i and i + m (i excluded);
    * ``"direct"`` (Muralidhar & Domingo-Ferrer (2016): a maximum swapping distance is drawn, "then the actual swapping
      distance ... is randomly chosen between 0 and the record's maximum"): r is uniform in
      1..|m| and the partner i + sign(m) r is used only if still unswapped.

    A value left without a partner stays, yet remains eligible as the partner of a later record.
    "distance" is the default because, of the three, it alone makes p-distribution link fewer
    records than standard rank swapping with the same p under DBRL, RBRL-Sum and RBRL-Max alike,
    as Muralidhar & Domingo-Ferrer (2016) Tables 2-3 report (the other two swap closer than standard rank swapping on
    average, so only RBRL-Max drops).
    """
    n = check_int("n", n, 2)
    P = check_int("P", P, 1, n - 1)
    if variant not in PDIST_VARIANTS:
        raise ValueError(f"variant must be one of {list(PDIST_VARIANTS)}, got {variant!r}")
    return _pdist_kernel(n, P, _PDIST_MODE[variant], rng)


def bucket_bounds(n: int, buckets: int) -> np.ndarray:
    """Start positions of ``buckets`` contiguous buckets of sorted positions, sizes differing by
    at most one (larger buckets first), plus the end ``n``: bucket b is [bounds[b], bounds[b+1])."""
    n = check_int("n", n, 2)
    buckets = check_int("buckets", buckets, 2, n)
    sizes = np.full(buckets, n // buckets, dtype=np.int64)
    sizes[: n % buckets] += 1
    return np.concatenate(([0], np.cumsum(sizes)))


def bucket_probabilities(buckets: int) -> np.ndarray:
    """Bucket-choice matrix: row r gives Pr(B_s | value in B_r) proportional to 2^-(|r - s| + 1).

    Nin, Herranz & Torra (2008, rank swapping) §4.2 lost its formula in extraction; this is the distribution as we recall it from
    Nin, Herranz & Torra (2008), Pr(B_s) = (1 / 2^(|r-s|+1)) / sum_k 1 / 2^(|r-k|+1) (the same as
    the brief's fallback 1/2^|r-s|), which halves the probability at each bucket step.
    """
    buckets = check_int("buckets", buckets, 2)
    idx = np.arange(buckets)
    w = 0.5 ** (np.abs(idx[:, None] - idx[None, :]) + 1.0)
    return w / w.sum(axis=1, keepdims=True)


def pbuckets_partners(n: int, buckets: int, rng: np.random.Generator) -> np.ndarray:
    """Rank swapping p-buckets on sorted positions (Nin, Herranz & Torra (2008, rank swapping) §4.2).

    For each still-unswapped position i, in bucket B_r, a bucket B_s is drawn from
    :func:`bucket_probabilities`; the partner is uniform among the still-unswapped positions of
    B_s (positions > i when s == r). If B_s has none the value stays, yet remains eligible as the
    partner of a later record (in particular of records in higher buckets choosing B_r).
    """
    bounds = bucket_bounds(n, buckets)
    return _pbuckets_kernel(int(n), bounds, bucket_probabilities(buckets), rng)


# --------------------------------------------------------------------------------------------
# Registered masking methods.

_P = Param("p", "real", low=0.0, high=100.0, low_open=True, doc="swap range, percent of n in (0, 100]")
_ROUNDING = Param("rounding", "choice", choices=ROUNDINGS, default="floor",
                  doc="how n*p/100 becomes the rank distance P (mu-ARGUS: floor)")


def _per_column(x: np.ndarray, make_partner) -> np.ndarray:
    """Each column swapped by ``make_partner()``'s involution of its sorted positions, drawn
    column after column from the one generator. From :data:`PIPELINE_MIN` records a second thread
    sorts and swaps each column while this one draws the next column's partners (the kernels need
    no values and release the GIL; at most two columns' partners wait). Per column at 10^7, one
    thread: the draws 2.1 s, the sort 0.4-0.6 s (:mod:`.radix`; numpy's 1.8 s) and the swap 0.9 s,
    so the draws bound the time. The same values either way."""
    n, m = x.shape
    out = np.empty_like(x)

    def swap(j, partner):
        out[:, j] = apply_partners(x[:, j], partner, sorted_order(x[:, j]))

    if n < PIPELINE_MIN or m < 2:
        for j in range(m):
            swap(j, make_partner())
        return out
    with ThreadPoolExecutor(1) as pool:
        swaps = []
        for j in range(m):
            if j >= 2:
                swaps[j - 2].result()
            swaps.append(pool.submit(swap, j, make_partner()))
        for done in swaps:
            done.result()
    return out


# the output (8 bytes a value, 9 counted) and, per record, the radix sort, at most three columns'
# partners and the Fenwick ring (80 bytes; 72-80 measured at 10^6, benchmarks/results/mask_memory.md)
_SWAP_MEMORY = per_value(9, 80)


@register("rankswap", _P, _ROUNDING,
          Param("variant", "choice", choices=RANKSWAP_VARIANTS, default=RANKSWAP_DEFAULT,
                doc="partner rule: inclusive (record itself may be drawn), moore, argus; see rankswap_partners"),
          family="swapping", randomised=True, memory=_SWAP_MEMORY)
def rankswap(x: np.ndarray, rng: np.random.Generator, *, p: float, rounding: str = "floor",
             variant: str = RANKSWAP_DEFAULT) -> np.ndarray:
    """Standard rank swapping with swap range p % of n (Nin, Herranz & Torra (2008, rank swapping) §2.3, Nin, Herranz & Torra (2007) §2.1, Muralidhar & Domingo-Ferrer (2016) §4);
    ``variant`` selects the partner rule of :func:`rankswap_partners`."""
    n = x.shape[0]
    P = rank_distance(p, n, rounding)
    mode = _RANKSWAP_MODE[variant]
    return _per_column(x, lambda: _rankswap_kernel(n, P, mode, rng))


@register("rankswap_pdist", _P, _ROUNDING,
          Param("variant", "choice", choices=PDIST_VARIANTS, default="distance",
                doc="reading of Nin, Herranz & Torra (2008, rank swapping) §4.1, see pdist_partners"),
          family="swapping", randomised=True, memory=_SWAP_MEMORY)
def rankswap_pdist(x: np.ndarray, rng: np.random.Generator, *, p: float, rounding: str = "floor",
                   variant: str = "distance") -> np.ndarray:
    """Rank swapping p-distribution, max distance ~ N(P/2, P/2) (Nin, Herranz & Torra (2008, rank swapping) §4.1, Muralidhar & Domingo-Ferrer (2016) §4)."""
    n = x.shape[0]
    P = rank_distance(p, n, rounding)
    mode = _PDIST_MODE[variant]
    return _per_column(x, lambda: _pdist_kernel(n, P, mode, rng))


@register("rankswap_pbuckets", Param("buckets", "int", low=2, doc="number of buckets, 2 <= buckets <= n", at_most="n"),
          family="swapping", randomised=True, memory=_SWAP_MEMORY)
def rankswap_pbuckets(x: np.ndarray, rng: np.random.Generator, *, buckets: int) -> np.ndarray:
    """Rank swapping p-buckets, bucket chosen with Pr ~ 2^-|r-s| (Nin, Herranz & Torra (2008, rank swapping) §4.2)."""
    n = x.shape[0]
    if buckets > n:
        raise ValueError(f"rankswap_pbuckets: parameter buckets must be an integer in [2, {n}] (n records), got {buckets}")
    bounds = bucket_bounds(n, buckets)
    probs = bucket_probabilities(buckets)
    return _per_column(x, lambda: _pbuckets_kernel(n, bounds, probs, rng))
