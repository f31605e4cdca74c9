"""Singling out (sdcrisk.criteria.singling_out) against brute-force references written here:
pandas group counts for the exact attack, loops over the records for the univariate predicates
and their planted-original baseline, a boolean mask per predicate for the multivariate ones;
the original released unchanged; a noise masking; calibration on independent releases; bad
inputs."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from sdcrisk.criteria import singling_out as so
from sdcrisk.criteria.singling_out import EXACT, MULTIVARIATE, PLANTED, TRIVIAL, UNIVARIATE, singling_out

# awkward names on purpose: spaces, unicode, Python keywords, pandas words
SEX, REGION, AGE, INCOME = "and", "région d'origine", "index", "income (€) or"
KEYS = [SEX, REGION, AGE, INCOME]


def make(n, rng, rho=0.6):
    z = rng.normal(size=(n, 2))
    z[:, 1] = rho * z[:, 0] + np.sqrt(1 - rho * rho) * z[:, 1]
    region = np.where(z[:, 0] > 1.0, rng.choice(list("ab"), n), rng.choice(list("abcde"), n, p=[.4, .3, .15, .1, .05]))
    return pd.DataFrame({SEX: rng.choice(["F", "M"], n), REGION: region,
                         AGE: np.round(40 + 12 * z[:, 0]), INCOME: np.round(np.exp(10 + z[:, 1]), -2),
                         "other": rng.normal(size=n)})


def rows_by_attack(rows):
    return {r.attack: r for r in rows}


# ---- brute-force references -------------------------------------------------------------------

def brute_exact(o, r, cat_keys, coarsen):
    def keyframe(df):
        return pd.DataFrame({k: (np.floor(df[k] / coarsen[k]) if k in coarsen else df[k]) for k in cat_keys})
    ko, kr = keyframe(o), keyframe(r)
    co = ko.value_counts()
    cr = kr.value_counts()
    tuples_o = list(ko.itertuples(index=False, name=None))
    tuples_r = list(kr.itertuples(index=False, name=None))
    trials = sum(1 for t in tuples_r if cr[t] == 1)
    successes = sum(1 for t in tuples_r if cr[t] == 1 and co.get(t, 0) == 1)
    clusters = [int(co[t]) for t in set(tuples_o) if t not in cr.index]  # planted originals sharing a key
    b_succ, b_trials = effective(clusters)
    records = [i for i, t in enumerate(tuples_o) if co[t] == 1 and cr.get(t, 0) == 1]
    return successes, trials, b_succ, b_trials, records


def effective(clusters):
    """Effective trials of the planted baseline: clusters of c originals, a success when c == 2;
    n_eff = p (1 - p) / (variance of the ratio over clusters), Kish's trials^2 / sum(c^2) when
    every cluster has one outcome; at most the planted originals."""
    trials = sum(clusters)
    if trials == 0:
        return 0, 0
    successes = sum(c for c in clusters if c == 2)
    p = successes / trials
    if 0 < p < 1:
        variance = sum((c * (c == 2) - p * c) ** 2 for c in clusters) / trials ** 2
        eff = p * (1 - p) / variance
    else:
        eff = trials ** 2 / sum(c * c for c in clusters)
    eff = min(trials, max(1, round(eff)))
    return successes * eff / trials, eff


def split_probability(values_o, values_r):
    """P(one release value holds the minimum and exactly one original is at or below it) and
    P(one release value holds the minimum), over every split of the pooled values into the two
    sizes, by counting: the levels below the minimum all originals, one release value among the
    c values at its level, the other m - 1 release values above it."""
    pooled = np.sort(np.concatenate([values_o, values_r]))
    n, m = len(values_o), len(values_r)
    total = math.comb(n + m, m)
    levels, counts = np.unique(pooled, return_counts=True)
    kept = success = 0
    below = 0
    for c in counts:
        c = int(c)
        ways = c * math.comb(n + m - below - c, m - 1)
        kept += ways
        if below + c - 1 == 1:
            success += ways
        below += c
    return success / total, kept / total


def brute_univariate(o, r, cat, num):
    succ = trials = cat_trials = 0
    clusters = []
    extremes = 0.0
    for c in cat:
        for v, k in r[c].value_counts().items():
            if k == 1:
                trials += 1
                cat_trials += 1
                succ += int((o[c] == v).sum() == 1)
        clusters += [int((o[c] == v).sum()) for v in set(o[c]) if not (r[c] == v).any()]
    for c in num:
        lo, hi = r[c].min(), r[c].max()
        for side, ext, vo, vr in ((0, lo, o[c], r[c]), (1, hi, -o[c], -r[c])):
            if (r[c] == ext).sum() == 1:
                trials += 1
                succ += int(((o[c] <= lo) if side == 0 else (o[c] >= hi)).sum() == 1)
                p_success, p_kept = split_probability(vo.to_numpy(), vr.to_numpy())
                extremes += p_success / p_kept
    # the baseline weighted as the attack's trials: rare values at the planted rate, extremes at
    # their split probability
    eff_succ, eff_trials = effective(clusters)
    rate_cat = eff_succ / eff_trials if eff_trials else (1 - 1 / len(o)) ** (len(o) - 1)
    base_trials = (eff_trials if cat_trials else 0) + (trials - cat_trials) or trials
    base = (cat_trials * rate_cat + extremes) / trials * base_trials if trials else 0
    return succ, trials, base, base_trials


def brute_count(frames):
    """A ``_count`` that evaluates each predicate with one boolean mask over the DataFrame."""
    def count(attrs, terms, side="o", limit=3):
        df = frames[side]
        mask = np.ones(len(df), dtype=bool)
        for j, op, v in terms:
            a = attrs[j]
            col = df[a.name]
            if a.numeric:
                mask &= (col <= v).to_numpy() if op == so._LE else (col >= v).to_numpy()
            else:
                mask &= (col == a.labels[int(v)]).to_numpy()
        ids = np.flatnonzero(mask)
        return min(ids.size, limit), ids[:limit]
    return count


def brute_count_many(frames):
    """A ``_count_many`` that evaluates each conjunction of the batch with one boolean mask."""
    one = brute_count(frames)

    def count_many(attrs, J, OP, V, side="o", limit=3):
        counts = np.zeros(len(J), dtype=np.int64)
        rows = np.full((len(J), limit), -1, dtype=np.int64)
        for b in range(len(J)):
            terms = [(int(j), int(op), float(v)) for j, op, v in zip(J[b], OP[b], V[b]) if j >= 0]
            c, ids = one(attrs, terms, side, limit)
            counts[b] = c
            rows[b, :len(ids)] = ids
        return counts, rows, 0
    return count_many


def check_against_brute(o, r, coarsen, monkeypatch, **kw):
    rows, ev = singling_out(o, r, KEYS, coarsen=coarsen, seed=7, **kw)
    got = rows_by_attack(rows)
    s, t, bs, bt, records = brute_exact(o, r, [SEX, REGION] + list(coarsen), coarsen)
    e = got[EXACT]
    assert (e.successes, e.trials) == (s, t)
    if bt:
        assert (e.baseline, e.baseline_trials) == (PLANTED, bt)
        assert e.baseline_successes == pytest.approx(bs, rel=1e-12)
    else:
        assert e.baseline == TRIVIAL
    assert sorted(ev.loc[ev.attack == EXACT, "record"]) == records
    s, t, bs, bt = brute_univariate(o, r, [SEX, REGION], [AGE, INCOME])
    u = got[UNIVARIATE]
    assert (u.successes, u.trials) == (s, t)
    assert u.baseline_trials == bt and u.baseline_successes == pytest.approx(bs, rel=1e-9)
    # multivariate: the same predicates (same seed) evaluated by one mask each
    with monkeypatch.context() as mp:
        mp.setattr(so, "_count", brute_count({"o": o, "r": r}))
        mp.setattr(so, "_count_many", brute_count_many({"o": o, "r": r}))
        brute_rows, brute_ev = singling_out(o, r, KEYS, coarsen=coarsen, seed=7, **kw)
    assert rows_by_attack(brute_rows)[MULTIVARIATE] == got[MULTIVARIATE]
    pd.testing.assert_frame_equal(brute_ev, ev)
    return got, ev


@pytest.mark.parametrize("seed", range(6))
def test_fast_evaluation_equals_brute_force_on_small_mixed_files(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(40, 120)), int(rng.integers(40, 120))
    o, r = make(n, rng), make(m, rng)
    got, _ = check_against_brute(o, r, {AGE: 10}, monkeypatch, predicates=300, max_terms=4)
    assert set(got) == {EXACT, UNIVARIATE, MULTIVARIATE}


@pytest.mark.parametrize("seed", range(20))
def test_extreme_baseline_equals_every_split_enumerated(seed):
    """The probability behind an extreme's baseline against all C(n + m, m) splits of small tied
    pooled values (the release a random m of them)."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    pooled = rng.integers(0, 4, n + m).astype(float)
    kept = success = 0
    for idx in itertools.combinations(range(n + m), m):
        rel = pooled[list(idx)]
        ori = np.delete(pooled, list(idx))
        if (rel == rel.min()).sum() == 1:
            kept += 1
            success += int((ori <= rel.min()).sum() == 1)
    so_, sr_ = np.sort(pooled[:n]), np.sort(pooled[n:])
    got = so._extreme_baseline(so_, sr_)
    assert got == pytest.approx(success / kept if kept else 0.0, abs=1e-12)
    assert split_probability(pooled[:n], pooled[n:]) == pytest.approx((success / math.comb(n + m, m),
                                                                       kept / math.comb(n + m, m)))


