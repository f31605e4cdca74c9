"""resources.park: arrays set aside on disk during a solver's memory peak, read back unchanged."""

from __future__ import annotations

import gc
import tempfile
from collections import namedtuple

import numpy as np
import pytest

from sdcrisk import resources
from sdcrisk.resources import park


@pytest.fixture
def tmp_dir(tmp_path, monkeypatch):
    """park's temporary directories go to tmp_path, taken as on disk (wherever the machine keeps
    it), and every array is large enough to park."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(resources, "PARK_MIN", 0)
    monkeypatch.setattr(resources, "in_memory", lambda path: False)
    return tmp_path


def _arrays():
    rng = np.random.default_rng(3)
    return rng.normal(size=(50, 4)), rng.integers(0, 9, size=77).astype(np.int32), np.zeros(0, dtype=np.int8)


def test_parked_arrays_come_back_equal_and_the_directory_goes(tmp_dir):
    arrays = _arrays()
    parked = park(*arrays)
    assert len(list(tmp_dir.iterdir())) == 1  # on disk while parked
    back = parked.load()
    assert list(tmp_dir.iterdir()) == []
    for a, b in zip(arrays, back, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_small_arrays_stay_in_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    arrays = _arrays()
    assert sum(a.nbytes for a in arrays) < resources.PARK_MIN
    back = park(*arrays).load()
    assert list(tmp_path.iterdir()) == []
    assert all(a is b for a, b in zip(arrays, back, strict=True))


def test_no_room_keeps_them_in_memory(tmp_dir, monkeypatch):
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(resources.shutil, "disk_usage", lambda path: usage(1, 1, 0))
    arrays = _arrays()
    back = park(*arrays).load()
    assert list(tmp_dir.iterdir()) == []
    assert all(a is b for a, b in zip(arrays, back, strict=True))


def test_a_directory_held_in_memory_keeps_them_in_memory(tmp_dir, monkeypatch):
    monkeypatch.setattr(resources, "in_memory", lambda path: True)
    arrays = _arrays()
    back = park(*arrays).load()
    assert list(tmp_dir.iterdir()) == []
    assert all(a is b for a, b in zip(arrays, back, strict=True))


def test_the_file_system_type_is_the_longest_mount_prefix(tmp_path):
    mounts = tmp_path / "mounts"
    mounts.write_text("/dev/vda / ext4 rw 0 0\n"
                      "tmpfs /tmp tmpfs rw,nosuid 0 0\n"
                      "/dev/vdb /tmp/my\\040disk xfs rw 0 0\n"
                      "tmpfs /dev/shm tmpfs rw 0 0\n")
    kind = resources.filesystem_type
    assert kind("/tmp/x/y", mounts=str(mounts)) == "tmpfs"
    assert kind("/tmp", mounts=str(mounts)) == "tmpfs"
    assert kind("/tmp/my disk/z", mounts=str(mounts)) == "xfs"  # a space is \040 in the mounts file
    assert kind("/tmpfoo", mounts=str(mounts)) == "ext4"  # a prefix of the name, not of the path
    assert kind("/home/u", mounts=str(mounts)) == "ext4"
    assert kind("/home/u", mounts=str(tmp_path / "absent")) is None


def test_the_prl_worker_is_expected_larger_where_nothing_can_be_parked(monkeypatch):
    from sdcrisk.assess import workers

    monkeypatch.setattr(workers, "in_memory", lambda path: False)
    on_disk = workers.expected_bytes("PRL", 10**6)
    monkeypatch.setattr(workers, "in_memory", lambda path: True)
    assert workers.expected_bytes("PRL", 10**6) > on_disk
    from sdcrisk.attacks import NEEDS

    assert workers.expected_bytes("DBRL", 10**6) == workers._WORKER_BASE + NEEDS["DBRL"].bytes_per_record * 10**6


def test_a_failed_write_keeps_them_in_memory(tmp_dir, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(np, "save", full)
    arrays = _arrays()
    back = park(*arrays).load()
    assert list(tmp_dir.iterdir()) == []
    assert all(a is b for a, b in zip(arrays, back, strict=True))


def test_a_parked_object_dropped_unloaded_leaves_no_directory(tmp_dir):
    parked = park(*_arrays())
    assert len(list(tmp_dir.iterdir())) == 1
    del parked
    gc.collect()
    assert list(tmp_dir.iterdir()) == []


def test_prl_links_are_the_same_with_its_arrays_parked(tmp_dir):
    """PRL's block network parks its keys and the arcs' ends during the flow: the same links,
    scores and counts as with them in memory."""
    from sdcrisk.linkage.probabilistic import prl

    rng = np.random.default_rng(11)
    x = np.round(rng.normal(size=(400, 4)), 1)
    y = x + np.round(rng.normal(scale=0.3, size=x.shape), 1)
    parked = prl(x, y, rng=np.random.default_rng(1))
    resources.PARK_MIN = 2**62  # restored by monkeypatch
    kept = prl(x, y, rng=np.random.default_rng(1))
    assert parked.info["network"] == kept.info["network"] == "blocks"
    np.testing.assert_array_equal(parked.links, kept.links)
    np.testing.assert_array_equal(parked.score, kept.score)
    np.testing.assert_array_equal(parked.candidates, kept.candidates)
    assert list(tmp_dir.iterdir()) == []
