"""Sample releases (sdcrisk.assess.sample, sdcrisk.linkage.sample): the masked file holds a subset
of the original's records, named by ``--id``. Every number is checked against a brute-force
reference written here (naive loops over the records), never against the code's own output."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linear_sum_assignment

from sdcrisk.assess.assessment import assess, pair_files
from sdcrisk.assess.sample import assess_sample, pair_sample, uniques
import sdcrisk.linkage.sample as sample_linkage
from sdcrisk.linkage.sample import (NEAREST, nearest_originals, precision_recall, sample_dbrl, sample_gdbrl,
                                    sample_rbrl)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "sdcrisk.cli", *map(str, args)], capture_output=True, text=True,
                          check=False)


def _files(seed, big=60, small=15, keys=False, noise=0.4, dup=True):
    """An original of ``big`` records (integer values: ties occur; a duplicated record when
    ``dup``) and a released sample of ``small`` of them with noise added by hand, shuffled."""
    rng = np.random.Generator(np.random.PCG64(seed))
    x = rng.integers(0, 6, size=(big, 3)).astype(float)
    if dup:
        x[1] = x[0]
    o = pd.DataFrame(x, columns=["a", "b", "c"])
    o.insert(0, "rid", np.arange(big) * 7 + 100)
    if keys:
        o["k"] = rng.choice(["p", "q", "r"], size=big)
    rows = rng.choice(big, size=small, replace=False)
    m = o.iloc[rows].copy().reset_index(drop=True)
    m[["a", "b", "c"]] += np.round(rng.normal(scale=noise, size=(small, 3)), 1)
    order = rng.permutation(small)
    return o, m.iloc[order].reset_index(drop=True), rows[order]


def _std(z, ref):
    """``z`` standardised by the mean and sample sd of ``ref`` (the original: both files of a sample)."""
    sd = ref.std(axis=0, ddof=1)
    out = z - ref.mean(axis=0)
    return np.where(sd > 0, out / np.where(sd > 0, sd, 1), 0.0)


def _brute_dbrl(o, m, rows, keys=False):
    """Each released record to its nearest original record (both files standardised by the
    original's mean and sd; within the block of equal key), 1/t credit over the t exactly nearest."""
    x = o[["a", "b", "c"]].to_numpy()
    xs, ys = _std(x, x), _std(m[["a", "b", "c"]].to_numpy(), x)
    credit, ratios = [], []
    for i in range(len(m)):
        d = []
        for j in range(len(o)):
            if keys and o["k"].iloc[j] != m["k"].iloc[i]:
                d.append(np.inf)
                continue
            d.append(float(((ys[i] - xs[j]) ** 2).sum()))
        d = np.array(d)
        best = np.flatnonzero(d == d.min())
        credit.append(1.0 / best.size if rows[i] in best else 0.0)
        finite = np.sort(d[np.isfinite(d)])
        ratios.append(0.0 if finite.size < 2 else 1.0 if finite[1] == 0 else np.sqrt(finite[0] / finite[1]))
    return np.array(credit), np.array(ratios)


def _row(table, measure):
    return table[table.measure == measure].iloc[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("keys", [False, True])
def test_dbrl_on_a_sample_is_the_brute_force(seed, keys):
    o, m, rows = _files(seed, keys=keys)
    t = assess(o, m, id="rid", attacks=["DBRL"], information_loss=False)
    credit, ratio = _brute_dbrl(o, m, rows, keys)
    dbrl = _row(t, "DBRL")
    assert t.attrs["release_type"] == "sample"
    assert dbrl.n == len(m)
    assert dbrl.linked == pytest.approx(credit.sum(), abs=1e-9)
    assert dbrl.percent == pytest.approx(100 * credit.mean(), abs=1e-9)
    if keys:  # random guess: 1 / (originals in the record's block), averaged over the released records
        size = o["k"].value_counts()
        assert dbrl.baseline == pytest.approx(100 * np.mean([1 / size[k] for k in m["k"]]))
    else:
        assert dbrl.baseline == pytest.approx(100 / len(o))
    pr = t.attrs["sample"]["precision_recall"][0]["rows"]
    for r in pr:  # the precision-recall table from the brute-force ratios and credits
        keep = ratio <= r["threshold"] + 1e-12
        assert r["kept"] == keep.sum()
        assert r["correct"] == pytest.approx(credit[keep].sum(), abs=1e-9)
        assert r["recall"] == pytest.approx(100 * credit[keep].sum() / len(m), abs=1e-9)
        if keep.any():
            assert r["precision"] == pytest.approx(100 * credit[keep].mean(), abs=1e-9)


def _doubled_rank(v):
    return np.array([sum(2 if w < u else 1 if w == u else 0 for w in v) + 1 for u in v])  # 2 x average rank


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("measure,combine", [("RBRL-Sum", np.sum), ("RBRL-Max", np.max)])
def test_rank_attacks_on_a_sample_are_the_brute_force(seed, measure, combine):
    """Ranks among the original's values: each original value its doubled average rank, each
    released value the doubled average rank it would take among the original's values (2 per
    original value below it, 1 per equal one, plus 1), compared by the criterion over the
    attributes."""
    o, m, rows = _files(seed)
    t = assess(o, m, id="rid", attacks=[measure], information_loss=False)
    big, small = len(o), len(m)
    xo = np.column_stack([_doubled_rank(o[c].to_numpy()) for c in "abc"])
    yo = np.column_stack([[sum(2 if w < u else 1 if w == u else 0 for w in o[c]) + 1 for u in m[c]] for c in "abc"])
    credit = 0.0
    for i in range(small):
        d = np.array([combine(np.abs(yo[i] - xo[j])) for j in range(big)])
        best = np.flatnonzero(d == d.min())
        credit += 1.0 / best.size if rows[i] in best else 0.0
    assert _row(t, measure).linked == pytest.approx(credit, abs=1e-9)


def test_an_unmasked_sample_is_linked_whole_by_every_attack():
    """A 10 % sample released unmasked, two attributes: each released record's values are its own
    original's, so DBRL, GDBRL and RBRL on the original's scale link every record (each file on its
    own mean and sd, or ranks by quantile within the sample, lose most of them to sampling error)."""
    rng = np.random.Generator(np.random.PCG64(21))
    o = pd.DataFrame({"rid": np.arange(20000), "a": rng.normal(size=20000), "b": rng.lognormal(size=20000)})
    m = o.sample(n=2000, random_state=np.random.RandomState(3)).reset_index(drop=True)
    t = assess(o, m, id="rid", attacks=["DBRL", "GDBRL", "RBRL-Sum", "RBRL-Max"], information_loss=False,
               singling_out=False)
    assert (t.set_index("measure").percent == 100.0).all()


def test_rectangular_gdbrl_is_the_dense_optimum():
    rng = np.random.Generator(np.random.PCG64(5))
    x = rng.normal(size=(80, 3))
    rows = rng.choice(80, size=20, replace=False)
    y = x[rows] + rng.normal(scale=0.5, size=(20, 3))
    res = sample_gdbrl(x, y, rows)
    cost = np.array([[np.sqrt(((y[i] - x[j]) ** 2).sum()) for j in range(80)] for i in range(20)])
    r, c = linear_sum_assignment(cost)
    assert len(set(res.links)) == 20 and (res.links >= 0).all()
    assert cost[np.arange(20), res.links].sum() == pytest.approx(cost[r, c].sum(), rel=1e-12)
    assert res.credit.sum() == np.sum(c[np.argsort(r)] == rows)


def test_sample_uniques_are_the_brute_force_count():
    rng = np.random.Generator(np.random.PCG64(6))
    big = 400
    keys = rng.integers(0, 3, size=(big, 2)) * np.array([1, 10]) + rng.integers(0, 40, size=(big, 1)) * 100
    rows = rng.choice(big, size=60, replace=False)
    got = uniques(keys, rows)
    cell = [tuple(k) for k in keys]
    population = {c: cell.count(c) for c in set(cell)}
    released = [cell[r] for r in rows]
    su = [c for c in set(released) if released.count(c) == 1]
    assert got["sample_uniques"] == len(su)
    assert got["tau1_sample_uniques_population_unique"] == sum(population[c] == 1 for c in su)
    assert got["tau2_expected_correct_matches"] == pytest.approx(sum(1 / population[c] for c in su))
    assert got["theta_match_correct"] == pytest.approx(100 * len(su) / sum(population[c] for c in su))
    assert got["share_sample_uniques_population_unique"] == pytest.approx(
        100 * sum(population[c] == 1 for c in su) / len(su))
    assert got["population_uniques"] == sum(v == 1 for v in population.values())


def test_precision_recall_counts_ties_by_their_credit():
    rows = precision_recall(np.array([1.0, 0.5, 0.0, 1.0]), np.array([0.1, 0.1, 0.9, 1.0]), thresholds=(0.1, 1.0))
    assert rows[0]["kept"] == 2 and rows[0]["precision"] == pytest.approx(75.0)
    assert rows[1]["recall"] == pytest.approx(62.5)


@pytest.mark.parametrize("keys", [False, True])
def test_a_full_release_in_another_order_gives_the_one_to_one_numbers(keys):
    """Part 4(c): the sample path on a release of every original record, shuffled, gives what the
    one-to-one assessment gives, exactly."""
    o, m, _ = _files(7, big=50, small=50, keys=keys, dup=False)
    attacks = ["DBRL", "GDBRL", "PRL"] + ([] if keys else ["RBRL-Sum", "RBRL-Max"])
    one = assess(o, m, id="rid", attacks=attacks, information_loss=False, scenarios="1..all",
                 singling_out=False)
    assert one.attrs.get("release_type", "one to one") == "one to one"
    pair = pair_sample(o, m, o["rid"], m["rid"], "rid", [c for c in o.columns if c != "rid"], None,
                       ("original", "masked"))
    full = pair_files(o, m, "rid")
    sets = [list(range(j)) for j in range(1, len(full.columns) + 1)]
    sample = assess_sample(pair, sets, attacks, attacks=attacks, information_loss=False)
    assert list(sample.measure) == list(one.measure)
    assert sample.linked.to_numpy() == pytest.approx(one.linked.to_numpy(), abs=0, nan_ok=True)
    assert np.array_equal(sample.linked.isna(), one.linked.isna())


# ----------------------------------------------------------------------------- the command
def _csv(path, df):
    df.to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_the_command_states_a_sample_release(tmp_path):
    o, m, rows = _files(8, big=200, small=30, keys=True)
    out = tmp_path / "rep"
    proc = run_cli("assess", _csv(tmp_path / "o.csv", o), _csv(tmp_path / "m.csv", m), "--id", "rid", "--out", out,
                   "--quiet", "--no-timings")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "report.json").read_text())
    assert doc["release_type"] == "sample" and doc["meta"]["release_type"] == "sample"
    md = (out / "report.md").read_text().splitlines()
    assert md[0] == "# Disclosure risk and information loss (sample release)"
    results = pd.DataFrame(doc["results"])
    dbrl = results[results.measure == "DBRL"].iloc[0]
    o, m = pd.read_csv(tmp_path / "o.csv"), pd.read_csv(tmp_path / "m.csv")  # the values as the command read them
    credit, _ = _brute_dbrl(o, m, rows, keys=True)
    assert dbrl.n == 30 and dbrl.linked == pytest.approx(credit.sum(), abs=1e-9)
    for name in ("PRL", "PRL-graded", "RS-RL(p<=20%)", "L-RL(MA)"):  # rows, not silently missing
        note = results[results.measure == name].iloc[0].note
        assert note.startswith("not applicable: ")
    text = "\n".join(md)
    for name in ("DBRL", "RBRL-Sum", "RBRL-Max", "GDBRL"):  # every attack with a confidence of its own
        assert f"Precision and recall of {name} " in text
    assert "No precision-recall table" in text and "PRL-graded" in text.split("No precision-recall table")[1]
    # the headline counts released records: the top row's % of the 30 released records
    top = results[results.kind == "disclosure risk"].dropna(subset=["percent"])
    top = top[top.measure != "ID"].percent.max()
    assert f"{top:.1f} % of the released records" in doc["headline_text"]
    assert "% of the released records" in proc.stdout and "% of the original records" not in proc.stdout
    u = doc["meta"]["sample"][str(tmp_path / "m.csv")]["uniques"][0]
    cells = o["k"]
    su = [k for k in set(m["k"]) if (m["k"] == k).sum() == 1]
    assert u["sample_uniques"] == len(su) and u["keys"] == ["k"]
    assert u["tau2_expected_correct_matches"] == pytest.approx(sum(1 / (cells == k).sum() for k in su))


