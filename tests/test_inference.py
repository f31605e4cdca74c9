"""Inference attacks (sdcrisk.criteria.inference) against a brute-force reference written here with
naive loops, on small random mixed files; the original released unchanged; and calibration: a
release drawn independently of the originals gives an excess whose 95 % Newcombe interval holds 0."""

import math

import numpy as np
import pytest

from sdcrisk.criteria.inference import KEY_CELL, NEAREST, infer, l_diversity, linked_name, success
from sdcrisk.criteria.rows import INFERENCE


# ----------------------------------------------------------------------------- reference
def _standardise(v):
    v = np.asarray(v, dtype=float)
    out = np.zeros_like(v)
    for j in range(v.shape[1]):
        sd = v[:, j].std(ddof=1)
        out[:, j] = 0.0 if sd == 0 else (v[:, j] - v[:, j].mean()) / sd
    return out


def _coordinates(num, cats, ncat):
    """The mixed distance's coordinates, one record at a time: standardised numbers, then one
    indicator (1.0) per category of every changed categorical attribute."""
    z = _standardise(num) if num.shape[1] else np.zeros((num.shape[0], 0))
    rows = []
    for i in range(num.shape[0]):
        r = list(z[i])
        for j, k in enumerate(ncat):
            r += [1.0 if cats[i, j] == c else 0.0 for c in range(k)]
        rows.append(r)
    return rows


def _ok(guess, true, categorical, tol):
    return guess == true if categorical else abs(guess - true) <= tol * abs(true)


def _constant(sy, categorical):
    if categorical:
        values, counts = np.unique(sy, return_counts=True)
        return [int(v) for v, c in zip(values, counts) if c == counts.max()]
    return [float(np.median(sy))]


def reference(xn, yn, xc, yc, blocking, sx, sy, categorical, tol, links):
    """Per attack the credit of every target, and the baseline's, by loops over the records."""
    n, m = len(sx), len(sy)
    base = _constant(sy, categorical)
    base_credit = [(sum(_ok(g, sx[i], categorical, tol) for g in base) / len(base)) for i in range(n)]
    out = {}
    for name, link in links.items():
        out[linked_name(name)] = [float(link[i] >= 0 and _ok(sy[link[i]], sx[i], categorical, tol)) for i in range(n)]
    changed = [j for j in range(xc.shape[1]) if not blocking[j]]
    ncat = [int(max(xc[:, j].max(), yc[:, j].max())) + 1 for j in changed]
    a = _coordinates(xn, xc[:, changed], ncat)
    b = _coordinates(yn, yc[:, changed], ncat)
    keys = [j for j in range(xc.shape[1]) if blocking[j]]
    near = []
    for i in range(n):
        best, tied = math.inf, []
        for l in range(m):
            if any(xc[i, j] != yc[l, j] for j in keys):
                continue
            d = 0.0
            for u, v in zip(a[i], b[l]):
                d += (u - v) ** 2
            if d < best:
                best, tied = d, [l]
            elif d == best:
                tied.append(l)
        near.append(base_credit[i] if not tied else
                    sum(_ok(sy[l], sx[i], categorical, tol) for l in tied) / len(tied))
    out[NEAREST] = near
    cell = []
    for i in range(n):
        same = [sy[l] for l in range(m) if all(xc[i, j] == yc[l, j] for j in range(xc.shape[1]))]
        if not same:
            cell.append(base_credit[i])
            continue
        guesses = _constant(np.array(same), categorical)
        cell.append(sum(_ok(g, sx[i], categorical, tol) for g in guesses) / len(guesses))
    out[KEY_CELL] = cell
    return out, base_credit


