"""Synthetic releases with a control set (sdcrisk.assess.synthetic): the linkability attack against
brute-force references, the excess's calibration on releases drawn independently of the training
set, a noisy copy of the training set, and the bad inputs of ``sdcrisk assess --control``."""

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest

from sdcrisk.assess import synthetic as syn
from sdcrisk.assess.assessment import AssessError
from sdcrisk.cli import main
from sdcrisk.measures.uncertainty import newcombe_difference


def _brute_nearest(release, target):
    d = [float(np.sum((r - target) ** 2)) for r in release]
    best = min(d)
    return {j for j, v in enumerate(d) if v == best}


def _brute_credit(ra, rb, ta, tb):
    out = []
    for a, b in zip(ta, tb):
        A, B = _brute_nearest(ra, a), _brute_nearest(rb, b)
        out.append(len(A & B) / (len(A) * len(B)))
    return np.array(out)


@pytest.mark.parametrize("seed", range(5))
def test_nearest_sets_and_credit_match_brute_force(seed):
    """Small integer grids: many exact ties, each broken uniformly (credit |A∩B| / (|A||B|))."""
    rng = np.random.default_rng(seed)
    ra, rb = rng.integers(0, 4, (40, 2)).astype(float), rng.integers(0, 4, (40, 1)).astype(float)
    ta, tb = rng.integers(0, 4, (30, 2)).astype(float), rng.integers(0, 4, (30, 1)).astype(float)
    got = syn.nearest_sets(ra, ta)
    for t in range(len(ta)):
        assert set(got[t].tolist()) == _brute_nearest(ra, ta[t])
    np.testing.assert_allclose(syn.linkability_credit(ra, rb, ta, tb), _brute_credit(ra, rb, ta, tb), rtol=1e-12)


def test_credit_on_encoded_halves_with_duplicates_matches_brute_force():
    """Halves as `encode` makes them (one-hot categories times 1/sqrt(2), a standardised integer):
    most release records share their half with others, some targets tie between distinct rows;
    the pair counting and the per-target intersections give the brute force's credit."""
    rng = np.random.default_rng(8)

    def half(n):
        onehot = np.zeros((n, 4))
        onehot[np.arange(n), rng.integers(0, 4, n)] = np.sqrt(0.5)
        return np.column_stack([onehot, (rng.integers(20, 30, n) - 25) / 4.0])  # exact in binary

    ra, rb, ta, tb = half(600), half(600), half(150), half(150)
    ta[:10], tb[:10] = ra[:10], rb[:10]  # release records' own halves: credit 1 / (group sizes' overlap)
    ta[10:20, -1] += 0.5 / 4.0  # halfway between two ages: tied distinct rows
    np.testing.assert_allclose(syn.linkability_credit(ra, rb, ta, tb), _brute_credit(ra, rb, ta, tb), rtol=1e-12)
    got = syn.nearest_sets(ra, ta)
    assert all(set(got[t].tolist()) == _brute_nearest(ra, ta[t]) for t in range(len(ta)))


def test_credit_on_continuous_data_is_zero_or_one():
    rng = np.random.default_rng(3)
    ra, rb, ta, tb = rng.normal(size=(50, 2)), rng.normal(size=(50, 2)), rng.normal(size=(20, 2)), rng.normal(size=(20, 2))
    got = syn.linkability_credit(ra, rb, ta, tb)
    np.testing.assert_array_equal(got, _brute_credit(ra, rb, ta, tb))
    assert set(np.unique(got)) <= {0.0, 1.0}
    # the release's own records as targets: both halves find the record itself
    assert syn.linkability_credit(ra, rb, ra, rb).tolist() == [1.0] * 50


def test_encode_standardises_on_training_and_control_and_weighs_categories():
    t = pd.DataFrame({"x": [0.0, 2.0], "k": ["a", "b"]})
    c = pd.DataFrame({"x": [4.0, 6.0], "k": ["a", "a"]})
    r = pd.DataFrame({"x": [3.0], "k": ["c"]})
    zt, zc, zr = syn.encode([t, c, r], ["x", "k"], ["k"], 4)
    sd = np.std([0.0, 2.0, 4.0, 6.0])
    assert zt[1, 0] == pytest.approx((2.0 - 3.0) / sd) and zr[0, 0] == 0.0
    # a different category adds exactly 1 to the squared distance; the same adds 0
    assert np.sum((zt[0, 1:] - zt[1, 1:]) ** 2) == pytest.approx(1.0)
    assert np.sum((zt[0, 1:] - zc[0, 1:]) ** 2) == 0.0


