"""Calibrate the MDAV experiments (Nin, Herranz & Torra (2007) Tables 9-11, Nin, Herranz & Torra (2008, multivariate microaggregation) Sec. 3.1 / 4.2 claims).

MDAV is deterministic, so every cell is one number. For each alternative the script prints
ours vs published per cell and the mean absolute / mean signed deviation. Published numbers are
only compared against, never fed into any computation.

Alternatives measured
* masking (``--mask``): ``z``  = the package's ``mdav`` (MDAV on z-scores of each block, the
  mu-ARGUS / sdcMicro ``Microaggregation`` convention: sample sd, means destandardised);
  ``raw`` = the same MDAV on raw (unstandardised) block values; ``drop`` = z-scored MDAV on
  floor(m/v) blocks of exactly v attributes with the m mod v leftover attributes removed from
  the file (one reading of Nin, Herranz & Torra (2008, multivariate microaggregation) Sec. 3.1 "... microaggregated and removed from the
  beginning"); all measures then use the remaining columns.
* Table 9 L-RL candidate rule (``--t9``): nearest-centroid set per known block, intersected,
  then DBRL inside (``inter``, the package's :func:`lrl_mdav`); only unique intersections count
  (``unique``); centroid distance on raw values (``inter_raw``); the package's lrl_mdav with
  ``n_nearest=2`` (``inter_nn2``).
* DLD / PLD / ID scenarios: first j attributes, j = 1..ceil(m/2) (``first_j``), or the first
  g blocks, g = 2..n_blocks (``groups``).

Usage: python research/calibrate_mdav.py [--pld] [--datasets census eia] [--mask z raw drop]
"""
# The published rows this script consults (the replication check reads this line; docs/calibration.yaml):
# compares: [{paper: nin2007_location_rl, tables: [T9, T10, T11]}, {paper: nin2008_multivariate_ma, tables: ["Table 3 (text of Sec. 4.2)"], measures: [DLD, PLD, ProLD_PCP]}, {paper: nin2008_multivariate_ma, tables: ["Tables 1-2 (text of Sec. 3.1)"], methods: [mdav]}]

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from mdav_lib import centroid_sets, dbrl_within, published_t9, published_t1011, unique_hits
from research_lib import load
from sdcrisk.linkage.distance import dbrl
from sdcrisk.linkage.location import lrl_mdav
from sdcrisk.linkage.probabilistic import prl
from sdcrisk.linkage.projected import projected_rl
from sdcrisk.masking import mask
from sdcrisk.masking.microaggregation import _mdav_kernel_brute as _mdav_kernel
from sdcrisk.masking.microaggregation import attribute_blocks, group_means
from sdcrisk.measures.information_loss import information_loss
from sdcrisk.measures.interval_disclosure import interval_disclosure_by_attribute

VS, KS = (2, 3, 4), (5, 15, 25)