ORIGINAL = "rid,a,b\n1,1,2\n2,4,5\n3,2,9\n4,7,1\n"


@pytest.mark.parametrize("masked,extra,message", [
    ("rid,a,b\n1,1,2\n9,4,5\n", ["--id", "rid"],
     "m.csv: 1 id(s) (column 'rid') are not ids of o.csv, e.g. 9; a sample release holds a subset of the original's "
     "records"),
    ("rid,a,b\n1,1,2\n2,4,5\n3,2,9\n4,7,1\n5,3,3\n", ["--id", "rid"],
     "m.csv: has 5 records, more than the 4 of o.csv; with --id rid the masked file must hold the original's records "
     "or a sample of them"),
    ("rid,a,b\n1,1,2\n2,4,5\n", [],
     "o.csv has 4 records and m.csv 2; the masked file must hold one record per original record; for a sample "
     "release (a subset of the original's records) name the id column both files share with --id"),
])
def test_bad_sample_inputs_get_one_line_and_no_report(tmp_path, masked, extra, message):
    (tmp_path / "o.csv").write_text(ORIGINAL)
    (tmp_path / "m.csv").write_text(masked)
    out = tmp_path / "rep"
    proc = run_cli("assess", tmp_path / "o.csv", tmp_path / "m.csv", *extra, "--out", out, "--quiet")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    named = message.replace("m.csv", str(tmp_path / "m.csv")).replace("o.csv", str(tmp_path / "o.csv"))
    assert lines == [f"sdcrisk assess: error: {named}"]
    assert not out.exists() and proc.stdout == ""


