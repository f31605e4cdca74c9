"""One-to-one assignments of original to masked records, solved exactly: minimum-cost flows, and a
certified row-full matching where one exists.

The bipartite network is source -> original (capacity 1) -> masked along the candidate edges ->
sink (capacity 1), solved by OR-Tools' cost-scaling push-relabel minimum-cost flow, which needs
integer costs (the scaling is stated per function). Probabilistic linkage maximises the total
weight and may leave records unlinked (:func:`assign_max_weight`, or on blocks of pairs that
share one gain, :func:`assign_max_weight_blocks`); global distance-based linkage makes as many
links as the edges allow at minimum total distance (:func:`assign_min_cost`).

Row-full first (:func:`assign_max_weight` from :data:`DIRECT_MIN` originals). On the near-tied
weights of probabilistic linkage the flow's time depends on the file far more than on its size
(PRL's networks at 100,000 x 10, rank swapping p = 5: 2-3 s on one masked file, 16-20 s on
another), while scipy's LAPJVsp (``min_weight_full_bipartite_matching``) on the candidate graph
alone took 0.3 and 0.6-0.8 s, 0.45 and 1.0 s with the certificate below
(``benchmarks/results/assignment.md``). That graph's solver links *every* original, which the
problem does not require (an original may stay unlinked), so its matching is kept only when a
certificate proves it optimal for the problem (:func:`_certified`, LP duality); otherwise, and
where no matching links every original with a candidate, the flow solves it (PRL-graded calls
the flow alone: its candidate graphs had no such matching). Both give a maximum
total weight; among equal-weight optima each picks its own, as any two solvers do (the masked
records were permuted at random before, so neither choice favours the true links). Below
:data:`DIRECT_MIN` originals the flow alone runs, so that the links of the replication's files
(at most 4,092 records) stay those of the flow.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .base import index_type

COST_RANGE = 10**9  # assign_min_cost: the largest edge cost becomes this many integer units
DIRECT_MIN = 20_000  # originals from which assign_max_weight tries the row-full matching first
_SLICE = 1 << 20  # arcs whose flows are read at a time


def _min_cost_flow(arcs: list, supply, *, max_flow: bool = False) -> np.ndarray:
    """Unit-capacity arcs ``tails -> heads`` with integer ``costs`` (``arcs = [tails, heads,
    costs]``, emptied once the solver holds its copy, so that the caller's arrays are freed before
    the solve) and node ``supply``; whether each arc carries flow in an optimal solution
    (``max_flow``: the largest flow, of minimum cost among those). The solver numbers the arcs
    0, 1, ... in the order given; their flows are read in slices, so that neither the arc numbers
    nor the flows are held whole (4 and 8 bytes per arc beside the solver)."""
    from ortools.graph.python import min_cost_flow

    flow = min_cost_flow.SimpleMinCostFlow()
    tails, heads, costs = arcs
    arcs.clear()
    m = tails.size
    numbers = flow.add_arcs_with_capacity_and_unit_cost(tails, heads, np.ones(m, dtype=np.int64), costs)
    if numbers.size and (numbers[0] != 0 or numbers[-1] != m - 1):
        raise RuntimeError("assignment: the solver numbered the arcs other than 0, 1, ...")
    del tails, heads, costs, numbers
    flow.set_nodes_supplies(np.arange(supply.size), supply)
    status = flow.solve_max_flow_with_min_cost() if max_flow else flow.solve()
    if status != flow.OPTIMAL:
        raise RuntimeError(f"assignment: the minimum-cost flow ended with status {status}")
    used = np.empty(m, dtype=np.bool_)
    for s in range(0, m, _SLICE):
        used[s:s + _SLICE] = flow.flows(np.arange(s, min(s + _SLICE, m))) > 0
    return used


def _flow_links(rows, cols, costs: np.ndarray, n: int, *, bypass: bool) -> np.ndarray:
    """Solve the network on edges ``(rows, cols)`` with integer ``costs``; ``bypass`` adds an arc
    original -> sink at cost 0 ("no link") and solves for minimum cost with every original
    routed, otherwise the flow is the largest possible and of minimum cost among those. Node
    numbers are 32-bit where they fit, the solver's own type, so that it copies nothing."""
    rows, cols = np.asarray(rows), np.asarray(cols)
    ncol = int(cols.max()) + 1 if cols.size else 0
    src, snk = n + ncol, n + ncol + 1
    e = rows.size
    node = index_type(snk)
    tails = [np.full(n, src), rows, n + np.arange(ncol)] + ([np.arange(n)] if bypass else [])
    heads = [np.arange(n), n + cols, np.full(ncol, snk)] + ([np.full(n, snk)] if bypass else [])
    tails, heads = np.concatenate(tails, dtype=node), np.concatenate(heads, dtype=node)
    arc_costs = np.zeros(tails.size, dtype=np.int64)
    arc_costs[n:n + e] = costs
    supply = np.zeros(n + ncol + 2, dtype=np.int64)
    supply[src], supply[snk] = n, -n
    network = [tails, heads, arc_costs]  # the solver copies them, then frees them before it solves
    del tails, heads, arc_costs
    used = np.flatnonzero(_min_cost_flow(network, supply, max_flow=not bypass)[n:n + e])
    links = np.full(n, -1, dtype=np.int64)
    links[rows[used]] = cols[used]
    return links


