"""Exploration helpers (research, not package code): MDAV variants, block layouts, measures.

Variants of the MDAV partition (``rule``):
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
"""
from __future__ import annotations
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702

import math

import numpy as np
from numba import njit
from scipy.stats import rankdata

RULES = {"textbook": 0, "xs_cent": 1, "literal": 2, "literal2": 3, "single": 4, "argus": 5}


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
        l = np.sign(b) * np.log1p(np.abs(b))
        return (l - l.mean(0)) / l.std(0, ddof=1)
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
