"""Independent steps on numba's threads (numpy's sorts, gathers and the ``nogil`` kernels release
the GIL); every result is a function of its own step alone, so none depends on the number of
threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba


def map_threads(f, items, parallel: bool = True) -> list:
    """``[f(item) for item in items]``, on numba's number of threads when ``parallel``; the results
    in the order of ``items``. Callers pass ``parallel=False`` for small files: asking numba for its
    thread count starts its threading layer, which cost the first ``sdcrisk assess`` on EIA about 1 s."""
    items = list(items)
    workers = min(numba.get_num_threads(), len(items)) if parallel else 1
    if workers <= 1:
        return [f(item) for item in items]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(f, items))
