"""Sweep 1: candidate coincidence rules on a subset of cells (Census only first)."""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import sys
from prlcoin_lib import *
grid = {
    "ewbin": [10, 20, 50, 100, 200, 500, 1000],
    "efbin": [10, 20, 50, 100, 200],
    "value": [0.005, 0.01, 0.02, 0.05, 0.1],
    "rangewin": [0.001, 0.002, 0.005, 0.01],
    "rank": [0.1, 0.25, 0.5, 1, 2],
}
tabs = sys.argv[1].split(",")
cellsel = {"T3": ["2", "6", "10", "16"], "T7": ["10", "30", "50"], "T4": ["2", "6", "12"], "T8": ["10", "30", "50"]}
for rule, pars in grid.items():
    for par in pars:
        for t in tabs:
            evaluate(t, rule, par, cells=cellsel[t])
