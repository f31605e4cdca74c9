"""PLD (sdcrisk prl, default coincidence, scenarios j=2..m) for raw MDAV in file vs alphabetical
Census order (Nin, Herranz & Torra (2007) T10), as an extra check of the order hypothesis.
Usage: python research/mdavx_pld.py [v,k ...]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [PLD]}]
import argparse

import numpy as np

from mdav_lib import CELLS, generic_masker, name_order, published_t1011
from research_lib import load
from sdcrisk.linkage.probabilistic import prl


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cells", nargs="*", metavar="v,k", help="cells (default: all nine)")
    a = ap.parse_args()
    cells = [tuple(int(t) for t in s.split(",")) for s in a.cells] or CELLS
    pub = published_t1011()
    f = generic_masker()
    x0 = load("census")
    for lab, x in (("file", x0), ("name", np.ascontiguousarray(x0[:, name_order("census")]))):
        dev = []
        for v, k in cells:
            y = f(x, v, k)
            pl = np.mean([prl(x, y, known=np.arange(j), rng=np.random.default_rng(1)).percent_correct
                          for j in range(2, 14)])
            p = pub[("census", v, k, "PLD")]
            dev.append(pl - p)
            print(f"{lab} v{v}k{k:<2} PLD {pl:5.1f}/{p:5.1f}", flush=True)
        print(f"{lab}: PLD MAD {np.abs(dev).mean():.2f} ({np.mean(dev):+.2f})", flush=True)


if __name__ == "__main__":
    main()
