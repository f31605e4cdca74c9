"""Sweep 2: tie breaking / assignment variants."""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import sys
from prlcoin_lib import *
cellsel = {"T3": ["2", "6", "10", "16"], "T7": ["10", "30", "50"], "T4": ["2", "6", "12"], "T8": ["10", "30", "50"]}
for rule, par in [("nearest", None), ("exact", None), ("ewbin", 10), ("ewbin", 20), ("value", 0.05), ("value", 0.1), ("rank", 1)]:
    for kw in [dict(tiebreak="index"), dict(assign="argmax"), dict(assign="argmax", tiebreak="index")]:
        for t in ("T3", "T7"):
            evaluate(t, rule, par, cells=cellsel[t], **kw)
