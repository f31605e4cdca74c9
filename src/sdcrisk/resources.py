"""Memory budget of the attacks: estimate before a large allocation and refuse clearly.

An attack whose working set grows faster than ``n`` (candidate pairs of probabilistic linkage,
for example) calls :func:`check_memory` with its estimate before allocating, so that a file
too large for the machine stops with a message naming the estimate and the limit instead of
being killed by the operating system. The limit is the environment variable
``SDCRISK_MEMORY_LIMIT`` (bytes, or a number with a K/M/G/T suffix, e.g. ``8G``), else half of
the machine's physical memory.
"""

from __future__ import annotations

import os

LIMIT_ENV = "SDCRISK_MEMORY_LIMIT"
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


class MemoryLimitError(ValueError):
    """An attack would need more memory than the configured limit."""


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume 8 GiB
        return 8 * 2**30


def memory_limit() -> int:
    """The memory an attack may allocate, in bytes (``SDCRISK_MEMORY_LIMIT`` or half the RAM)."""
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
