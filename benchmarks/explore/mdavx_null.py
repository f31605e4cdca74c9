"""Null distribution over random Census column orders of the DLD/IL deviations (raw MDAV, blocks
'last', scenarios j=2..m); compares the alphabetical order's rank. Usage: python mdavx_null.py N seed"""
import sys
from mdavx_lib import *  # noqa
from mdavx_h1 import mk
from mdavx_order import pn

N = int(sys.argv[1]); seed = int(sys.argv[2])
rng = np.random.default_rng(seed)
f = mk()
res = []
for t in range(N):
    p = rng.permutation(13)
    _, dev = run(f"r{t}", f, perm=p, verbose=False, do_id=False)
    res.append([np.abs(dev["DLD"]).mean(), np.mean(dev["DLD"]), np.abs(dev["IL"]).mean(), np.mean(dev["IL"])])
np.save(f"/tmp/mdavx_null_{seed}.npy", np.array(res))
a = np.array(res)
print("DLD MAD quantiles 0/5/50/95%", np.quantile(a[:, 0], [0, .05, .5, .95]).round(2),
      "frac <= 1.37:", (a[:, 0] <= 1.37).mean(), "| IL MAD q", np.quantile(a[:, 2], [0, .05, .5]).round(2),
      "IL signed mean q", np.quantile(a[:, 3], [0.05, .5, .95]).round(2))
