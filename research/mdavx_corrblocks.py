"""Block-layout hypothesis for Nin, Herranz & Torra (2007) T10/T11 MDAV: the blocks of v attributes are formed by
correlation (the most correlated attributes microaggregated together, as in multivariate
microaggregation practice) instead of consecutive file order; scenarios stay the first j
attributes in file order. Greedy rule: seed a block with the most correlated free pair (or the
free attribute most correlated with the previous block), add the free attribute with the highest
mean |correlation| to the block until it has v; leftovers join the last block.
Usage: python research/mdavx_corrblocks.py [census|eia ...]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}, {paper: nin2008_multivariate_ma, tables: ["Tables 1-2 (text of Sec. 3.1)"], methods: [mdav]}]
import argparse

import numpy as np
from scipy.stats import rankdata

from mdav_lib import aggregate, mdav_generic, run
from research_lib import load


def corr_blocks(x, v, absolute=True, spearman=False):
    z = np.apply_along_axis(rankdata, 0, x) if spearman else x
    c = np.corrcoef(z, rowvar=False)
    c = np.abs(c) if absolute else c
    np.fill_diagonal(c, -np.inf)
    m = x.shape[1]
    free = list(range(m))
    out = []
    while len(free) >= v:
        sub = c[np.ix_(free, free)]
        i, j = np.unravel_index(np.argmax(sub), sub.shape)
        blk = [free[i], free[j]]
        while len(blk) < v:
            cand = [a for a in free if a not in blk]
            blk.append(max(cand, key=lambda a: np.mean([c[a, b] for b in blk])))
        out.append(sorted(blk))
        free = [a for a in free if a not in blk]
    if free:
        out[-1] = sorted(out[-1] + free)
    return [np.array(b) for b in out]


def mk(scale="raw", **kw):
    def f(x, v, k):
        y = x.astype(np.float64).copy()
        for cols in corr_blocks(x, v, **kw):
            xb = x[:, cols].astype(np.float64)
            z = xb if scale == "raw" else (xb - xb.mean(0)) / xb.std(0, ddof=1)
            y[:, cols] = aggregate(xb, mdav_generic(np.ascontiguousarray(z), k, 0, 0, 0))
        return y
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", default=["census", "eia"])
    a = ap.parse_args()
    for ds in a.datasets:
        x = load(ds)
        for v in (2, 3, 4):
            print(ds, v, [list(b) for b in corr_blocks(x, v)])
        for name, fn in [("corr_raw", mk("raw")), ("corr_z", mk("z")),
                         ("corr_raw_spear", mk("raw", spearman=True))]:
            run(name, fn, ds=ds, verbose=True)


if __name__ == "__main__":
    main()
