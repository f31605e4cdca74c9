"""Exploration (eiatop H3): the column sorted as text (lexicographic order of the printed numbers,
as a text-file tool or a string comparator would), partner rule inclusive; variants: "%d" strings,
"%.1f" strings, and "%d" zero-padded (== numeric order for nonnegatives, control)."""
import numpy as np
import eiatop_lib as E
from sdcrisk.masking.swapping import _rankswap_kernel


def strkey(fmt):
    def pf(col, P, rng):
        s = np.array([fmt % v for v in col])
        o = np.argsort(s, kind='stable')
        return E.apply_order(col, o, _rankswap_kernel(col.size, P, 1, rng))
    return lambda x, p, r: E.mask(x, p, pf, r)


if __name__ == '__main__':
    E.report('lexicographic "%d"', strkey('%d'), seeds=(1,))
    E.report('lexicographic "%.1f"', strkey('%.1f'), seeds=(1,))
    E.report('zero-padded "%012d" (control)', strkey('%012d'), seeds=(1,))