def _files(rng, n, m, categorical_secret, ties=False):
    """A small mixed original (2 numeric, 3 categorical attributes, a secret) and a hand-written
    masking: numeric noise (numpy, not the package's maskers), the third categorical attribute
    recoded at random in 30 % of the records; the release may repeat records (ties)."""
    xn = rng.normal(50, 10, (n, 2))
    xc = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 3, n), rng.integers(0, 4, n)])
    sx = rng.integers(0, 3, n) if categorical_secret else rng.lognormal(3, 0.3, n)
    pick = rng.integers(0, n, m) if m != n else np.arange(n)
    yn = xn[pick] + rng.normal(0, 3, (m, 2))
    yc = xc[pick].copy()
    flip = rng.random(m) < 0.3
    yc[flip, 2] = rng.integers(0, 4, int(flip.sum()))
    sy = sx[pick].copy() if categorical_secret else sx[pick] * rng.normal(1, 0.04, m)
    if ties:  # a quarter of the release repeats another record exactly on the known attributes
        rep = rng.integers(0, m, m // 4)
        dst = rng.integers(0, m, m // 4)
        yn[dst], yc[dst] = yn[rep], yc[rep]
    return xn, yn, xc, yc, sx, sy


@pytest.mark.parametrize("categorical", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_every_attack_equals_the_brute_force(categorical, seed):
    rng = np.random.default_rng(100 + seed)
    n, m = 60, (60 if seed % 2 == 0 else 45)
    xn, yn, xc, yc, sx, sy = _files(rng, n, m, categorical, ties=seed >= 2)
    blocking = [True, True, False]
    links = {"DBRL": np.where(rng.random(n) < 0.1, -1, rng.integers(0, m, n))}
    res = infer("s", sx, sy, categorical=categorical, xn=xn, yn=yn, xc=xc, yc=yc, blocking=blocking, links=links,
                tolerance=0.05)
    want, base = reference(xn, yn, xc, yc, blocking, sx, sy, categorical, 0.05, links)
    np.testing.assert_allclose(res.baseline_credit, base, atol=1e-12)
    assert set(res.credit) == set(want)
    for name, credit in want.items():
        np.testing.assert_allclose(res.credit[name], credit, atol=1e-12, err_msg=name)
    for row in res.rows:
        assert row.criterion == INFERENCE and row.target == "s" and row.trials == n
        assert row.successes == pytest.approx(sum(want[row.attack]))
        assert row.baseline_successes == pytest.approx(sum(base))


def test_distinct_records_at_the_same_distance_share_the_credit():
    """Known: only changed categorical attributes (distances 0, 2, 4, ...): many distinct release
    records tie at the minimum; the credit is the share of them guessing right."""
    rng = np.random.default_rng(7)
    n = 80
    xc = rng.integers(0, 3, (n, 2))
    yc = np.where(rng.random((n, 2)) < 0.5, rng.integers(0, 3, (n, 2)), xc)
    sx = rng.integers(0, 4, n)
    sy = np.where(rng.random(n) < 0.5, sx, rng.integers(0, 4, n))
    res = infer("s", sx, sy, categorical=True, xc=xc, yc=yc, blocking=[False, False])
    want, _ = reference(np.zeros((n, 0)), np.zeros((n, 0)), xc, yc, [False, False], sx, sy, True, 0.05, {})
    np.testing.assert_allclose(res.credit[NEAREST], want[NEAREST], atol=1e-12)
    assert 0 < np.mean((res.credit[NEAREST] > 0) & (res.credit[NEAREST] < 1))  # some fractional credit


def test_only_blocking_keys_known_ties_the_whole_block():
    rng = np.random.default_rng(8)
    n = 70
    xc = rng.integers(0, 3, (n, 2))
    sx = rng.normal(100, 20, n)
    res = infer("s", sx, sx + rng.normal(0, 2, n), categorical=False, xc=xc, yc=xc, tolerance=0.1)
    want, _ = reference(np.zeros((n, 0)), np.zeros((n, 0)), xc, xc, [True, True], sx, sx + 0, False, 0.1, {})
    res2 = infer("s", sx, sx, categorical=False, xc=xc, yc=xc, tolerance=0.1)
    np.testing.assert_allclose(res2.credit[NEAREST], want[NEAREST], atol=1e-12)
    assert res.rows[0].attack == NEAREST


def test_the_tolerance_divides_by_the_true_value_and_zero_needs_an_exact_guess():
    assert success(105.0, 100.0, False, 0.05)  # |5| <= 0.05 * 100
    assert not success(95.0, 90.0, False, 0.05)  # |5| > 0.05 * 90 (dividing by the guess would pass: 5 <= 4.75? no)
    assert success(94.5, 90.0, False, 0.05)
    assert not success(100.0, 95.0, False, 0.05)  # 5 > 4.75: relative to the true 95, not the guess 100
    assert success(0.0, 0.0, False, 0.05) and not success(1e-300, 0.0, False, 0.05)
    with pytest.raises(ValueError, match="tolerance"):
        infer("s", [1.0, 2.0], [1.0, 2.0], categorical=False, tolerance=0.0)


def test_the_original_released_unchanged_gives_away_every_secret_of_a_pure_cell():
    rng = np.random.default_rng(3)
    n = 400
    xc = np.column_stack([rng.integers(0, 4, n), rng.integers(0, 5, n)])
    xn = rng.normal(0, 1, (n, 2))
    cell = xc[:, 0] * 5 + xc[:, 1]
    for categorical in (True, False):
        # half the cells pure (one secret value), the others mixed
        pure_cells = rng.random(20) < 0.5
        per_cell = rng.integers(0, 3, 20) if categorical else rng.lognormal(2, 0.5, 20)
        own = rng.integers(0, 3, n) if categorical else rng.lognormal(2, 0.5, n)
        sx = np.where(pure_cells[cell], per_cell[cell], own)
        links = {"DBRL": np.arange(n)}
        res = infer("s", sx, sx, categorical=categorical, xn=xn, yn=xn, xc=xc, yc=xc, links=links)
        pure = np.array([len(np.unique(sx[cell == c])) == 1 for c in cell])
        assert pure.sum() > 50
        assert np.all(res.credit[KEY_CELL][pure] == 1.0)
        assert np.all(res.credit[linked_name("DBRL")] == 1.0)
        assert np.all(res.credit[NEAREST] == 1.0)  # every record nearest to itself, alone at distance 0
        d = res.diversity
        assert d["min_distinct_l"] == 1 and d["pure_share"] == pytest.approx(100 * pure.mean())


def test_l_diversity_equals_its_definition():
    rng = np.random.default_rng(5)
    cy = rng.integers(0, 6, 300)
    sy = rng.integers(0, 4, 300)
    sy[cy == 2] = 1
    d = l_diversity(cy, sy)
    distinct, ent = [], []
    for c in np.unique(cy):
        _, counts = np.unique(sy[cy == c], return_counts=True)
        p = counts / counts.sum()
        distinct.append(len(counts))
        ent.append(math.exp(-(p * np.log(p)).sum()))
    assert d["cells"] == 6 and d["min_distinct_l"] == min(distinct) == 1
    assert d["median_distinct_l"] == np.median(distinct)
    assert d["min_entropy_l"] == pytest.approx(min(ent))
    assert d["pure_share"] == pytest.approx(100 * np.mean(cy == 2))


def _independent(rng, categorical, n=150):
    """An original and a release drawn independently of it, the secret independent of the known
    attributes: nothing to learn about any original record."""
    def draw(size):
        xn = rng.normal(0, 1, (size, 2))
        xc = np.column_stack([rng.integers(0, 2, size), rng.integers(0, 3, size)])
        s = rng.integers(0, 3, size) if categorical else rng.lognormal(3, 0.1, size)
        return xn, xc, s

    xn, xc, sx = draw(n)
    yn, yc, sy = draw(n)
    return infer("s", sx, sy, categorical=categorical, xn=xn, yn=yn, xc=xc, yc=yc,
                 links={"DBRL": rng.integers(0, n, n)})


def test_an_independent_release_has_an_excess_interval_holding_zero():
    """Calibration: 200 small files whose release is drawn independently of the originals, a
    secret of three equally likely categories (every guess is then right with probability 1/3:
    the true difference of every attack and the constant guess is 0): every attack's 95 % Newcombe
    interval of the difference (and so of the excess, floored at 0) holds 0 in at least 94 % of them."""
    rng = np.random.default_rng(2024)
    holds = {}
    for _ in range(200):
        for row in _independent(rng, True).rows:
            _, low, high = row.difference
            holds.setdefault(row.attack, []).append(low <= 0 <= high)
    assert set(holds) == {linked_name("DBRL"), NEAREST, KEY_CELL}
    for attack, h in holds.items():
        assert np.mean(h) >= 0.94, (attack, np.mean(h))


def test_an_independent_release_shows_no_risk_for_a_numeric_secret():
    """A numeric secret: the release's median is the better constant guess (a random record's
    value, or a small cell's median, is farther from the truth on average), so the true excess
    is at most 0; the difference interval's lower end stays at or below 0 (no risk found where
    there is none) in at least 94 % of 200 files, and the excess risk's interval (the difference
    floored at 0) contains the true risk, 0, as often."""
    rng = np.random.default_rng(2025)
    found, holds = {}, {}
    for _ in range(200):
        for row in _independent(rng, False).rows:
            _, low, _high = row.difference
            found.setdefault(row.attack, []).append(low <= 0)
            _, e_low, e_high = row.excess
            holds.setdefault(row.attack, []).append(e_low <= 0 <= e_high)
    for attack, h in found.items():
        assert np.mean(h) >= 0.94, (attack, np.mean(h))
        assert np.mean(holds[attack]) >= 0.94, (attack, np.mean(holds[attack]))


# ----------------------------------------------------------------------------- sdcrisk assess --secret
def _mixed_pair(tmp_path, n=300, seed=11):
    """An original with a categorical key (released unchanged), two numeric attributes and two
    secrets (numeric income, categorical job), and a release masked by hand: numeric noise."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east"], n)
    a, b = rng.normal(50, 10, n), rng.normal(0, 1, n)
    income = np.exp(3 + 0.02 * a + rng.normal(0, 0.2, n))
    job = np.where(rng.random(n) < 0.6, np.where(b > 0, "clerk", "farmer"), rng.choice(["clerk", "farmer", "cook"], n))
    o = pd.DataFrame({"rid": np.arange(n) + 1000, "region": region, "a": a, "b": b, "income": income, "job": job})
    m = o.assign(a=a + rng.normal(0, 2, n), b=b + rng.normal(0, 0.2, n), income=income * rng.normal(1, 0.03, n))
    m = m.sample(frac=1.0, random_state=1)  # shuffled rows, paired by rid
    po, pm = tmp_path / "o.csv", tmp_path / "m.csv"
    o.to_csv(po, index=False), m.to_csv(pm, index=False)
    return o, m, str(po), str(pm)


def test_assess_returns_the_inference_rows_of_the_engine_and_the_brute_force(tmp_path):
    from sdcrisk.assess.assessment import assess, criterion_rows, records_at_risk
    from sdcrisk.criteria import CriterionRow

    o, m, _, _ = _mixed_pair(tmp_path)
    r = assess(o, m, id="rid", known=["region", "a", "b"], secret=["income", "job"], attacks=["DBRL"],
               information_loss=False, tolerance=0.05, singling_out=False)
    rows = criterion_rows(r)
    assert all(isinstance(x, CriterionRow) for x in rows) and len(rows) == 6
    assert {x.target for x in rows} == {"income", "job"}
    mm = m.set_index("rid").loc[o.rid].reset_index()  # the release in the original's order
    codes = {v: k for k, v in enumerate(sorted(set(o.job) | set(mm.job)))}
    region = {v: k for k, v in enumerate(sorted(set(o.region)))}
    xc, yc = o.region.map(region).to_numpy()[:, None], mm.region.map(region).to_numpy()[:, None]
    for secret, categorical in (("income", False), ("job", True)):
        sx = o[secret].map(codes).to_numpy() if categorical else o[secret].to_numpy()
        sy = mm[secret].map(codes).to_numpy() if categorical else mm[secret].to_numpy()
        want, base = reference(o[["a", "b"]].to_numpy(), mm[["a", "b"]].to_numpy(), xc, yc, [True], sx, sy,
                               categorical, 0.05, {})
        got = {x.attack: x for x in rows if x.target == secret}
        for attack in (NEAREST, KEY_CELL):
            assert got[attack].successes == pytest.approx(sum(want[attack]))
            assert got[attack].baseline_successes == pytest.approx(sum(base))
        # DBRL links each record to its nearest release record within the block (continuous values: no ties)
        assert got[linked_name("DBRL")].successes == pytest.approx(got[NEAREST].successes)
    at_risk = records_at_risk(r)
    assert list(at_risk.columns) == ["record", "criterion", "attack", "evidence"]
    assert set(at_risk.record) <= set(o.rid) and {"linkability", "inference"} == set(at_risk.criterion)


def test_assess_without_a_secret_returns_the_table_it_always_did(tmp_path):
    from sdcrisk.assess.assessment import COLUMNS, assess, criterion_rows, records_at_risk

    o, m, _, _ = _mixed_pair(tmp_path, n=100)
    r = assess(o, m, id="rid", attacks=["DBRL"], information_loss=False, singling_out=False)
    assert list(r.columns) == COLUMNS and criterion_rows(r) == [] and records_at_risk(r).empty
    assert "_links" not in r.columns and "inference" not in set(r.kind)


def test_secret_each_infers_every_attribute_not_known(tmp_path):
    from sdcrisk.assess.assessment import assess, criterion_rows

    o, m, _, _ = _mixed_pair(tmp_path, n=100)
    r = assess(o, m, id="rid", known=["region", "a"], secret="each", attacks=["DBRL"], information_loss=False)
    assert [x.target for x in criterion_rows(r) if x.attack == NEAREST] == ["b", "income", "job"]


def test_the_command_writes_the_criteria_and_the_records_at_risk(tmp_path, capsys):
    import json

    import pandas as pd

    from sdcrisk.cli import main

    _, _, po, pm = _mixed_pair(tmp_path)
    out = tmp_path / "rep"
    base = ["assess", po, pm, "--id", "rid", "--known", "region,a,b", "--secret", "income", "--secret", "job",
            "--attacks", "DBRL", "--out", str(out), "--quiet", "--no-timings"]
    assert main(base) == 0
    doc = json.loads((out / "report.json").read_text())
    assert [c["criterion"] for c in doc["criteria"]] == ["linkability", "inference", "singling out"]
    inference = [x for x in doc["results"] if x["kind"] == "inference"]
    top = max(inference, key=lambda x: x["excess"])
    assert doc["criteria"][1]["excess"] == pytest.approx(top["excess"]) and doc["criteria"][1]["attack"] == top["measure"]
    md = (out / "report.md").read_text()
    assert md.index("## Criteria") < md.index("## Summary") < md.index("## Singling out and inference")
    assert "- **inference: " in md and "- **linkability: DBRL links" in md
    records = pd.read_csv(out / "records_at_risk.csv")
    assert list(records.columns) == ["record", "criterion", "attack", "evidence", "masked"]
    assert set(records.criterion) == {"linkability", "inference", "singling out"}
    # the gate per criterion: inference gates on its excess over the baseline, linkability on % linked
    assert main(base + ["--max-risk", f"linkability=100,inference={max(top['excess'] - 1, 0):g}"]) == 3
    assert "risk gate: inference: " in capsys.readouterr().err
    assert main(base + ["--max-risk", "inference=100"]) == 0  # linkability not gated
    assert main(base + ["--max-risk", "1"]) == 3  # one number for every criterion
    assert main(base + ["--max-risk", "100"]) == 0
