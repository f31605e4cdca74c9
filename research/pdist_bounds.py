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
``--table7``: instead, the Nin, Herranz & Torra (2008, rank swapping) Table 7 counts (EIA, p = 2
and 4, half of the attributes known: annotated-union RS-RL and DBRL correct links) per variant,
the comparison of the draw repetition's two versions that docs/differences.md (group 6) reports.
Usage: python research/pdist_bounds.py [--reps 10] [--variants clip:distance redraw:direct ...] [--table7]
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: muralidhar2016_rank_rl, tables: [T3]}, {paper: nin2008_rethinking_rs, tables: ["Table 7 (text of Sec. 6)"]}]
from __future__ import annotations

import argparse

import numpy as np

from rankswap_lib import table3_line
from research_lib import load, published
from sdcrisk.linkage.distance import dbrl
from sdcrisk.linkage.location import rsrl_annotated_union
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


TABLE7 = "Table 7 (text of Sec. 6)"


def table7_line(label, mask_fn, reps, rng, ps=(2, 4)):
    """Print the annotated-union RS-RL and DBRL correct links (EIA, the first ceil(m/2) attributes
    known, the intruder's window P; mean of ``reps`` maskings) beside Nin, Herranz & Torra (2008,
    rank swapping) Table 7 for every p."""
    pub = {(r["param"], r["measure"]): float(r["value"])
           for r in published(claims=True, paper="nin2008_rethinking_rs", where=TABLE7)}
    x = load("eia")
    n, m = x.shape
    known = np.arange((m + 1) // 2)
    parts = []
    for p in ps:
        P = rank_distance(p, n)
        res = np.zeros((reps, 2))
        for t in range(reps):
            y = mask_fn(x, p, rng)
            res[t] = [rsrl_annotated_union(x, y, known, distance=P).n_correct, dbrl(x, y, known=known).n_correct]
        au, db = res.mean(0)
        parts.append(f"p={p}: annotated union {au:6.1f}/{pub[(f'p={p}', 'RSRL_annotated_union_count')]:g}"
                     f"  DBRL {db:6.1f}/{pub[(f'p={p}', 'DBRL_count')]:g}")
    print(f"{label} | " + " | ".join(parts), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=10, help="maskings per p (default 10)")
    ap.add_argument("--variants", nargs="+", default=[f"{b}:{m}{s}" for b in ("clip", "redraw")
                                                      for m in _PDIST_MODE for s in ("", "+retry")],
                    help=f"<clip|redraw>:<{'|'.join(_PDIST_MODE)}>[+retry] (default: all)")
    ap.add_argument("--table7", action="store_true",
                    help="Nin, Herranz & Torra (2008, rank swapping) Table 7 (EIA) instead of the Table 3 comparison")
    a = ap.parse_args()
    x = load("census")
    for var in a.variants:
        bound, mode = var.split(":")
        retry = mode.endswith("+retry")
        mode = mode.removesuffix("+retry")
        fn = lambda x, p, rng: mask(x, p, mode, bound == "redraw", retry, rng)  # noqa: E731
        if a.table7:
            table7_line(f"{var:22s}", fn, a.reps, np.random.default_rng(20261123))
        else:
            table3_line(f"{var:22s}", x, fn, a.reps, np.random.default_rng(20261123))


if __name__ == "__main__":
    main()
