import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import rsties_lib as L, numpy as np
from sdcrisk.linkage.location import rsrl
from sdcrisk.linkage.distance import dbrl
ds=sys.argv[1]; ps=[int(v) for v in sys.argv[2].split(',')]; rule=sys.argv[3] if len(sys.argv)>3 else 'inclusive'
x=L.load(ds); n,m=x.shape; h=-(-m//2)
P_=L.PUB.copy(); P_['param']=P_.param.astype(float).astype(int)
tc,ts=('T1','T3') if ds=='census' else ('T2','T4')
for p in ps:
    y=L.mask(x,p,rule,np.random.default_rng(p))
    pc=P_[(P_.table==tc)&(P_.param==p)].set_index('known').value; pc.index=pc.index.astype(int)
    ps_=P_[(P_.table==ts)&(P_.param==p)].set_index('measure').value
    print(ds,p,'published', ' '.join(f"{pc[k]:.0f}" for k in range(1,m+1)), 'DLD',ps_['DLD'])
    for std in ['own','none']:
        c=[rsrl(x,y,known=np.arange(k),p=p,standardise=std).n_correct for k in range(1,m+1)]
        d=np.mean([dbrl(x,y,known=np.arange(j),standardise=std).percent_correct for j in range(1,h+1)])
        print(f'   {std:6s}', ' '.join(map(str,c)), 'DLD %.2f'%d, flush=True)
    c=[]
    for k in range(1,m+1):
        c.append(0)
    d=np.mean([dbrl(x,y,known=np.arange(j),metric='mahalanobis').percent_correct for j in range(1,h+1)])
    print('   mahal DLD %.2f'%d)
