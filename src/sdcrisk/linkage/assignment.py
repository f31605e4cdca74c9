"""One-to-one assignments of original to masked records, solved exactly as minimum-cost flows.

The bipartite network is source -> original (capacity 1) -> masked along the candidate edges ->
sink (capacity 1), solved by OR-Tools' cost-scaling push-relabel minimum-cost flow, which needs
integer costs (the scaling is stated per function). Probabilistic linkage maximises the total
weight and may leave records unlinked (:func:`assign_max_weight`); global distance-based linkage
makes as many links as the edges allow at minimum total distance (:func:`assign_min_cost`).
"""

from __future__ import annotations

import numpy as np

COST_RANGE = 10**9  # assign_min_cost: the largest edge cost becomes this many integer units


def _flow_links(rows, cols, costs: np.ndarray, n: int, *, bypass: bool) -> np.ndarray:
    """Solve the network on edges ``(rows, cols)`` with integer ``costs``; ``bypass`` adds an arc
    original -> sink at cost 0 ("no link") and solves for minimum cost with every original
    routed, otherwise the flow is the largest possible and of minimum cost among those."""
    from ortools.graph.python import min_cost_flow

    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    ncol = int(cols.max()) + 1 if cols.size else 0
    src, snk = n + ncol, n + ncol + 1
    e = rows.size
    tails = [np.full(n, src), rows, n + np.arange(ncol)] + ([np.arange(n)] if bypass else [])
    heads = [np.arange(n), n + cols, np.full(ncol, snk)] + ([np.full(n, snk)] if bypass else [])
    tails, heads = np.concatenate(tails), np.concatenate(heads)
    arc_costs = np.zeros(tails.size, dtype=np.int64)
    arc_costs[n:n + e] = costs
    flow = min_cost_flow.SimpleMinCostFlow()
    arcs = flow.add_arcs_with_capacity_and_unit_cost(tails, heads, np.ones(tails.size, dtype=np.int64), arc_costs)
    supply = np.zeros(n + ncol + 2, dtype=np.int64)
    supply[src], supply[snk] = n, -n
    flow.set_nodes_supplies(np.arange(supply.size), supply)
    status = flow.solve() if bypass else flow.solve_max_flow_with_min_cost()
    if status != flow.OPTIMAL:
        raise RuntimeError(f"assignment: the minimum-cost flow ended with status {status}")
    used = np.flatnonzero(flow.flows(arcs[n:n + e]) > 0)
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
    costs = -np.rint(np.asarray(gain, dtype=np.float64) * 1e6).astype(np.int64)
    return _flow_links(rows, cols, costs, n, bypass=True)


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
