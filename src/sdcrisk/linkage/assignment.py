"""One-to-one assignments of original to masked records, solved exactly: minimum-cost flows, and
shortest augmenting paths for probabilistic linkage's large files.

The bipartite network is source -> original (capacity 1) -> masked along the candidate edges ->
sink (capacity 1), solved by OR-Tools' cost-scaling push-relabel minimum-cost flow, which needs
integer costs (the scaling is stated per function). Probabilistic linkage maximises the total
weight and may leave records unlinked (:func:`assign_max_weight`, or on blocks of pairs that
share one gain, :func:`assign_max_weight_blocks`); so does global distance-based linkage's sparse
solver, whose gain is a price minus the distance (:mod:`.global_distance`).

Shortest augmenting paths (:func:`assign_max_weight` from :data:`PATHS_MIN` originals). The
flow's time depends on the file far more than on its size on the near-tied weights of
probabilistic linkage, and it holds about 90 bytes per arc beside the edge arrays (PRL-graded at
10^7 records: 1.3 x 10^8 arcs, over 11 GB). Successive shortest augmenting paths (:func:`_shortest_paths`) place one
original at a time and mostly stop at its best free candidate; on PRL-graded's network at
1,000,000 x 10 (10^7 edges) they took 4.5 s where the flow took 36 s, at 100,000 records 0.34 s
against 2 s, with the same total weight, in about 20 bytes per edge and 90 per record
(``benchmarks/results/assignment.md``). scipy's LAPJVsp cannot leave an original unlinked, and
with a private "no link" column per original it was slower than the flow (68 s against 5 s at
200,000 records); a certified row-full matching had no certificate on PRL-graded's networks
(docs/benchmarks.md). Among equal-weight optima each solver picks its own, as any two
solvers do (the masked records were permuted at random before, so neither choice favours the
true links). Below :data:`PATHS_MIN` originals the flow alone runs, so that the links of the
replication's files (at most 4,092 records) stay those of the flow; beyond a work bound
(:data:`PATHS_WORK`) the paths hand over to the flow.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import progress
from ..resources import check_memory, park
from .base import index_type

PATHS_MIN = 20_000  # originals from which assign_max_weight solves by shortest augmenting paths
PATHS_WORK = 5  # columns settled per edge and original before the flow takes over
FLOW_BYTES_PER_ARC = 100  # the flow's peak per arc beside the edge arrays (OR-Tools 9.15: 88 measured at 1.3 x 10^7 arcs)
_PATHS_ROWS = 1 << 16  # originals placed between progress reports
_SLICE = 1 << 20  # arcs whose flows are read at a time


def _min_cost_flow(arcs: list, supply) -> np.ndarray:
    """Unit-capacity arcs ``tails -> heads`` with integer ``costs`` (``arcs = [tails, heads,
    costs]``, emptied once the solver holds its copy, so that the caller's arrays are freed before
    the solve) and node ``supply``; whether each arc carries flow in an optimal solution. The
    solver numbers the arcs 0, 1, ... in the order given; their flows are read in slices, so that
    neither the arc numbers nor the flows are held whole (4 and 8 bytes per arc beside the
    solver)."""
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
    status = flow.solve()
    if status != flow.OPTIMAL:
        raise RuntimeError(f"assignment: the minimum-cost flow ended with status {status}")
    used = np.empty(m, dtype=np.bool_)
    for s in range(0, m, _SLICE):
        used[s:s + _SLICE] = flow.flows(np.arange(s, min(s + _SLICE, m))) > 0
    return used


def _flow_links(rows, cols, costs: list, n: int) -> np.ndarray:
    """Solve the network on edges ``(rows, cols)`` with integer costs (``costs = [array]``, emptied
    once copied into the network, so that the caller's array is freed before the solve) and an arc
    original -> sink at cost 0 ("no link"), for minimum cost with every original routed. Node
    numbers are 32-bit where they fit, the solver's own type, so that it copies nothing."""
    rows, cols = np.asarray(rows), np.asarray(cols)
    ncol = int(cols.max()) + 1 if cols.size else 0
    src, snk = n + ncol, n + ncol + 1
    e = rows.size
    node = index_type(snk)
    tails = [np.full(n, src), rows, n + np.arange(ncol), np.arange(n)]
    heads = [np.arange(n), n + cols, np.full(ncol, snk), np.full(n, snk)]
    tails, heads = np.concatenate(tails, dtype=node), np.concatenate(heads, dtype=node)
    arc_costs = np.zeros(tails.size, dtype=np.int64)
    arc_costs[n:n + e] = costs.pop()
    supply = np.zeros(n + ncol + 2, dtype=np.int64)
    supply[src], supply[snk] = n, -n
    network = [tails, heads, arc_costs]  # the solver copies them, then frees them before it solves
    del tails, heads, arc_costs
    used = np.flatnonzero(_min_cost_flow(network, supply)[n:n + e])
    links = np.full(n, -1, dtype=np.int64)
    links[rows[used]] = cols[used]
    return links


def assign_max_weight(rows: np.ndarray, cols: np.ndarray, gain: np.ndarray, n: int, *,
                      paths_min: int | None = PATHS_MIN, classes: np.ndarray | None = None) -> np.ndarray:
    """One-to-one assignment of n originals to masked records maximising the total ``gain``.

    Edges ``(rows, cols)`` carry ``gain > 0`` (``classes``: edge k carries ``gain[classes[k]]``, so
    that the caller holds no per-edge gains during the solve); every other pair has gain 0. Gains
    count in integer units of 1e-6; an original left without a link is returned as -1. From
    ``paths_min`` originals (None: never) shortest augmenting paths solve it
    (:func:`_shortest_paths`), unless they exceed their work bound; otherwise the minimum-cost flow,
    whose "no link" arc costs 0.
    """
    costs = _units(gain) if classes is None else _units(gain)[classes]
    if paths_min is not None and n >= paths_min and costs.size:
        links = _shortest_paths(rows, cols, costs, n)
        if links is not None:
            return links
    check_memory(f"assignment: the minimum-cost flow on {costs.size:,} edges", FLOW_BYTES_PER_ARC * (costs.size + 3 * n))
    costs = [costs]  # freed once the network holds its copy
    return _flow_links(rows, cols, costs, n)


def _shortest_paths(rows, cols, costs: np.ndarray, n: int):
    """The assignment of :func:`assign_max_weight` (integer ``costs``: minus the gains) by
    successive shortest augmenting paths, or None when they settle more than :data:`PATHS_WORK`
    columns per edge and original (the caller then solves with the flow).

    The originals enter one at a time, those with the highest best gain first (on PRL-graded's
    network at 10^6 records 30 % fewer settled columns than in record order, 2.3 times fewer than
    weakest first; at 10^7 the whole attack took 1202 s against 1340 s): the weakest originals,
    which often end unlinked, come last, and a search settles only columns closer than its own
    "no link" column, which for them is near. Each is joined by a private "no link" column at cost 0, so that every
    original can always be placed. :func:`_augment` is the augmentation step of
    Jonker & Volgenant (1987, "A shortest augmenting path algorithm for dense and sparse linear
    assignment problems", Computing 38) on the sparse graph: Dijkstra from the new original over
    reduced costs ``c_ik - v_k`` (column prices ``v``; an assigned original's own column is its
    cheapest), then new prices for the settled columns and the flip of the path. With integer
    costs every step is exact, so the result is an optimum of the problem; among equal optima it
    picks its own (the flow may pick another). Memory: the edges once more (sorted by original
    where they are not) and about 90 bytes per original and masked record; the progress line
    counts the originals placed."""
    rows = np.asarray(rows)
    if rows.size > 1 and np.any(rows[1:] < rows[:-1]):
        order = np.argsort(rows, kind="stable")
        rows, cols, costs = rows[order], np.asarray(cols)[order], costs[order]
    cols = np.asarray(cols)
    ny = int(cols.max()) + 1
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    # strongest first: originals by their best gain, highest first (those without edges last)
    best = np.zeros(n, dtype=np.int64)
    has = indptr[1:] > indptr[:-1]
    if costs.size:
        best[has] = np.minimum.reduceat(costs, indptr[:-1][has])
    order = np.argsort(best, kind="stable")
    del best, has
    m = ny + n  # columns: the masked records, then the "no link" column of each original
    check_memory(f"assignment: shortest augmenting paths on {n:,} x {ny:,} records", 90.0 * m)
    prices, owner = np.zeros(m, dtype=np.int64), np.full(m, -1, dtype=np.int64)
    mate, own_cost = np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=np.int64)
    work = (np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64),
            np.zeros(m, dtype=np.int8), np.empty(m, dtype=np.int64),
            np.empty(2 * m + 2, dtype=np.int64), np.empty(2 * m + 2, dtype=np.int64))
    budget = PATHS_WORK * (rows.size + n)
    for i0 in range(0, n, _PATHS_ROWS):
        i1 = min(n, i0 + _PATHS_ROWS)
        budget = _augment(indptr, cols, costs, ny, order[i0:i1], budget, prices, owner, mate, own_cost, *work)
        if budget < 0:
            return None
        progress.report(f"assignment: {i1:,} of {n:,} records placed")
    return np.where(mate < ny, mate, -1)


