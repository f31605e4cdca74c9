"""Evidence table: PLD (Nin, Herranz & Torra (2007) T3/T4/T7/T8/T10/T11) under candidate PRL coincidence rules.

    cd benchmarks && python prlcoin_evidence.py [census|eia|all]

Census tables: all cells; EIA tables: a subset of cells (cost). Rank swapping: 1 masking
(seed 0), PRL ties broken at random (rng seeded per scenario). Prints per table the cells and
MAD / max absolute deviation from the published PLD.
"""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import sys
from prlcoin_lib import *

RULES = [("nearest", None), ("nearest_or_value", 0.02), ("ewbin", 10), ("ewbin", 20), ("efbin", 10),
         ("value", 0.1), ("value", 0.2), ("rank", 2), ("relwin", 0.1), ("sddiff", 2), ("meandiff", 3)]
EIA_CELLS = {"T4": ["2", "6", "12"], "T8": ["10", "30", "50"], "T11": ["v=2;k=5", "v=3;k=15", "v=4;k=25"]}
which = sys.argv[1] if len(sys.argv) > 1 else "all"
tables = {"census": ["T3", "T7", "T10"], "eia": ["T4", "T8", "T11"], "all": ["T3", "T7", "T10", "T4", "T8", "T11"]}[which]
for rule, par in RULES:
    for t in tables:
        evaluate(t, rule, par, cells=EIA_CELLS.get(t))
