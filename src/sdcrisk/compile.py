"""``sdcrisk compile``: run every kernel group's code on small files so that numba compiles and
caches its kernels for the argument types of real calls (the groups, stamps and the warm-up of a
first ``sdcrisk assess``: :mod:`sdcrisk.kernels`, whose docstring says why a command and not the
install itself). A command beside :mod:`sdcrisk.cli`, not part of the engine: it runs the attacks
the way :func:`sdcrisk.assess` runs them (numeric, tied and mixed-type files), so it imports
:mod:`sdcrisk.assess` (``tests/test_layers.py``).

    sdcrisk compile                      # every group, in parallel processes (--jobs)
    python -m sdcrisk.compile prl        # compile a group now, in this process (what the warm-up child runs)
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from . import kernels
from .kernels import AFTER, GROUPS, _drop_stale, _stamp, compiled


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
    calls (candidate-set sizes, the annotated union, L-RL for MDAV), the brute-force reference
    kernels (``method="brute"``) the tests compare the k-d tree with, and the assignment's
    shortest augmenting paths, which run from ``PATHS_MIN`` originals only."""
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
    elif group == "prl":  # shortest augmenting paths, which files this small skip; both index types
        from .linkage.assignment import assign_max_weight

        for index in (np.int32, np.int64):
            assign_max_weight(np.array([0, 0, 1], dtype=index), np.array([0, 1, 0], dtype=index),
                              np.array([10.0, 1.0, 9.5]), 2, paths_min=0)


def _singling_out_calls() -> None:
    """The singling-out criterion on a mixed-type pair (category codes and numbers), and its
    conjunction walk with both index types of the sorted orders (int32, and int64 for files of
    2^31 records or more: a two-record file of one category here)."""
    from .criteria.conjunctions import _walk
    from .criteria.singling_out import singling_out

    orig, masked = _mixed_files()
    keys = ["region", "kind"] + [c for c in orig.columns if c not in ("rid", "region", "kind")][:2]
    singling_out(orig, masked, keys, categorical=["kind"], predicates=20, seed=0)
    for index in (np.int32, np.int64):
        terms = np.zeros((1, 2), dtype=np.int64)
        _walk(terms, terms, np.zeros((1, 2)), 3, np.zeros((2, 2)), np.zeros((2, 2), dtype=index),
              np.zeros((1, 2)), np.full(2, -1), np.array([0, 2, 2]), np.zeros(2, dtype=np.int64),
              np.zeros(1, dtype=np.int64), np.zeros((1, 3), dtype=np.int64))


