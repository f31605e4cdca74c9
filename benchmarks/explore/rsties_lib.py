"""Exploration (Nin, Herranz & Torra (2007) rank swapping T1-T4): alternative partner rules and measurements."""
from __future__ import annotations
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import numpy as np
from numba import njit
from common import ROOT, load  # noqa
from sdcrisk.masking.swapping import rank_distance, _rankswap_kernel, sorted_order
from sdcrisk.linkage.location import rsrl
from sdcrisk.linkage.distance import dbrl
from sdcrisk.measures.information_loss import information_loss
from sdcrisk.measures.interval_disclosure import interval_disclosure_by_attribute
from sdcrisk.measures.scenarios import known_scenarios, scenario_average
import pandas as pd

PUB = pd.read_csv(ROOT.parent / 'shared' / 'published' / 'published_values.csv')
PUB = PUB[(PUB.paper == 'nin2007_location_rl') & (PUB.method == 'rankswap')]


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
        t = src[i]; src[i] = src[l]; src[l] = t
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
        t = src[i]; src[i] = src[l]; src[l] = t
        sw[i] = True; sw[l] = True
    return src


def partners(rule, n, P, rng):
    if rule.startswith('chainsrc'):
        return _chain_src(n, P, 'incl' in rule, 'clip' in rule, rng)
    if rule == 'inclusive':
        return _rankswap_kernel(n, P, 1, rng)
    if rule == 'moore':
        return _rankswap_kernel(n, P, 0, rng)
    if rule == 'argus':
        return _rankswap_kernel(n, P, 2, rng)
    if rule == 'direct_excl':
        return _direct(n, P, False, False, rng)
    if rule == 'direct_incl':
        return _direct(n, P, True, False, rng)
    if rule == 'direct_excl_clip':
        return _direct(n, P, False, True, rng)
    if rule == 'chain_excl':
        return _chain(n, P, False, rng)
    if rule == 'chain_incl':
        return _chain(n, P, True, rng)
    if rule == 'retry_excl':
        return _moore_nowrap(n, P, False, rng)
    if rule == 'retry_incl':
        return _moore_nowrap(n, P, True, rng)
    raise ValueError(rule)


def mask(x, p, rule, rng, rounding='floor', order_mode='stable', Pfun=None):
    n, m = x.shape
    P = rank_distance(p, n, rounding) if Pfun is None else Pfun(p, n)
    out = np.empty_like(x)
    for j in range(m):
        col = x[:, j]
        if order_mode == 'stable':
            order = np.argsort(col, kind='stable')
        elif order_mode == 'random':
            order = np.lexsort((rng.random(n), col))
        elif order_mode == 'desc':
            order = np.argsort(-col, kind='stable')
        src = partners(rule, n, P, rng)
        out[order, j] = col[order[src]]
    return out


def lrl_counts(x, y, p, ks, **kw):
    return {k: rsrl(x, y, known=np.arange(k), p=p, **kw).n_correct for k in ks}


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
        c = lrl_counts(x, y, p, range(1, m + 1))
        acc.append([c[k] for k in range(1, m + 1)] + [dld(x, y), id_(x, y), il(x, y)])
    a = np.mean(acc, axis=0)
    tc, ts = ('T1', 'T3') if ds == 'census' else ('T2', 'T4')
    P = PUB.assign(param=PUB.param.astype(float).astype(int))
    pc = P[(P.table == tc) & (P.param == p)].set_index('known').value
    pc.index = pc.index.astype(int)
    ps = P[(P.table == ts) & (P.param == p)].set_index('measure').value
    return a[:m], dict(zip(('DLD', 'ID', 'IL'), a[m:])), np.array([pc[k] for k in range(1, m + 1)]), ps


def pub(table, p, col):
    s = PUB[(PUB.table == table) & (PUB.param == str(p))] if PUB.param.dtype == object else PUB[(PUB.table == table) & (PUB.param == p)]
    return s


# ---------------------------------------------------------------- L-RL with tie-counting variants
from sdcrisk.linkage.location import rank_swap_intervals, _sorted_masked
from sdcrisk.linkage.distance import standardise as _std


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


def lrl_tie_counts(x, y, k, P, std='own'):
    """Correct links under three tie rules: lowest index, ties count correct, random tie break (expected)."""
    xk, yk = x[:, :k], y[:, :k]
    a, b = rank_swap_intervals(xk, yk, P)
    order, _, pos = _sorted_masked(yk)
    xs, ys = _std(xk, yk, std)
    nmin, tm, first, size = _lrl_ties(a, b, pos, order, xs, ys)
    return dict(index=int(first.sum()), tiecorrect=int(tm.sum()), random=float((tm / np.maximum(nmin, 1)).sum()),
                nmin=nmin, tm=tm, size=size)


def dbrl_tie_counts(x, y, k, std='own'):
    from sdcrisk.linkage.distance import nearest
    xk, yk = x[:, :k], y[:, :k]
    xs, ys = _std(xk, yk, std)
    links, d2 = nearest(xs, ys)
    dtrue = ((xs - ys) ** 2).sum(axis=1)
    tm = dtrue <= d2 * (1 + 1e-12)
    return dict(index=int((links == np.arange(len(links))).sum()), tiecorrect=int(tm.sum()))


from sdcrisk.masking.swapping import _bit_init, _bit_add, _bit_prefix, _bit_kth, _pick_available


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


_old_partners = partners


@njit(cache=True)
def _reflect(n, P, incl, rng):
    """l = i + U{1..P}; beyond the end reflected back (2(n-1) - l); if taken, uniform among free in window."""
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


def partners(rule, n, P, rng):  # noqa: F811
    if rule == 'reflect':
        return _reflect(n, P, False, rng)
    if rule.startswith('gen'):
        # gen_<visit:s|r>_<window:f|t|n>_<incl:i|e>_<retry:y|d>
        _, v, w, inc, rt = rule.split('_')
        return _general(n, P, v == 'r', {'f': 0, 't': 1, 'n': 2}[w], inc == 'i', rt == 'y', rng)
    return _old_partners(rule, n, P, rng)


def mask_ties(x, p, rng, mode, rule='inclusive'):
    """mode 'group': rank swapping on the distinct values (P in distinct ranks = p% of #distinct),
    every record with value v receives v's partner; 'rep': only the first record (lowest index) of
    each tie group takes part, the other tied records keep their value; 'repP': like rep but P from n."""
    n, m = x.shape
    out = x.copy()
    for j in range(m):
        col = x[:, j]
        u, first, inv = np.unique(col, return_index=True, return_inverse=True)
        d = len(u)
        if mode == 'group':
            P = rank_distance(p, d)
            src = partners(rule, d, P, rng)
            out[:, j] = u[src][inv]
        else:
            P = rank_distance(p, d if mode == 'rep' else n)
            P = min(P, d - 1)
            src = partners(rule, d, P, rng)
            out[first, j] = u[src]
    return out
