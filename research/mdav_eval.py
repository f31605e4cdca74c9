"""Evaluate MDAV variants on the 18 cells of Nin, Herranz & Torra (2007) Tables 10/11 (IL, DLD, ID; PLD optional).

Usage: python research/mdav_eval.py [--sc z raw ...] [--bl last ...] [--rule textbook ...]
       [--agg mean] [--ds census eia] [--id] [--pld] [--cells] [--scen first_j|groups|first_j2|j2_all ...]
Prints per variant: MAD (signed mean) and max |dev| of IL, DLD, ID vs the published values.
Published numbers are only compared against.
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD, PLD]}, {paper: nin2008_multivariate_ma, tables: ["Tables 1-2 (text of Sec. 3.1)"], methods: [mdav]}]
from __future__ import annotations

import argparse
import itertools
import math

import numpy as np

from mdav_lib import masked, published_t1011
from research_lib import load
from sdcrisk.linkage.distance import dbrl
from sdcrisk.linkage.probabilistic import prl
from sdcrisk.measures.information_loss import information_loss
from sdcrisk.measures.interval_disclosure import interval_disclosure_by_attribute


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
        out["PLD"] = float(np.mean([prl(xu, y, known=c, rng=rng).percent_correct for c in sc_list]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sc", nargs="+", default=["z"], help="MDAV distance scale: z raw minmax rank mean log zlog")
    ap.add_argument("--bl", nargs="+", default=["last"], help="block layout: last first own drop unmasked rr")
    ap.add_argument("--rule", nargs="+", default=["textbook"], help="MDAV variant (mdav_lib.RULES)")
    ap.add_argument("--agg", nargs="+", default=["mean"], help="aggregation: mean median")
    ap.add_argument("--scen", nargs="+", default=["first_j"],
                    help="scenarios: first_j first_j2 groups groups1 j2_all all_j")
    ap.add_argument("--ds", nargs="+", default=["census", "eia"])
    ap.add_argument("--id", action="store_true", help="also ID")
    ap.add_argument("--pld", action="store_true", help="also PLD (slower)")
    ap.add_argument("--cells", action="store_true", help="print every cell")
    ap.add_argument("--dstd", nargs="+", default=["own"], help="DBRL standardisation")
    ap.add_argument("--vk", nargs="*", default=None, help="subset like 2,5 3,15")
    a = ap.parse_args()
    pub = published_t1011()
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
                    p = pub[(ds, v, k, meas)]
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
