"""Global distance-based record linkage (GDBRL; Herranz, Nin, Rodríguez & Tassa 2015,
"Revisiting distance-based record linkage for privacy-preserving release of statistical
datasets", Data & Knowledge Engineering 100).

DBRL links every original record to its nearest masked record independently, so several
originals may share one masked record. GDBRL instead chooses the one-to-one assignment of
original to masked records that minimises the *total* distance, an assignment problem: a
masked record can be the correct partner of one original only, and the global optimum uses
that. Distances are those of :func:`sdcrisk.linkage.dbrl` (each file standardised by its own
mean and sd, Euclidean or Mahalanobis), not squared: the total of Euclidean distances
(``cost="euclidean"``, the default) or of squared distances (``cost="sqeuclidean"``).

``method="exact"`` solves the dense n x n problem with scipy's ``linear_sum_assignment`` (n^2
doubles, checked against the memory limit), masked records as the rows: on tied distances the
solver's choice among equally short assignments depends on the orientation. ``method="sparse"`` keeps each original's
``candidates`` nearest masked records (the k-d tree of :mod:`.neighbours`, :meth:`KDTree.knn`; with
``approx=eps`` the k-th candidate lies within (1 + eps) times the distance of the true k-th nearest,
as scipy's ``cKDTree.query(eps=)``, which made scipy's search 3x faster at 100,000 records for
0.23 pp fewer correct links, see ``docs/benchmarks.md``), solves a priced assignment on that graph
(:func:`priced_links`, below) and then assigns the originals it left unlinked to the masked
records left over, again by minimum total distance (:func:`_complete`: dense up to
:data:`COMPLETE_EXACT_MAX` of them, else the same sparse solver on them). The result is a complete
one-to-one assignment; with every masked record a candidate it is the exact optimum (tested). ``"auto"`` takes the exact solver up to :data:`EXACT_MAX` records.

Price. An original whose true partner in the optimum lies outside its candidates cannot be
linked well on the graph; forcing it onto a candidate anyway displaces others. The sparse solver
therefore lets every original stay unlinked at a *price* P and maximises the total of
``P - distance`` over the links it makes (an assignment problem with a "no link" column per
original: :func:`.assignment.assign_max_weight`, shortest augmenting paths from 20,000 originals,
a minimum-cost flow below; integer gains in units of P / 10^9). An original with no candidate
nearer than P stays unlinked, and one whose candidate is taken links elsewhere only if that costs
less than P. P is the median over the originals of their k-th candidate's distance
(:func:`link_price`), the typical cost of a link the graph does not hold; where every masked record
is a candidate, or no edge would be cheaper, P exceeds every edge and the solver makes as many
links as the graph allows at minimum total distance. The choice of the median was measured on the
synthetic files of ``benchmarks/bench_gdbrl_gap.py`` against scipy's exact solver
(``benchmarks/results/gdbrl_gap.md``, section "Priced assignment"): at 10^4 records (where it was
chosen, against 1.5, 2, 3 and 5 times the median, and prices per original) the total distance came
within 0.15 % of the optimum on rank-swapped files and 0.4 % on MDAV k = 3 files, with 0.2 points
more correct links and 0.2 points more respectively; at 2 x 10^4 (not used for the choice) within
1.4 % and 0.5 %, with 0.14 more and 0.1 fewer. The solver used before, which made as many links as
the graph allows first, came within 3.8 % and 0.9 % and linked 2.9-3.3 points fewer records
correctly on the rank-swapped files. The solver is still not exact: its result carries
``info["approximate"] = True`` and the report says so.

Ties (``truth=``): several one-to-one assignments can share the minimum total distance (identical
masked records, as after microaggregation), and which one a solver returns depends on the record
order. With the true links given, :func:`gdbrl` solves :data:`TIE_DRAWS` times, each time on the
masked records in a random order (the first the order of ``rng.permutation``, which gives the
reported links; the others seeded by ``rng.integers``, so the result is a function of ``rng``), and
``credit[i]`` is the share of the draws that link ``i`` correctly; ``info["draws"]`` lists the
correct links of each draw (one draw only when neither file holds two identical records: the
minimum total distance is then reached by one assignment, barring exact coincidences of sums of
real distances). This estimates the expected credit when ties are broken at random (not
exactly: a solver's choice on a random order need not be uniform over the optimal assignments, and
counting them is #P-hard). Each draw costs one solve: at 10,000 records 2-3 s with the exact
solver on an MDAV k = 3 file (ten draws, 29 s), 13-21 s on a rank-swapped one (no identical
records: one draw); the sparse solver 0.2-0.5 s at 10,000-20,000 records and 2-3 s at 100,000.
"""

from __future__ import annotations

import numpy as np

