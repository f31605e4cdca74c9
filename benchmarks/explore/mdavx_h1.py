"""Hypotheses batch 1: metrics, greedy growth, end game spread, rounding, whole-record
partition, column orders. Usage: python mdavx_h1.py [names...]"""
import sys
from mdavx_lib import *  # noqa
from mdavx_generic import mdav
from mdav_lib import blocks


def mk(metric=0, grow=0, endgame=0, rnd=False, whole=False, shift=0):
    def f(x, v, k):
        y = x.astype(np.float64).copy()
        bls = blocks(x.shape[1], v, "last")
        if whole:
            lab_all = mdav(np.ascontiguousarray(x, dtype=np.float64), k, metric, grow, endgame)
        for b, cols in enumerate(bls):
            src = bls[(b + shift) % len(bls)]
            lab = lab_all if whole else mdav(np.ascontiguousarray(x[:, src], dtype=np.float64), k, metric, grow, endgame)
            y[:, cols] = aggregate(x[:, cols], lab)
        if rnd:
            y = np.round(y)
        return y
    return f


H = {
    "base": mk(),
    "manhattan": mk(metric=1),
    "chebyshev": mk(metric=2),
    "greedy_cent": mk(grow=1),
    "spread": mk(endgame=1),
    "round": mk(rnd=True),
    "whole_part": mk(whole=True),
    "offbyone": mk(shift=1),
}
x0 = data("census")
names = ["AFNLWGT", "AGI", "EMCONTRB", "FEDTAX", "PTOTVAL", "STATETAX", "TAXINC", "POTHVAL", "INTVAL", "PEARNVAL", "FICA", "WSALVAL", "ERNVAL"]
PERMS = {
    "p_name": np.argsort(names),
    "p_var_asc": np.argsort(x0.var(0)),
    "p_var_desc": np.argsort(-x0.var(0)),
    "p_rev": np.arange(13)[::-1],
    "p_mean_asc": np.argsort(x0.mean(0)),
}
if __name__ != "__main__":
    sel = []
else:
    sel = sys.argv[1:] or list(H) + list(PERMS)
for h in sel:
    if h in H:
        run(h, H[h], verbose="-q" not in h)
    else:
        run(h, H["base"], perm=PERMS[h])
