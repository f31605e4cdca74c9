"""Calibration of membership inference at 10^4 (issue items 4a and 4b for membership).

    python benchmarks/bench_membership_calibration.py [--members 10000] [--controls 1000,10000]
                                                      [--sims 200] [--out benchmarks/results/membership_calibration]

(a) Independent release: members, controls and a release of ``--members`` records drawn
independently from one distribution (``bench_membership.draw``: correlated skewed
columns, 6 of them, a fresh seed per simulation). The table gives, per attack, the share of ``--sims``
simulations whose 95 % AUC interval contains 0.5 and whose TPR-at-1 %-FPR interval contains
0.01, the mean AUC and the mean interval width. (b) Noisy copy: the release is the members
with Gaussian noise of 1 % of each column's standard deviation; the table gives AUC and TPR.

Writes ``OUT.md``, ``OUT.csv`` and the ``membership_calibration`` region of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))
from common import machine_text  # noqa: E402

from bench_membership import draw  # noqa: E402

SEED = 20250402
COLUMNS = 6


def main() -> None:
    from sdcrisk.criteria.membership import membership_inference

    ap = argparse.ArgumentParser()
    ap.add_argument("--members", type=int, default=10_000)
    ap.add_argument("--controls", default="1000,10000")
    ap.add_argument("--sims", type=int, default=200)
    ap.add_argument("--out", default=str(HERE / "results" / "membership_calibration"))
    a = ap.parse_args()
    n1 = a.members
    rows = []
    t0 = time.perf_counter()
    for n0 in (int(v) for v in a.controls.split(",")):
        stats = {}
        for s in range(a.sims):
            rng = np.random.default_rng([SEED, n0, s])
            x = draw(rng, 2 * n1 + n0, COLUMNS)  # members, controls, release: independent draws
            res = membership_inference(x[:n1], x[n1:n1 + n0], x[n1 + n0:], bootstrap=200, seed=s)
            for r in res.rows:
                st = stats.setdefault(r.attack, [])
                st.append((r.auc_low <= 0.5 <= r.auc_high, r.tpr_1pct_low <= 0.01 <= r.tpr_1pct_high, r.auc,
                           r.auc_high - r.auc_low))
        for attack, st in stats.items():
            st = np.array(st, dtype=float)
            rows.append({"case": "independent release", "members": n1, "controls": n0, "attack": attack,
                         "simulations": a.sims, "AUC interval covers 0.5": f"{100 * st[:, 0].mean():.1f} %",
                         "TPR@1% interval covers 0.01": f"{100 * st[:, 1].mean():.1f} %",
                         "mean AUC": f"{st[:, 2].mean():.4f}", "mean AUC interval width": f"{st[:, 3].mean():.4f}"})
        rng = np.random.default_rng([SEED, n0, 10**6])
        m, c = draw(rng, n1, COLUMNS), draw(rng, n0, COLUMNS)
        release = m + 0.01 * m.std(axis=0) * rng.standard_normal(m.shape)
        res = membership_inference(m, c, release, seed=1)
        for r in res.rows:
            rows.append({"case": "members + 1 % noise", "members": n1, "controls": n0, "attack": r.attack,
                         "simulations": 1, "mean AUC": f"{r.auc:.4f} [{r.auc_low:.4f}, {r.auc_high:.4f}]",
                         "TPR@1%": f"{r.tpr_1pct:.4f}", "TPR@0.1%": f"{r.tpr_01pct:.4f}"})
    elapsed = time.perf_counter() - t0
    import pandas as pd

    from common import replace_region

    df = pd.DataFrame(rows).fillna("")
    out = Path(a.out)
    df.to_csv(out.with_suffix(".csv"), index=False)
    command = "python benchmarks/bench_membership_calibration.py " + " ".join(sys.argv[1:])
    body = (f"Membership inference calibration (`{command.strip()}`; {COLUMNS} columns; "
            f"{machine_text()}, shared with other jobs; {elapsed:.0f} s in all).\n\n"
            f"{df.to_markdown(index=False)}\n")
    out.with_suffix(".md").write_text("# Membership inference calibration\n\n" + body)
    replace_region(ROOT / "docs" / "benchmarks.md", "membership_calibration", body)


if __name__ == "__main__":
    main()
