import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import rsties_lib as L, numpy as np
from sdcrisk.measures.interval_disclosure import interval_disclosure_by_attribute as IDa
P_=L.PUB.copy(); P_['param']=P_.param.astype(float).astype(int)
for ds in ['census','eia']:
    x=L.load(ds); ts='T3' if ds=='census' else 'T4'; m=x.shape[1]; h=-(-m//2)
    for p in [2,6,10,14,20]:
        pub=P_[(P_.table==ts)&(P_.param==p)&(P_.measure=='ID')].value.iloc[0]
        y=L.mask(x,p,'inclusive',np.random.default_rng(p))
        res={}
        for name,kw in [('masked',{}),('orig',dict(ranks='original')),('total',dict(width='total')),('sd',dict(rule='sd')),('sd_each',dict(rule='sd',width='each_side'))]:
            per=IDa(x,y,**kw)
            res[name]=(L.scenario_average(per,L.known_scenarios(m)), per.mean(), per[:h].mean())
        print(ds,p,'pub',pub,' '.join(f"{k}: scen {v[0]:.1f} all {v[1]:.1f} firsth {v[2]:.1f}" for k,v in res.items()))