def test_halves():
    assert syn.halves(["a", "b", "c"]) == (["a", "b"], ["c"])
    assert syn.halves(["a", "b", "c", "d"]) == (["a", "b"], ["c", "d"])
    assert syn.halves(["a"]) == (["a"], [])


def test_chunks_cover_every_record_with_the_smaller_size():
    rng = np.random.default_rng(0)
    for n, size in ((1000, 300), (10, 10), (7, 3)):
        parts = syn._chunks(n, size, rng)
        assert all(p.size == size and np.unique(p).size == size for p in parts)
        assert np.unique(np.concatenate(parts)).size == n


def _draw(rng, n):
    return pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n),
                         "d": rng.integers(0, 4, n).astype(str), "s": rng.integers(0, 3, n).astype(str)})


def _coverage(n_training, n_control, sims, seed, **kw):
    rng = np.random.default_rng(seed)
    inside, total = {}, {}
    for i in range(sims):
        t = syn.assess_synthetic(_draw(rng, n_training), _draw(rng, n_training), _draw(rng, n_control), secret="s",
                                 seed=i, membership=False, **kw)
        for r in t.itertuples():
            total[r.attack] = total.get(r.attack, 0) + 1
            inside[r.attack] = inside.get(r.attack, 0) + (r.excess_low <= 0 <= r.excess_high)
    return {a: inside[a] / total[a] for a in total}, total


@pytest.mark.slow
@pytest.mark.parametrize("n_control", [80, 200])
def test_independent_release_excess_covers_zero(n_control):
    """Release, training and control drawn independently from one distribution: each excess's 95 %
    interval contains 0 in >= 94 % of 200 simulations (control smaller than and equal to training)."""
    cover, total = _coverage(200, n_control, 200, 11 + n_control, singling_out=False)
    assert set(total) == {syn.LINK_ATTACK, "nearest record", "key cell"}
    assert all(v == 200 for v in total.values())
    assert min(cover.values()) >= 0.94, cover


@pytest.mark.slow
@pytest.mark.parametrize("n_control", [80, 200])
def test_independent_release_singling_out_excess_covers_zero(n_control):
    cover, total = _coverage(200, n_control, 200, 21 + n_control, predicates=100)
    assert {"univariate predicates", "multivariate predicates"} <= set(total)
    assert min(cover.values()) >= 0.94, cover


def test_noisy_copy_of_the_training_set_has_high_excess_and_membership():
    rng = np.random.default_rng(5)
    training, control = _draw(rng, 400), _draw(rng, 200)
    noisy = training.copy()
    for c in "abc":
        noisy[c] = training[c] + 0.01 * rng.normal(size=len(training))
    t = syn.assess_synthetic(training, noisy, control, secret="s", seed=0, predicates=100)
    link = t[t.attack == syn.LINK_ATTACK].iloc[0]
    # halves (a, b) | (c, d): the second half has one number and a 4-category key, so the nearest record on it is
    # the copy for most training records only; the brute-force reference on the same encoding gives the same rate
    za = syn.encode([training, control, noisy], ["a", "b"], ["d"], 600)
    zb = syn.encode([training, control, noisy], ["c", "d"], ["d"], 600)
    ref = _brute_credit(za[2], zb[2], za[0], zb[0])
    assert link.training_successes == pytest.approx(ref.sum())
    assert link.control_successes == pytest.approx(_brute_credit(za[2], zb[2], za[1], zb[1]).sum())
    assert link.training_percent > 50 and link.excess_low > 40
    assert len(t.attrs["records_at_risk"].table) == int((ref == 1).sum())
    near = t[(t.criterion == "inference") & (t.attack == "nearest record")].iloc[0]
    assert near.training_percent > 95 and near.excess_low > 40
    aucs = [m["auc"] for m in t.attrs["membership"]["rows"]]
    assert len(aucs) == 2 and min(aucs) > 0.95
    assert t.attrs["release_type"] == "synthetic"


