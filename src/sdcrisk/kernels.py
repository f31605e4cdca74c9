"""First-use compilation of the numba kernels, in a second process.

The attacks' kernels are compiled by numba on their first call after an install and cached on
disk (``NUMBA_CACHE_DIR``, by default a user cache directory: :mod:`sdcrisk`). Numba compiles
one function at a time in a process (a global compiler lock), so on a first ``sdcrisk assess``
the k-d tree's kernels and probabilistic linkage's kernels, about 4 s each on the reference
machine, would be compiled one after the other. :func:`warm_in_background` compiles a group of
kernels in a child process meanwhile; the attacks of that group wait for it
(:meth:`Warmup.wait`) and then load the kernels from the cache. It starts nothing when the group
was compiled before (a stamp per group, numba version and kernel source in the cache
directory), so a later run pays nothing. Results do not depend on it: the kernels are the same
functions, compiled in one process or the other.

    python -m sdcrisk.kernels prl      # compile a group now (what the child runs)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import numpy as np

# group -> (the modules whose kernels it compiles, the attacks that use them)
GROUPS = {"prl": (("sdcrisk.linkage.probabilistic", "sdcrisk.linkage.sorting"), ("PRL",))}


def _stamp(group: str) -> Path | None:
    """The file marking ``group`` as compiled for this numba and this kernel source (None when
    numba caches nowhere)."""
    import numba

    cache = os.environ.get("NUMBA_CACHE_DIR")
    if not cache:
        return None
    h = hashlib.sha256(numba.__version__.encode())
    for module in GROUPS[group][0]:
        h.update(Path(import_module(module).__file__).read_bytes())
    return Path(cache) / f"sdcrisk-{group}-{h.hexdigest()[:16]}.compiled"


def compile_group(group: str) -> None:
    """Run the attacks of ``group`` once on a small file (so their kernels are compiled with the
    argument types of a real call and cached), then write the group's stamp."""
    from .attacks import ATTACKS

    rng = np.random.Generator(np.random.PCG64(0))
    x = rng.normal(size=(300, 4))
    y = x + rng.normal(scale=0.3, size=x.shape)
    for attack in GROUPS[group][1]:
        ATTACKS[attack](x, y, np.arange(4), 2, np.random.Generator(np.random.PCG64(0)))
    stamp = _stamp(group)
    if stamp is not None:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()


class Warmup:
    """A child process compiling some groups; :meth:`wait` before running one of their attacks."""

    def __init__(self, groups: list[str], proc: subprocess.Popen | None):
        self.attacks = {a for g in groups for a in GROUPS[g][1]}
        self.proc = proc

    def wait(self, attack: str) -> None:
        if self.proc is not None and attack in self.attacks:
            self.proc.wait()  # a failed child costs nothing but time: the attack compiles itself


def warm_in_background(attacks) -> Warmup:
    """Start compiling, in a child process, the groups used by ``attacks`` that are not compiled
    yet; returns the handle to wait on."""
    groups = [g for g, (_, used) in GROUPS.items() if set(used) & set(attacks)]
    todo = [g for g in groups if (s := _stamp(g)) is not None and not s.exists()]
    if not todo:
        return Warmup([], None)
    proc = subprocess.Popen([sys.executable, "-m", "sdcrisk.kernels", *todo],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return Warmup(todo, proc)


if __name__ == "__main__":
    for g in sys.argv[1:]:
        compile_group(g)
