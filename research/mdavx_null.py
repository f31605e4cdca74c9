"""Null distribution over random Census column orders of the DLD/IL deviations (raw MDAV, blocks
'last', scenarios j=2..m; Nin, Herranz & Torra (2007) T10); compares the alphabetical order's DLD MAD (1.37).
Saves the per-order MADs to /tmp/mdavx_null_<seed>.npy. Usage: python research/mdavx_null.py N seed"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

import numpy as np

from mdav_lib import generic_masker, run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("N", type=int, help="number of random column orders")
    ap.add_argument("seed", type=int, help="seed of the orders")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    f = generic_masker()
    res = []
    for t in range(a.N):
        p = rng.permutation(13)
        _, dev = run(f"r{t}", f, perm=p, verbose=False, do_id=False)
        res.append([np.abs(dev["DLD"]).mean(), np.mean(dev["DLD"]), np.abs(dev["IL"]).mean(), np.mean(dev["IL"])])
    np.save(f"/tmp/mdavx_null_{a.seed}.npy", np.array(res))
    r = np.array(res)
    print("DLD MAD quantiles 0/5/50/95%", np.quantile(r[:, 0], [0, .05, .5, .95]).round(2),
          "frac <= 1.37:", (r[:, 0] <= 1.37).mean(), "| IL MAD q", np.quantile(r[:, 2], [0, .05, .5]).round(2),
          "IL signed mean q", np.quantile(r[:, 3], [0.05, .5, .95]).round(2))


if __name__ == "__main__":
    main()
