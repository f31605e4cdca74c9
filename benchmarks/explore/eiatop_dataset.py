"""Exploration (eiatop H4): data features that could define a p-independent linkable set.
Prints, beside the published p = 20 floor, for k = 1..10: records with a zero (or zero / negative)
among the first k attributes; records whose first-k vector is unique; records whose L-RL candidate
set on the UNMASKED file (y = x) is the record alone at p = 10 / 20; and, for the baseline masking
(inclusive, p = 20, 2 seeds), how many correct links fall in the 'any zero' set."""
import numpy as np
import eiatop_lib as E
from sdcrisk.linkage.location import rank_swap_intervals
from sdcrisk.masking.swapping import rank_distance

x = E.X
z = x == 0
print('pub p=20            ', E.PUB[20])
print('any zero first k    ', [int(z[:, :k].any(1).sum()) for k in range(1, 11)])
print('zero/neg first k    ', [int((x[:, :k] <= 0).any(1).sum()) for k in range(1, 11)])
print('unique first-k vec  ', [int((np.unique(x[:, :k], axis=0, return_counts=True)[1] == 1).sum()) for k in range(1, 11)])
for p in (10, 20):
    P = rank_distance(p, E.N)
    out = []
    for k in range(1, 11):
        a, b = rank_swap_intervals(x[:, :k], x[:, :k], P)
        # size of intersection is hard from ranges; count records whose narrowest range has size 1
        out.append(int(((b - a).min(1) == 1).sum()))
    print(f'window of 1 (p={p})  ', out)
P = rank_distance(20, E.N)
for s in (1, 2):
    y = E.mask(x, 20, E.std_partner, np.random.default_rng(20000 + s))
    line = []
    for k in range(1, 11):
        from sdcrisk.linkage.location import rsrl
        ok = rsrl(x, y, known=list(range(k)), p=20).links == np.arange(E.N)
        line.append(f'{ok.sum()}/{(ok & z[:, :k].any(1)).sum()}')
    print(f'baseline p=20 seed {s}: correct/of which any-zero ', ' '.join(line))
