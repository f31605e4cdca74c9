"""ID (scenario average) of rank swapping under partner rules against Nin, Herranz & Torra (2007) T3/T4,
Census and EIA, one masking per p (seed p). Usage: python research/rsties_idscan.py rule,rule p,p,..."""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import id_, mask, published_scores
from research_lib import int_list, load


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rules", help="comma-separated partner rules")
    ap.add_argument("ps", type=int_list, help="comma-separated p")
    a = ap.parse_args()
    ps = a.ps
    for ds in ["census", "eia"]:
        x = load(ds)
        pub = [published_scores(ds, p)["ID"] for p in ps]
        print(ds, "pub ", " ".join(f"{v:6.2f}" for v in pub))
        for rule in a.rules.split(","):
            ids = [id_(x, mask(x, p, rule, np.random.default_rng(p))) for p in ps]
            print(ds, f"{rule:18s}", " ".join(f"{v:6.2f}" for v in ids),
                  " MAD %.2f" % np.mean(np.abs(np.array(ids) - pub)), flush=True)


if __name__ == "__main__":
    main()
