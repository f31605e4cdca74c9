import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import rsties_lib as L, numpy as np
from sdcrisk.linkage.location import rsrl
ds=sys.argv[1]; mode=sys.argv[2]; ps=[int(v) for v in sys.argv[3].split(',')]
x=L.load(ds); n,m=x.shape
P_=L.PUB.copy(); P_['param']=P_.param.astype(float).astype(int)
tc,ts=('T1','T3') if ds=='census' else ('T2','T4')
for p in ps:
    y=L.mask_ties(x,p,np.random.default_rng(p),mode)
    pc=P_[(P_.table==tc)&(P_.param==p)].set_index('known').value; pc.index=pc.index.astype(int)
    ps_=P_[(P_.table==ts)&(P_.param==p)].set_index('measure').value
    c=[rsrl(x,y,known=np.arange(k),p=p).n_correct for k in range(1,m+1)]
    print(ds,mode,p,'\n  ours',' '.join(map(str,c)),'\n  pub ',' '.join(f"{pc[k]:.0f}" for k in range(1,m+1)),
          '\n  DLD %.2f/%s ID %.2f/%s IL %.2f/%s'%(L.dld(x,y),ps_['DLD'],L.id_(x,y),ps_['ID'],L.il(x,y),ps_['IL']),flush=True)
