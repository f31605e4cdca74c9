import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import rsties_lib as L, numpy as np
from sdcrisk.linkage.location import rsrl
e=L.load(sys.argv[1]); n,m=e.shape
for P in [int(v) for v in sys.argv[2].split(',')]:
    rng=np.random.default_rng(P)
    y=L.mask(e,None,'inclusive',rng,Pfun=lambda p,n:P)
    c=[rsrl(e,y,known=np.arange(k),distance=P).n_correct for k in range(1,m+1)]
    print(P, c, 'DLD %.2f ID %.2f IL %.2f'%(L.dld(e,y),L.id_(e,y),L.il(e,y)), flush=True)
