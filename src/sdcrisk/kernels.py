"""Compilation of the numba kernels ahead of their first use: ``sdcrisk compile`` after an install,
and PRL's kernels in a second process during a first ``sdcrisk assess``.

The attacks' and masking methods' kernels are compiled by numba on their first call and cached on
disk (``NUMBA_CACHE_DIR``, by default a user cache directory: :mod:`sdcrisk`). On a fresh install
the first ``sdcrisk assess`` would compile them inside the command (numba compiles one function at
a time in a process, a global compiler lock): 32.5 s on the README's 500-record example against
4.8 s with the kernels cached, on 2 cores under a load of 7 (``benchmarks/results/assess.md``).

``sdcrisk compile`` (the README's install line, ``.ci/run``; also ``python -m sdcrisk.kernels
--all``) compiles every group of :data:`GROUPS` into the cache, the groups in parallel processes
(:func:`compile_all`), so that the first command after the install runs as fast as the second.
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
    python -m sdcrisk.kernels prl        # compile a group now, in this process (what the child runs)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from importlib import import_module
from pathlib import Path

import numpy as np

_L, _M = "sdcrisk.linkage.", "sdcrisk.masking."
_TREE = (_L + "neighbours", _L + "sorting")  # the k-d tree and the stable sort its kernels call
_MA = (_M + "microaggregation", _M + "mdav_tree")
# group -> (the modules whose kernels it compiles, callees' modules included: they key its stamp;
#           the attacks it runs, from sdcrisk.attacks.ATTACKS; "mdav": the masking method MDAV,
#           "masking": every other masking method)
# (in the order compile_all starts them, longest first: mdav 26 s, tree 24 s, the other masking
# methods 12 s, prl 6 s, location and graded 4 s each, projected nothing new, compiled one after
# the other under a load of 6)
GROUPS = {
    "mdav": (_MA, ()),
    "tree": ((*_TREE, _L + "distance", _L + "rank", _L + "global_distance"), ("DBRL", "RBRL-Sum", "RBRL-Max", "GDBRL")),
    "masking": ((_M + "swapping", *_MA), ()),
    "prl": ((_L + "probabilistic", _L + "sorting"), ("PRL",)),
    "location": ((*_TREE, _L + "location", _L + "distance", _M + "swapping"), ("RS-RL(p<=20%)", "L-RL(MA)")),
    "graded": ((*_TREE, _L + "graded", _L + "probabilistic"), ("PRL-graded",)),
    "projected": ((*_TREE, _L + "projected", _L + "distance", *_MA), ("Pro-RL-PCP", "Pro-RL-Zscore")),
}
#: groups compiled after the groups whose kernels they call: they load those from the cache
#: instead of compiling them a second time in a parallel process
AFTER = {"location": ("tree",), "graded": ("tree",), "projected": ("tree", "masking", "mdav")}
#: groups :func:`warm_in_background` compiles during ``sdcrisk assess`` when ``sdcrisk compile``
#: was not run (the command's own first attacks compile the k-d tree's kernels meanwhile)
BACKGROUND = ("prl",)
_compiling = False  # set while this process compiles a group: sdcrisk.assess then starts no warm-up


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


def _example_files(tied: bool):
    """A small numeric original and masked file (multiplicative noise, or values rounded to few
    levels: ties), as DataFrames with an id column."""
    import pandas as pd

    rng = np.random.Generator(np.random.PCG64(0))
    x = rng.lognormal(size=(300, 4))
    y = x * np.exp(rng.normal(scale=0.2, size=x.shape))
    if tied:
        x, y = np.round(x), np.round(y)
    cols = ["a", "b", "c", "d"]
    orig, masked = pd.DataFrame(x, columns=cols), pd.DataFrame(y, columns=cols)
    orig.insert(0, "rid", np.arange(300))
    masked.insert(0, "rid", np.arange(300))
    return orig, masked


def _mixed_files():
    """A mixed-type pair: a text key the masking left unchanged (blocks), an integer-coded
    categorical attribute it recoded in some records, and numeric attributes."""
    orig, masked = _example_files(tied=False)
    rng = np.random.Generator(np.random.PCG64(1))
    region = rng.choice(["north", "south", "east"], 300)
    kind = rng.integers(0, 4, 300)
    orig["region"], masked["region"] = region, region
    orig["kind"] = kind
    masked["kind"] = np.where(rng.random(300) < 0.2, rng.integers(0, 4, 300), kind)
    return orig, masked


def _example_params(param) -> object:
    """A valid value of a masking method's parameter for a 300 x 4 file."""
    if param.default is not None:
        return param.default
    if param.kind == "choice":
        return param.choices[0]
    value = {"p": 5, "k": 3, "v": 2, "buckets": 10}.get(param.name)
    if value is None:
        low = 0.0 if param.low is None else param.low
        value = low + 0.5 if param.high is None else (low + param.high) / 2
    return int(value) if param.kind == "int" else float(value)


