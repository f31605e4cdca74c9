"""Exploration (eiatop H2): integer / precision artefacts of a C/Java implementation.
Sort key (the swap itself moves the exact values): float32, float16 (ties and inf above 65504),
int16 wrap-around, int32 wrap of value*1000; rank distance P computed against another n
(1080 = Census n, i.e. code reused; number of nonzero values of the column; 1000)."""
import numpy as np
import eiatop_lib as E
from sdcrisk.masking.swapping import _rankswap_kernel, rank_distance

print('column maxima', E.X.max(0), ' > 2^24:', (E.X > 2**24).sum(), ' > 2^15:', (np.abs(E.X) > 32767).sum(0))


def keyed(keyfn):
    def pf(col, P, rng):
        o = np.lexsort((np.arange(col.size), keyfn(col)))  # stable on the key
        return E.apply_order(col, o, _rankswap_kernel(col.size, P, 1, rng))
    return lambda x, p, r: E.mask(x, p, pf, r)


def other_n(nfun):
    def masker(x, p, r):
        y = np.empty_like(x)
        for j in range(x.shape[1]):
            col = x[:, j]
            P = min(rank_distance(p, nfun(col)), col.size - 1)
            y[:, j] = E.std_partner(col, P, r)
        return y
    return masker


if __name__ == '__main__':
    E.report('sort key float32', keyed(lambda c: c.astype(np.float32)), seeds=(1,))
    E.report('sort key float16', keyed(lambda c: c.astype(np.float16)), seeds=(1,))
    E.report('sort key int16 wrap', keyed(lambda c: c.astype(np.int64).astype(np.int16)), seeds=(1,))
    E.report('sort key int32 wrap of v*1000', keyed(lambda c: (c.astype(np.int64) * 1000).astype(np.int32)), seeds=(1,))
    E.report('P against n = 1080', other_n(lambda c: 1080), seeds=(1,))
    E.report('P against n = #nonzero', other_n(lambda c: int((c != 0).sum())), seeds=(1,))
