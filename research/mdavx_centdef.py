"""Centroid definition used to pick xr (the farthest record): mean (textbook), coordinate-wise
median, midrange; aggregation stays the mean. File and alphabetical order.
Usage: python research/mdavx_centdef.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

from mdav_lib import centroid_masker, name_order, run


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    pn = name_order("census")
    for how, nm in ((1, "median"), (2, "midrange")):
        f = centroid_masker(how)
        run("file_cent_" + nm, f, verbose=False)
        run("name_cent_" + nm, f, perm=pn, verbose=False)


if __name__ == "__main__":
    main()
