"""Muralidhar & Domingo-Ferrer (2016) Table 3 (p-distribution rank swapping, Census) under readings of the range restriction.

Muralidhar & Domingo-Ferrer (2016) §4: a maximum swapping distance m ~ N(P/2, P/2) is drawn per record, "with the usual
restriction that one cannot swap the current record to an index below 0 or greater than n", then
"the actual swapping distance ... is randomly chosen between 0 and the record's maximum".
The package kernel (``sdcrisk.masking.swapping._pdist_kernel``) *clips* m to the file and, since
this comparison, repeats a draw that yields no partner (``+retry``; up to ``PDIST_MAX_DRAWS``).
Without the repetition (the earlier kernel) the records near the top of the file keep their values
at large p (the clipped target n-1 is soon taken). Also read here: *redraw m until i + m lies in
the file* (``redraw:``) instead of clipping; for the three partner readings.
Prints DBRL / RBRL-Sum / RBRL-Max (% correct, all attributes) per p and the MAD against Table 3.
Usage: python research/pdist_bounds.py [--reps 10] [--variants clip:distance redraw:direct ...]
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: muralidhar2016_rank_rl, tables: [T3]}]
from __future__ import annotations

import argparse

import numpy as np

from rankswap_lib import table3_line
from research_lib import load
from sdcrisk.masking.swapping import (_PDIST_MODE, PDIST_MAX_DRAWS, _pdist_kernel, apply_partners, rank_distance,
                                      sorted_order)


def mask(x, p, mode, redraw, retry, rng):
    draws = PDIST_MAX_DRAWS if retry else 1
    n = x.shape[0]
    P = rank_distance(p, n)
    out = np.empty_like(x)
    for j in range(x.shape[1]):
        col = x[:, j]
        out[:, j] = apply_partners(col, _pdist_kernel(n, P, _PDIST_MODE[mode], rng, draws, redraw), sorted_order(col))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=10, help="maskings per p (default 10)")
    ap.add_argument("--variants", nargs="+", default=[f"{b}:{m}{s}" for b in ("clip", "redraw")
                                                      for m in _PDIST_MODE for s in ("", "+retry")],
                    help=f"<clip|redraw>:<{'|'.join(_PDIST_MODE)}>[+retry] (default: all)")
    a = ap.parse_args()
    x = load("census")
    for var in a.variants:
        bound, mode = var.split(":")
        retry = mode.endswith("+retry")
        mode = mode.removesuffix("+retry")
        table3_line(f"{var:22s}", x, lambda x, p, rng: mask(x, p, mode, bound == "redraw", retry, rng),
                    a.reps, np.random.default_rng(20261123))


if __name__ == "__main__":
    main()
