"""Committed cell results (sdcrisk.replication.committed): snapshot, digest check, restore."""

import json

import pytest

from sdcrisk.replication.committed import experiment_digest, restore, restore_shapes, snapshot


@pytest.fixture
def committed(tmp_path):
    agg = tmp_path / "agg.csv"
    agg.write_text("experiment,dataset,method,param,known,measure,mean,sd,n\ne,census,m,1,,DLD,1.5,0,1\n")
    shapes = tmp_path / "shapes.json"
    shapes.write_text(json.dumps({"census": [1080, 13]}))
    snapshot({"e": agg}, {"e": "abc"}, shapes, tmp_path / "cells")
    return tmp_path / "cells"


def test_snapshot_and_restore_round_trip(committed, tmp_path):
    restore("e", committed / "e.csv", committed / "manifest.json", "abc", tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_bytes() == (committed / "e.csv").read_bytes()
    restore_shapes(committed / "manifest.json", tmp_path / "shapes_out.json")
    assert json.loads((tmp_path / "shapes_out.json").read_text()) == {"census": [1080, 13]}


@pytest.mark.parametrize("experiment, digest, edit, message", [
    ("e", "other", False, "computed by other code, parameters or data"),
    ("f", "abc", False, "no committed results for experiment 'f'"),
    ("e", "abc", True, "file changed since it was committed"),
])
def test_restore_refuses(committed, tmp_path, experiment, digest, edit, message):
    if edit:
        (committed / "e.csv").write_text((committed / "e.csv").read_text().replace("1.5", "1.6"))
    with pytest.raises(ValueError, match=message):
        restore(experiment, committed / "e.csv", committed / "manifest.json", digest, tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()


def test_bad_manifest_is_named(tmp_path):
    bad = tmp_path / "manifest.json"
    bad.write_text("{}")
    with pytest.raises(ValueError, match="manifest.json: not a manifest"):
        restore_shapes(bad, tmp_path / "s.json")


def test_digest_depends_on_every_cell_param_and_the_aggregation():
    jobs = [{"cell": "a", "seed": 1, "code": "x"}, {"cell": "b", "seed": 1, "code": "x"}]
    base = experiment_digest(jobs, "agg")
    assert base == experiment_digest([dict(j) for j in jobs], "agg")
    assert base != experiment_digest([jobs[0], {**jobs[1], "seed": 2}], "agg")
    assert base != experiment_digest(jobs[::-1], "agg")
    assert base != experiment_digest(jobs, "agg2")
