"""EIA check of the alphabetical-order hypothesis (file order vs names sorted). Usage: python mdavx_eia.py"""
from mdavx_lib import *  # noqa
from mdavx_h1 import mk

en = ["RESREVENUE", "RESSALES", "COMREVENUE", "COMSALES", "INDREVENUE", "INDSALES", "OTHREVENUE",
      "OTHRSALES", "TOTREVENUE", "TOTSALES"]
pe = np.argsort(en)
if __name__ == "__main__":
    print("order:", [en[i] for i in pe])
    run("eia_file", mk(), ds="eia", verbose=True)
    run("eia_name", mk(), ds="eia", perm=pe, verbose=True)
