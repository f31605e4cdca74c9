"""Block layouts (mdav_lib.blocks: last, first, own, rr) in the alphabetical Census order
(Nin, Herranz & Torra (2007) T10). Usage: python research/mdavx_name_layout.py"""
import argparse

from mdav_lib import blockwise, name_order, run


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    pn = name_order("census")
    for bl in ("last", "first", "own", "rr"):
        run("name_bl_" + bl, lambda x, v, k, bl=bl: blockwise(x, v, k, bl=bl), perm=pn, verbose=False)


if __name__ == "__main__":
    main()
