"""Sensitivity of IL/DLD to the record order fed to MDAV (only tie-breaking changes) in the
alphabetical Census order: mean, sd and range over R row shuffles. Usage: python mdavx_rowshuffle.py [R] [file]"""
import sys
from mdavx_lib import *  # noqa
from mdavx_h1 import mk
from mdavx_order import pn

R = int(sys.argv[1]) if len(sys.argv) > 1 else 8
order = sys.argv[2] if len(sys.argv) > 2 else "name"
x = data("census")
x = np.ascontiguousarray(x[:, pn] if order == "name" else x)
f = mk()
rng = np.random.default_rng(1)
for v, k in CELLS:
    il, dl = [], []
    for r in range(R):
        p = rng.permutation(x.shape[0])
        y = np.empty_like(x)
        y[p] = f(np.ascontiguousarray(x[p]), v, k)
        mm = measures(x, y, do_id=False)
        il.append(mm["IL"]); dl.append(mm["DLD"])
    il, dl = np.array(il), np.array(dl)
    print(f"v{v}k{k:<2} IL {il.mean():5.1f} sd {il.std():4.1f} [{il.min():5.1f},{il.max():5.1f}] pub {PUB[('census', v, k, 'IL')]:5.1f} | "
          f"DLD {dl.mean():5.1f} sd {dl.std():4.1f} [{dl.min():5.1f},{dl.max():5.1f}] pub {PUB[('census', v, k, 'DLD')]:5.1f}", flush=True)
