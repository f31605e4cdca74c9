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

import os

LIMIT_ENV = "SDCRISK_MEMORY_LIMIT"
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


class MemoryLimitError(ValueError):
    """An attack would need more memory than the configured limit."""


class WorkLimitError(MemoryLimitError):
    """An attack would take far longer than its design size allows (refused up front)."""


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume 8 GiB
        return 8 * 2**30


def _address_space_left() -> int | None:
    """What the process's address-space limit (``RLIMIT_AS``) leaves, or None without one."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/status") as fh:
            size = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
        return max(soft - size, 0)
    except (ImportError, OSError, ValueError, StopIteration):
        return None


def memory_limit() -> int:
    """The memory an attack may allocate, in bytes (``SDCRISK_MEMORY_LIMIT`` or half the RAM; no
    more than the address-space limit leaves)."""
    left = _address_space_left()
    limit = _configured_limit()
    return limit if left is None else min(limit, left)


def _configured_limit() -> int:
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
