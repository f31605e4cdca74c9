"""Spread of Census IL/DLD per cell (Nin, Herranz & Torra (2007) T10) over near-equivalent MDAV versions
(textbook, xs_cent, argus, single, fixed centroid, median/midrange centroid, Manhattan, greedy)
in file and alphabetical order. Usage: python research/mdavx_spread.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

import numpy as np

from mdav_lib import blockwise, centroid_masker, generic_masker, name_order, published_t1011, run


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    pub = published_t1011()
    V = {"textbook": generic_masker(), "manhattan": generic_masker(metric=1), "greedy": generic_masker(grow=1),
         "fixedc": centroid_masker(3), "median_c": centroid_masker(1), "midrange_c": centroid_masker(2)}
    for r in ("xs_cent", "argus", "single"):
        V[r] = (lambda rr: (lambda x, v, k: blockwise(x, v, k, rule=rr)))(r)
    for order, perm in (("file", None), ("name", name_order("census"))):
        tab = {}
        for nm, f in V.items():
            rows, _ = run(f"{order}_{nm}", f, perm=perm, verbose=False, do_id=False)
            for v, k, r in rows:
                tab.setdefault((v, k), []).append((r["IL"], r["DLD"]))
        for (v, k), vals in tab.items():
            a = np.array(vals)
            print(f"{order} v{v}k{k:<2} IL range [{a[:, 0].min():5.1f},{a[:, 0].max():5.1f}] "
                  f"pub {pub[('census', v, k, 'IL')]:5.1f} | DLD range [{a[:, 1].min():5.1f},{a[:, 1].max():5.1f}] "
                  f"pub {pub[('census', v, k, 'DLD')]:5.1f}")


if __name__ == "__main__":
    main()