def test_unequal_sizes_without_an_id_point_to_it():
    """The one-to-one pairing still refuses unequal sizes without an id (a sample needs it)."""
    o, m, _ = _files(9)
    from sdcrisk.assess.assessment import AssessError

    with pytest.raises(AssessError, match="name the id column both files share with --id"):
        pair_files(o.drop(columns="rid"), m.drop(columns="rid"))


# ----------------------------------------------------------------------------- the one search and its fast paths
def _kernel(q, x, metric):
    """The kernels' arithmetic written out: d = 0, then d += (q_j - x_j)^2 (or |.|, or the max)."""
    d = 0.0
    for a, b in zip(q, x):
        g = float(a) - float(b)
        d = d + g * g if metric == "sqeuclidean" else d + abs(g) if metric == "l1" else max(d, abs(g))
    return d


@pytest.mark.parametrize("metric", ["sqeuclidean", "l1", "linf"])
@pytest.mark.parametrize("keys", [False, True])
def test_nearest_originals_is_the_brute_force_k_nearest(metric, keys):
    """The k nearest originals of each released record (within its block), ascending by (distance,
    index), with integer values so that ties occur: exactly the brute force's lists."""
    rng = np.random.Generator(np.random.PCG64(11))
    x = rng.integers(0, 4, size=(70, 3)).astype(float)
    y = rng.integers(0, 4, size=(25, 3)).astype(float) + rng.choice([0.0, 0.5], size=(25, 3))
    bx = rng.integers(0, 4, size=70) if keys else None
    by = rng.integers(0, 4, size=25) if keys else None
    k = 6
    d, idx = nearest_originals(x, y, (bx, by) if keys else None, k, metric)
    for i in range(25):
        cand = [(_kernel(y[i], x[j], metric), j) for j in range(70) if not keys or bx[j] == by[i]]
        cand.sort()
        want = cand[:k] + [(np.inf, -1)] * (k - min(k, len(cand)))
        assert [(float(a), int(b)) for a, b in zip(d[i], idx[i])] == want