def test_count_equals_a_mask_on_random_predicates():
    rng = np.random.default_rng(3)
    o, r = make(150, rng), make(90, rng)
    o[AGE] = np.round(o[AGE] / 5) * 5  # many ties
    attrs = [so._Attribute(k, o[k], r[k], numeric=k in (AGE, INCOME)) for k in KEYS]
    brute = brute_count({"o": o, "r": r})
    for _ in range(500):
        side = "o" if rng.random() < 0.5 else "r"
        src = o if rng.random() < 0.5 else r
        i = int(rng.integers(len(src)))
        cols = sorted(rng.choice(4, size=int(rng.integers(1, 5)), replace=False))
        terms = []
        for j in cols:
            a = attrs[j]
            if a.numeric:
                terms.append((j, so._LE if rng.random() < 0.5 else so._GE, float(src[a.name].iloc[i])))
            else:
                terms.append((j, so._EQ, int(pd.Index(a.labels).get_loc(src[a.name].iloc[i]))))
        for limit in (1, 2, 3):
            c, ids = so._count(attrs, terms, side, limit)
            bc, bids = brute(attrs, terms, side, limit)
            assert c == bc
            if c < limit:  # all of them found: the same records
                assert sorted(ids) == sorted(bids)


def random_terms(rng, attrs, frames, top):
    """A conjunction of 1 to ``top`` terms built from a random record of either file, each term
    ``==`` (categorical) or a random tail (numeric), as ``(J, OP, V)`` rows padded with -1."""
    src = frames["o"] if rng.random() < 0.5 else frames["r"]
    i = int(rng.integers(len(src)))
    cols = sorted(rng.choice(len(attrs), size=int(rng.integers(1, top + 1)), replace=False))
    J, OP, V = np.full(top, -1), np.zeros(top, dtype=np.int64), np.zeros(top)
    for t, j in enumerate(cols):
        a, x = attrs[j], src[attrs[j].name].iloc[i]
        J[t] = j
        if a.numeric:
            OP[t], V[t] = (so._LE if rng.random() < 0.5 else so._GE), float(x)
        else:
            OP[t], V[t] = so._EQ, pd.Index(a.labels).get_loc(x)
    return J, OP, V


