"""Sweep rank-swapping partner rules (Nin, Herranz & Torra (2007) T1-T4): L-RL counts (T1/T2) and DLD/ID/IL
(T3/T4) vs published, few maskings; per data set and rule the MAD of the counts and |deviation| of
DLD / ID / IL. Rules: see rankswap_lib (inclusive, moore, argus, direct_incl, chain_incl, reflect, gen_...).
Usage: python research/rsties_sweep.py rule,rule [p,p,...] [reps] [census,eia] [stable|random|desc]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np
import pandas as pd

from rankswap_lib import mask, versus_published
from research_lib import int_list, load


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rules", help="comma-separated partner rules")
    ap.add_argument("ps", nargs="?", type=int_list, default="2,6,10,14,20",
                    help="comma-separated p (default 2,6,10,14,20)")
    ap.add_argument("reps", nargs="?", type=int, default=2, help="maskings per cell (default 2)")
    ap.add_argument("datasets", nargs="?", default="census,eia", help="comma-separated (default census,eia)")
    ap.add_argument("order_mode", nargs="?", default="stable", help="tie order: stable random desc")
    a = ap.parse_args()
    rows = []
    for ds in a.datasets.split(","):
        x = load(ds)
        for rule in a.rules.split(","):
            for p in a.ps:
                c, s, pubc, ps_ = versus_published(
                    x, ds, p, lambda rng: mask(x, p, rule, rng, order_mode=a.order_mode), a.reps)
                rows.append(dict(ds=ds, rule=rule, p=p, madc=np.mean(np.abs(c - pubc)),
                                 ours=" ".join(f"{v:.0f}" for v in c), pub=" ".join(f"{v:.0f}" for v in pubc),
                                 **{k: f"{s[k]:.2f}/{ps_[k]}" for k in ("DLD", "ID", "IL")},
                                 **{f"d{k}": s[k] - ps_[k] for k in ("DLD", "ID", "IL")}))
                d = rows[-1]
                print(f"{ds} {rule} p={p} madc={d['madc']:.1f} DLD {d['DLD']} ID {d['ID']} IL {d['IL']}\n"
                      f"   ours {d['ours']}\n   pub  {d['pub']}", flush=True)
    df = pd.DataFrame(rows)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_colwidth", 80)
    print(df.groupby(["ds", "rule"])[["madc", "dDLD", "dID", "dIL"]].agg(lambda s: np.mean(np.abs(s))).round(2))


if __name__ == "__main__":
    main()
