"""EIA check of the alphabetical-order hypothesis (file order vs names sorted), raw MDAV on the
Nin, Herranz & Torra (2007) T11 cells. Usage: python research/mdavx_eia.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Tables 1-2 (text of Sec. 3.1)"], methods: [mdav]}]
import argparse

from mdav_lib import generic_masker, name_order, run
from research_lib import columns


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    en = columns("eia")
    pe = name_order("eia")
    print("order:", [en[i] for i in pe])
    run("eia_file", generic_masker(), ds="eia", verbose=True)
    run("eia_name", generic_masker(), ds="eia", perm=pe, verbose=True)


if __name__ == "__main__":
    main()
