"""Which (record, attribute) entries carry IL1 in the MDAV cells, and how much IL one tiny value
can add: IL points of entry (i, j) = 20 * |x-x'|/|x| / (n*m). Usage: python mdavx_ilrec.py [file|name]"""
import sys
from mdavx_lib import *  # noqa
from mdavx_h1 import mk
from mdavx_order import pn, names

order = sys.argv[1] if len(sys.argv) > 1 else "name"
x = data("census")
p = pn if order == "name" else np.arange(13)
x = np.ascontiguousarray(x[:, p])
nm = [names[i] for i in p]
n, m = x.shape
f = mk()
for v, k in CELLS:
    y = f(x, v, k)
    pts = np.abs(x - y) / np.abs(x) * 100 * 0.2 / (n * m)
    top = np.argsort(pts.ravel())[::-1][:4]
    desc = ", ".join(f"r{t // m}:{nm[t % m]} {x.ravel()[t]:.0f}->{y.ravel()[t]:.0f} ({pts.ravel()[t]:.2f})" for t in top)
    print(f"v{v}k{k:<2} IL {information_loss(x, y):5.1f} pub {PUB[('census', v, k, 'IL')]:5.1f}  IL1pts {pts.sum():5.1f} top: {desc}")