@pytest.mark.parametrize("seed", range(4))
def test_count_many_equals_a_mask_per_conjunction(seed):
    """The batched counts (the smallest slice walked by the compiled loop) against one boolean
    mask per conjunction over the whole file: both files, ties (ages rounded to 5 years, incomes
    to 100), categorical and numeric terms, every limit; the records themselves when all found."""
    rng = np.random.default_rng(seed)
    o, r = make(int(rng.integers(100, 400)), rng), make(int(rng.integers(50, 300)), rng)
    o[AGE] = np.round(o[AGE] / 5) * 5
    frames = {"o": o, "r": r}
    attrs = [so._Attribute(k, o[k], r[k], numeric=k in (AGE, INCOME)) for k in KEYS]
    brute = brute_count(frames)
    batch = [random_terms(rng, attrs, frames, 4) for _ in range(400)]
    J, OP, V = (np.array([t[i] for t in batch]) for i in range(3))
    for side in ("o", "r"):
        for limit in (1, 2, 3):
            counts, rows, scanned = so._count_many(attrs, J, OP, V, side, limit)
            assert scanned > 0
            seen = set()
            for b in range(len(batch)):
                terms = [(int(j), int(op), float(v)) for j, op, v in zip(J[b], OP[b], V[b]) if j >= 0]
                c, ids = brute(attrs, terms, side, limit)
                assert counts[b] == c, (side, limit, terms)
                assert (rows[b, c:] == -1).all()
                if c < limit:  # all of them found: the same records
                    assert sorted(rows[b, :c]) == sorted(ids)
                else:  # records that satisfy the conjunction, distinct
                    got = rows[b]
                    assert len(set(got.tolist())) == limit
                    df = frames[side]
                    for i in got:
                        assert brute(attrs, terms + [], side, len(df))[1].tolist().count(i) == 1
                seen.add(int(counts[b]))
            assert seen >= {0, limit} if limit > 1 else seen == {0, 1}


