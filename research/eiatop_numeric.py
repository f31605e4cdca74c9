"""EIA L-RL floor of Nin, Herranz & Torra (2007) T2 (eiatop H2): integer / precision artefacts of a C/Java
implementation. Sort key (the swap itself moves the exact values): float32, float16 (ties and inf
above 65504), int16 wrap-around, int32 wrap of value*1000; rank distance P computed against
another n (1080 = Census n, i.e. code reused; number of nonzero values of the column).
Usage: python research/eiatop_numeric.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import mask_columns, report, std_partner, swap_in_order
from research_lib import load
from sdcrisk.masking.swapping import _rankswap_kernel, rank_distance


def keyed(keyfn):
    def pf(col, P, rng):
        o = np.lexsort((np.arange(col.size), keyfn(col)))  # stable on the key
        return swap_in_order(col, o, _rankswap_kernel(col.size, P, 1, rng))
    return lambda x, p, r: mask_columns(x, p, pf, r)


def other_n(nfun):
    def masker(x, p, r):
        y = np.empty_like(x)
        for j in range(x.shape[1]):
            col = x[:, j]
            P = min(rank_distance(p, nfun(col)), col.size - 1)
            y[:, j] = std_partner(col, P, r)
        return y
    return masker


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    x = load("eia")
    print("column maxima", x.max(0), " > 2^24:", (x > 2**24).sum(), " > 2^15:", (np.abs(x) > 32767).sum(0))
    report("sort key float32", keyed(lambda c: c.astype(np.float32)), seeds=(1,))
    report("sort key float16", keyed(lambda c: c.astype(np.float16)), seeds=(1,))
    report("sort key int16 wrap", keyed(lambda c: c.astype(np.int64).astype(np.int16)), seeds=(1,))
    report("sort key int32 wrap of v*1000", keyed(lambda c: (c.astype(np.int64) * 1000).astype(np.int32)), seeds=(1,))
    report("P against n = 1080", other_n(lambda c: 1080), seeds=(1,))
    report("P against n = #nonzero", other_n(lambda c: int((c != 0).sum())), seeds=(1,))


if __name__ == "__main__":
    main()
