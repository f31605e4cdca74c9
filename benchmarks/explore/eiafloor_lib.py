"""Exploration (Nin, Herranz & Torra (2007) T2/T4 EIA floor): helpers. Mask with per-attribute 'frozen' positions
(values kept), the rest rank-swapped (inclusive rule) among themselves."""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa
import numpy as np
import rsties_lib as L
from sdcrisk.masking.swapping import rank_distance

P_ = L.PUB.copy(); P_['param'] = P_.param.astype(float).astype(int)


def pub_counts(ds, p):
    tc = 'T1' if ds == 'census' else 'T2'
    pc = P_[(P_.table == tc) & (P_.param == p)].set_index('known').value
    pc.index = pc.index.astype(int)
    return np.array([pc[k] for k in sorted(pc.index)])


def pub_t(ds, p):
    ts = 'T3' if ds == 'census' else 'T4'
    return P_[(P_.table == ts) & (P_.param == p)].set_index('measure').value


def mask_frozen(x, p, frozen, rng, rule='inclusive', Pbase='n'):
    """frozen: bool (n, m): values kept; others swapped among themselves in sorted order with
    P = floor(p * N / 100), N = n ('n') or the number of free values ('free')."""
    n, m = x.shape
    out = x.copy()
    for j in range(m):
        free = np.flatnonzero(~frozen[:, j])
        col = x[free, j]
        nf = free.size
        P = rank_distance(p, n if Pbase == 'n' else nf)
        order = np.argsort(col, kind='stable')
        src = L.partners(rule, nf, min(P, nf - 1), rng)
        tmp = np.empty(nf)
        tmp[order] = col[order[src]]
        out[free, j] = tmp
    return out


def mask_sorted(x, p, partners_fn, rng, descending=False):
    """Rank swapping per attribute in stable ascending order (reversed if ``descending``) with the
    partner permutation ``partners_fn(order, P, rng)`` of the sorted positions, P = floor(n p / 100)."""
    n, m = x.shape
    P = rank_distance(p, n)
    y = np.empty_like(x)
    for j in range(m):
        col = x[:, j]
        order = np.argsort(col, kind='stable')
        if descending:
            order = order[::-1]
        y[order, j] = col[order[partners_fn(order, P, rng)]]
    return y


def evaluate(x, y, p, ds, full=True, label=''):
    m = x.shape[1]
    c = L.lrl_counts(x, y, p, range(1, m + 1))
    ours = np.array([c[k] for k in range(1, m + 1)])
    pub = pub_counts(ds, p)
    s = f"{label} p={p}\n   ours {' '.join(f'{v:.0f}' for v in ours)}\n   pub  {' '.join(f'{v:.0f}' for v in pub)}"
    if full:
        t = pub_t(ds, p)
        s += f"\n   DLD {L.dld(x, y):.2f}/{t['DLD']} ID {L.id_(x, y):.2f}/{t['ID']} IL {L.il(x, y):.2f}/{t['IL']}"
    print(s, flush=True)
    return ours
