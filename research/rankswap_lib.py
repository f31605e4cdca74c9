"""Rank-swapping research helpers: partner rules, masking in sorted order, L-RL with tie-counting
variants, the measures of Nin, Herranz & Torra (2007) T1-T4 and Muralidhar & Domingo-Ferrer (2016)
T3, and the published values beside them (only printed / compared, never used in a computation).
Research code, not the package.

Partner rules of :func:`partners` (positions in sorted order, P the maximum rank distance):
  inclusive / moore / argus   the package kernels (``sdcrisk.masking.swapping``)
  direct_excl / direct_incl / direct_excl_clip   l = i + U{1 or 0..P}, kept if l is taken or past the end
  chain_excl / chain_incl     no 'unswapped' rule: values can travel on
  chainsrc[_incl][_clip]      sources skip swapped positions, targets may be swapped again
  retry_excl / retry_incl     draw l in the window, redraw while taken (bounded)
  reflect                     l = i + U{1..P}, reflected at the top end, kept if taken
  gen_<s|r>_<f|t|n>_<i|e>_<y|d>   visiting order (sorted / random), window (forward (i, i+P],
                              two-sided, next P unswapped), the position itself a candidate or not,
                              uniform among unswapped (y) or one draw given up if taken (d)
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T1, T2, T3, T4]}, {paper: muralidhar2016_rank_rl, tables: [T3]}]

from __future__ import annotations

import functools
import sys

import numpy as np
import pandas as pd
from numba import njit

from research_lib import load, published
from sdcrisk.linkage.distance import dbrl, nearest
from sdcrisk.linkage.distance import standardise as _std
from sdcrisk.linkage.location import _sorted_masked, rank_swap_intervals, rsrl
from sdcrisk.linkage.rank import rbrl
from sdcrisk.masking.swapping import (_bit_add, _bit_init, _bit_kth, _bit_prefix, _pick_available,
                                      _rankswap_kernel, rank_distance)
from sdcrisk.measures.information_loss import information_loss
from sdcrisk.measures.interval_disclosure import interval_disclosure_by_attribute
from sdcrisk.measures.scenarios import known_scenarios, scenario_average

PS = (2, 10, 20)  # the p of the EIA-floor reports (:func:`report`)


# ---------------------------------------------------------------- published values
@functools.cache
def _published_rs() -> pd.DataFrame:
    df = pd.DataFrame(published(paper="nin2007_location_rl", method="rankswap"))
    return df.assign(param=df.param.astype(float).astype(int), value=df.value.astype(float))


def published_counts(ds: str, p: int) -> np.ndarray:
    """Nin, Herranz & Torra (2007) L-RL counts at p (T1 Census, T2 EIA) for k = 1..m known attributes."""
    df = _published_rs()
    pc = df[(df.table == ("T1" if ds == "census" else "T2")) & (df.param == p)].set_index("known").value
    pc.index = pc.index.astype(int)
    return np.array([pc[k] for k in sorted(pc.index)])


def published_scores(ds: str, p: int) -> dict:
    """Nin, Herranz & Torra (2007) scores at p (T3 Census, T4 EIA): {measure: value}."""
    df = _published_rs()
    return df[(df.table == ("T3" if ds == "census" else "T4")) & (df.param == p)].set_index("measure").value.to_dict()


@functools.cache
def published_md2016_t3() -> dict:
    """Muralidhar & Domingo-Ferrer (2016) Table 3 (p-distribution, Census): {(p, measure): value}."""
    return {(float(r["param"].split("=")[1]), r["measure"]): float(r["value"])
            for r in published(paper="muralidhar2016_rank_rl", table="T3")}


# ---------------------------------------------------------------- partner kernels
@njit(cache=True)
def _direct(n, P, incl, clip, rng):
    """l = i + U{0 or 1..P}; swap only if l < n (or clipped) and still unswapped; else value stays."""
    src = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    for i in range(n):
        if not avail[i]:
            continue
        avail[i] = False
        lo = 0 if incl else 1
        l = i + lo + rng.integers(0, P + 1 - lo)
        if l > n - 1:
            if clip:
                l = n - 1
            else:
                continue
        if l != i and avail[l]:
            avail[l] = False
            src[i] = l
            src[l] = i
    return src


@njit(cache=True)
def _chain(n, P, incl, rng):
    """Naive sequential swapping without the 'unswapped' constraint: values can travel on."""
    src = np.arange(n)
    for i in range(n):
        lo = 0 if incl else 1
        l = i + lo + rng.integers(0, P + 1 - lo)
        if l > n - 1:
            l = n - 1
        t = src[i]
        src[i] = src[l]
        src[l] = t
    return src


@njit(cache=True)
def _moore_nowrap(n, P, incl, rng):
    """Uniform among unswapped in window; window NOT clipped: l drawn from i+1..i+P, if l >= n
    or already swapped, redraw up to the count of free positions... (reject-and-redraw, bounded)."""
    src = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    for i in range(n):
        if not avail[i]:
            continue
        avail[i] = False
        lo = 0 if incl else 1
        for t in range(P + 1):  # bounded retries
            l = i + lo + rng.integers(0, P + 1 - lo)
            if l == i:
                break
            if l < n and avail[l]:
                avail[l] = False
                src[i] = l
                src[l] = i
                break
    return src


@njit(cache=True)
def _chain_src(n, P, incl, clip, rng):
    """Skip a source already involved in a swap, but draw l in the window regardless of whether
    it was already swapped (the swap then moves an already swapped value again)."""
    src = np.arange(n)
    sw = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if sw[i]:
            continue
        lo = 0 if incl else 1
        l = i + lo + rng.integers(0, P + 1 - lo)
        if l > n - 1:
            if clip:
                l = n - 1
            else:
                continue
        t = src[i]
        src[i] = src[l]
        src[l] = t
        sw[i] = True
        sw[l] = True
    return src


@njit(cache=True)
def _general(n, P, visit_random, window, incl, retry, rng):
    """visit_random: visit positions in random order (else increasing rank).
    window: 0 forward (i, i+P]; 1 two-sided [i-P, i+P]; 2 the next P still-unswapped positions above i.
    incl: the position itself is a candidate (drawing it keeps the value).
    retry: uniform among still-unswapped (True) or draw a rank in the window and give up if taken."""
    src = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    tree, top = _bit_init(n)
    if visit_random:
        vis = rng.permutation(n)
    else:
        vis = np.arange(n)
    for t in range(n):
        i = vis[t]
        if not avail[i]:
            continue
        avail[i] = False
        _bit_add(tree, i, -1)
        l = -1
        if window == 0:
            lo, hi = i + 1, min(i + P, n - 1)
        elif window == 1:
            lo, hi = max(i - P, 0), min(i + P, n - 1)
        else:
            c0 = _bit_prefix(tree, i)
            tot = _bit_prefix(tree, n - 1)
            kk = min(c0 + P, tot)
            lo = i + 1
            hi = _bit_kth(tree, top, kk) if kk > c0 else i
        if retry:
            if incl:
                cnt = _bit_prefix(tree, hi) - _bit_prefix(tree, lo - 1) if hi >= lo else 0
                if rng.integers(0, cnt + 1) == 0:
                    continue  # drew itself
            l = _pick_available(tree, top, lo, hi, rng)
        else:
            if hi >= lo:
                w = hi - lo + 1 + (1 if incl else 0)
                r = rng.integers(0, w)
                if incl and r == w - 1:
                    continue
                l = lo + r
                if l == i or not avail[l]:
                    l = -1
        if l >= 0:
            avail[l] = False
            _bit_add(tree, l, -1)
            src[i] = l
            src[l] = i
    return src


@njit(cache=True)
def _reflect(n, P, incl, rng):
    """l = i + U{1..P}; beyond the end reflected back (2(n-1) - l); if taken, the value stays."""
    src = np.arange(n)
    avail = np.ones(n, dtype=np.bool_)
    tree, top = _bit_init(n)
    for i in range(n):
        if not avail[i]:
            continue
        avail[i] = False
        _bit_add(tree, i, -1)
        l = i + 1 + rng.integers(0, P)
        if l > n - 1:
            l = 2 * (n - 1) - l
        if l <= i or not avail[l]:
            continue
        avail[l] = False
        _bit_add(tree, l, -1)
        src[i] = l
        src[l] = i
    return src


_PACKAGE = {"moore": 0, "inclusive": 1, "argus": 2}


def partners(rule, n, P, rng):
    """Partner permutation of the n sorted positions under ``rule`` (module doc)."""
    if rule.startswith("chainsrc"):
        return _chain_src(n, P, "incl" in rule, "clip" in rule, rng)
    if rule in _PACKAGE:
        return _rankswap_kernel(n, P, _PACKAGE[rule], rng)
    if rule.startswith("direct_"):
        return _direct(n, P, rule.startswith("direct_incl"), rule.endswith("_clip"), rng)
    if rule in ("chain_excl", "chain_incl"):
        return _chain(n, P, rule == "chain_incl", rng)
    if rule in ("retry_excl", "retry_incl"):
        return _moore_nowrap(n, P, rule == "retry_incl", rng)
    if rule == "reflect":
        return _reflect(n, P, False, rng)
    if rule.startswith("gen"):
        _, v, w, inc, rt = rule.split("_")
        return _general(n, P, v == "r", {"f": 0, "t": 1, "n": 2}[w], inc == "i", rt == "y", rng)
    raise ValueError(rule)


# ---------------------------------------------------------------- masking
def swap_in_order(col, order, src):
    """Swap in the given sorted order: record order[q] receives col[order[src[q]]]."""
    out = np.empty_like(col)
    out[order] = col[order[src]]
    return out


def mask(x, p, rule, rng, rounding="floor", order_mode="stable", Pfun=None):
    """Rank swapping of every column with the partner ``rule``; ``order_mode``: ties in file order
    (stable), in random order, or a descending sort; ``Pfun(p, n)`` overrides P."""
    n, m = x.shape
    P = rank_distance(p, n, rounding) if Pfun is None else Pfun(p, n)
    out = np.empty_like(x)
    for j in range(m):
        col = x[:, j]
        if order_mode == "stable":
            order = np.argsort(col, kind="stable")
        elif order_mode == "random":
            order = np.lexsort((rng.random(n), col))
        elif order_mode == "desc":
            order = np.argsort(-col, kind="stable")
        out[:, j] = swap_in_order(col, order, partners(rule, n, P, rng))
    return out


def mask_sorted(x, p, partners_fn, rng, descending=False):
    """Rank swapping per attribute in stable ascending order (reversed if ``descending``) with the
    partner permutation ``partners_fn(order, P, rng)`` of the sorted positions, P = floor(n p / 100)."""
    n, m = x.shape
    P = rank_distance(p, n)
    y = np.empty_like(x)
    for j in range(m):
        col = x[:, j]
        order = np.argsort(col, kind="stable")
        if descending:
            order = order[::-1]
        y[:, j] = swap_in_order(col, order, partners_fn(order, P, rng))
    return y


def mask_columns(x, p, partner_fn, rng):
    """y[:, j] = partner_fn(x[:, j], P, rng) with P = floor(n p / 100)."""
    n, m = x.shape
    P = rank_distance(p, n)
    y = np.empty_like(x)
    for j in range(m):
        y[:, j] = partner_fn(x[:, j], P, rng)
    return y


def std_partner(col, P, rng, rule=1):
    """One column rank-swapped by the package kernel (rule 1 = inclusive), ties in file order."""
    order = np.argsort(col, kind="stable")
    return swap_in_order(col, order, _rankswap_kernel(col.size, P, rule, rng))


def mask_frozen(x, p, frozen, rng, rule="inclusive", Pbase="n"):
    """frozen: bool (n, m): values kept; others swapped among themselves in sorted order with
    P = floor(p * N / 100), N = n ('n') or the number of free values ('free')."""
    n, m = x.shape
    out = x.copy()
    for j in range(m):
        free = np.flatnonzero(~frozen[:, j])
        col = x[free, j]
        nf = free.size
        P = rank_distance(p, n if Pbase == "n" else nf)
        order = np.argsort(col, kind="stable")
        out[free, j] = swap_in_order(col, order, partners(rule, nf, min(P, nf - 1), rng))
    return out


def mask_ties(x, p, rng, mode, rule="inclusive"):
    """mode 'group': rank swapping on the distinct values (P in distinct ranks = p% of #distinct),
    every record with value v receives v's partner; 'rep': only the first record (lowest index) of
    each tie group takes part, the other tied records keep their value; 'repP': like rep but P from n."""
    n, m = x.shape
    out = x.copy()
    for j in range(m):
        col = x[:, j]
        u, first, inv = np.unique(col, return_index=True, return_inverse=True)
        d = len(u)
        if mode == "group":
            P = rank_distance(p, d)
            src = partners(rule, d, P, rng)
            out[:, j] = u[src][inv]
        else:
            P = rank_distance(p, d if mode == "rep" else n)
            P = min(P, d - 1)
            src = partners(rule, d, P, rng)
            out[first, j] = u[src]
    return out


# ---------------------------------------------------------------- measures
def lrl_counts(x, y, p, ks, **kw):
    return {k: rsrl(x, y, known=np.arange(k), p=p, **kw).n_correct for k in ks}


def counts(x, y, p):
    """L-RL correct links with the first k attributes known, k = 1..m."""
    return np.array(list(lrl_counts(x, y, p, range(1, x.shape[1] + 1)).values()))


def dld(x, y):
    m = x.shape[1]
    h = -(-m // 2)
    return float(np.mean([dbrl(x, y, known=np.arange(j)).percent_correct for j in range(1, h + 1)]))


def id_(x, y):
    per = interval_disclosure_by_attribute(x, y)
    return float(scenario_average(per, known_scenarios(x.shape[1])))


def il(x, y):
    return information_loss(x, y)


def versus_published(x, ds, p, make_masked, reps):
    """Mean over ``reps`` maskings ``make_masked(rng)`` (rng seeded 1000 p + r) of the L-RL counts
    with k = 1..m known attributes and of DLD / ID / IL, beside the published Nin, Herranz & Torra (2007) counts
    (T1 Census, T2 EIA) and scores (T3 / T4) at p: (counts, scores, published counts, published scores)."""
    m = x.shape[1]
    acc = []
    for r in range(reps):
        y = make_masked(np.random.default_rng(1000 * p + r))
        acc.append(list(counts(x, y, p)) + [dld(x, y), id_(x, y), il(x, y)])
    a = np.mean(acc, axis=0)
    return a[:m], dict(zip(("DLD", "ID", "IL"), a[m:])), published_counts(ds, p), published_scores(ds, p)


def print_counts(x, y, p, ds, full=True, label=""):
    """Print the L-RL counts of one masking beside the published ones (and DLD / ID / IL)."""
    ours = counts(x, y, p)
    s = (f"{label} p={p}\n   ours {' '.join(f'{v:.0f}' for v in ours)}\n"
         f"   pub  {' '.join(f'{v:.0f}' for v in published_counts(ds, p))}")
    if full:
        t = published_scores(ds, p)
        s += f"\n   DLD {dld(x, y):.2f}/{t['DLD']} ID {id_(x, y):.2f}/{t['ID']} IL {il(x, y):.2f}/{t['IL']}"
    print(s, flush=True)
    return ours


def report(label, masker, seeds=(1, 2), x=None, quiet=False):
    """EIA floor (Nin, Herranz & Torra (2007) T2): L-RL counts (k = 1..10) at p = 2, 10, 20 beside the
    published ones, mean over ``seeds`` of ``masker(x, p, rng)``, the mean absolute deviation over
    the 30 cells and the values kept in place per column. Returns (MAD, counts, kept)."""
    x = load("eia") if x is None else x
    res, kept = {}, {}
    for p in PS:
        cs, ks = [], []
        for s in seeds:
            y = masker(x, p, np.random.default_rng(1000 * p + s))
            cs.append(counts(x, y, p))
            ks.append((y == x).sum(0))
        res[p] = np.mean(cs, 0)
        kept[p] = np.mean(ks, 0)
    pub = {p: published_counts("eia", p) for p in PS}
    mad = np.mean([abs(res[p][k] - pub[p][k]) for p in PS for k in range(10)])
    if not quiet:
        print(f"== {label}   MAD(30 cells) = {mad:.1f}")
        for p in PS:
            print(f"  p={p:2d} ours {' '.join(f'{v:6.0f}' for v in res[p])}")
            print(f"       pub  {' '.join(f'{v:6.0f}' for v in pub[p])}")
            print(f"       kept {' '.join(f'{v:6.0f}' for v in kept[p])}")
        sys.stdout.flush()
    return mad, res, kept


def table3_line(label, x, mask_fn, reps, rng, ps=(1, 5, 10, 25, 50, 100)):
    """Print DBRL / RBRL-Sum / RBRL-Max (mean of ``reps`` maskings ``mask_fn(x, p, rng)``) against
    Muralidhar & Domingo-Ferrer (2016) Table 3 for every p, and their mean absolute deviation."""
    pub = published_md2016_t3()
    dev, rows = [], []
    for p in ps:
        res = np.zeros((reps, 3))
        for t in range(reps):
            y = mask_fn(x, p, rng)
            res[t] = [dbrl(x, y).percent_correct, rbrl(x, y, criterion="sum").percent_correct,
                      rbrl(x, y, criterion="max").percent_correct]
        mean = res.mean(0)
        pv = [pub[(p, m)] for m in ("DBRL", "RBRL-Sum", "RBRL-Max")]
        dev += list(mean - pv)
        rows.append(f"p={p}: " + " ".join(f"{o:5.1f}/{q:5.1f}" for o, q in zip(mean, pv)))
    print(f"{label} MAD {np.mean(np.abs(dev)):5.2f}  | " + " | ".join(rows), flush=True)


# ---------------------------------------------------------------- L-RL with tie-counting variants
@njit(cache=True)
def _lrl_ties(a, b, pos, order, xs, ys):
    """Per record: number of candidates at the minimum distance, whether the true record is
    among them, whether the lowest-index minimum is the true record."""
    n, c = a.shape
    nmin = np.zeros(n, dtype=np.int64)
    true_min = np.zeros(n, dtype=np.bool_)
    first = np.zeros(n, dtype=np.bool_)
    size = np.zeros(n, dtype=np.int64)
    dist = np.empty(n)
    for i in range(n):
        js = 0
        for j in range(1, c):
            if b[i, j] - a[i, j] < b[i, js] - a[i, js]:
                js = j
        best = np.inf
        arg = -1
        dtrue = np.inf
        m = 0
        for k in range(a[i, js], b[i, js]):
            l = order[k, js]
            ok = True
            for j in range(c):
                if pos[l, j] < a[i, j] or pos[l, j] >= b[i, j]:
                    ok = False
                    break
            if not ok:
                continue
            d = 0.0
            for t in range(xs.shape[1]):
                v = xs[i, t] - ys[l, t]
                d += v * v
            dist[m] = d
            m += 1
            if l == i:
                dtrue = d
            if d < best or (d == best and l < arg):
                best = d
                arg = l
        size[i] = m
        cnt = 0
        for q in range(m):
            if dist[q] == best:
                cnt += 1
        nmin[i] = cnt
        true_min[i] = dtrue == best
        first[i] = arg == i
    return nmin, true_min, first, size


def lrl_tie_counts(x, y, k, P, std="own"):
    """Correct links under three tie rules: lowest index, ties count correct, random tie break (expected)."""
    xk, yk = x[:, :k], y[:, :k]
    a, b = rank_swap_intervals(xk, yk, P)
    order, _, pos = _sorted_masked(yk)
    xs, ys = _std(xk, yk, std)
    nmin, tm, first, size = _lrl_ties(a, b, pos, order, xs, ys)
    return dict(index=int(first.sum()), tiecorrect=int(tm.sum()), random=float((tm / np.maximum(nmin, 1)).sum()),
                nmin=nmin, tm=tm, size=size)


def dbrl_tie_counts(x, y, k, std="own"):
    xk, yk = x[:, :k], y[:, :k]
    xs, ys = _std(xk, yk, std)
    links, d2 = nearest(xs, ys)
    dtrue = ((xs - ys) ** 2).sum(axis=1)
    tm = dtrue <= d2 * (1 + 1e-12)
    return dict(index=int((links == np.arange(len(links))).sum()), tiecorrect=int(tm.sum()))