def test_draws_until_the_predicates_asked_for_are_found():
    """Conjunctions are drawn until as many isolate a release record as asked for (more than 20
    draws per one asked for here), never more than the cap of draws; the same seed draws the
    same ones."""
    rng = np.random.default_rng(8)
    o, r = make(3000, rng), make(3000, rng)
    for frame in (o, r):  # coarse keys: few conjunctions isolate a record
        frame[AGE] = np.round(frame[AGE] / 5) * 5
        frame[INCOME] = np.round(frame[INCOME], -3)
    rows, _ = singling_out(o, r, KEYS, predicates=60, min_terms=2, max_terms=3, seed=5)
    note = rows_by_attack(rows)[MULTIVARIATE].note
    found, drawn = (int(x) for x in note.split(" conjunctions")[0].split(" of "))
    assert found == 60 and drawn > 20 * 60
    again, _ = singling_out(o, r, KEYS, predicates=60, min_terms=2, max_terms=3, seed=5)
    assert again == rows


def test_draw_cap_counts_draws(monkeypatch):
    """The cap is a number of draws: anonymeter's 10^7, and at most ``_COVER`` times the (record,
    attribute subset) pairs of the file; with a smaller cap the draws stop there."""
    rng = np.random.default_rng(9)
    o = make(200, rng)
    for frame in (o,):
        frame[AGE] = np.round(frame[AGE] / 20) * 20
        frame[INCOME] = np.round(frame[INCOME], -5)
    release = o.sample(frac=1.0, replace=True, random_state=1).reset_index(drop=True)
    release = pd.concat([release, release], ignore_index=True)  # every record at least twice: none isolated
    rows, _ = singling_out(o, release, KEYS, predicates=10, min_terms=2, max_terms=2, seed=1)
    assert MULTIVARIATE not in rows_by_attack(rows)  # no conjunction to try
    monkeypatch.setattr(so, "_MAX_ATTEMPTS", 5000)
    r2 = make(200, rng)
    rows, _ = singling_out(o, r2, KEYS, predicates=10_000, min_terms=2, max_terms=2, seed=1)
    note = rows_by_attack(rows)[MULTIVARIATE].note
    found, drawn = (int(x) for x in note.split(" conjunctions")[0].split(" of "))
    assert drawn == min(5000, so._COVER * len(r2) * math.comb(4, 2)) and found < 10_000
    # the cap on candidate records checked: the draws stop after the first batch, the note says so
    monkeypatch.setattr(so, "_MAX_SCANNED", 10)
    rows, _ = singling_out(o, r2, KEYS, predicates=10_000, min_terms=2, max_terms=2, seed=1)
    note = rows_by_attack(rows)[MULTIVARIATE].note
    found, drawn = (int(x) for x in note.split(" conjunctions")[0].split(" of "))
    assert drawn == so._FIRST_BATCH
    assert "the attack's draws stopped at 10 candidate records checked" in note


