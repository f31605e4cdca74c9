"""AFNLWGT has '2 implied decimal places' (sdcMicro doc): if the paper's file held AFNLWGT/100,
raw-distance MDAV partitions change (IL ratios and standardised DLD themselves are scale-free).
Also other unit rescalings. Usage: python mdavx_afnl.py [--cells]"""
import sys
from mdavx_lib import *  # noqa
from mdavx_h1 import mk
from mdavx_order import pn

base = mk()


def scaled_cols(fac):
    """fac: per-column factor applied before MDAV partition (values then scaled back: IL, DLD
    are invariant to a column's unit, so we mask the rescaled file and undo the unit)."""
    def f(x, v, k):
        return base(x * fac, v, k) / fac
    return f


if __name__ == "__main__":
    vb = "--cells" in sys.argv
    fac = np.ones(13); fac[0] = 0.01
    run("file_afnl/100", scaled_cols(fac), verbose=vb)
    run("name_afnl/100", scaled_cols(fac[pn]), perm=pn, verbose=vb)
