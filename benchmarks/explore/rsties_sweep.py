"""Sweep partner rules: L-RL counts (T1/T2) and DLD/ID/IL (T3/T4) vs published, few maskings."""
import sys, pathlib; sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent), str(pathlib.Path(__file__).resolve().parents[1])]  # noqa: E401,E702
import sys, numpy as np, pandas as pd
import rsties_lib as L

rules = sys.argv[1].split(',')
ps = [int(v) for v in sys.argv[2].split(',')] if len(sys.argv) > 2 else [2, 6, 10, 14, 20]
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 2
dsets = sys.argv[4].split(',') if len(sys.argv) > 4 else ['census', 'eia']
order_mode = sys.argv[5] if len(sys.argv) > 5 else 'stable'
P = L.PUB.copy(); P['param'] = P.param.astype(float).astype(int)
rows = []
for ds in dsets:
    x = L.load(ds); n, m = x.shape
    tc, ts = ('T1', 'T3') if ds == 'census' else ('T2', 'T4')
    for rule in rules:
        for p in ps:
            acc = []
            for r in range(reps):
                rng = np.random.default_rng(1000 * p + r)
                y = L.mask(x, p, rule, rng, order_mode=order_mode)
                c = L.lrl_counts(x, y, p, range(1, m + 1))
                acc.append([c[k] for k in range(1, m + 1)] + [L.dld(x, y), L.id_(x, y), L.il(x, y)])
            a = np.mean(acc, axis=0)
            pc = P[(P.table == tc) & (P.param == p)].set_index('known').value
            pc.index = pc.index.astype(int)
            pubc = np.array([pc[k] for k in range(1, m + 1)])
            ps_ = P[(P.table == ts) & (P.param == p)].set_index('measure').value
            rows.append(dict(ds=ds, rule=rule, p=p, madc=np.mean(np.abs(a[:m] - pubc)),
                             ours=' '.join(f'{v:.0f}' for v in a[:m]), pub=' '.join(f'{v:.0f}' for v in pubc),
                             DLD=f"{a[m]:.2f}/{ps_['DLD']}", ID=f"{a[m+1]:.2f}/{ps_['ID']}", IL=f"{a[m+2]:.2f}/{ps_['IL']}",
                             dDLD=a[m]-ps_['DLD'], dID=a[m+1]-ps_['ID'], dIL=a[m+2]-ps_['IL']))
            d=rows[-1]; print(f"{ds} {rule} p={p} madc={d['madc']:.1f} DLD {d['DLD']} ID {d['ID']} IL {d['IL']}\n   ours {d['ours']}\n   pub  {d['pub']}", flush=True)
df = pd.DataFrame(rows)
pd.set_option('display.width', 250); pd.set_option('display.max_colwidth', 80)
print(df.groupby(['ds', 'rule'])[['madc', 'dDLD', 'dID', 'dIL']].agg(lambda s: np.mean(np.abs(s))).round(2))
