"""Column-order hypothesis for Nin, Herranz & Torra (2007) T10/T11 MDAV: the paper's file has the Census attributes
in another order (e.g. alphabetical). Separates the effect on the partition (blocks) from the
effect on the DLD/ID scenarios (first j attributes), and compares with random orders (null
distribution of the MADs). Usage: python research/mdavx_order.py [nrand]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

import numpy as np

from mdav_lib import generic_masker, name_order, run
from research_lib import columns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("nrand", nargs="?", type=int, default=0, help="random column orders to compare (default 0)")
    a = ap.parse_args()
    names = columns("census")
    pn = name_order("census")
    inv = np.argsort(pn)
    base = generic_masker()

    def part_name_scen_file(x, v, k):  # x in file order; partition computed on name order
        return base(x[:, pn], v, k)[:, inv]

    def part_file_scen_name(x, v, k):  # x in name order; partition on file order
        return base(x[:, inv], v, k)[:, pn]

    print("order:", [names[i] for i in pn])
    run("name_both", base, perm=pn, verbose=True)
    run("part_name_scen_file", part_name_scen_file, verbose=False)
    run("part_file_scen_name", part_file_scen_name, perm=pn, verbose=False)
    rng = np.random.default_rng(0)
    mads = []
    for t in range(a.nrand):
        p = rng.permutation(13)
        _, dev = run(f"rand{t}", base, perm=p, verbose=False, do_id=False)
        mads.append((np.abs(dev["DLD"]).mean(), np.abs(dev["IL"]).mean()))
    if mads:
        r = np.array(mads)
        print("random orders: DLD MAD quantiles min/10/50/90%", np.quantile(r[:, 0], [0, .1, .5, .9]).round(2),
              "IL MAD", np.quantile(r[:, 1], [0, .1, .5, .9]).round(2))


if __name__ == "__main__":
    main()