@njit(cache=True, nogil=True)
def _augment(indptr, cols, cost, ny, originals, budget, v, owner, mate, own_cost, dist, pred, pcost, state, touched,
             heap_d, heap_c):
    """Place ``originals``, in that order (:func:`_shortest_paths`); returns the work budget left
    (negative: exceeded; the state is then abandoned). Column ``ny + i`` is original i's "no link"
    column (cost 0, reachable from i alone). ``state``: 0 not reached, 1 reached, 2 settled;
    ``heap_d, heap_c``: a binary heap of (distance, column) with stale entries skipped, rebuilt
    from the reached columns when full."""
    for i in originals:
        nt = 0
        hs = 0
        r = i
        base = 0
        end = -1
        top = 0
        while True:
            # relax the options of original r, reached at distance base
            for e in range(indptr[r], indptr[r + 1] + 1):
                if e < indptr[r + 1]:
                    k = cols[e]
                    c = cost[e]
                else:
                    k = ny + r
                    c = 0
                if state[k] == 2:
                    continue
                d = base + c - v[k]
                if state[k] == 0 or d < dist[k]:
                    if state[k] == 0:
                        state[k] = 1
                        touched[nt] = k
                        nt += 1
                    dist[k] = d
                    pred[k] = r
                    pcost[k] = c
                    if hs == heap_d.size:  # rebuild from the reached columns, one entry each
                        hs = 0
                        for t in range(nt):
                            if state[touched[t]] == 1:
                                hs = _heap_push(heap_d, heap_c, hs, dist[touched[t]], touched[t])
                    else:
                        hs = _heap_push(heap_d, heap_c, hs, d, k)
            # settle the nearest reached column (the own "no link" column is always reached)
            while True:
                d = heap_d[0]
                k = heap_c[0]
                hs = _heap_pop(heap_d, heap_c, hs)
                if state[k] == 1 and d == dist[k]:
                    break
            state[k] = 2
            budget -= 1
            if budget < 0:
                return budget
            if owner[k] < 0:
                end = k
                top = d
                break
            r = owner[k]
            base = d - (own_cost[r] - v[k])
        for t in range(nt):  # new prices keep every assigned original's own column its cheapest
            k = touched[t]
            if state[k] == 2:
                v[k] += dist[k] - top
            state[k] = 0
        k = end
        while True:  # flip the path: each original on it takes the column it reached
            r = pred[k]
            prev = mate[r]
            mate[r] = k
            owner[k] = r
            own_cost[r] = pcost[k]
            if r == i:
                break
            k = prev
    return budget


