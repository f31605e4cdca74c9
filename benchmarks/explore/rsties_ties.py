import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import rsties_lib as L, numpy as np
from sdcrisk.masking.swapping import rank_distance
ds=sys.argv[1]; rule=sys.argv[2]; ps=[int(v) for v in sys.argv[3].split(',')]; om=sys.argv[4] if len(sys.argv)>4 else 'stable'
x=L.load(ds); n,m=x.shape
P_=L.PUB.copy(); P_['param']=P_.param.astype(float).astype(int)
tc,ts=('T1','T3') if ds=='census' else ('T2','T4')
for p in ps:
    P=rank_distance(p,n); rng=np.random.default_rng(p)
    y=L.mask(x,p,rule,rng,order_mode=om)
    res=[L.lrl_tie_counts(x,y,k,P) for k in range(1,m+1)]
    pc=P_[(P_.table==tc)&(P_.param==p)].set_index('known').value; pc.index=pc.index.astype(int)
    h=-(-m//2)
    dl=[L.dbrl_tie_counts(x,y,j) for j in range(1,h+1)]
    ps_=P_[(P_.table==ts)&(P_.param==p)].set_index('measure').value
    print(f'{ds} {rule} p={p} P={P}')
    for key in ['index','tiecorrect','random']:
        print(f'  {key:10s}', ' '.join(f"{r[key]:.0f}" for r in res))
    print('  published ', ' '.join(f"{pc[k]:.0f}" for k in range(1,m+1)))
    print('  DLD index %.2f tiecorrect %.2f pub %.2f'%(100*np.mean([d['index'] for d in dl])/n,100*np.mean([d['tiecorrect'] for d in dl])/n,ps_['DLD']))