@pytest.mark.slow
def test_original_released_unchanged_singles_out_every_unique(monkeypatch):
    rng = np.random.default_rng(11)
    o = make(400, rng)
    got, ev = check_against_brute(o, o.copy(), {AGE: 10}, monkeypatch, predicates=400, max_terms=3)
    keyframe = pd.DataFrame({SEX: o[SEX], REGION: o[REGION], AGE: np.floor(o[AGE] / 10)})
    uniques = np.flatnonzero(~keyframe.duplicated(keep=False).to_numpy())
    assert uniques.size > 0
    e = got[EXACT]
    assert e.successes == e.trials == uniques.size
    assert sorted(ev.loc[ev.attack == EXACT, "record"]) == list(uniques)
    for row in got.values():  # every predicate that isolates a release record isolates its original
        assert row.successes == row.trials
        if row.attack != UNIVARIATE:  # nothing new to plant: the release holds every original
            assert row.baseline == TRIVIAL
        assert row.baseline_successes < row.baseline_trials
        if row.trials >= 10:
            assert row.excess[1] > 0
    assert got[EXACT].trials >= 10 and got[MULTIVARIATE].trials >= 10


def test_noise_masking(monkeypatch):
    rng = np.random.default_rng(5)
    o = make(300, rng)
    masked = o.copy()
    masked[AGE] = o[AGE] + rng.normal(0, 6, len(o)).round()
    masked[INCOME] = o[INCOME] * np.exp(rng.normal(0, 0.3, len(o)))
    swap = rng.random(len(o)) < 0.1  # a few regions recoded at random
    masked.loc[swap, REGION] = rng.choice(list("abcde"), int(swap.sum()))
    got, ev = check_against_brute(o, masked, {AGE: 10}, monkeypatch, predicates=400, max_terms=3)
    assert set(ev["criterion"]) == {"singling out"}
    for record, text in ev.loc[ev.attack == EXACT, ["record", "evidence"]].itertuples(index=False):
        assert f"`{SEX}` == {o[SEX].iloc[record]!r}" in text


def test_evidence_names_odd_columns_and_records():
    rng = np.random.default_rng(2)
    o = make(60, rng)
    rows, ev = singling_out(o, o, KEYS, seed=1, predicates=50)
    assert list(ev.columns) == ["record", "criterion", "attack", "evidence"]
    assert ev["record"].between(0, len(o) - 1).all()
    assert ev["evidence"].str.contains("`").all()


def test_seed_reproducible_and_generator_accepted():
    rng = np.random.default_rng(4)
    o, r = make(80, rng), make(80, rng)
    a = singling_out(o, r, KEYS, seed=3, predicates=100)
    b = singling_out(o, r, pd.Index(KEYS), seed=np.random.default_rng(3), predicates=100)
    assert a[0] == b[0]
    pd.testing.assert_frame_equal(a[1], b[1])


