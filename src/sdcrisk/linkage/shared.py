"""Work the attacks share on one pair of files: the nearest-record search of DBRL, RS-RL and L-RL,
the masked file's sorted columns and k-d tree of RS-RL and L-RL, the ranks of RBRL-Sum, RBRL-Max
and PRL-graded, and the rank tree of RBRL-Sum and RBRL-Max.

DBRL (Muralidhar & Domingo-Ferrer 2016, section 2) links each original record to its nearest
masked record on the standardised files; RS-RL and L-RL (Nin, Herranz & Torra 2007, 2008) link it
to its nearest inside a candidate set, and begin with the same nearest record over the whole file,
searching their box only where that record lies outside it (:func:`.location._nearest_in_box`).
All three therefore start with the same exact search (:meth:`.neighbours.KDTree.search`), whose
result depends only on the two standardised files, not on the tree that found it. At 1,000,000 x
10 it is 35-40 s of each attack's 43-59 s (one thread).

:func:`nearest_search` runs that search once per pair of files where a *directory* is set
(:func:`use_directory`; ``sdcrisk assess``'s attack workers set the pair's own directory): the
first attack to need it computes it and writes it there (``.npy`` files, written under a
temporary name and renamed), and the others read it. The entry is named by a digest of the
standardised arrays themselves (BLAKE2b), so an attack on other columns, another masked file or
other values never reads another's. Two workers asking at once: the second waits on a file lock
(``fcntl``) for the first instead of searching too. Without a directory, for files under
:data:`SHARE_MIN` records, and where the directory has no room for the entry (about 56 bytes per
record), each attack searches for itself, as before.

The other shared steps go the same way (:func:`kept`, :func:`tree`): the sorted masked columns and
the tree of RS-RL and L-RL (:func:`.location._sorted_masked`, :func:`.location.link_in_intervals`;
one tree where their keys coincide, as on continuous files), each file's ranks
(:func:`.ranks.rank_matrix`) and RBRL's tree of the masked ranks: each computed once instead of two
or three times (the measurements: docs/benchmarks.md, the k-d tree searches).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .neighbours import KDTree, NearestSearch

SHARE_MIN = 20_000  # records from which the search is kept for the other attacks
ROOM = 1 << 30  # bytes an entry leaves free in the directory, else it is not written
_DIRECTORY: Path | None = None


def use_directory(path) -> None:
    """Keep the shared searches in ``path`` (created if missing), or nowhere (None)."""
    global _DIRECTORY
    _DIRECTORY = None if path is None else Path(path)
    if _DIRECTORY is not None:
        _DIRECTORY.mkdir(parents=True, exist_ok=True)


def active(n: int) -> bool:
    """Whether :func:`nearest_search` keeps its result for other attacks (a directory is set and
    the file has at least :data:`SHARE_MIN` records)."""
    return _DIRECTORY is not None and n >= SHARE_MIN


def digest(*arrays: np.ndarray) -> str:
    """A digest of the arrays' shapes, types and bytes."""
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(memoryview(a).cast("B"))
    return h.hexdigest()


@contextmanager
def _locked(path: Path):
    import fcntl

    with open(path, "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def kept(tag: str, arrays: tuple, fields: tuple, compute) -> dict:
    """``compute()`` (a dict of the arrays named ``fields``) on the input ``arrays``, computed once
    per directory (module docstring): the first caller computes and writes it under ``tag`` and a
    digest of ``arrays``, later callers read it into their own memory (``np.load``; a tree mapped from
    the file instead, ``mmap_mode``, made L-RL's box search at 1,000,000 x 10 take 11.2 s instead of
    1.8 s, and read-only arrays would compile new versions of the numba kernels). Without a
    directory, or for fewer than :data:`SHARE_MIN` rows, ``compute()`` itself. An entry that would
    leave less than :data:`ROOM` free in the directory is not written (every attack then computes
    for itself): all the entries of one pair of n x 10 files take about 1 KB per record, 1 GB at
    10^6 and 10 GB at 10^7 (measured at 10^5: 102 MB)."""
    if not active(arrays[0].shape[0]):
        return compute()
    entry = _DIRECTORY / f"{tag}-{digest(*arrays)}"
    with _locked(entry.with_suffix(".lock")):
        if entry.is_dir():
            return {f: np.load(entry / f"{f}.npy") for f in fields}
        found = compute()
        if shutil.disk_usage(_DIRECTORY).free < sum(np.asarray(found[f]).nbytes for f in fields) + ROOM:
            return found
        partial = entry.with_suffix(f".{os.getpid()}.partial")
        try:
            partial.mkdir()
            for f in fields:
                np.save(partial / f"{f}.npy", found[f])
            partial.rename(entry)
        except OSError:  # no room in the directory: the others compute for themselves
            shutil.rmtree(partial, ignore_errors=True)
        return found


def tree(b: np.ndarray, keys: np.ndarray | None = None, unique: bool = True) -> KDTree:
    """``KDTree(b, keys, unique=unique)``, built once per directory and arrays (module docstring)."""
    b = np.ascontiguousarray(b, dtype=np.float64)
    arrays = (b,) if keys is None else (b, np.ascontiguousarray(keys))

    def build():
        return KDTree(b, keys, unique=unique).state()
    return KDTree.from_state(kept(f"tree{int(unique)}", arrays, KDTree.ARRAYS + ("scalars",), build))


def nearest_search(a: np.ndarray, b: np.ndarray, tree: KDTree | None = None) -> NearestSearch:
    """:meth:`.neighbours.KDTree.search` of the rows of ``a`` over those of ``b`` (``tree``: a
    tree of ``b``, keys allowed, built here when None), computed once per directory and pair of
    arrays (module docstring)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)

    def search():
        found = (tree or KDTree(b)).search(a)
        return {f: getattr(found, f) for f in NearestSearch.FIELDS}
    return NearestSearch(**kept("nearest", (a, b), NearestSearch.FIELDS, search))
