"""Tie groups in the masking (Nin, Herranz & Torra (2007) T1-T4): rank swapping on the distinct values ('group'),
or only one record per tie group swapped ('rep': P from the distinct count, 'repP': P from n);
L-RL counts and DLD / ID / IL against the published values.
Usage: python research/rsties_tiesmask.py census|eia group|rep|repP p,p,..."""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, methods: [rankswap]}]
import argparse

import numpy as np

from rankswap_lib import dld, id_, il, mask_ties, published_counts, published_scores
from research_lib import int_list, load
from sdcrisk.linkage.location import rsrl


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("mode", choices=("group", "rep", "repP"))
    ap.add_argument("ps", type=int_list, help="comma-separated p")
    a = ap.parse_args()
    ds = a.dataset
    x = load(ds)
    n, m = x.shape
    for p in a.ps:
        y = mask_ties(x, p, np.random.default_rng(p), a.mode)
        s = published_scores(ds, p)
        c = [rsrl(x, y, known=np.arange(k), p=p).n_correct for k in range(1, m + 1)]
        print(ds, a.mode, p, "\n  ours", " ".join(map(str, c)),
              "\n  pub ", " ".join(f"{v:.0f}" for v in published_counts(ds, p)),
              "\n  DLD %.2f/%s ID %.2f/%s IL %.2f/%s" % (dld(x, y), s["DLD"], id_(x, y), s["ID"], il(x, y), s["IL"]),
              flush=True)


if __name__ == "__main__":
    main()
