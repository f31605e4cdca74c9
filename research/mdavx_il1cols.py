"""Per-column IL1 contributions (x20 so they sum to the IL1 part of IL) for raw MDAV on the Census
cells v = 2, k = 5; v = 3, k = 5; v = 2, k = 15 (Nin, Herranz & Torra (2007) T10).
Usage: python research/mdavx_il1cols.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10], measures: [IL, Score1, Score2]}]
import argparse

import numpy as np

from mdav_lib import blockwise
from research_lib import load
from sdcrisk.measures.information_loss import il_components


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    x = load("census")
    for v, k in [(2, 5), (3, 5), (2, 15)]:
        y = blockwise(x, v, k)
        r = np.abs(x - y) / np.abs(x)
        print(v, k, "IL1 per col x20/13:", (r.mean(0) * 20 / 13 * 100 / 100).round(2),
              "comp", (il_components(x, y) * 20).round(2))


if __name__ == "__main__":
    main()