@njit(cache=True, nogil=True, inline="always")
def _heap_push(hd, hc, hs, d, k):
    j = hs
    while j > 0:
        p = (j - 1) >> 1
        if hd[p] < d or (hd[p] == d and hc[p] < k):
            break
        hd[j] = hd[p]
        hc[j] = hc[p]
        j = p
    hd[j] = d
    hc[j] = k
    return hs + 1


@njit(cache=True, nogil=True, inline="always")
def _heap_pop(hd, hc, hs):
    hs -= 1
    d, k = hd[hs], hc[hs]
    j = 0
    while True:
        child = 2 * j + 1
        if child >= hs:
            break
        if child + 1 < hs and (hd[child + 1] < hd[child] or (hd[child + 1] == hd[child] and hc[child + 1] < hc[child])):
            child += 1
        if hd[child] < d or (hd[child] == d and hc[child] < k):
            hd[j] = hd[child]
            hc[j] = hc[child]
            j = child
        else:
            break
    if hs > 0:
        hd[j] = d
        hc[j] = k
    return hs


def _units(gain) -> np.ndarray:
    """Gains as integer costs of a minimisation, in units of 1e-6."""
    return -np.rint(np.asarray(gain, dtype=np.float64) * 1e6).astype(np.int64)


def single_blocks_as_edges(direct, enter, members):
    """The network of :func:`assign_max_weight_blocks` with every block that one original enters,
    or that has one member, replaced by direct edges at its gain (``a * b`` edges instead of
    ``a + b`` arcs and a node, where ``a`` or ``b`` is 1) and the other blocks renumbered 0, 1, ...
    The same pairs at the same gains, so the same optimum total on fewer nodes. On the network of
    PRL at 1,000,000 x 10 (rank swapping: 447,133 of its 1,647,099 blocks have one original and
    one member) the flow took 82.0, 84.3 and 87.9 s against 90.6 and 90.6 s, with the same total
    gain; blocks of two originals and two members as four edges made it slower (114.2 s)."""
    rows, cols, gain = direct
    erow, eblock, egain = enter
    mblock, mcol = members
    nb = int(max(eblock.max(initial=-1), mblock.max(initial=-1))) + 1
    a, b = np.bincount(eblock, minlength=nb), np.bincount(mblock, minlength=nb)
    single = (a == 1) | (b == 1)
    if not single.any():
        return direct, enter, members
    ke, km = single[eblock], single[mblock]
    e_order, m_order = np.argsort(eblock[ke], kind="stable"), np.argsort(mblock[km], kind="stable")
    er, eb, eg = erow[ke][e_order], eblock[ke][e_order], egain[ke][e_order]
    mc = mcol[km][m_order]  # the single blocks' members, block by block
    mstart = np.zeros(nb, dtype=np.int64)
    mstart[1:] = np.cumsum(np.where(single, b, 0))[:-1]
    reps = b[eb]  # each entering arc becomes an edge to every member of its block
    within = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)
    edges = (np.concatenate([rows, np.repeat(er, reps)]).astype(rows.dtype, copy=False),
             np.concatenate([cols, mc[np.repeat(mstart[eb], reps) + within]]).astype(cols.dtype, copy=False),
             np.concatenate([gain, np.repeat(eg, reps)]))
    number = (np.cumsum(~single) - 1).astype(eblock.dtype)
    return edges, (erow[~ke], number[eblock[~ke]], egain[~ke]), (number[mblock[~km]], mcol[~km])