def test_excess_is_newcombe_training_minus_control():
    rng = np.random.default_rng(2)
    t = syn.assess_synthetic(_draw(rng, 150), _draw(rng, 150), _draw(rng, 90), secret="s", seed=0,
                             membership=False, predicates=50)
    for r, c in zip(t.itertuples(), syn.criterion_rows(t)):
        ex = newcombe_difference(r.training_successes, r.n_training, r.control_successes, r.n_control)
        assert (r.excess, r.excess_low, r.excess_high) == pytest.approx(ex)
        assert c.difference == pytest.approx(ex) and c.trials == r.n_training and c.baseline_trials == r.n_control
        assert r.training_percent == pytest.approx(100 * r.training_successes / r.n_training)
    assert (t.n_training[t.criterion != "singling out"] == 150).all()
    assert (t.n_control[t.criterion != "singling out"] == 90).all()


# ----------------------------------------------------------------------------- the command
@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(9)
    paths = {}
    for name, n in (("train", 120), ("control", 80), ("release", 120)):
        df = _draw(rng, n)
        df.insert(0, "pid", np.arange(n) + {"train": 0, "control": 1000, "release": 5000}[name])
        p = tmp_path / f"{name}.csv"
        df.to_csv(p, index=False)
        paths[name] = p
    return paths


def _run(tmp_path, *args):
    out = tmp_path / "rep"
    return main(["assess", *map(str, args), "--out", str(out), "--quiet"]), out


def test_command_states_the_synthetic_release_type(files, tmp_path, capsys):
    code, out = _run(tmp_path, files["train"], files["release"], "--control", files["control"], "--id", "pid",
                     "--secret", "s")
    assert code == 0
    assert "synthetic release" in (out / "report.md").read_text().splitlines()[0]
    doc = json.loads((out / "report.json").read_text())
    assert doc["release_type"] == "synthetic"
    res = doc["files"][0]["results"]
    assert {r["criterion"] for r in res} == {"linkability", "singling out", "inference"}
    assert doc["files"][0]["training"] == 120 and doc["files"][0]["control"] == 80
    assert "synthetic release" in capsys.readouterr().out


