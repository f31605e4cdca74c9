"""2007-style number handling in MDAV-generic (numpy, stable argsort; Nin, Herranz & Torra (2007) T10 Census):
``float32``: everything in float32 (squared Euclidean distances of raw values lose resolution
for large attributes, making near-ties arbitrary); ``int32``: Census values are integers, squared
distances accumulated in 32-bit ints wrap around for large attributes (AFNLWGT ~3e5 -> squares
~1e11), centroids truncated to int; controls ``float64`` and ``int64`` (no overflow).
Usage: python research/mdavx_numeric.py [--cells]"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

import numpy as np

from mdav_lib import name_order, per_block, run


def mdav_numeric(z, k, dt):
    """MDAV-generic labels with the values (and distance sums) held in dtype ``dt``."""
    integer = np.issubdtype(dt, np.integer)
    z = np.round(z).astype(np.int64) if integer else z.astype(dt)
    n = len(z)
    lab = np.full(n, -1)
    act = np.arange(n)
    g = 0

    def d2(idx, c):
        with np.errstate(over="ignore"):
            d = (z[idx] - c).astype(dt)
            return (d * d).sum(1, dtype=dt)

    def centroid():
        return z[act].sum(0) // len(act) if integer else z[act].mean(0, dtype=dt)

    def take(seed):
        nonlocal act, g
        p = np.argsort(d2(act, z[seed]), kind="stable")[:k]
        lab[act[p]] = g
        g += 1
        act = np.delete(act, p)

    while len(act) >= 3 * k:
        c = centroid()
        xr = act[np.argmax(d2(act, c))]
        xs = act[np.argmax(d2(act, z[xr]))]
        take(xr)
        take(xs)
    if len(act) >= 2 * k:
        take(act[np.argmax(d2(act, centroid()))])
    lab[act] = g
    return lab


def mk(dt):
    return per_block(lambda z, k: mdav_numeric(z, k, dt))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", action="store_true", help="print every cell")
    a = ap.parse_args()
    vb = a.cells
    pn = name_order("census")
    run("file_f64_numpy", mk(np.float64), verbose=False)
    run("file_f32", mk(np.float32), verbose=vb)
    run("name_f32", mk(np.float32), perm=pn, verbose=vb)
    run("file_int64", mk(np.int64), verbose=False)
    run("file_int32wrap", mk(np.int32), verbose=vb)
    run("name_int32wrap", mk(np.int32), perm=pn, verbose=vb)


if __name__ == "__main__":
    main()
