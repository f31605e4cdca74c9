"""Column-order hypothesis for Nin, Herranz & Torra (2007) T10/T11 MDAV: the paper's file has the Census attributes
in another order (e.g. alphabetical). Separates the effect on the partition (blocks) from the
effect on the DLD/ID scenarios (first j attributes), and compares with random orders (null
distribution of the MADs). Usage: python mdavx_order.py [nrand]"""
import sys
from mdavx_lib import *  # noqa
from mdavx_h1 import mk

names = ["AFNLWGT", "AGI", "EMCONTRB", "FEDTAX", "PTOTVAL", "STATETAX", "TAXINC", "POTHVAL",
         "INTVAL", "PEARNVAL", "FICA", "WSALVAL", "ERNVAL"]
pn = np.argsort(names)
inv = np.argsort(pn)
base = mk()


def part_name_scen_file(x, v, k):  # x in file order; partition computed on name order
    return base(x[:, pn], v, k)[:, inv]


def part_file_scen_name(x, v, k):  # x in name order; partition on file order
    return base(x[:, inv], v, k)[:, pn]


if __name__ == "__main__":
    print("order:", [names[i] for i in pn])
    run("name_both", base, perm=pn, verbose=True)
    run("part_name_scen_file", part_name_scen_file, verbose=False)
    run("part_file_scen_name", part_file_scen_name, perm=pn, verbose=False)
    nr = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    rng = np.random.default_rng(0)
    mads = []
    for t in range(nr):
        p = rng.permutation(13)
        _, dev = run(f"rand{t}", base, perm=p, verbose=False, do_id=False)
        mads.append((np.abs(dev["DLD"]).mean(), np.abs(dev["IL"]).mean()))
    if mads:
        a = np.array(mads)
        print("random orders: DLD MAD quantiles min/10/50/90%", np.quantile(a[:, 0], [0, .1, .5, .9]).round(2),
              "IL MAD", np.quantile(a[:, 1], [0, .1, .5, .9]).round(2))