def assign_max_weight_blocks(n: int, ny: int, network: list) -> np.ndarray:
    """:func:`assign_max_weight` on a network in which a *block* stands for every pair of its
    originals and its masked records at one gain: the bipartite graph of complete blocks, with
    as many arcs as the blocks have originals plus members instead of their product.

    ``network = [direct, enter, members]``, emptied here so that the caller's arrays are freed
    before the solve. ``direct = (rows, cols, gain)``: edges as in :func:`assign_max_weight`.
    ``enter = (rows, blocks, gain)``: original ``rows[k]`` reaches every member of block
    ``blocks[k]`` at ``gain[k] > 0``. ``members = (blocks, cols)``: the masked records of each
    block. A flow unit original -> block -> masked is the link of that pair; the links entering a
    block are paired with those leaving it in ascending order of original and masked record.
    Exact whenever the network overstates no pair (each pair's best route is its gain; the
    caller's condition).

    Every original leaves by exactly one arc (a direct edge, a block, or "no link"), so adding one
    constant to the costs of those arcs leaves the optimum unchanged; centring them on 0 halves
    the cost range, which the cost-scaling solver's time follows. Node numbers are 32-bit, the
    solver's own type, so that it copies nothing. The arcs' ends, which say which pair each flow
    unit links, wait on disk while the solver runs (:func:`sdcrisk.resources.park`): the solver
    holds about 84 bytes per arc, and at 1,000,000 x 10 (22.4 million arcs) the caller's arrays
    beside it were a further 240 MB.
    """
    (rows, cols, gain), (erow, eblock, egain), (mblock, mcol) = network
    network.clear()
    nb = int(max(eblock.max(initial=-1), mblock.max(initial=-1))) + 1
    m0 = n + nb  # node numbers: originals, blocks, masked records, sink
    snk = m0 + ny
    parts = [(np.arange(n), np.full(n, snk), 0),
             (rows, m0 + cols, _units(gain)), (erow, n + eblock, _units(egain)),
             (n + mblock, m0 + mcol, 0), (m0 + np.arange(ny), np.full(ny, snk), 0)]
    del rows, cols, gain, erow, eblock, egain, mblock, mcol
    start = np.cumsum([0] + [len(t) for t, _, _ in parts])
    tails, heads = np.empty(start[-1], dtype=np.int32), np.empty(start[-1], dtype=np.int32)
    costs = np.zeros(start[-1], dtype=np.int64)
    for (t, h, c), a, b in zip(parts, start[:-1], start[1:]):
        tails[a:b], heads[a:b], costs[a:b] = t, h, c
    del parts
    costs[:start[3]] += int(-costs.min(initial=0)) // 2  # every original's outgoing arcs
    supply = np.zeros(snk + 1, dtype=np.int64)
    supply[:n], supply[snk] = 1, -n  # one unit at each original (no source node: faster)
    ends = park(tails, heads)
    arcs = [tails, heads, costs]
    del tails, heads, costs
    flows = _min_cost_flow(arcs, supply)
    tails, heads = ends.load()
    links = np.full(n, -1, dtype=np.int64)
    d = start[1] + np.flatnonzero(flows[start[1]:start[2]])
    links[tails[d]] = heads[d] - m0
    ein = start[2] + np.flatnonzero(flows[start[2]:start[3]])
    mout = start[3] + np.flatnonzero(flows[start[3]:start[4]])
    erow, eblock, mblock, mcol = tails[ein], heads[ein], tails[mout], heads[mout] - m0
    links[erow[np.lexsort((erow, eblock))]] = mcol[np.lexsort((mcol, mblock))]
    return links
