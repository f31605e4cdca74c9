"""ID conventions on rank swapping (inclusive rule, one masking per p) against Nin, Herranz & Torra (2007) T3/T4:
ranks of the masked or original file, total or each-side width, sd rule; averaged over the
scenarios, over all attributes, or over the first half. Usage: python research/rsties_idv.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import mask, published_scores
from research_lib import load
from sdcrisk.measures.interval_disclosure import interval_disclosure_by_attribute
from sdcrisk.measures.scenarios import known_scenarios, scenario_average

VARIANTS = [("masked", {}), ("orig", dict(ranks="original")), ("total", dict(width="total")),
            ("sd", dict(rule="sd")), ("sd_each", dict(rule="sd", width="each_side"))]


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    for ds in ["census", "eia"]:
        x = load(ds)
        m = x.shape[1]
        h = -(-m // 2)
        for p in [2, 6, 10, 14, 20]:
            pub = published_scores(ds, p)["ID"]
            y = mask(x, p, "inclusive", np.random.default_rng(p))
            res = {}
            for name, kw in VARIANTS:
                per = interval_disclosure_by_attribute(x, y, **kw)
                res[name] = (scenario_average(per, known_scenarios(m)), per.mean(), per[:h].mean())
            print(ds, p, "pub", pub, " ".join(f"{k}: scen {v[0]:.1f} all {v[1]:.1f} firsth {v[2]:.1f}"
                                              for k, v in res.items()))


if __name__ == "__main__":
    main()