def test_dbrl_with_more_equal_records_than_the_list_is_the_brute_force():
    """More equal originals than the list holds (NEAREST): those records are searched again and
    counted 1/t over all t equally near, as the brute force does."""
    rng = np.random.Generator(np.random.PCG64(12))
    x = rng.normal(size=(120, 2))
    x[:NEAREST + 9] = x[0]  # 25 equal records
    rows = np.r_[0, 3, rng.choice(np.arange(30, 120), size=10, replace=False)]
    y = x[rows] + np.r_[[[0.0, 0.0]] * 2, rng.normal(scale=0.3, size=(10, 2))]
    res = sample_dbrl(x, y, rows)
    assert res.info["searched_again"] >= 2
    for i in range(rows.size):
        dist = ((y[i] - x) ** 2).sum(axis=1)
        best = np.flatnonzero(dist == dist.min())
        assert res.credit[i] == pytest.approx(1.0 / best.size if rows[i] in best else 0.0)
        assert res.links[i] == best[0]


@pytest.mark.parametrize("criterion,combine", [("sum", np.sum), ("max", np.max)])
@pytest.mark.parametrize("keys", [False, True])
def test_rbrl_list_and_its_ratio_are_the_brute_force(criterion, combine, keys):
    """Integer coordinates with many ties (more than the list holds for some records): link, 1/t
    credit and the nearest / second-nearest ratio equal the brute force's."""
    rng = np.random.Generator(np.random.PCG64(13))
    xo = rng.integers(0, 3, size=(90, 2)).astype(float)
    rows = rng.choice(90, size=30, replace=False)
    yo = np.clip(xo[rows] + rng.integers(-1, 2, size=(30, 2)), 0, 2)
    bx = rng.integers(0, 2, size=90) if keys else None
    blocks = (bx, bx[rows]) if keys else None
    res = sample_rbrl(xo, yo, rows, criterion, blocks)
    for i in range(30):
        allowed = np.flatnonzero(bx == bx[rows[i]]) if keys else np.arange(90)
        dist = np.array([combine(np.abs(yo[i] - xo[j])) for j in allowed])
        best = allowed[dist == dist.min()]
        assert res.links[i] == best[0]
        assert res.credit[i] == pytest.approx(1.0 / best.size if rows[i] in best else 0.0)
        two = np.sort(dist)[:2]
        want = 0.0 if two.size < 2 else 1.0 if two[1] == 0 else two[0] / two[1]
        assert res.ratio[i] == pytest.approx(want)


