"""MDAV research helpers (Nin, Herranz & Torra (2007) Tables 9-11): MDAV variants, block layouts,
measures on the 18 deterministic cells, Table 9 candidate sets. Research code, not the package.

Variants of the MDAV partition of :func:`mdav_variant` (``rule``):
  textbook  MDAV-generic (Domingo-Ferrer & Torra 2005): xr farthest from centroid of remaining,
            xs farthest from xr; k-1 nearest of each; 2k..3k-1 end game: one more around xr.
  xs_cent   as textbook but xs = farthest from the centroid of xr's new cluster (Nin, Herranz & Torra (2007) §2.3
            "the farthest ... from the centroid of the new built cluster").
  literal   Nin, Herranz & Torra (2007) §2.3 literally: cluster 1 = the k records farthest from the average record;
            cluster 2 = the k records farthest from the centroid of cluster 1.
  literal2  cluster 1 = k farthest from the average; cluster 2 = xs (farthest from the
            centroid of cluster 1) + its k-1 nearest.
  single    MDAV-single-group: one cluster (xr farthest from centroid + k-1 nearest) per step
            while >= 2k remain; the rest (k..2k-1) one group.
  argus     mu-ARGUS (sdcMicro muargus_microaggregation.cpp): as textbook but the first cluster
            is built around min-index(r, s); end game around min-index(r, s).

Options of the generic kernel :func:`mdav_generic` (the ``mdavx_*`` hypotheses):
metric 0 squared Euclidean, 1 Manhattan, 2 Chebyshev; grow 0 k nearest to the seed record, 1 greedy
(each next record nearest to the running centroid); endgame 0 textbook (k..2k-1 left: one group),
1 fewer than k left are spread to the nearest cluster centroid (clusters of exactly k);
centroid used to pick xr: 0 mean of the remaining records, 1 coordinate-wise median, 2 midrange,
3 fixed mean of the whole file (never recomputed); pool 0 textbook, 1 xs is the farthest from xr
among ALL records (already clustered ones too), 2 xr and xs both among all records (the cluster
is always the k nearest still-unclustered records).

:func:`run` evaluates a masking function on the Census/EIA MDAV cells of T10/T11 (IL, DLD over
the first j attributes, j = 2..m, ID) against the published values, which are only compared against.
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T9, T10, T11]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD, PLD]}, {paper: nin2008_multivariate_ma, tables: ["Tables 1-2 (text of Sec. 3.1)"], methods: [mdav]}]

from __future__ import annotations

import functools

import numpy as np
from numba import njit
from scipy.stats import rankdata

from research_lib import columns, load, published
from sdcrisk.linkage.distance import dbrl
from sdcrisk.measures.information_loss import information_loss
from sdcrisk.measures.interval_disclosure import interval_disclosure_by_attribute

RULES = {"textbook": 0, "xs_cent": 1, "literal": 2, "literal2": 3, "single": 4, "argus": 5}
CELLS = [(v, k) for v in (2, 3, 4) for k in (5, 15, 25)]


# ------------------------------------------------------------------ published T9-T11
def _vk(param: str) -> tuple[int, int]:
    v, k = (int(p.split("=")[1]) for p in param.split(";"))
    return v, k


@functools.cache
def published_t1011() -> dict:
    """{(dataset, v, k, measure): value} of Nin, Herranz & Torra (2007) Tables 10/11."""
    return {(r["dataset"], *_vk(r["param"]), r["measure"]): float(r["value"])
            for table in ("T10", "T11") for r in published(paper="nin2007_location_rl", method="mdav", table=table)}


@functools.cache
def published_t9() -> dict:
    """{(dataset, v, k, known groups): L-RL count} of Nin, Herranz & Torra (2007) Table 9."""
    return {(r["dataset"], *_vk(r["param"]), int(r["known"])): float(r["value"])
            for r in published(paper="nin2007_location_rl", method="mdav", table="T9")}


def name_order(ds: str) -> np.ndarray:
    """Column permutation putting the attributes of ``ds`` in alphabetical order."""
    return np.argsort(columns(ds))


# ------------------------------------------------------------------ MDAV kernels
@njit(cache=True)
def _d2(z, idx, c):
    out = np.empty(idx.size)
    for a in range(idx.size):
        s = 0.0
        for t in range(z.shape[1]):
            d = z[idx[a], t] - c[t]
            s += d * d
        out[a] = s
    return out


@njit(cache=True)
def _cent(z, idx):
    c = np.zeros(z.shape[1])
    for a in range(idx.size):
        for t in range(z.shape[1]):
            c[t] += z[idx[a], t]
    return c / idx.size


@njit(cache=True)
def _take(active, sel_pos):
    keep = np.ones(active.size, dtype=np.bool_)
    keep[sel_pos] = False
    return active[keep]


@njit(cache=True)
def _label(active, sel_pos, labels, g):
    """Give the records at positions ``sel_pos`` of ``active`` the label g; returns the rest."""
    for a in range(sel_pos.size):
        labels[active[sel_pos[a]]] = g
    return _take(active, sel_pos)


@njit(cache=True)
def _nearest_pos(z, active, center_rec, k):
    d = _d2(z, active, z[center_rec])
    o = np.argsort(d, kind="mergesort")
    return o[:k]


@njit(cache=True)
def _farthest_pos(z, active, c, k):
    d = _d2(z, active, c)
    o = np.argsort(-d, kind="mergesort")
    return o[:k]


@njit(cache=True)
def mdav_variant(z, k, rule):
    """Cluster labels of the rows of ``z`` under the MDAV variant ``rule`` (a value of RULES)."""
    n = z.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    active = np.arange(n)
    g = 0
    lim = 2 * k if rule == 4 else 3 * k
    while active.size >= lim:
        c = _cent(z, active)
        if rule == 0 or rule == 1 or rule == 4 or rule == 5:
            d = _d2(z, active, c)
            xr = active[np.argmax(d)]
            dr = _d2(z, active, z[xr])
            xs = active[np.argmax(dr)]
            first = xr
            if rule == 5 and xs < xr:
                first = xs
            p = _nearest_pos(z, active, first, k)
            cl = active[p]
            active = _label(active, p, labels, g)
            g += 1
            if rule == 4:
                continue
            if rule == 1:
                cc = _cent(z, cl)
                xs = active[np.argmax(_d2(z, active, cc))]
            elif rule == 5:
                xs = xr if first == xs else xs
            p = _nearest_pos(z, active, xs, k)
        else:
            p = _farthest_pos(z, active, c, k)
            cl = active[p]
            active = _label(active, p, labels, g)
            g += 1
            cc = _cent(z, cl)
            if rule == 2:
                p = _farthest_pos(z, active, cc, k)
            else:
                xs = active[np.argmax(_d2(z, active, cc))]
                p = _nearest_pos(z, active, xs, k)
        active = _label(active, p, labels, g)
        g += 1
    if active.size >= 2 * k and rule != 4:
        c = _cent(z, active)
        if rule == 2 or rule == 3:
            p = _farthest_pos(z, active, c, k)
        else:
            d = _d2(z, active, c)
            xr = active[np.argmax(d)]
            if rule == 5:
                xs = active[np.argmax(_d2(z, active, z[xr]))]
                xr = min(xr, xs)
            p = _nearest_pos(z, active, xr, k)
        active = _label(active, p, labels, g)
        g += 1
    for a in range(active.size):
        labels[active[a]] = g
    return labels


@njit(cache=True)
def _dist(z, idx, c, metric):
    out = np.empty(idx.size)
    for a in range(idx.size):
        s = 0.0
        for t in range(z.shape[1]):
            d = abs(z[idx[a], t] - c[t])
            if metric == 0:
                s += d * d
            elif metric == 1:
                s += d
            else:
                if d > s:
                    s = d
        out[a] = s
    return out


@njit(cache=True)
def _center(z, idx, how, fixed):
    if how == 0:
        return _cent(z, idx)
    if how == 3:
        return fixed
    c = np.empty(z.shape[1])
    for t in range(z.shape[1]):
        col = z[idx, t]
        c[t] = np.median(col) if how == 1 else 0.5 * (col.min() + col.max())
    return c


@njit(cache=True)
def _grow(z, active, seed, k, metric, grow):
    """positions (in active) of a k-cluster around record seed (see module doc, ``grow``)."""
    if grow == 0:
        d = _dist(z, active, z[seed], metric)
        return np.argsort(d, kind="mergesort")[:k]
    sel = np.empty(k, dtype=np.int64)
    used = np.zeros(active.size, dtype=np.bool_)
    c = z[seed].copy()
    for a in range(k):
        d = _dist(z, active, c, metric)
        best = -1
        bd = np.inf
        for p in range(active.size):
            if not used[p] and d[p] < bd:
                bd = d[p]
                best = p
        used[best] = True
        sel[a] = best
        c = _cent(z, active[sel[:a + 1]])
    return sel


@njit(cache=True)
def _cluster_around(z, active, seed, k, metric, grow, labels, g):
    """Label the k-cluster around ``seed`` with ``g``; returns the still-unclustered records."""
    p = _grow(z, active, seed, k, metric, grow)
    for a in range(k):
        labels[active[p[a]]] = g
    return _take(active, p)


@njit(cache=True)
def mdav_generic(z, k, metric=0, grow=0, endgame=0, centroid=0, pool=0):
    """Cluster labels of the rows of ``z`` (options in the module doc)."""
    n = z.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    allr = np.arange(n)
    active = np.arange(n)
    fixed = _cent(z, allr)
    g = 0
    while active.size >= 3 * k:
        c = _center(z, active, centroid, fixed)
        pool_r = allr if pool == 2 else active
        xr = pool_r[np.argmax(_dist(z, pool_r, c, metric))]
        pool_s = allr if pool >= 1 else active
        xs = pool_s[np.argmax(_dist(z, pool_s, z[xr], metric))]
        active = _cluster_around(z, active, xr, k, metric, grow, labels, g)
        active = _cluster_around(z, active, xs, k, metric, grow, labels, g + 1)
        g += 2
    # 2k..3k-1 left: one more cluster; with endgame 1 also k..2k-1 left
    while active.size >= 2 * k or (endgame == 1 and active.size >= k):
        c = _center(z, active, centroid, fixed)
        xr = active[np.argmax(_dist(z, active, c, metric))]
        active = _cluster_around(z, active, xr, k, metric, grow, labels, g)
        g += 1
        if endgame == 0:
            break
    if endgame == 0:
        for a in range(active.size):
            labels[active[a]] = g
        return labels
    # endgame 1: spread the remaining (< k) records to the nearest cluster centroid
    cents = np.zeros((g, z.shape[1]))
    cnt = np.zeros(g)
    for i in range(n):
        if labels[i] >= 0:
            cents[labels[i]] += z[i]
            cnt[labels[i]] += 1
    for q in range(g):
        cents[q] /= cnt[q]
    for a in range(active.size):
        i = active[a]
        labels[i] = np.argmin(_dist(cents, np.arange(g), z[i], 0))
    return labels


# ------------------------------------------------------------------ scaling, blocks, masking
def scale(b, how):
    if how == "z":
        sd = b.std(0, ddof=1)
        return (b - b.mean(0)) / np.where(sd > 0, sd, 1)
    if how == "raw":
        return b.astype(np.float64).copy()
    if how == "minmax":
        r = b.max(0) - b.min(0)
        return (b - b.min(0)) / np.where(r > 0, r, 1)
    if how == "rank":
        return np.column_stack([rankdata(c) for c in b.T])
    if how == "mean":  # divide by column mean (coefficient-of-variation scale)
        return b / b.mean(0)
    if how == "log":
        return np.sign(b) * np.log1p(np.abs(b))
    if how == "zlog":
        lg = np.sign(b) * np.log1p(np.abs(b))
        return (lg - lg.mean(0)) / lg.std(0, ddof=1)
    raise ValueError(how)


def blocks(m, v, how):
    r = m // v
    if how == "last":
        return [np.arange(b * v, (b + 1) * v if b < r - 1 else m) for b in range(r)]
    if how == "first":
        extra = m - r * v
        out = [np.arange(0, v + extra)]
        s = v + extra
        while s < m:
            out.append(np.arange(s, s + v))
            s += v
        return out
    if how == "own":  # leftovers as their own (smaller) block
        return [np.arange(s, min(s + v, m)) for s in range(0, m, v)]
    if how in ("drop", "unmasked"):
        return [np.arange(b * v, (b + 1) * v) for b in range(r)]
    if how == "rr":
        return [np.arange(b, m, r) for b in range(r)]
    raise ValueError(how)


def labels_for(xb, k, sc, rule):
    z = np.ascontiguousarray(scale(xb, sc), dtype=np.float64)
    return mdav_variant(z, k, RULES[rule])


def aggregate(xb, lab, agg="mean"):
    out = np.empty_like(xb, dtype=np.float64)
    for g in np.unique(lab):
        i = lab == g
        out[i] = xb[i].mean(0) if agg == "mean" else np.median(xb[i], 0)
    return out


def masked(x, v, k, sc="z", bl="last", rule="textbook", agg="mean", whole=False):
    """Returns (x_used, masked, blocks). ``whole``: scale the whole file once (same as per block for
    per-column scalings; kept for completeness)."""
    n, m = x.shape
    bls = blocks(m, v, bl)
    xu = x
    if bl == "drop":
        keep = np.concatenate(bls)
        xu = np.ascontiguousarray(x[:, keep])
        bls = blocks(xu.shape[1], v, "last" if xu.shape[1] % v == 0 else "own")
    y = xu.copy()
    zs = scale(xu, sc) if whole else None
    for cols in bls:
        if whole:
            lab = mdav_variant(np.ascontiguousarray(zs[:, cols]), k, RULES[rule])
        else:
            lab = labels_for(xu[:, cols], k, sc, rule)
        y[:, cols] = aggregate(xu[:, cols], lab, agg)
    return xu, y, bls


def per_block(labeler, bl="last"):
    """Masking function f(x, v, k): ``labeler(xb, k)`` partitions each block of v attributes,
    values replaced by the cluster means."""
    def f(x, v, k):
        y = x.astype(np.float64).copy()
        for cols in blocks(x.shape[1], v, bl):
            y[:, cols] = aggregate(x[:, cols], labeler(np.ascontiguousarray(x[:, cols], dtype=np.float64), k))
        return y
    return f


def blockwise(x, v, k, dist_fn=None, rule="textbook", bl="last"):
    """MDAV per block; dist_fn(xb) -> array on which distances are computed (default raw)."""
    y = x.astype(np.float64).copy()
    for cols in blocks(x.shape[1], v, bl):
        xb = x[:, cols]
        z = np.ascontiguousarray(xb if dist_fn is None else dist_fn(xb), dtype=np.float64)
        lab = mdav_variant(z, k, RULES[rule])
        y[:, cols] = aggregate(xb, lab)
    return y


def generic_masker(metric=0, grow=0, endgame=0, rnd=False, whole=False, shift=0):
    """Masking function f(x, v, k): raw-value :func:`mdav_generic` per block ("last" layout).
    ``rnd``: round the masked values; ``whole``: one partition of the whole record for every block;
    ``shift``: each block aggregated with the partition of the block ``shift`` places later."""
    def f(x, v, k):
        y = x.astype(np.float64).copy()
        bls = blocks(x.shape[1], v, "last")
        if whole:
            lab_all = mdav_generic(np.ascontiguousarray(x, dtype=np.float64), k, metric, grow, endgame)
        for b, cols in enumerate(bls):
            src = bls[(b + shift) % len(bls)]
            lab = lab_all if whole else mdav_generic(np.ascontiguousarray(x[:, src], dtype=np.float64), k,
                                                     metric, grow, endgame)
            y[:, cols] = aggregate(x[:, cols], lab)
        if rnd:
            y = np.round(y)
        return y
    return f


def centroid_masker(how):
    """Masking function f(x, v, k): MDAV per block with xr picked from the centroid rule ``how``
    of :func:`mdav_generic` (1 median, 2 midrange, 3 fixed mean of the whole block)."""
    return per_block(lambda z, k: mdav_generic(z, k, centroid=how))


# ------------------------------------------------------------------ T10/T11 measures
def measures(x, y, do_id=True):
    """IL, DLD and ID (unless ``do_id`` is false) over the first j attributes, j = 2..m."""
    m = x.shape[1]
    sc = [np.arange(j) for j in range(2, m + 1)]
    out = {"IL": information_loss(x, y),
           "DLD": float(np.mean([dbrl(x, y, known=c).percent_correct for c in sc]))}
    if do_id:
        ida = interval_disclosure_by_attribute(x, y)
        out["ID"] = float(np.mean([ida[c].mean() for c in sc]))
    return out


def run(name, maskfn, ds="census", cells=CELLS, do_id=True, perm=None, verbose=True):
    """maskfn(x, v, k) -> masked y. perm: column order applied to the file before masking and
    measuring (the 'paper's file order' hypothesis). Prints the MADs; returns (rows, deviations)."""
    pub = published_t1011()
    x = load(ds)
    if perm is not None:
        x = np.ascontiguousarray(x[:, perm])
    dev = {}
    rows = []
    for v, k in cells:
        y = maskfn(x, v, k)
        r = measures(x, y, do_id)
        rows.append((v, k, r))
        for mname, val in r.items():
            dev.setdefault(mname, []).append(val - pub[(ds, v, k, mname)])
    if verbose:
        for v, k, r in rows:
            print(f"  {name:18} {ds[:3]} v{v}k{k:<2} " + " ".join(
                f"{m} {val:5.1f}/{pub[(ds, v, k, m)]:5.1f}" for m, val in r.items()), flush=True)
    s = " | ".join(f"{m} MAD {np.abs(d).mean():5.2f} ({np.mean(d):+5.2f})" for m, d in dev.items())
    print(f"{name:18} {ds[:3]}: {s}", flush=True)
    return rows, dev


# ------------------------------------------------------------------ Table 9 (L-RL on MDAV)
def centroid_sets(x, y, b, metric="z"):
    """n x n bool: masked records whose block-``b`` centroid is the one nearest to the original
    record's block values (``metric`` "z": both files scaled by the original's mean/sd; "raw")."""
    n = x.shape[0]
    xb, yb = x[:, b], y[:, b]
    if metric != "raw":
        mu, sd = x[:, b].mean(0), x[:, b].std(0, ddof=1)
        xb, yb = (xb - mu) / sd, (yb - mu) / sd
    cent, inv = np.unique(yb, axis=0, return_inverse=True)
    nn = np.empty(n, dtype=np.int64)
    for s in range(0, n, 512):
        nn[s:s + 512] = ((xb[s:s + 512, None, :] - cent[None]) ** 2).sum(2).argmin(1)
    return inv.ravel()[None, :] == nn[:, None]


def unique_hits(cand):
    """Records whose candidate set is the true record alone."""
    n = cand.shape[0]
    return int(((cand.sum(1) == 1) & cand[np.arange(n), np.arange(n)]).sum())


def dbrl_within(x, y, cols, cand, fallback=False):
    """Correct DBRL links (z-scores of each file, columns ``cols``) inside the candidate sets
    ``cand`` (n x n bool); ``fallback``: an empty set allows every masked record."""
    n = x.shape[0]
    xs, ys = scale(x[:, cols], "z"), scale(y[:, cols], "z")
    hits = 0
    for s in range(0, n, 512):
        e = min(s + 512, n)
        d = ((xs[s:e, None, :] - ys[None]) ** 2).sum(2)
        c = cand[s:e]
        if fallback:
            c = c.copy()
            c[~c.any(1)] = True
        d[~c] = np.inf
        ok = np.isfinite(d.min(1))
        hits += int((ok & (d.argmin(1) == np.arange(s, e))).sum())
    return hits


def t9_report(ds, tag, rule, cells, count_fn, quiet=False):
    """Print ours vs published Table 9 per MDAV cell and the MAD / trend summary of one rule."""
    t9 = published_t9()
    dev, sh = [], []
    for (v, k), (x, y, bls) in cells.items():
        ours = count_fn(x, y, bls)
        pub = [t9[(ds, v, k, g)] for g in range(2, len(bls) + 1)]
        dev += [o - p for o, p in zip(ours, pub)]
        if len(pub) > 1:  # shape: sign of the change with more groups
            sh += [np.sign(ours[-1] - ours[0]) == np.sign(pub[-1] - pub[0])]
        if not quiet:
            print(f"   {ds} {tag} {rule:8} Mic{v}-{k:02d} ours {ours} pub {[int(p) for p in pub]}")
    dev = np.array(dev)
    print(f"{ds} {tag} rule={rule}: MAD {np.abs(dev).mean():.1f} signed {dev.mean():+.1f} "
          f"max {np.abs(dev).max():.0f}; trend sign agrees {sum(sh)}/{len(sh)}", flush=True)