def _library_calls(group: str, x: np.ndarray, y: np.ndarray) -> None:
    """The group's kernels on the paths the attack registry does not take: the replication's own
    calls (candidate-set sizes, the annotated union, L-RL for MDAV) and the brute-force reference
    kernels (``method="brute"``) the tests compare the k-d tree with."""
    truth = np.arange(x.shape[0])
    known = np.arange(x.shape[1])
    if group == "tree":
        from itertools import product

        from .linkage.distance import dbrl
        from .linkage.neighbours import KDTree
        from .linkage.rank import rbrl

        # 24 rows at one distance from the origin, more than a query keeps near its minimum: the
        # range search for the rest
        lattice = np.vstack([list(product((-1.0, 1.0), repeat=4)), 2 * np.eye(4), -2 * np.eye(4)])
        tree = KDTree(lattice)
        tree.query(np.zeros((1, 4)))
        tree.query(np.zeros((1, 4)), truth=np.zeros(1, dtype=np.int64))
        for t in (None, truth):
            dbrl(x, y, known=known, method="brute", truth=t)
            for criterion in ("sum", "max"):
                rbrl(x, y, known=known, criterion=criterion, method="brute", truth=t)
    elif group == "location":
        from .linkage.location import lrl_mdav, lrl_microaggregation, rsrl, rsrl_annotated_union
        from .masking.microaggregation import attribute_blocks

        for method in ("tree", "brute"):
            for t in (None, truth):
                rsrl(x, y, known=known, p=5.0, method=method, truth=t)  # with candidate-set sizes
                lrl_microaggregation(x, y, known=known, k=3, method=method, truth=t)
        for half in (False, True):
            rsrl_annotated_union(x, y, known, distance=15, half=half)
        lrl_mdav(x, y, attribute_blocks(x.shape[1], 2), known_blocks=np.arange(2))
    elif group == "mdav":
        from .masking.microaggregation import mdav_groups

        mdav_groups(x[:, :2], 3, method="brute")