from ..resources import check_memory
from ..validation import check_int, check_real
from .assignment import assign_max_weight
from ..validation import prepare
from .base import LinkResult, check_truth, index_type
from .distance import _prepared
from .neighbours import KDTree

METHODS = ("auto", "exact", "sparse")
COSTS = ("euclidean", "sqeuclidean")
EXACT_MAX = 10_000  # "auto": dense assignment up to this many records (an 800 MB cost matrix)
COMPLETE_EXACT_MAX = 2_000  # completion of the sparse solver: dense assignment up to this many records
CANDIDATES = 10
APPROX = 0.5  # sparse solver: candidates within (1 + APPROX) of the k-th nearest distance
PRICE_UNITS = 1e9  # integer units of the price: gains are optimal up to price / PRICE_UNITS per link
TIE_DRAWS = 10  # truth=: random orders of the masked records whose correct links are averaged
TIE_DRAWS_SPARSE = 3  # the same above EXACT_MAX, where each draw is a sparse solve (2-4 s at 10^5 records)


def gdbrl(original, masked, known=None, *, metric: str = "euclidean", standardise: str = "own",
          cost: str = "euclidean", method: str = "auto", candidates: int = CANDIDATES,
          approx: float = APPROX, rng: np.random.Generator | None = None, truth=None,
          draws: int | None = None) -> LinkResult:
    """Global one-to-one distance-based linkage (module docstring). ``score`` holds each link's
    distance (squared for ``cost="sqeuclidean"``); ``info`` the solver used, the total cost and,
    for the sparse solver, the candidates per record, the originals the priced assignment left
    unlinked (``unmatched``) and its ``price``.

    Ties among assignments of equal total distance (identical masked records, as after
    microaggregation) are broken at random: the masked records are permuted by ``rng`` (None: a
    Generator seeded with 0) before solving, so the record order, the true-link order in the
    replication, cannot favour true links (with the files aligned, the solver's own tie rule gave
    EIA under MDAV v = 3, k = 5 79.3 % or 70.7 % correct depending on its orientation).

    ``truth`` (the true masked record of each original record) adds ``credit``, the share of
    ``draws`` (default :data:`TIE_DRAWS`, :data:`TIE_DRAWS_SPARSE` for the sparse solver, whose result
    is approximate anyway; 1 without identical records) solves on random orders that
    link each record correctly,
    and ``info["draws"]``, the correct links of each (module docstring, "Ties")."""
    if rng is None:
        rng = np.random.Generator(np.random.PCG64(0))
    elif not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator or None, got {type(rng).__name__}")
    x, y = prepare(original, masked, known, allow_constant=standardise == "none" and metric == "euclidean")
    perm = rng.permutation(y.shape[0])
    res = _gdbrl(x, y[perm], metric, standardise, cost, method, candidates, approx)
    res.links = np.where(res.links >= 0, perm[np.maximum(res.links, 0)], -1)
    if truth is None:
        return res
    # expected credit over TIE_DRAWS random orders: this one, then orders seeded from rng
    truth = check_truth(truth, x.shape[0], y.shape[0])
    tally = (res.links == truth) & (truth >= 0)
    counts = [int(tally.sum())]
    tally = tally.astype(np.int64)
    varied = np.zeros(x.shape[0], dtype=bool)
    sparse = method == "sparse" or (method == "auto" and x.shape[0] > EXACT_MAX)
    draws = (TIE_DRAWS_SPARSE if sparse else TIE_DRAWS) if draws is None else check_int("draws", draws, 1)
    if not (_has_duplicates(x) or _has_duplicates(y)):
        draws = 1  # no two identical records: one optimal assignment (real-valued distances)
    for seed in rng.integers(0, 2**63 - 1, size=draws - 1):
        p = np.random.Generator(np.random.PCG64(int(seed))).permutation(y.shape[0])
        links = _gdbrl(x, y[p], metric, standardise, cost, method, candidates, approx).links
        links = np.where(links >= 0, p[np.maximum(links, 0)], -1)
        ok = (links == truth) & (truth >= 0)
        tally += ok
        counts.append(int(ok.sum()))
        varied |= links != res.links
    res.credit = tally / draws
    res.info.update(ties="random draws", draws=counts, tied_records=int(varied.sum()))
    return res


def _has_duplicates(z: np.ndarray) -> bool:
    """Whether two rows of ``z`` are equal."""
    return z.shape[0] > 1 and np.unique(z, axis=0).shape[0] < z.shape[0]


