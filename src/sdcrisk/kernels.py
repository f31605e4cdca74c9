"""Compilation of the numba kernels ahead of their first use: ``sdcrisk compile`` after an install,
and PRL's kernels in a second process during a first ``sdcrisk assess``.

The attacks' and masking methods' kernels are compiled by numba on their first call and cached on
disk (``NUMBA_CACHE_DIR``, by default a user cache directory: :mod:`sdcrisk`). On a fresh install
the first ``sdcrisk assess`` would compile them inside the command (numba compiles one function at
a time in a process, a global compiler lock): 32.5 s on the README's 500-record example against
4.8 s with the kernels cached, on 2 cores under a load of 7 (``benchmarks/results/assess.md``).

``sdcrisk compile`` (the README's install line, ``.ci/run``; also ``python -m sdcrisk.compile
--all``; :mod:`sdcrisk.compile`) compiles every group of :data:`GROUPS` into the cache, the groups
in parallel processes, so that the first command after the install runs as fast as the second.
This module holds the groups, their stamps and the warm-up that :func:`sdcrisk.assess` starts;
:mod:`sdcrisk.compile` runs the groups' code (through ``sdcrisk.assess``, which imports this module).
A group is compiled by running its attacks (through :func:`sdcrisk.assess`, on a numeric file, a
tied one and a mixed-type one, and as the workflow calls them) or masking methods on small
files: numba compiles each kernel for the argument types of a real call, which a list of
signatures written by hand would have to repeat. Each group then gets a stamp in the cache
directory, keyed as numba keys its cache (numba and Python versions, the CPU) and by the source of
every module whose kernels the group compiles (its callees' modules included); a stamped group is
not compiled again.

When the kernel sources change (a new version, an edited checkout), numba's cache index notices a
change of a kernel's own file but not of a kernel it calls in another file (whose code is compiled
into the caller's: the caller's cached code stays the old one). The stamps do notice: before
compiling a group not stamped for the current source, the cached kernels of its modules are
removed (:func:`_drop_stale`), and every group sharing one of those modules is compiled again.

Why a command on the install line and not the install itself: numba's ahead-of-time compiler
(``numba.pycc``) is deprecated, and a pip build hook runs in an isolated build environment, once per
built wheel (then reused from pip's cache by every user and machine), and not at all for an
editable install's source edits, while the kernels belong in each user's cache, compiled for that
machine's CPU.

If ``sdcrisk compile`` was not run, :func:`warm_in_background` compiles the groups of
:data:`BACKGROUND` (the attacks ``sdcrisk assess`` runs last, whose kernels no earlier attack
compiles) in a child process while the command runs the other attacks; those attacks wait for it
(:meth:`Warmup.wait`) and then load the kernels from the cache. Results do not depend on any of
this: the kernels are the same functions, compiled in one process or another.

    sdcrisk compile                      # every group, in parallel processes (--jobs)
    python -m sdcrisk.compile prl        # compile a group now, in this process (what the child runs)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path

_L, _M = "sdcrisk.linkage.", "sdcrisk.masking."
_TREE = (_L + "neighbours", _L + "sorting")  # the k-d tree and the stable sort its kernels call
_MA = (_M + "microaggregation", _M + "mdav_tree", _M + "radix")
_FIXED = "sdcrisk.fixed_order"  # its correctly rounded sum: the information loss of sdcrisk assess, noise
# group -> (the modules whose kernels it compiles, callees' modules included: they key its stamp;
#           the attacks it runs, from sdcrisk.attacks.ATTACKS; "mdav": the masking method MDAV,
#           "masking": every other masking method)
# (in the order compile_all starts them, longest first: mdav 26 s, tree 24 s, the other masking
# methods 12 s, prl 6 s, location and graded 4 s each, projected nothing new, compiled one after
# the other under a load of 6)
GROUPS = {
    "mdav": (_MA, ()),
    "tree": ((*_TREE, _L + "distance", _L + "rank", _L + "global_distance", _FIXED),
             ("DBRL", "RBRL-Sum", "RBRL-Max", "GDBRL")),
    "masking": ((_M + "swapping", *_MA, _FIXED), ()),
    "prl": ((_L + "probabilistic", _L + "sorting", _L + "assignment"), ("PRL",)),
    "location": ((*_TREE, _L + "location", _L + "distance", _M + "swapping", _M + "radix", _FIXED), ("RS-RL(p<=20%)", "L-RL(MA)")),
    "graded": ((*_TREE, _L + "graded", _L + "probabilistic", _L + "assignment"), ("PRL-graded",)),
    "projected": ((*_TREE, _L + "projected", _L + "distance", *_MA, _FIXED), ("Pro-RL-PCP", "Pro-RL-Zscore")),
    "singling": (("sdcrisk.criteria.conjunctions",), ()),  # the singling-out criterion's conjunction counts
}
#: groups compiled after the groups whose kernels they call: they load those from the cache
#: instead of compiling them a second time in a parallel process
AFTER = {"location": ("tree",), "graded": ("tree",), "projected": ("tree", "masking", "mdav")}
#: groups :func:`warm_in_background` compiles during ``sdcrisk assess`` when ``sdcrisk compile``
#: was not run (the command's own first attacks compile the k-d tree's kernels meanwhile)
BACKGROUND = ("prl",)
_compiling = False  # set while this process compiles a group (sdcrisk.compile): sdcrisk.assess then starts no warm-up


def _digest(group: str) -> str:
    """Numba, Python, the CPU numba compiles for (a cache directory shared by machines, e.g. a
    cluster's home directories, holds kernels per CPU) and the source of the group's modules."""
    import llvmlite.binding as llvm
    import numba

    cpu = os.environ.get("NUMBA_CPU_NAME") or f"{llvm.get_host_cpu_name()} {llvm.get_host_cpu_features().flatten()}"
    h = hashlib.sha256(f"{numba.__version__} {sys.version_info[:2]} {cpu}".encode())
    for module in GROUPS[group][0]:
        h.update(Path(import_module(module).__file__).read_bytes())
    return h.hexdigest()[:16]


def _stamp(group: str) -> Path | None:
    """The file marking ``group`` as compiled for this numba and this kernel source (None when
    numba caches nowhere)."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if not cache:
        return None
    return Path(cache) / f"sdcrisk-{group}-{_digest(group)}.compiled"


def compiled(group: str) -> bool:
    """Whether ``group``'s stamp for the current source is in the cache directory."""
    stamp = _stamp(group)
    return stamp is not None and stamp.exists()


def _kernels(module: str):
    """The numba dispatchers defined in ``module``."""
    from numba.core.registry import CPUDispatcher

    mod = import_module(module)
    return [f for f in vars(mod).values() if isinstance(f, CPUDispatcher) and f.py_func.__module__ == module]


def _index_file(kernel) -> Path | None:
    """The path of ``kernel``'s numba cache index (None when numba's private layout differs)."""
    path = getattr(getattr(getattr(kernel, "_cache", None), "_cache_file", None), "_index_path", None)
    return Path(path) if isinstance(path, str) and path.endswith(".nbi") else None


def _drop_stale(groups, force: bool = False) -> list[str]:
    """Before compiling ``groups``: remove the cached kernels of the modules of each one not
    stamped for the current source (of each one, with ``force``), and the stamps of every group sharing one of those modules
    (those are compiled again). Numba's cache index checks only a kernel's own file: a kernel whose
    file did not change would keep the old code of a callee in another file, compiled into it; a
    group lists its callees' modules, so every group calling a changed module is unstamped and its
    modules dropped. Returns the modules dropped."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if not cache:
        return []
    modules = sorted({m for g in groups if force or not compiled(g) for m in GROUPS[g][0]})
    for module in modules:
        for kernel in _kernels(module):
            index = _index_file(kernel)
            if index is not None and Path(cache).resolve() in index.resolve().parents:
                for f in index.parent.glob(index.name[: -len("nbi")] + "*"):  # .nbi, its .N.nbc
                    f.unlink(missing_ok=True)
    for g in GROUPS:
        if set(GROUPS[g][0]) & set(modules):
            for s in Path(cache).glob(f"sdcrisk-{g}-*.compiled"):
                s.unlink(missing_ok=True)
    return modules


class Warmup:
    """A child process compiling some groups; :meth:`wait` before running one of their attacks."""

    def __init__(self, groups: list[str], proc: subprocess.Popen | None):
        self.attacks = {a for g in groups for a in GROUPS[g][1]}
        self.proc = proc

    def wait(self, attack: str) -> None:
        if self.proc is not None and attack in self.attacks:
            self.proc.wait()  # a failed child costs nothing but time: the attack compiles itself


def warm_in_background(attacks) -> Warmup:
    """Start compiling, in a child process, the groups of :data:`BACKGROUND` used by ``attacks``
    that are not compiled yet (none after ``sdcrisk compile``); returns the handle to wait on."""
    if _compiling:
        return Warmup([], None)
    groups = [g for g in BACKGROUND if set(GROUPS[g][1]) & set(attacks)]
    todo = [g for g in groups if _stamp(g) is not None and not compiled(g)]
    if not todo:
        return Warmup([], None)
    proc = subprocess.Popen([sys.executable, "-m", "sdcrisk.compile", *todo],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return Warmup(todo, proc)
