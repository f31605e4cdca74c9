import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import rsties_lib as L, numpy as np
from sdcrisk.masking.swapping import rank_distance
ds=sys.argv[1]; rule=sys.argv[2]; om=sys.argv[3] if len(sys.argv)>3 else 'stable'
x=L.load(ds); n,m=x.shape
for p in [2,4,6,8,10,14,20]:
    P=rank_distance(p,n); out=[]
    for r in range(3):
        y=L.mask(x,p,rule,np.random.default_rng(100*p+r),order_mode=om)
        res=L.lrl_tie_counts(x,y,1,P)
        tm=res['tm']; zero=x[:,0]==0
        u,inv,c=np.unique(x[:,0],return_inverse=True,return_counts=True); tied=c[inv.ravel()]>1
        out.append([res['index'],res['tiecorrect'],(tm&zero).sum(),(tm&tied&~zero).sum(),(tm&~tied).sum(), (y[:,0]==x[:,0]).sum()])
    print(p, np.mean(out,axis=0).round(1))
