"""One-to-one assignments of original to masked records, solved exactly as minimum-cost flows.

The bipartite network is source -> original (capacity 1) -> masked along the candidate edges ->
sink (capacity 1), solved by OR-Tools' cost-scaling push-relabel minimum-cost flow, which needs
integer costs (the scaling is stated per function). Probabilistic linkage maximises the total
weight and may leave records unlinked (:func:`assign_max_weight`, or on blocks of pairs that
share one gain, :func:`assign_max_weight_blocks`); global distance-based linkage makes as many
links as the edges allow at minimum total distance (:func:`assign_min_cost`).
"""

from __future__ import annotations

import numpy as np

COST_RANGE = 10**9  # assign_min_cost: the largest edge cost becomes this many integer units


def _min_cost_flow(arcs: list, supply, *, max_flow: bool = False) -> np.ndarray:
    """Unit-capacity arcs ``tails -> heads`` with integer ``costs`` (``arcs = [tails, heads,
    costs]``, emptied once the solver holds its copy, so that the caller's arrays are freed before
    the solve) and node ``supply``; the flow on each arc of an optimal solution (``max_flow``:
    the largest flow, of minimum cost among those)."""
    from ortools.graph.python import min_cost_flow

    flow = min_cost_flow.SimpleMinCostFlow()
    tails, heads, costs = arcs
    arcs.clear()
    arcs = flow.add_arcs_with_capacity_and_unit_cost(tails, heads, np.ones(tails.size, dtype=np.int64), costs)
    del tails, heads, costs
    flow.set_nodes_supplies(np.arange(supply.size), supply)
    status = flow.solve_max_flow_with_min_cost() if max_flow else flow.solve()
    if status != flow.OPTIMAL:
        raise RuntimeError(f"assignment: the minimum-cost flow ended with status {status}")
    return flow.flows(arcs)


def _flow_links(rows, cols, costs: np.ndarray, n: int, *, bypass: bool) -> np.ndarray:
    """Solve the network on edges ``(rows, cols)`` with integer ``costs``; ``bypass`` adds an arc
    original -> sink at cost 0 ("no link") and solves for minimum cost with every original
    routed, otherwise the flow is the largest possible and of minimum cost among those."""
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    ncol = int(cols.max()) + 1 if cols.size else 0
    src, snk = n + ncol, n + ncol + 1
    e = rows.size
    tails = [np.full(n, src), rows, n + np.arange(ncol)] + ([np.arange(n)] if bypass else [])
    heads = [np.arange(n), n + cols, np.full(ncol, snk)] + ([np.full(n, snk)] if bypass else [])
    tails, heads = np.concatenate(tails), np.concatenate(heads)
    arc_costs = np.zeros(tails.size, dtype=np.int64)
    arc_costs[n:n + e] = costs
    supply = np.zeros(n + ncol + 2, dtype=np.int64)
    supply[src], supply[snk] = n, -n
    used = np.flatnonzero(_min_cost_flow([tails, heads, arc_costs], supply, max_flow=not bypass)[n:n + e] > 0)
    links = np.full(n, -1, dtype=np.int64)
    links[rows[used]] = cols[used]
    return links


def assign_max_weight(rows: np.ndarray, cols: np.ndarray, gain: np.ndarray, n: int) -> np.ndarray:
    """One-to-one assignment of n originals to masked records maximising the total ``gain``.

    Edges ``(rows, cols)`` carry ``gain > 0``; every other pair has gain 0. Costs are ``-gain`` in
    integer units of 1e-6; an original that takes the cost-0 "no edge left" arc is returned as
    -1. About ten times faster than scipy's LAPJVsp on the near-tied weights of probabilistic
    linkage (200,000 records: 5 s against 68 s), with the same optimum.
    """
    return _flow_links(rows, cols, _units(gain), n, bypass=True)


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
    flows = _min_cost_flow(network, supply) > 0
    links = np.full(n, -1, dtype=np.int64)
    d = flows[start[1]:start[2]]
    links[rows[d]] = cols[d]
    ein, mout = flows[start[2]:start[3]], flows[start[3]:start[4]]
    o_in = np.lexsort((erow[ein], eblock[ein]))
    o_out = np.lexsort((mcol[mout], mblock[mout]))
    links[erow[ein][o_in]] = mcol[mout][o_out]
    return links