def test_calibrated_for_an_independent_release():
    """The release drawn independently of the originals (same correlated distribution): the 95 %
    interval of each attack's difference from its baseline (and so of its excess, the difference
    floored at 0) contains 0 in >= 94 % of 200 files."""
    rng = np.random.default_rng(20260)
    covered, seen = {}, {}
    for _ in range(200):
        o, r = make(200, rng), make(200, rng)
        rows, _ = singling_out(o, r, KEYS, coarsen={AGE: 10}, predicates=40, max_terms=3, seed=rng)
        for row in rows:
            _, low, high = row.difference
            seen[row.attack] = seen.get(row.attack, 0) + 1
            covered[row.attack] = covered.get(row.attack, 0) + (low <= 0 <= high)
    assert set(seen) == {EXACT, UNIVARIATE, MULTIVARIATE}
    for attack, k in seen.items():
        assert k >= 190, (attack, k)
        assert covered[attack] / k >= 0.94, (attack, covered[attack], k)


@pytest.mark.parametrize("kwargs,field", [
    ({"keys": ["missing"]}, "keys: column 'missing' is not in the original"),
    ({"keys": []}, "keys:"),
    ({"coarsen": {AGE: 0}}, f"coarsen: width for {AGE!r}"),
    ({"coarsen": {AGE: -1.5}}, f"coarsen: width for {AGE!r}"),
    ({"coarsen": {SEX: 2}}, f"coarsen: column {SEX!r} is not numeric"),
    ({"coarsen": {"other": 2}}, "coarsen: column 'other' is not one of the keys"),
    ({"predicates": 0}, "predicates:"),
    ({"predicates": 2.5}, "predicates:"),
    ({"max_terms": 0}, "max_terms:"),
    ({"max_terms": 5}, "max_terms:"),
    ({"min_terms": 1}, "min_terms:"),
])
def test_bad_inputs_raise_one_line_naming_the_field(kwargs, field):
    rng = np.random.default_rng(0)
    o = make(30, rng)
    args = {"keys": KEYS, **kwargs}
    with pytest.raises(ValueError) as err:
        singling_out(o, o, args.pop("keys"), seed=0, **args)
    assert str(err.value).startswith(field) and "\n" not in str(err.value)


def test_key_missing_from_the_release_is_named():
    rng = np.random.default_rng(0)
    o = make(30, rng)
    with pytest.raises(ValueError, match=r"^keys: column 'and' is not in the release$"):
        singling_out(o, o.drop(columns=[SEX]), KEYS, seed=0)


@pytest.mark.parametrize("seed", range(5))
def test_effective_trials_match_the_cluster_variance_of_the_baseline_rate(seed):
    """The planted baseline's effective trials: p (1 - p) / n_eff equals the variance of the
    ratio over clusters (every cluster of 2 a success, other sizes failures), computed here from
    cluster totals; Kish's count where every cluster has the same outcome; never more trials than
    planted originals."""
    rng = np.random.default_rng(seed)
    sizes = rng.choice([1, 1, 1, 2, 2, 3, 5], size=400)
    succ, eff = so._effective(sizes)
    total = sizes.sum()
    y = (sizes == 2).astype(float) * sizes  # successes per cluster
    p = y.sum() / total
    variance = ((y - p * sizes) ** 2).sum() / total**2
    assert eff == round(p * (1 - p) / variance)
    assert succ / eff == pytest.approx(p)
    assert 1 <= eff <= total
    # one outcome for every cluster: Kish's effective number of trials
    for same in (np.full(50, 2), np.array([1, 3, 4, 1, 5])):
        succ, eff = so._effective(same)
        assert eff == max(1, round(same.sum() ** 2 / (same**2).sum()))
        assert succ / eff == pytest.approx(float((same == 2).all()))
    assert so._effective(np.empty(0)) == (0.0, 0)