def compile_group(group: str) -> None:
    """Run the attacks or masking methods of ``group`` once on small files (so their kernels are
    compiled with the argument types of real calls and cached), then write the group's stamp."""
    global _compiling
    _compiling = True
    import warnings

    from .attacks import ATTACKS

    rng = lambda: np.random.Generator(np.random.PCG64(0))  # noqa: E731
    attacks = GROUPS[group][1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. EM convergence on the tiny files
        if group in ("mdav", "masking"):
            from .masking import METHODS, mask

            x = _example_files(tied=False)[0].to_numpy()[:, 1:]
            for name, method in METHODS.items():
                if (name == "mdav") == (group == "mdav"):
                    mask(name, x, rng(), **{p.name: _example_params(p) for p in method.params})
        else:
            from .assessment import KNOWN_ATTRIBUTE_ATTACKS, assess

            own = [a for a in attacks if a in KNOWN_ATTRIBUTE_ATTACKS]
            if own:  # as sdcrisk assess runs them: numeric, tied, mixed-type files
                for orig, masked in (_example_files(False), _example_files(True), _mixed_files()):
                    assess(orig, masked, id="rid", attacks=own, information_loss=False,
                           categorical=["kind"] if "kind" in orig else None)
            orig, masked = _example_files(tied=False)
            x, y = orig.to_numpy()[:, 1:], masked.to_numpy()[:, 1:]
            for attack in attacks:  # as the workflow's attack matrix calls them
                ATTACKS[attack](x, y, np.arange(4), 2, rng())
        if group in ("tree", "location", "mdav"):
            orig, masked = _example_files(tied=False)
            _library_calls(group, orig.to_numpy()[:, 1:], masked.to_numpy()[:, 1:])
    stamp = _stamp(group)
    if stamp is not None:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()


def _compile_timed(group: str) -> float:
    t0 = time.perf_counter()
    compile_group(group)
    return time.perf_counter() - t0


def compile_all(groups=None, *, jobs: int | None = None, force: bool = False, say=print) -> list[str]:
    """Compile ``groups`` (default: all of :data:`GROUPS`) not compiled yet (every one with
    ``force``), up to ``jobs`` at a time in separate processes (default: the usable cores; numba
    compiles one kernel at a time per process), in the order of :data:`GROUPS`; a group of
    :data:`AFTER` starts when the groups it builds on are done. Returns the groups compiled."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    import multiprocessing

    groups = list(GROUPS) if groups is None else list(groups)
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise ValueError(f"unknown kernel group(s) {', '.join(unknown)}; the groups: {', '.join(GROUPS)}")
    _drop_stale(groups, force)
    todo = [g for g in GROUPS if g in groups and (force or not compiled(g))]
    if not todo:
        return []
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    jobs = max(1, min(jobs or cores, len(todo)))
    waiting, done, running = list(todo), set(GROUPS) - set(todo), {}
    # spawn, not fork: a clean interpreter on every platform (no inherited numba or thread state)
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    try:
        while waiting or running:
            for g in [g for g in waiting if set(AFTER.get(g, ())) <= done]:
                waiting.remove(g)
                running[pool.submit(_compile_timed, g)] = g
            if not running:  # pragma: no cover (AFTER has no cycle)
                raise RuntimeError(f"kernel groups {waiting} wait on each other")
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in finished:
                g = running.pop(f)
                try:
                    seconds = f.result()
                except Exception as exc:  # a failed group ends the compile (the cache stays valid)
                    raise RuntimeError(f"kernel group {g}: {type(exc).__name__}: {exc}") from exc
                done.add(g)
                what = ", ".join(GROUPS[g][1]) or ("MDAV" if g == "mdav" else "the other masking methods")
                say(f"compiled {g} ({what}) in {seconds:.1f} s")
    except BaseException:  # a failure or Ctrl-C: stop the other groups at once, not after them
        workers = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for w in workers:
            w.terminate()
        raise
    pool.shutdown()
    return todo


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
    proc = subprocess.Popen([sys.executable, "-m", "sdcrisk.kernels", *todo],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return Warmup(todo, proc)


def main(argv: list[str] | None = None) -> int:
    """``python -m sdcrisk.kernels GROUP ...`` compiles those groups here, one after the other;
    ``--all`` compiles every group not compiled yet, in parallel processes."""
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--all"]:
        t0 = time.perf_counter()
        compile_all()
        print(f"numba kernels cached in {os.environ.get('NUMBA_CACHE_DIR')} ({time.perf_counter() - t0:.1f} s)")
        return 0
    _drop_stale(argv)
    for g in argv:
        compile_group(g)
    return 0


if __name__ == "__main__":
    from sdcrisk.kernels import main as _main  # the package's module, not a __main__ copy: the
    sys.exit(_main())                           # worker processes and the _compiling flag are its
