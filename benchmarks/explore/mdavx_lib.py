"""Helpers for mdavx_* exploration scripts (research only): evaluate a masking function on the
Census/EIA MDAV cells of Nin, Herranz & Torra (2007) T10/T11 (IL, DLD over first-j j=2..m, ID). Published values
are only compared against."""
from __future__ import annotations
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa
import numpy as np
from common import load  # noqa
from mdav_lib import mdav_variant, blocks, RULES  # noqa
from mdav_eval import PUB  # noqa
from sdcrisk.linkage.distance import dbrl  # noqa
from sdcrisk.measures.information_loss import information_loss, il_components  # noqa
from sdcrisk.measures.interval_disclosure import interval_disclosure_by_attribute  # noqa

CELLS = [(v, k) for v in (2, 3, 4) for k in (5, 15, 25)]
_DATA = {}


def data(ds):
    if ds not in _DATA:
        _DATA[ds] = load(ds)
    return _DATA[ds]


def measures(x, y, do_id=True):
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
    measuring (the 'paper's file order' hypothesis)."""
    x = data(ds)
    if perm is not None:
        x = np.ascontiguousarray(x[:, perm])
    dev = {}
    rows = []
    for v, k in cells:
        y = maskfn(x, v, k)
        r = measures(x, y, do_id)
        rows.append((v, k, r))
        for mname, val in r.items():
            dev.setdefault(mname, []).append(val - PUB[(ds, v, k, mname)])
    if verbose:
        for v, k, r in rows:
            print(f"  {name:18} {ds[:3]} v{v}k{k:<2} " + " ".join(
                f"{m} {val:5.1f}/{PUB[(ds, v, k, m)]:5.1f}" for m, val in r.items()), flush=True)
    s = " | ".join(f"{m} MAD {np.abs(d).mean():5.2f} ({np.mean(d):+5.2f})" for m, d in dev.items())
    print(f"{name:18} {ds[:3]}: {s}", flush=True)
    return rows, dev


def aggregate(xb, lab):
    out = np.empty_like(xb, dtype=np.float64)
    for g in np.unique(lab):
        i = lab == g
        out[i] = xb[i].mean(0)
    return out


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