# ------------------------------------------------------------------ masking variants
def masked(x, v, k, variant):
    """(original columns used, masked file, blocks in the used file's column indices)."""
    n, m = x.shape
    if variant == "z":
        return x, mask("mdav", x, None, v=v, k=k), attribute_blocks(m, v)
    if variant == "raw":
        out = np.empty_like(x)
        for cols in attribute_blocks(m, v):
            b = x[:, cols]
            out[:, cols] = group_means(b, _mdav_kernel(np.ascontiguousarray(b), k))
        return x, out, attribute_blocks(m, v)
    if variant == "drop":
        keep = (m // v) * v
        xs = np.ascontiguousarray(x[:, :keep])
        return xs, mask("mdav", xs, None, v=v, k=k), attribute_blocks(keep, v)
    raise ValueError(variant)


# ------------------------------------------------------------------ Table 9 L-RL variants
def lrl_variant(x, y, blocks, g, rule):
    if rule == "inter":
        return lrl_mdav(x, y, blocks, known_blocks=np.arange(g)).n_correct
    if rule == "inter_nn2":
        return lrl_mdav(x, y, blocks, known_blocks=np.arange(g), n_nearest=2).n_correct
    n = x.shape[0]
    cand = np.ones((n, n), dtype=bool)  # n <= 4092: 16.7 MB of bools
    for b in blocks[:g]:
        cand &= centroid_sets(x, y, b, "raw" if rule == "inter_raw" else "z")
    if rule == "unique":
        return unique_hits(cand)
    # inter_raw: DBRL (own standardisation) inside the raw-metric intersection
    return dbrl_within(x, y, np.concatenate(blocks[:g]), cand)


def report(title, rows):
    """rows: (label, ours, published)."""
    dev = np.array([o - p for _, o, p in rows])
    print(f"  {title:<34} MAD {np.abs(dev).mean():8.2f}  signed {dev.mean():+8.2f}  "
          f"max|d| {np.abs(dev).max():8.2f}")
    return dev


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["census", "eia"])
    ap.add_argument("--mask", nargs="+", default=["z", "raw", "drop"], help="masking variants: z raw drop")
    ap.add_argument("--t9", nargs="+", default=["inter", "unique", "inter_raw", "inter_nn2"],
                    help="Table 9 L-RL rules: inter unique inter_raw inter_nn2")
    ap.add_argument("--pld", action="store_true", help="also PRL (slower)")
    ap.add_argument("--quiet", action="store_true", help="only the summaries")
    a = ap.parse_args()
    t9, t1011 = published_t9(), published_t1011()
    rng = np.random.default_rng(20070901)
    for name in a.datasets:
        x0 = load(name)
        for variant in a.mask:
            t0 = time.time()
            print(f"\n=== {name}  masking={variant}")
            cells = {(v, k): masked(x0, v, k, variant) for v in VS for k in KS}
            # ---- Table 9
            for rule in a.t9:
                rows = []
                for (v, k), (x, y, bl) in cells.items():
                    ours = [lrl_variant(x, y, bl, g, rule) for g in range(2, len(bl) + 1)]
                    pub = [t9.get((name, v, k, g)) for g in range(2, len(bl) + 1)]
                    if not a.quiet:
                        print(f"    T9 {rule:<9} Mic{v}-{k:02d} ours {ours} pub {[int(p) for p in pub if p]}")
                    rows += [(f"{v}-{k}-{g}", o, p) for g, o, p in zip(range(2, 99), ours, pub) if p is not None]
                report(f"T9 counts, rule={rule}", rows)
            # ---- Tables 10/11: IL, DLD, PLD, ID under both scenario rules
            meas = {"IL": [], "DLD first_j": [], "DLD groups": [], "ID first_j": [], "ID groups": [],
                    "PLD first_j": [], "PLD groups": []}
            for (v, k), (x, y, bl) in cells.items():
                n, m = x.shape
                pub = lambda s: t1011[(name, v, k, s)]  # noqa: E731
                meas["IL"].append((f"Mic{v}-{k}", information_loss(x, y), pub("IL")))
                scen = {"first_j": [np.arange(j) for j in range(1, math.ceil(m / 2) + 1)],
                        "groups": [np.concatenate(bl[:g]) for g in range(2, len(bl) + 1)] or [np.arange(m)]}
                ida = interval_disclosure_by_attribute(x, y)
                for sname, sc in scen.items():
                    meas[f"DLD {sname}"].append(
                        (f"Mic{v}-{k}", float(np.mean([dbrl(x, y, known=c).percent_correct for c in sc])), pub("DLD")))
                    meas[f"ID {sname}"].append(
                        (f"Mic{v}-{k}", float(np.mean([ida[c].mean() for c in sc])), pub("ID")))
                    if a.pld:
                        meas[f"PLD {sname}"].append((f"Mic{v}-{k}", float(np.mean(
                            [prl(x, y, known=c, rng=rng).percent_correct for c in sc])), pub("PLD")))
            for key, rows in meas.items():
                if not rows:
                    continue
                if not a.quiet:
                    print("    " + key + ": " + "  ".join(f"{lab} {o:.2f}/{p:.2f}" for lab, o, p in rows))
                report(key, rows)
            # ---- Nin, Herranz & Torra (2008, multivariate microaggregation) claims (Census, MDAV v=3 k=25): groups scenarios 2..all
            if name == "census":
                x, y, bl = cells[(3, 25)]
                gs = range(2, len(bl) + 1)
                d = np.mean([dbrl(x, y, known=np.concatenate(bl[:g])).percent_correct for g in gs])
                pc = np.mean([projected_rl(x, y, np.arange(g), 3, projection="pcp").percent_correct for g in gs])
                print(f"    Nin, Herranz & Torra (2008, multivariate microaggregation) MDAV v=3 k=25 census: DLD(groups) {d:.2f} / 15.86   ProLD_PCP {pc:.2f} / 53.49")
            print(f"    ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
