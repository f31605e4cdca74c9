"""PLD (sdcrisk prl, default coincidence, scenarios j=2..m) for raw MDAV in file vs alphabetical
Census order, as an extra check of the order hypothesis. Usage: python mdavx_pld.py [v,k ...]"""
import sys
from mdavx_lib import *  # noqa
from mdavx_h1 import mk
from mdavx_order import pn
from sdcrisk.linkage.probabilistic import prl

cells = [tuple(int(t) for t in s.split(",")) for s in sys.argv[1:]] or CELLS
f = mk()
x0 = data("census")
for lab, x in (("file", x0), ("name", np.ascontiguousarray(x0[:, pn]))):
    dev = []
    for v, k in cells:
        y = f(x, v, k)
        pl = np.mean([prl(x, y, known=np.arange(j), rng=np.random.default_rng(1)).percent_correct
                      for j in range(2, 14)])
        p = PUB[("census", v, k, "PLD")]
        dev.append(pl - p)
        print(f"{lab} v{v}k{k:<2} PLD {pl:5.1f}/{p:5.1f}", flush=True)
    print(f"{lab}: PLD MAD {np.abs(dev).mean():.2f} ({np.mean(dev):+.2f})", flush=True)
