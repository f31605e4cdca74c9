"""Memory budget of the attacks: estimate before a large allocation and refuse clearly.

An attack whose working set grows faster than ``n`` (candidate pairs of probabilistic linkage,
for example) calls :func:`check_memory` with its estimate before allocating, so that a file
too large for the machine stops with a message naming the estimate and the limit instead of
being killed by the operating system. The limit is the environment variable
``SDCRISK_MEMORY_LIMIT`` (bytes, or a number with a K/M/G/T suffix, e.g. ``8G``), else half of
the machine's physical memory; where the process has an address-space limit (``ulimit -v``,
``RLIMIT_AS``), no more than what is left of it.

Work that grows faster than the data but would fit in memory (tied values making probabilistic
linkage compare most pairs) is refused up front by :func:`check_work` with the estimate and the
reason, rather than running for hours.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import tempfile
import weakref

LIMIT_ENV = "SDCRISK_MEMORY_LIMIT"
PARK_MIN = 64 * 2**20  # bytes from which park() writes arrays to disk rather than keep them
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})


class MemoryLimitError(ValueError):
    """An attack would need more memory than the configured limit."""


class WorkLimitError(MemoryLimitError):
    """An attack would take far longer than its design size allows (refused up front)."""


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume 8 GiB
        return 8 * 2**30


def address_space_limit() -> int | None:
    """The process's address-space limit (``ulimit -v``, soft ``RLIMIT_AS``) in bytes, or None."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _virtual_size() -> int | None:
    try:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
    except (OSError, ValueError, StopIteration):
        return None


def _address_space_left() -> int | None:
    """What the process's address-space limit (``RLIMIT_AS``) leaves, or None without one."""
    soft, size = address_space_limit(), _virtual_size()
    return None if soft is None or size is None else max(soft - size, 0)


def spare_address_space() -> None:
    """Under an address-space limit, keep the libraries from reserving address space they may
    never use, which the limit counts as if it were memory: pyarrow's default allocator
    (mimalloc) reserves about 1 GiB on the first Parquet read, and glibc one malloc arena of
    64 MiB per thread. Switches pyarrow to the system allocator and caps glibc at two arenas
    (measured: the virtual size after reading a Parquet file and importing the attacks, 1.9 GiB
    -> 0.8 GiB). Does nothing without a limit."""
    if address_space_limit() is None:
        return
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(-8, 2)  # M_ARENA_MAX (glibc; elsewhere the call is absent)
    except (OSError, AttributeError):
        pass
    try:
        import pyarrow

        pyarrow.set_memory_pool(pyarrow.system_memory_pool())
    except ImportError:
        pass


def out_of_memory(what: str) -> str:
    """The message for a failed allocation during ``what``: names the address-space limit where
    one is set (it counts reserved address space, not memory in use)."""
    soft, size = address_space_limit(), _virtual_size()
    if soft is None:
        return f"{what}: out of memory"
    used = f", the process's virtual size {gib(size)}" if size else ""
    return (f"{what}: out of address space (the limit ulimit -v of {gib(soft)}{used}); raise the limit, "
            f"or lift it and bound the memory in use with {LIMIT_ENV}")


def memory_limit() -> int:
    """The memory an attack may allocate in this process, in bytes (:func:`configured_limit`; no
    more than this process's address-space limit leaves)."""
    left = _address_space_left()
    limit = configured_limit()
    return limit if left is None else min(limit, left)


def configured_limit() -> int:
    """``SDCRISK_MEMORY_LIMIT``, else half the RAM: the memory in use all attacks together may
    take (an address-space limit is per process; each attack worker checks its own)."""
    raw = os.environ.get(LIMIT_ENV, "").strip().upper().removesuffix("B")
    if not raw:
        return _physical_memory() // 2
    unit = raw[-1] if raw[-1] in _UNITS else ""
    try:
        value = float(raw[: len(raw) - len(unit)]) * _UNITS[unit]
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ValueError(f"{LIMIT_ENV}={os.environ[LIMIT_ENV]!r}: expected a positive number of bytes, "
                         "optionally with a K, M, G or T suffix (e.g. 8G)")
    return int(value)


def gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:.2f} GiB"


