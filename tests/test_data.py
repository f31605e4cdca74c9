"""Reference data: mirror copy, checksum verification, loading, clear errors, no partial output."""

from pathlib import Path

import numpy as np
import pytest

from sdcrisk.data import DatasetSpec, fetch, load_rda, sha256_of
from conftest import dataset_spec, mirror_dir


def test_census_and_eia_shapes(census, eia):
    assert census.shape == (1080, 13)
    assert eia.shape == (4092, 10)
    assert np.isfinite(census).all() and np.isfinite(eia).all()


def test_fetch_copies_and_verifies(tmp_path):
    spec = dataset_spec("census")
    if not (mirror_dir() / spec.filename).is_file():
        pytest.skip("no mirror")
    out = fetch(spec, tmp_path / "c.rda", mirror=mirror_dir())
    assert sha256_of(out) == spec.sha256


def test_wrong_checksum_leaves_nothing(tmp_path):
    spec = dataset_spec("census")
    if not (mirror_dir() / spec.filename).is_file():
        pytest.skip("no mirror")
    bad = DatasetSpec(spec.name, spec.url, "0" * 64, spec.object, spec.columns, spec.filename)
    with pytest.raises(ValueError, match="checksum mismatch"):
        fetch(bad, tmp_path / "c.rda", mirror=mirror_dir())
    assert list(tmp_path.iterdir()) == []


def test_missing_mirror_file_is_clear(tmp_path):
    spec = dataset_spec("eia")
    with pytest.raises(FileNotFoundError, match="not found in the mirror"):
        fetch(spec, tmp_path / "e.rda", mirror=tmp_path)
    assert not (tmp_path / "e.rda").exists()


def test_no_network_no_mirror_is_clear(tmp_path, monkeypatch):
    spec = dataset_spec("eia")
    local = DatasetSpec(spec.name, "http://127.0.0.1:9/EIA.rda", spec.sha256, spec.object, spec.columns, spec.filename)
    monkeypatch.delenv("SDCRISK_DATA_MIRROR", raising=False)
    with pytest.raises(FileNotFoundError, match="cannot download"):
        fetch(local, tmp_path / "e.rda", mirror=None)
    assert list(tmp_path.iterdir()) == []


def test_missing_column_names_it(tmp_path):
    spec = dataset_spec("census")
    if not (mirror_dir() / spec.filename).is_file():
        pytest.skip("no mirror")
    path = fetch(spec, tmp_path / "c.rda", mirror=mirror_dir())
    bad = DatasetSpec(spec.name, spec.url, spec.sha256, spec.object, spec.columns + ("NOSUCH",), spec.filename)
    with pytest.raises(ValueError, match="NOSUCH"):
        load_rda(bad, path)


def test_corrupt_file_is_clear(tmp_path):
    spec = dataset_spec("census")
    p = tmp_path / "x.rda"
    p.write_bytes(b"not an R file")
    with pytest.raises(ValueError, match="cannot read"):
        load_rda(spec, p)


def test_columns_in_file_order(tmp_path):
    spec = dataset_spec("eia")
    if not (mirror_dir() / spec.filename).is_file():
        pytest.skip("no mirror")
    table = load_rda(spec, fetch(spec, tmp_path / "e.rda", mirror=mirror_dir()))
    assert list(table.columns) == list(spec.columns)
    assert list(table.columns)[0] == "RESREVENUE" and list(table.columns)[-1] == "TOTSALES"
