"""Probabilistic linkage gives the same bytes under every thread setting and instruction set.

Before the fix, numpy's vectorised ``log``/``exp`` (whose AVX-512 and AVX2 builds differ in the
last bit) and BLAS fed the EM, and a paper-scale run on another machine moved 266 PRL-based
table values. Each variant below runs in a fresh interpreter: thread counts of numba and BLAS,
a different OpenBLAS kernel, and, on a CPU with AVX-512, numpy's AVX-512 code paths switched off
(the arithmetic an AVX2-only machine would do).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import mirror_dir

SCRIPT = r"""
import hashlib, os, sys
import numpy as np
sys.path.insert(0, os.path.join(os.environ["ROOT"], "benchmarks"))
from common import load
from sdcrisk.linkage import prl
from sdcrisk.masking import mask

x = load("census")
h = hashlib.sha256()
for name, params in [("optimal_univariate_ma", {"k": 40}), ("rankswap", {"p": 10})]:
    y = mask(name, x, np.random.default_rng(3), **params)
    for j in (1, 3, 6):
        r = prl(x, y, known=np.arange(j), rng=np.random.default_rng(7))
        h.update(r.links.tobytes()); h.update(r.score.tobytes()); h.update(repr(r.info).encode())
print(h.hexdigest())
"""

AVX512_TARGETS = "X86_V4 AVX512_ICL AVX512_SPR AVX512_SKX AVX512_CLX AVX512_CNL"


def _has_avx512() -> bool:
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_features__
    return bool(__cpu_features__.get("AVX512F"))


def _run(extra_env: dict) -> str:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "ROOT": root, "SDCRISK_DATA_MIRROR": str(mirror_dir()), **extra_env}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_prl_bytes_identical_across_threads_and_instruction_sets(census):
    variants = {
        "default": {},
        "one thread": {"NUMBA_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
        "two threads": {"NUMBA_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"},
        "other BLAS kernel": {"OPENBLAS_CORETYPE": "Prescott"},
    }
    if _has_avx512():
        variants["numpy without AVX-512"] = {"NPY_DISABLE_CPU_FEATURES": AVX512_TARGETS,
                                             "OPENBLAS_CORETYPE": "Haswell"}
    digests = {name: _run(env) for name, env in variants.items()}
    assert len(set(digests.values())) == 1, digests
