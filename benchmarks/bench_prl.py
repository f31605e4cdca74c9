"""Probabilistic record linkage (PRL) timings against the `recordlinkage` package, one process.

    python benchmarks/bench_prl.py [--subset 1000] [--repeat 3]

Baseline: recordlinkage 0.16, full index, ``Compare.exact`` on every attribute, ``ECMClassifier``
(EM on the pair feature table) -- on an EIA subset only, because its full-EIA run takes about
91 s and 6 GB (REPLICATION.md). Ours (`sdcrisk.linkage.probabilistic.prl`) is timed on the
same subset with the same exact-equality coincidences (pattern codes, EM on pattern counts, and
the one-to-one assignment that the baseline does not even do), and on full EIA (4092 x 10, all
attributes known) with every coincidence rule. Masked file: the registry's rank swap, p = 2,
seeded; a second full-EIA row uses the registry's individual-ranking microaggregation (k = 10),
where the "nearest" rule produces many tied candidates.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from common import load, median_time  # noqa: F401  (common also puts src/ on sys.path)

from sdcrisk.linkage.probabilistic import COINCIDENCE_RULES, prl  # noqa: E402
from sdcrisk.masking import mask  # noqa: E402


def recordlinkage_ecm(x: np.ndarray, y: np.ndarray):
    import recordlinkage as rl

    cols = [f"v{j}" for j in range(x.shape[1])]
    a = pd.DataFrame(x, columns=cols)
    b = pd.DataFrame(y, columns=cols)
    pairs = rl.index.Full().index(a, b)
    cmp = rl.Compare()
    for c in cols:
        cmp.exact(c, c, label=c)
    features = cmp.compute(pairs, a, b)
    matches = rl.ECMClassifier(binarize=0.5).fit_predict(features)
    return matches


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subset", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    eia = load("eia")
    rng = np.random.default_rng(20240601)
    y_rs = mask("rankswap", eia, rng, p=2)
    n_sub = args.subset
    xs, ys = eia[:n_sub], y_rs[:n_sub]

    print(f"EIA subset {n_sub} x {eia.shape[1]} ({n_sub ** 2:,} pairs), rank swap p = 2, exact coincidences")
    t0 = time.perf_counter()
    matches = recordlinkage_ecm(xs, ys)
    t_rl = time.perf_counter() - t0  # single run: the baseline is slow
    rl_correct = sum(1 for i, l in matches if i == l)
    t_ours_sub = median_time(lambda: prl(xs, ys, coincidence="exact"), repeat=args.repeat)
    ours_sub = prl(xs, ys, coincidence="exact")
    print(f"  recordlinkage Full+Compare.exact+ECM : {t_rl:8.3f} s  ({len(matches)} pairs classified as "
          f"matches, {rl_correct} true)")
    print(f"  sdcrisk prl(coincidence='exact')      : {t_ours_sub:8.3f} s  ({ours_sub.n_correct} correct "
          f"one-to-one links)   ratio {t_rl / t_ours_sub:6.1f}x")

    print(f"\nFull EIA {eia.shape[0]} x {eia.shape[1]} ({eia.shape[0] ** 2:,} pairs), all attributes known "
          f"(median of {args.repeat})")
    y_ma = mask("individual_ranking_ma", eia, None, k=10)
    for label, y in (("rank swap p=2", y_rs), ("individual-ranking MA k=10", y_ma)):
        for rule in COINCIDENCE_RULES:
            kw = {"rng": np.random.default_rng(0)} if rule == "nearest" else {}
            t = median_time(lambda: prl(eia, y, coincidence=rule, **kw), repeat=args.repeat, warmup=0)
            res = prl(eia, y, coincidence=rule, **kw)
            print(f"  {label:30s} {rule:8s}: {t:7.3f} s   {res.percent_correct:6.2f} % correct")
    # the subset ratio scaled to full EIA: the baseline is O(n^2) in time and memory
    scale = (eia.shape[0] / n_sub) ** 2
    t_full = median_time(lambda: prl(eia, y_rs, coincidence="exact"), repeat=args.repeat, warmup=0)
    print(f"\n  extrapolated recordlinkage full EIA ~ {t_rl * scale:6.1f} s (measured 91 s in REPLICATION.md)"
          f" vs sdcrisk {t_full:.3f} s  -> ratio ~ {t_rl * scale / t_full:.0f}x")


if __name__ == "__main__":
    main()