def _bad(tmp_path, capsys, *args):
    code, out = _run(tmp_path, *args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not out.exists()
    return err[-1]


def test_control_sharing_ids_is_refused(files, tmp_path, capsys):
    c = pd.read_csv(files["control"])
    c.loc[3, "pid"] = 7  # a training id
    c.to_csv(files["control"], index=False)
    msg = _bad(tmp_path, capsys, files["train"], files["release"], "--control", files["control"], "--id", "pid")
    assert "control.csv" in msg and "share an id" in msg and "'pid'" in msg


def test_control_sharing_rows_above_the_share_is_refused(files, tmp_path, capsys):
    t, c = pd.read_csv(files["train"]).drop(columns="pid"), pd.read_csv(files["control"]).drop(columns="pid")
    c.iloc[:2] = t.iloc[:2].to_numpy()  # 2 of 80 identical: 2.5 % > 1 %
    c.to_csv(files["control"], index=False)
    t.to_csv(files["train"], index=False)
    pd.read_csv(files["release"]).drop(columns="pid").to_csv(files["release"], index=False)
    msg = _bad(tmp_path, capsys, files["train"], files["release"], "--control", files["control"])
    assert "control.csv" in msg and "2.50 %" in msg and "identical" in msg
    # one identical record of 120 (0.83 %): a warning, the report is written
    c = pd.read_csv(files["control"])
    extra = pd.concat([c.iloc[2:], _draw(np.random.default_rng(1), 41)], ignore_index=True)
    extra.iloc[0] = t.iloc[0].to_numpy()
    extra.to_csv(files["control"], index=False)
    code, out = _run(tmp_path, files["train"], files["release"], "--control", files["control"])
    assert code == 0 and "identical" in capsys.readouterr().err


def test_control_with_other_columns_is_refused(files, tmp_path, capsys):
    pd.read_csv(files["control"]).rename(columns={"c": "z"}).to_csv(files["control"], index=False)
    msg = _bad(tmp_path, capsys, files["train"], files["release"], "--control", files["control"], "--id", "pid")
    assert "control.csv" in msg and "['c']" in msg and "['z']" in msg


def test_release_paired_by_id_with_control_is_refused(files, tmp_path, capsys):
    r = pd.read_csv(files["release"])
    r["pid"] = np.arange(len(r))  # the training ids: a one-to-one pairing
    r.to_csv(files["release"], index=False)
    msg = _bad(tmp_path, capsys, files["train"], files["release"], "--control", files["control"], "--id", "pid")
    assert "release.csv" in msg and "not a synthetic release" in msg


@pytest.mark.parametrize("option", [["--attacks", "DBRL"], ["--scenarios", "1..2"], ["--weights", "s"]])
def test_record_level_options_are_refused_with_control(files, tmp_path, capsys, option):
    msg = _bad(tmp_path, capsys, files["train"], files["release"], "--control", files["control"], *option)
    assert option[0] in msg and "synthetic" in msg


def test_missing_id_in_control_is_refused(files, tmp_path, capsys):
    pd.read_csv(files["control"]).drop(columns="pid").to_csv(files["control"], index=False)
    msg = _bad(tmp_path, capsys, files["train"], files["release"], "--control", files["control"], "--id", "pid")
    assert "control.csv" in msg and "'pid'" in msg


def test_api_refuses_like_the_command():
    rng = np.random.default_rng(0)
    t = _draw(rng, 50)
    with pytest.raises(AssessError, match="identical"):
        syn.assess_synthetic(t, _draw(rng, 50), t.iloc[:20])
    assert math.isclose(syn.SHARED_MAX, 1.0)
    assert list(itertools.islice(syn.COLUMNS, 2)) == ["criterion", "attack"]


def test_assess_with_control_is_the_synthetic_assessment():
    from sdcrisk.assess.assessment import assess

    rng = np.random.default_rng(4)
    tr, re, co = _draw(rng, 100), _draw(rng, 100), _draw(rng, 60)
    got = assess(tr, re, control=co, secret="s", seed=1)
    want = syn.assess_synthetic(tr, re, co, secret="s", seed=1)
    assert got.attrs["release_type"] == "synthetic"
    pd.testing.assert_frame_equal(got.drop(columns="seconds"), want.drop(columns="seconds"))


def test_gate_on_the_excess_per_criterion(files, tmp_path, capsys):
    """--max-risk gates a synthetic release on each criterion's excess (training minus control
    targets, points): the verdict follows the committed table's largest excess per criterion,
    exit 3 when a limit is below it, 0 when every limit is above it."""
    code, out = _run(tmp_path, files["train"], files["release"], "--control", files["control"], "--id", "pid",
                     "--secret", "s")
    assert code == 0
    rows = json.loads((out / "report.json").read_text())["files"][0]["results"]
    top = {c: max(r["excess"] for r in rows if r["criterion"] == c) for c in {r["criterion"] for r in rows}}
    capsys.readouterr()
    lows = ",".join(f"{c.replace(' ', '-')}={max(0.0, top[c] + 1):.4f}" for c in top)
    code, out = _run(tmp_path, files["train"], files["release"], "--control", files["control"], "--id", "pid",
                     "--secret", "s", "--max-risk", lows)
    assert code == 0, capsys.readouterr()
    doc = json.loads((out / "report.json").read_text())
    assert doc["gate"]["status"] == "pass" and doc["gate"]["failed"] == []
    worst = max(top, key=top.get)
    assert top[worst] > 0  # the fixture's release is independent, but some excess is positive by chance
    capsys.readouterr()
    code, out = _run(tmp_path, files["train"], files["release"], "--control", files["control"], "--id", "pid",
                     "--secret", "s", "--max-risk", f"{worst.replace(' ', '-')}={top[worst] / 2:.6f}")
    assert code == 3
    doc = json.loads((out / "report.json").read_text())
    assert doc["gate"]["status"] == "fail"
    n_over = sum(1 for r in rows if r["criterion"] == worst and r["excess"] > float(f"{top[worst] / 2:.6f}"))
    assert len(doc["gate"]["failed"]) == n_over >= 1
    assert "risk gate (fail)" in capsys.readouterr().out
    assert "Risk gate: fail" in (out / "report.md").read_text()


def test_gate_on_a_criterion_without_rows_is_undecided():
    """A gated criterion with no attack on a file cannot pass (nothing vouches for it)."""
    t = pd.DataFrame({"criterion": ["singling out"], "attack": ["exact (keys)"], "target": [""],
                      "excess": [0.5], "training_percent": [1.0], "control_percent": [0.5]})
    v = syn.gate([t], ["r.csv"], {"linkability": 5.0, "singling out": 1.0})
    assert v["status"] == "undecided" and v["undecided"] == ["linkability has no attack that applies to r.csv"]
    assert syn.gate([t], ["r.csv"], 1.0)["status"] == "pass"
    assert syn.gate([t], ["r.csv"], 0.25)["status"] == "fail"
