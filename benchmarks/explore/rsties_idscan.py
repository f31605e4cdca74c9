import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import rsties_lib as L, numpy as np
rules=sys.argv[1].split(','); ps=[int(v) for v in sys.argv[2].split(',')]
P_=L.PUB.copy(); P_['param']=P_.param.astype(float).astype(int)
for ds in ['census','eia']:
    x=L.load(ds); ts='T3' if ds=='census' else 'T4'
    pub=[P_[(P_.table==ts)&(P_.param==p)&(P_.measure=='ID')].value.iloc[0] for p in ps]
    print(ds,'pub ', ' '.join(f'{v:6.2f}' for v in pub))
    for rule in rules:
        ids=[]; ils=[]
        for p in ps:
            y=L.mask(x,p,rule,np.random.default_rng(p)); ids.append(L.id_(x,y))
        print(ds, f'{rule:18s}', ' '.join(f'{v:6.2f}' for v in ids), ' MAD %.2f'%np.mean(np.abs(np.array(ids)-pub)), flush=True)
