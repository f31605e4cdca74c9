"""Sensitivity of IL/DLD to the record order fed to MDAV (only tie-breaking changes) in the
alphabetical Census order (Nin, Herranz & Torra (2007) T10): mean, sd and range over R row shuffles.
Usage: python research/mdavx_rowshuffle.py [R] [name|file]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

import numpy as np

from mdav_lib import CELLS, generic_masker, measures, name_order, published_t1011
from research_lib import load


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("R", nargs="?", type=int, default=8, help="row shuffles per cell (default 8)")
    ap.add_argument("order", nargs="?", default="name", choices=("name", "file"), help="Census column order")
    a = ap.parse_args()
    pub = published_t1011()
    x = load("census")
    x = np.ascontiguousarray(x[:, name_order("census")] if a.order == "name" else x)
    f = generic_masker()
    rng = np.random.default_rng(1)
    for v, k in CELLS:
        il, dl = [], []
        for _ in range(a.R):
            p = rng.permutation(x.shape[0])
            y = np.empty_like(x)
            y[p] = f(np.ascontiguousarray(x[p]), v, k)
            mm = measures(x, y, do_id=False)
            il.append(mm["IL"])
            dl.append(mm["DLD"])
        il, dl = np.array(il), np.array(dl)
        print(f"v{v}k{k:<2} IL {il.mean():5.1f} sd {il.std():4.1f} [{il.min():5.1f},{il.max():5.1f}] "
              f"pub {pub[('census', v, k, 'IL')]:5.1f} | DLD {dl.mean():5.1f} sd {dl.std():4.1f} "
              f"[{dl.min():5.1f},{dl.max():5.1f}] pub {pub[('census', v, k, 'DLD')]:5.1f}", flush=True)


if __name__ == "__main__":
    main()
