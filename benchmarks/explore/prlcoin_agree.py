"""Variant: Fellegi-Sunter weights from agreements only (disagreement contributes 0)."""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
from common import load  # noqa
import sdcrisk.linkage.probabilistic as P
from prlcoin_lib import *
import prlcoin_lib as L

class AgreeOnly(P.FellegiSunter):
    def weights(self, patterns):
        return np.asarray(patterns, float) @ (np.log(self.m) - np.log(self.u))

_orig = P.em_fellegi_sunter
def em_agree(*a, **k):
    f = _orig(*a, **k)
    return AgreeOnly(f.m, f.u, f.p, f.iterations, f.converged)
L.em_fellegi_sunter = em_agree
for t, rule, par, cells in [("T7", "nearest", None, ["10", "30", "50"]), ("T3", "value", 0.1, ["2", "4", "6", "10"]),
                             ("T3", "ewbin", 10, ["2", "4", "6", "10"]), ("T10", "nearest", None, ["v=2;k=5", "v=3;k=15"])]:
    evaluate(t, rule, par, cells=cells)
