"""Per-column IL1 contributions (x20 so they sum to the IL1 part of IL) for raw MDAV, v=2."""
from mdavx_lib import *  # noqa
x = data("census")
for v, k in [(2, 5), (3, 5), (2, 15)]:
    y = blockwise(x, v, k)
    r = np.abs(x - y) / np.abs(x)
    print(v, k, "IL1 per col x20/13:", (r.mean(0) * 20 / 13 * 100 / 100).round(2), "comp", (il_components(x, y) * 20).round(2))
