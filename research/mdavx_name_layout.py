"""Block layouts (mdav_lib.blocks: last, first, own, rr) in the alphabetical Census order
(Nin, Herranz & Torra (2007) T10). Usage: python research/mdavx_name_layout.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

from mdav_lib import blockwise, name_order, run


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    pn = name_order("census")
    for bl in ("last", "first", "own", "rr"):
        run("name_bl_" + bl, lambda x, v, k, bl=bl: blockwise(x, v, k, bl=bl), perm=pn, verbose=False)


if __name__ == "__main__":
    main()
