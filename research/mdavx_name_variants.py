"""Alphabetical Census order (hypothesis from mdavx_order.py) combined with MDAV variants and
scalings (Nin, Herranz & Torra (2007) T10). Usage: python research/mdavx_name_variants.py"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T10, T11], methods: [mdav]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD]}]
import argparse

from mdav_lib import blockwise, generic_masker, name_order, run, scale


def scaled(sc, rule="textbook"):
    def f(x, v, k):
        return blockwise(x, v, k, dist_fn=lambda b: scale(b, sc), rule=rule)
    return f


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    pn = name_order("census")
    for nm, f in [("name_manhattan", generic_masker(metric=1)), ("name_chebyshev", generic_masker(metric=2)),
                  ("name_greedy", generic_masker(grow=1))]:
        run(nm, f, perm=pn, verbose=False)
    for sc in ("z", "minmax", "log", "rank"):
        run("name_" + sc, scaled(sc), perm=pn, verbose=False)
    for rule in ("xs_cent", "argus", "single"):
        run("name_" + rule, scaled("raw", rule), perm=pn, verbose=False)


if __name__ == "__main__":
    main()