def compile_group(group: str) -> None:
    """Run the attacks or masking methods of ``group`` once on small files (so their kernels are
    compiled with the argument types of real calls and cached), then write the group's stamp."""
    kernels._compiling = True
    import warnings

    from .attacks import ATTACKS

    rng = lambda: np.random.Generator(np.random.PCG64(0))  # noqa: E731
    attacks = GROUPS[group][1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. EM convergence on the tiny files
        if group == "singling":
            _singling_out_calls()
        elif group in ("mdav", "masking"):
            from .masking import METHODS, mask

            x = _example_files(tied=False)[0].to_numpy()[:, 1:]
            for name, method in METHODS.items():
                if (name == "mdav") == (group == "mdav"):
                    mask(name, x, rng(), **{p.name: _example_params(p) for p in method.params})
        else:
            from .assess.assessment import assess
            from .attacks import KNOWN_ATTRIBUTE_ATTACKS

            own = [a for a in attacks if a in KNOWN_ATTRIBUTE_ATTACKS]
            if own:  # as sdcrisk assess runs them: numeric, tied, mixed-type files
                for orig, masked in (_example_files(False), _example_files(True), _mixed_files()):
                    assess(orig, masked, id="rid", attacks=own, information_loss=False,
                           categorical=["kind"] if "kind" in orig else None)
            orig, masked = _example_files(tied=False)
            x, y = orig.to_numpy()[:, 1:], masked.to_numpy()[:, 1:]
            for attack in attacks:  # as the workflow's attack matrix calls them
                ATTACKS[attack](x, y, np.arange(4), 2, rng())
        if group in ("tree", "location", "mdav", "prl"):
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


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _silent(line: str) -> None:
    pass


def _what(group: str) -> str:
    """What a group compiles, for its progress line: its attacks, or the masking methods."""
    return ", ".join(GROUPS[group][1]) or ("MDAV" if group == "mdav" else "the other masking methods")


def compile_all(groups=None, *, jobs: int | None = None, force: bool = False, say=_stderr) -> list[str]:
    """Compile ``groups`` (default: all of :data:`GROUPS`) not compiled yet (every one with
    ``force``), up to ``jobs`` at a time in separate processes (default: the usable cores; numba
    compiles one kernel at a time per process), in the order of :data:`GROUPS`; a group of
    :data:`AFTER` starts when the groups it builds on are done. Progress goes to ``say`` (default:
    standard error, flushed), a line at the start (the groups and processes) and one per group as
    it finishes (its compile time, the groups done, the time since the start), so that a cold
    cache's long groups are not a silent wait. Returns the groups compiled."""
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
    t0 = time.perf_counter()
    say(f"compiling {len(todo)} kernel group{'s' * (len(todo) > 1)} ({', '.join(todo)}), {jobs} at a time, "
        f"into {os.environ.get('NUMBA_CACHE_DIR')}")
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
                finished_count = len(todo) - len(waiting) - len(running)
                say(f"  compiled {g} ({_what(g)}) in {seconds:.1f} s "
                    f"[{finished_count}/{len(todo)}, {time.perf_counter() - t0:.1f} s since the start]")
    except BaseException:  # a failure or Ctrl-C: stop the other groups at once, not after them
        workers = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for w in workers:
            w.terminate()
        raise
    pool.shutdown()
    return todo


def before_jobs(say=None) -> list[str]:
    """Compile the kernel groups not compiled for the current source, in the process that starts
    the workflow's jobs and before the first one (the workflows' ``onstart``: Snakefile,
    ``workflow/assess.smk``). Parallel jobs that each found a changed kernel would each compile it
    and write numba's cache at the same time, and one can load another's half-written entry (numba
    issues #4807 and #10128): a paper-scale run started on a fresh checkout without ``sdcrisk
    compile`` lost an MDAV cell to a segmentation fault so, while the same cell passed alone. With
    every group stamped this takes well under a second. A cluster's jobs still compile for themselves
    where their nodes' CPU differs from this one's (numba caches per CPU). A compile that fails here
    (a cache directory without write access, say) does not stop the workflow: it says so in one
    line, and each job compiles what it uses, as without this step. ``say``: where the lines go
    (default: standard error, flushed, beside Snakemake's log). Returns the groups compiled."""
    if say is None:
        say = _stderr
    t0 = time.perf_counter()
    try:
        done = compile_all(say=say)
    except Exception as exc:  # noqa: BLE001 (the jobs compile for themselves, as before this step)
        say(f"sdcrisk: numba kernels not compiled before the first job ({type(exc).__name__}: {exc}); "
            "each job compiles the kernels it uses")
        return []
    state = f"compiled ({', '.join(done)})" if done else "up to date"
    say(f"sdcrisk: numba kernels {state} in {os.environ.get('NUMBA_CACHE_DIR')} before the first job "
        f"({time.perf_counter() - t0:.1f} s)")
    return done


def main(argv: list[str] | None = None) -> int:
    """``python -m sdcrisk.compile GROUP ...`` compiles those groups here, one after the other;
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
    from sdcrisk.compile import main as _main  # the package's module, not a __main__ copy: the
    sys.exit(_main())                           # worker processes and the _compiling flag are its