def _gdbrl(x, y, metric, standardise, cost, method, candidates, approx) -> LinkResult:
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    if cost not in COSTS:
        raise ValueError(f"cost must be one of {list(COSTS)}, got {cost!r}")
    xs, ys = _prepared(x, y, metric, standardise)
    n = xs.shape[0]
    if method == "auto":
        method = "exact" if n <= EXACT_MAX else "sparse"
    if method == "exact":
        from scipy.optimize import linear_sum_assignment
        from scipy.spatial.distance import cdist

        check_memory(f"gdbrl: the exact {n} x {n} cost matrix", 2 * 8.0 * n * n,
                     "use method='sparse' for large files")
        d = cdist(ys, xs, "sqeuclidean" if cost == "sqeuclidean" else "euclidean")
        # masked records as rows: the same optimum, found 2.5-3.5x faster on EIA's many tied
        # distances (rank swapping p = 5: 1.9 s against 6.6 s; docs/benchmarks.md)
        cols, rows = linear_sum_assignment(d)
        links = np.full(n, -1, dtype=np.int64)
        links[rows] = cols
        score = np.full(n, np.inf)
        score[rows] = d[cols, rows]
        info = {"solver": "exact", "total_cost": float(score[rows].sum())}
        return LinkResult(links=links, score=score, info=info)
    k = min(check_int("candidates", candidates, 1), ys.shape[0])
    eps = check_real("approx", approx, 0.0, np.inf)
    check_memory(f"gdbrl: the {n} x {k} candidate graph", 64.0 * n * k, "lower candidates")
    links, price = priced_links(xs, ys, k, eps, cost)
    unmatched = int((links < 0).sum())
    if unmatched:  # pair the originals left unlinked with the masked records left over
        links = _complete(xs, ys, links, cost)
    score = _distances(xs, ys, links, cost)
    info = {"solver": "sparse", "candidates": k, "approx": eps, "unmatched": unmatched, "price": price,
            "total_cost": float(score.sum()), "approximate": True}
    return LinkResult(links=links, score=score, info=info)


def priced_links(xs, ys, k: int, eps: float, cost: str) -> tuple[np.ndarray, float]:
    """The sparse solver's assignment before completion (module docstring, "Price"): each original
    takes one of its k nearest masked records (``eps``: approximate search) or none, maximising
    the total of ``price - distance`` over the links made; (links, -1 where none; the price)."""
    n = xs.shape[0]
    dist, idx = KDTree(ys, unique=False).knn(xs, k, approx=eps)  # squared distances
    if cost == "euclidean":
        np.sqrt(dist, out=dist)
    price = link_price(dist, ys.shape[0])
    gain = price - dist.ravel()
    del dist
    index = index_type(max(n, ys.shape[0]))
    keep = np.flatnonzero(gain * (PRICE_UNITS / price) >= 1.0)  # gains of at least one unit
    rows, cols = (keep // k).astype(index), idx.ravel()[keep].astype(index)
    del idx
    gain = gain[keep] * (PRICE_UNITS * 1e-6 / price)  # assign_max_weight counts units of 1e-6
    del keep
    return assign_max_weight(rows, cols, gain, n), price


def link_price(dist: np.ndarray, ny: int) -> float:
    """The price of leaving an original unlinked on the candidate graph (module docstring,
    "Price"): the median over the originals of their k-th candidate's distance (``dist``: n x k,
    increasing along rows); above every edge (as many links as the graph allows) when the
    candidates are every masked record, or when the median would leave no edge below it."""
    k = dist.shape[1]
    top = float(dist[:, -1].max(initial=0.0))
    price = float(np.median(dist[:, -1])) if k < ny else 2.0 * top
    if not price > float(dist[:, 0].min(initial=np.inf)) * (1.0 + 2.0 / PRICE_UNITS):
        price = 2.0 * top
    return max(price, np.finfo(float).tiny)


def _distances(xs, ys, links, cost):
    d2 = ((xs - ys[links]) ** 2).sum(axis=1)
    return d2 if cost == "sqeuclidean" else np.sqrt(d2)


def _complete(xs, ys, links, cost):
    """Assign the originals left unlinked by :func:`priced_links` to the unused masked records,
    exactly (dense) when they are few (:data:`COMPLETE_EXACT_MAX`: the dense solver's time grows
    about as the cube of their number, 1.3 s for 1,584 but minutes for 9,257 at 10^6 records),
    else again on their nearest candidates."""
    free_rows = np.flatnonzero(links < 0)
    used = np.zeros(ys.shape[0], dtype=bool)
    used[links[links >= 0]] = True
    free_cols = np.flatnonzero(~used)
    sub = _gdbrl(xs[free_rows], ys[free_cols], "euclidean", "none", cost,
                 "exact" if free_rows.size <= COMPLETE_EXACT_MAX else "sparse", CANDIDATES, APPROX)
    out = links.copy()
    out[free_rows] = free_cols[sub.links]
    return out