def assign_max_weight(rows: np.ndarray, cols: np.ndarray, gain: np.ndarray, n: int, *,
                      direct_min: int | None = DIRECT_MIN) -> np.ndarray:
    """One-to-one assignment of n originals to masked records maximising the total ``gain``.

    Edges ``(rows, cols)`` carry ``gain > 0``; every other pair has gain 0. Gains count in integer
    units of 1e-6; an original left without a link is returned as -1. From ``direct_min``
    originals (None: never) the certified row-full matching is tried first (module docstring);
    where it is not tried or not certified, the minimum-cost flow, whose "no link" arc costs 0,
    solves the problem. (scipy's LAPJVsp with a private "no link" column per original instead was
    slower than the flow: 68 s against 5 s at 200,000 records.)
    """
    costs = _units(gain)
    if direct_min is not None and n >= direct_min and costs.size:
        links = _row_full(rows, cols, -costs, n)
        if links is not None:
            return links
    return _flow_links(rows, cols, costs, n, bypass=True)


def _row_full(rows, cols, units, n: int):
    """The maximum-weight matching of the originals that have edges, all of them linked
    (scipy's LAPJVsp on costs ``K - units``: integers as floats, exact sums), if one exists and
    :func:`_certified` proves it optimal when originals may stay unlinked; else None."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    rows = np.asarray(rows, dtype=np.int64)
    active = np.flatnonzero(np.bincount(rows, minlength=n))  # originals without edges stay unlinked
    ny = int(np.max(cols)) + 1
    if active.size > ny:
        return None
    top = float(units.max()) + 1.0
    graph = csr_matrix((top - units, (np.searchsorted(active, rows), cols)), shape=(active.size, ny))
    try:
        r, c = min_weight_full_bipartite_matching(graph)
    except ValueError:  # no matching links every original with an edge
        return None
    mate = np.empty(active.size, dtype=np.int64)
    mate[r] = c
    gains = np.rint(top - graph.data).astype(np.int64)  # the units again, in the graph's row order
    if not _certified(graph.indptr, graph.indices, gains, mate, ny, 20 * rows.size + active.size):
        return None
    links = np.full(n, -1, dtype=np.int64)
    links[active] = mate
    return links


@njit(cache=True, nogil=True)
def _certified(indptr, cols, units, mate, ny, max_pushes):
    """Whether the matching ``mate`` (row -> column; row i's edges ``indptr[i]:indptr[i + 1]``,
    integer gains ``units``), which links every row, has the maximum total gain among all
    matchings, rows allowed to stay unmatched.

    LP duality of bipartite matching (its LP has integral optima; e.g. Schrijver 2003,
    Combinatorial Optimization, ch. 17): optimal iff there are ``u, v >= 0`` with
    ``u_i + v_j >= g_ij`` on every edge, equality on the matching, and ``v_j = 0`` on unmatched
    columns. With ``u_i = g_i,mate(i) - v_mate(i)`` this asks
    for ``v >= 0`` with ``v_j >= v_mate(i) + g_ij - g_i,mate(i)`` on every edge (longest paths),
    ``v_mate(i) <= g_i,mate(i)`` and ``v = 0`` on unmatched columns. The least such ``v`` is
    computed from 0 by label correcting (a queue of rows whose matched column's ``v`` rose); any
    larger ``v`` breaks the conditions no less. False when a condition fails, or after
    ``max_pushes`` rescans (the caller then solves the problem otherwise)."""
    n = indptr.size - 1
    owner = np.full(ny, -1, np.int64)
    own = np.full(n, -1, np.int64)
    for i in range(n):
        owner[mate[i]] = i
        for e in range(indptr[i], indptr[i + 1]):
            if cols[e] == mate[i]:
                own[i] = units[e]
        if own[i] < 0:
            return False
    v = np.zeros(ny, np.int64)
    queue = np.arange(n)
    queued = np.ones(n, np.bool_)
    head, size, pushes = 0, n, 0
    while size > 0:
        i = queue[head]
        head = (head + 1) % n
        size -= 1
        queued[i] = False
        base = v[mate[i]] - own[i]
        for e in range(indptr[i], indptr[i + 1]):
            j = cols[e]
            if base + units[e] > v[j]:
                v[j] = base + units[e]
                r = owner[j]
                if r < 0 or v[j] > own[r]:
                    return False
                if not queued[r]:
                    queued[r] = True
                    queue[(head + size) % n] = r
                    size += 1
                    pushes += 1
                    if pushes > max_pushes:
                        return False
    return True


def assign_min_cost(rows: np.ndarray, cols: np.ndarray, cost: np.ndarray, n: int) -> np.ndarray:
    """Maximum-cardinality one-to-one assignment along the edges ``(rows, cols)`` with minimum
    total ``cost`` (>= 0) among those; originals left without a partner get -1.

    Costs are scaled so that the largest becomes :data:`COST_RANGE` integer units and rounded:
    optimal up to that rounding (1e-9 of the largest edge cost per link).
    """
    cost = np.asarray(cost, dtype=np.float64)
    top = float(cost.max(initial=0.0))
    scaled = np.rint(cost * (COST_RANGE / top)).astype(np.int64) if top > 0 else np.zeros(cost.size, np.int64)
    return _flow_links(rows, cols, scaled, n, bypass=False)


def _units(gain) -> np.ndarray:
    """Gains as integer costs of a minimisation, in units of 1e-6."""
    return -np.rint(np.asarray(gain, dtype=np.float64) * 1e6).astype(np.int64)


def assign_max_weight_blocks(n: int, ny: int, direct, enter, members) -> np.ndarray:
    """:func:`assign_max_weight` on a network in which a *block* stands for every pair of its
    originals and its masked records at one gain: the bipartite graph of complete blocks, with
    as many arcs as the blocks have originals plus members instead of their product.

    ``direct = (rows, cols, gain)``: edges as in :func:`assign_max_weight`. ``enter = (rows,
    blocks, gain)``: original ``rows[k]`` reaches every member of block ``blocks[k]`` at
    ``gain[k] > 0``. ``members = (blocks, cols)``: the masked records of each block. A flow unit
    original -> block -> masked is the link of that pair; the links entering a block are paired
    with those leaving it in ascending order of original and masked record. Exact whenever the
    network overstates no pair (each pair's best route is its gain; the caller's condition).

    Every original leaves by exactly one arc (a direct edge, a block, or "no link"), so adding one
    constant to the costs of those arcs leaves the optimum unchanged; centring them on 0 halves
    the cost range, which the cost-scaling solver's time follows. Node numbers are 32-bit, the
    solver's own type, so that it copies nothing.
    """
    rows, cols, gain = direct
    erow, eblock, egain = enter
    mblock, mcol = members
    nb = int(max(eblock.max(initial=-1), mblock.max(initial=-1))) + 1
    m0 = n + nb  # node numbers: originals, blocks, masked records, sink
    snk = m0 + ny
    parts = [(np.arange(n), np.full(n, snk), 0),
             (rows, m0 + cols, _units(gain)), (erow, n + eblock, _units(egain)),
             (n + mblock, m0 + mcol, 0), (m0 + np.arange(ny), np.full(ny, snk), 0)]
    start = np.cumsum([0] + [len(t) for t, _, _ in parts])
    tails, heads = np.empty(start[-1], dtype=np.int32), np.empty(start[-1], dtype=np.int32)
    costs = np.zeros(start[-1], dtype=np.int64)
    for (t, h, c), a, b in zip(parts, start[:-1], start[1:]):
        tails[a:b], heads[a:b], costs[a:b] = t, h, c
    del parts
    costs[:start[3]] += int(-costs.min(initial=0)) // 2  # every original's outgoing arcs
    supply = np.zeros(snk + 1, dtype=np.int64)
    supply[:n], supply[snk] = 1, -n  # one unit at each original (no source node: faster)
    network = [tails, heads, costs]
    del tails, heads, costs
    flows = _min_cost_flow(network, supply)
    links = np.full(n, -1, dtype=np.int64)
    d = flows[start[1]:start[2]]
    links[rows[d]] = cols[d]
    ein, mout = flows[start[2]:start[3]], flows[start[3]:start[4]]
    o_in = np.lexsort((erow[ein], eblock[ein]))
    o_out = np.lexsort((mcol[mout], mblock[mout]))
    links[erow[ein][o_in]] = mcol[mout][o_out]
    return links
