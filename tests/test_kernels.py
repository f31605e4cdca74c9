"""The numba kernels: the stable argsort they share, and first-use compilation in a second
process (:mod:`sdcrisk.kernels`): the child compiles exactly the kernels a real call uses."""

import os
import subprocess
import sys

import numpy as np
import pytest

from sdcrisk import kernels
from sdcrisk.linkage.sorting import argsort_stable


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_argsort_stable_is_numpys_stable_sort(dtype):
    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 3, 7, 64, 1000, 1025):
        key = rng.integers(0, max(n // 3, 1), n).astype(dtype)  # many ties
        assert argsort_stable(key).tolist() == np.argsort(key, kind="stable").tolist()
    key = np.array([0.0, -0.0, np.inf, -np.inf, 1e-300, 0.0])
    assert argsort_stable(key).tolist() == np.argsort(key, kind="stable").tolist()


PROBE = """
import sys, numpy as np
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__module__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Listener())
from sdcrisk.attacks import ATTACKS
rng = np.random.default_rng(5)
x = rng.lognormal(size=(1000, 6)); y = x * rng.lognormal(sigma=0.2, size=x.shape)
ATTACKS["PRL"](x, y, np.arange(3), 2, np.random.default_rng(1))
print(",".join(sorted(set(m for m in compiled if m.startswith("sdcrisk")))))
"""


def test_child_compiles_what_a_real_call_uses(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    cold = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    assert "sdcrisk.linkage.probabilistic" in cold.stdout  # the probe sees compilation
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "warmed")
    subprocess.run([sys.executable, "-m", "sdcrisk.kernels", "prl"], env=env, check=True)
    assert list((tmp_path / "warmed").glob("sdcrisk-prl-*.compiled"))
    warm = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    assert warm.stdout.strip() == ""  # a real PRL call (other size, other known columns) compiles nothing


def test_warmup_starts_only_when_needed(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert kernels.warm_in_background(["DBRL", "GDBRL"]).proc is None  # no kernel group of theirs
    stamp = kernels._stamp("prl")
    stamp.touch()
    w = kernels.warm_in_background(["PRL", "DBRL"])
    assert w.proc is None
    w.wait("PRL")  # nothing to wait for
    stamp.unlink()
    w = kernels.warm_in_background(["PRL"])
    assert w.proc is not None
    w.wait("PRL")
    assert w.proc.returncode == 0 and stamp.exists()