def test_gdbrl_by_components_is_the_dense_optimum_within_blocks(monkeypatch):
    """Blocks and every in-block pair as a candidate: the total distance is the dense optimum of
    each block (scipy's linear_sum_assignment), whether the components are solved one at a time or
    together; the confidence is the link's distance over the nearest other original's."""
    rng = np.random.Generator(np.random.PCG64(14))
    x = rng.normal(size=(90, 3))
    bx = np.repeat([0, 1, 2], 30)
    rows = np.concatenate([rng.choice(np.flatnonzero(bx == b), size=8, replace=False) for b in range(3)])
    y = x[rows] + rng.normal(scale=0.6, size=(rows.size, 3))
    want = 0.0
    for b in range(3):
        q, o = np.flatnonzero(bx[rows] == b), np.flatnonzero(bx == b)
        cost = np.sqrt(((y[q][:, None, :] - x[o][None, :, :]) ** 2).sum(axis=2))
        r, c = linear_sum_assignment(cost)
        want += cost[r, c].sum()
    for batch in (1, 10_000):
        monkeypatch.setattr(sample_linkage, "MATCHING_BATCH", batch)
        res = sample_gdbrl(x, y, rows, (bx, bx[rows]), candidates=30)
        assert len(set(res.links)) == rows.size and (bx[res.links] == bx[rows]).all()
        got = np.sqrt(((y - x[res.links]) ** 2).sum(axis=1)).sum()
        assert got == pytest.approx(want, rel=1e-12)
    for i in range(rows.size):
        o = np.flatnonzero(bx == bx[rows[i]])
        dist = np.sqrt(((y[i] - x[o]) ** 2).sum(axis=1))
        own = dist[o == res.links[i]][0]
        other = dist[o != res.links[i]].min()
        assert res.ratio[i] == pytest.approx(min(own / other, 1.0))


def test_precision_recall_curves_of_every_attack():
    """Per attack with a confidence: precision a percentage, links kept and recall never falling as
    the threshold rises, and at threshold 1 (every ratio is at most 1) the recall is the row's %."""
    o, m, _ = _files(15, big=150, small=40, keys=True)
    t = assess(o, m, id="rid", attacks=["DBRL", "RBRL-Sum", "RBRL-Max", "GDBRL"], information_loss=False)
    tables = {p["attack"]: p["rows"] for p in t.attrs["sample"]["precision_recall"]}
    assert set(tables) == {"DBRL", "RBRL-Sum", "RBRL-Max", "GDBRL"}
    assert t.attrs["sample"]["no_confidence"] == []
    for name, rows in tables.items():
        assert all(0 <= r["precision"] <= 100 for r in rows if r["kept"])
        assert all(a["recall"] <= b["recall"] + 1e-12 and a["kept"] <= b["kept"] for a, b in zip(rows, rows[1:]))
        assert rows[-1]["threshold"] == 1.0 and rows[-1]["kept"] == len(m)
        assert rows[-1]["recall"] == pytest.approx(_row(t, name).percent, abs=1e-9)
