"""Plausible implementation slips in a 2007 MDAV: (1) xs = farthest from xr among ALL records
(incl. already clustered; cluster = its k nearest remaining); (2) xr and xs both among all
records (centroid of the remaining). File and alphabetical order.
Usage: python research/mdavx_bugs.py [--cells]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

from mdav_lib import mdav_generic, name_order, per_block, run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", action="store_true", help="print every cell")
    a = ap.parse_args()
    pn = name_order("census")
    for bug in (1, 2):
        f = per_block(lambda z, k, bug=bug: mdav_generic(z, k, pool=bug))
        run(f"file_bug{bug}", f, verbose=a.cells)
        run(f"name_bug{bug}", f, perm=pn, verbose=a.cells)


if __name__ == "__main__":
    main()