def size_text(nbytes: float) -> str:
    """``nbytes`` in GiB from 0.1 GiB, else in MiB or KiB (a tiny limit stays readable)."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20)):
        if nbytes >= 0.1 * scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes / 2**10:.1f} KiB"


def check_memory(what: str, nbytes: float, hint: str = "") -> None:
    """Raise :class:`MemoryLimitError` if ``nbytes`` exceeds :func:`memory_limit`."""
    limit = memory_limit()
    if nbytes > limit:
        raise MemoryLimitError(f"{what}: needs about {gib(nbytes)}, more than the limit of {gib(limit)} "
                               f"(set {LIMIT_ENV} to change it){'; ' + hint if hint else ''}")


def check_work(what: str, units: float, limit: float, rate: float, hint: str = "") -> None:
    """Raise :class:`WorkLimitError` if ``units`` of work (e.g. candidate pairs) exceed ``limit``;
    the message gives the estimate at ``rate`` units per second on the reference machine."""
    if units > limit:
        raise WorkLimitError(f"{what}: about {units:,.0f}, above the limit of {limit:,.0f} (roughly "
                             f"{units / rate / 60:,.0f} min or more on the reference machine): refused up front"
                             f"{'; ' + hint if hint else ''}")


def filesystem_type(path, mounts: str = "/proc/self/mounts") -> str | None:
    """The type of the file system holding ``path`` (the mount point that is its longest prefix in
    ``mounts``, octal escapes decoded), or None where that cannot be read (not Linux)."""
    real = os.path.realpath(path)
    best, kind = "", None
    try:
        with open(mounts) as fh:
            for line in fh:
                parts = line.split()
                if len(parts) < 3:
                    continue
                point = re.sub(r"\\([0-7]{3})", lambda g: chr(int(g.group(1), 8)), parts[1])
                inside = real == point or real.startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best):
                    best, kind = point, parts[2]
    except OSError:
        return None
    return kind


@functools.lru_cache(maxsize=None)
def in_memory(path) -> bool:
    """Whether files written under ``path`` take memory rather than disk (tmpfs, ramfs: /dev/shm,
    and /tmp on many systems), so that :func:`park` would spare nothing there."""
    return filesystem_type(path) in MEMORY_FILESYSTEMS


class Parked:
    """Arrays set aside by :func:`park`; :meth:`load` returns them (once)."""

    def __init__(self, arrays: tuple):
        import numpy as np

        self._kept, self._dir, self._count = arrays, None, len(arrays)
        if sum(int(a.nbytes) for a in arrays) < PARK_MIN:
            return
        try:
            self._dir = tempfile.mkdtemp(prefix="sdcrisk-park-")
            self._cleanup = weakref.finalize(self, shutil.rmtree, self._dir, ignore_errors=True)
            if shutil.disk_usage(self._dir).free < 2 * sum(int(a.nbytes) for a in arrays):
                raise OSError("no room")
            if in_memory(os.path.dirname(self._dir)):
                raise OSError("a file system in memory: writing there would spare nothing")
            for i, a in enumerate(arrays):
                np.save(os.path.join(self._dir, f"{i}.npy"), a)
            self._kept = None
        except OSError:  # no room (or no temporary directory): kept in memory, the same result
            self._release()

    def _release(self) -> None:
        if self._dir is not None:
            self._cleanup()
            self._dir = None

    def load(self) -> list:
        import numpy as np

        if self._kept is not None:
            arrays, self._kept = list(self._kept), None
            return arrays
        try:
            return [np.load(os.path.join(self._dir, f"{i}.npy")) for i in range(self._count)]
        finally:
            self._release()


def park(*arrays) -> Parked:
    """Write ``arrays`` to a new temporary directory (``TMPDIR``) so that the caller can drop its
    references before a memory peak (a flow solver's network) and :meth:`Parked.load` them after;
    below :data:`PARK_MIN` bytes, where the directory has no room for them, or where it is held in
    memory itself (:func:`in_memory`), they stay in memory instead (the same result, the memory
    not spared). The directory goes with the load, or with
    the object; an attack worker makes it inside the workers' directory, which ``sdcrisk assess``
    removes even where it kills the worker (Ctrl-C)."""
    return Parked(arrays)
