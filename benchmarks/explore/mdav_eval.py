"""Evaluate MDAV variants on the 18 cells of Nin, Herranz & Torra (2007) Tables 10/11 (IL, DLD, ID; PLD optional).

Usage: python mdav_eval.py [--sc z raw ...] [--bl last ...] [--rule textbook ...]
       [--agg mean] [--ds census eia] [--id] [--pld] [--cells] [--scen first_j|groups|first_j2]
Prints per variant: MAD (signed mean) and max |dev| of IL, DLD, ID vs the published values.
Published numbers are only compared against.
"""
from __future__ import annotations
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702

import argparse
import csv
import itertools
import math
import sys

import numpy as np

from common import ROOT, load  # noqa: E402

from mdav_lib import masked  # noqa: E402
from sdcrisk.linkage.distance import dbrl  # noqa: E402
from sdcrisk.measures.information_loss import information_loss  # noqa: E402
from sdcrisk.measures.interval_disclosure import interval_disclosure_by_attribute  # noqa: E402

PUB = {}
for r in csv.DictReader(open(ROOT / "published" / "published_values.csv")):
    if r["paper"] == "nin2007_location_rl" and r["method"] == "mdav" and r["table"] != "T9":
        v, k = (int(p.split("=")[1]) for p in r["param"].split(";"))
        PUB[(r["dataset"], v, k, r["measure"])] = float(r["value"])


def scenarios(m, bls, how):
    if how == "first_j":
        return [np.arange(j) for j in range(1, math.ceil(m / 2) + 1)]
    if how == "first_j2":  # Nin, Herranz & Torra (2008, multivariate microaggregation) §3.1 "from 2 to ..." half
        return [np.arange(j) for j in range(2, math.ceil(m / 2) + 1)]
    if how == "groups":
        return [np.concatenate(bls[:g]) for g in range(2, len(bls) + 1)] or [np.arange(m)]
    if how == "groups1":
        return [np.concatenate(bls[:g]) for g in range(1, len(bls) + 1)]
    if how == "j2_all":
        return [np.arange(j) for j in range(2, m + 1)]
    if how == "all_j":
        return [np.arange(j) for j in range(1, m + 1)]
    raise ValueError(how)


def evaluate(ds, x, v, k, sc, bl, rule, agg, scen, do_id, do_pld, rng=None, dstd="own"):
    xu, y, bls = masked(x, v, k, sc, bl, rule, agg)
    if bl == "unmasked":  # leftover attributes released unmasked
        y = y.copy()
    out = {"IL": information_loss(xu, y)}
    sc_list = scenarios(xu.shape[1], bls, scen)
    out["DLD"] = float(np.mean([dbrl(xu, y, known=c, standardise=dstd).percent_correct for c in sc_list]))
    if do_id:
        ida = interval_disclosure_by_attribute(xu, y)
        out["ID"] = float(np.mean([ida[c].mean() for c in sc_list]))
    if do_pld:
        from sdcrisk.linkage.probabilistic import prl
        out["PLD"] = float(np.mean([prl(xu, y, known=c, rng=rng).percent_correct for c in sc_list]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sc", nargs="+", default=["z"])
    ap.add_argument("--bl", nargs="+", default=["last"])
    ap.add_argument("--rule", nargs="+", default=["textbook"])
    ap.add_argument("--agg", nargs="+", default=["mean"])
    ap.add_argument("--scen", nargs="+", default=["first_j"])
    ap.add_argument("--ds", nargs="+", default=["census", "eia"])
    ap.add_argument("--id", action="store_true")
    ap.add_argument("--pld", action="store_true")
    ap.add_argument("--cells", action="store_true")
    ap.add_argument("--dstd", nargs="+", default=["own"])
    ap.add_argument("--vk", nargs="*", default=None, help="subset like 2,5 3,15")
    a = ap.parse_args()
    cells = [(v, k) for v in (2, 3, 4) for k in (5, 15, 25)]
    if a.vk:
        cells = [tuple(int(t) for t in s.split(",")) for s in a.vk]
    data = {d: load(d) for d in a.ds}
    for sc, bl, rule, agg, scen, dstd in itertools.product(a.sc, a.bl, a.rule, a.agg, a.scen, a.dstd):
        dev = {}
        for ds in a.ds:
            for v, k in cells:
                res = evaluate(ds, data[ds], v, k, sc, bl, rule, agg, scen, a.id, a.pld,
                               np.random.default_rng(1), dstd)
                line = []
                for meas, val in res.items():
                    p = PUB[(ds, v, k, meas)]
                    dev.setdefault((ds, meas), []).append(val - p)
                    line.append(f"{meas} {val:6.2f}/{p:6.2f}")
                if a.cells:
                    print(f"   {ds:6} v{v}k{k:<2} " + "  ".join(line), flush=True)
        summ = []
        for (ds, meas), d in dev.items():
            d = np.array(d)
            summ.append(f"{ds[:3]} {meas} {np.abs(d).mean():5.2f}({d.mean():+6.2f},max {np.abs(d).max():5.1f})")
        print(f"dstd={dstd} sc={sc} bl={bl} rule={rule} agg={agg} scen={scen}: " + " | ".join(summ), flush=True)


if __name__ == "__main__":
    main()
