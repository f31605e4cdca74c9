"""Time every registered masking method on Census and EIA (median of 5 runs after warm-up).

    python benchmarks/bench_masking.py

Targets (2-core machine): any single masking of EIA under 0.5 s; MDAV k = 3 on all EIA
attributes (one block, v = 10) under 2 s.
"""

from __future__ import annotations

import numpy as np

from common import load, median_time
from sdcrisk.masking import METHODS, mask

PARAMS = {
    "rankswap": {"p": 10}, "rankswap_pdist": {"p": 10}, "rankswap_pbuckets": {"buckets": 20},
    "optimal_univariate_ma": {"k": 10}, "individual_ranking_ma": {"k": 10},
    "mdav": {"v": 3, "k": 5}, "pcp_ma": {"v": 3, "k": 5}, "zscore_ma": {"v": 3, "k": 5},
    "additive_noise": {"a": 0.5}, "correlated_noise": {"a": 0.5}, "multiplicative_noise": {"b": 0.5},
}


def main():
    data = {"census": load("census"), "eia": load("eia")}
    rows = []
    for name in sorted(METHODS):
        params = PARAMS.get(name)
        if params is None:
            continue
        t = {d: median_time(lambda: mask(name, x, np.random.default_rng(1), **params)) for d, x in data.items()}
        rows.append((name, params, t["census"], t["eia"]))
    rows.append(("mdav (one block, k=3)", {"v": 10, "k": 3}, float("nan"),
                 median_time(lambda: mask("mdav", data["eia"], None, v=10, k=3), repeat=3)))
    print(f"{'method':28s} {'params':22s} {'census s':>9s} {'eia s':>9s}")
    for name, params, tc, te in rows:
        print(f"{name:28s} {str(params):22s} {tc:9.4f} {te:9.4f}")


if __name__ == "__main__":
    main()
