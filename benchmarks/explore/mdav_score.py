"""Score1 fit (Nin, Herranz & Torra (2007) Tables 10/11) of two MDAV candidates: z-MDAV + first_j (package now) vs
raw-scale MDAV + first j attributes j=2..m (Nin, Herranz & Torra (2008, multivariate microaggregation) §3.1). Prints per-cell measures and MADs."""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import sys
import numpy as np
from common import load
from mdav_eval import evaluate, PUB
for sc, scen in [("raw", "j2_all"), ("z", "first_j")]:
    dev = {}
    for ds in ("census", "eia"):
        x = load(ds)
        for v in (2, 3, 4):
            for k in (5, 15, 25):
                r = evaluate(ds, x, v, k, sc, "last", "textbook", "mean", scen, True, True, np.random.default_rng(1))
                r["Score1"] = 0.5 * r["IL"] + 0.125 * r["DLD"] + 0.125 * r["PLD"] + 0.25 * r["ID"]
                print(f"  {sc} {ds} v{v}k{k} " + " ".join(f"{m} {r[m]:.2f}/{PUB[(ds, v, k, m)]:.2f}" for m in r), flush=True)
                for m in r:
                    dev.setdefault((ds, m), []).append(r[m] - PUB[(ds, v, k, m)])
    print(sc, scen, " | ".join(f"{d[:3]} {m} MAD {np.mean(np.abs(e)):.2f} ({np.mean(e):+.2f}) max {np.max(np.abs(e)):.1f}" for (d, m), e in dev.items()), flush=True)
