"""Progress inside a long attack: the k-d tree's searches (:mod:`sdcrisk.linkage.neighbours`)
report how many records they have done through :func:`report`; an attack worker
(:mod:`sdcrisk.assess.workers`) installs a reporter that passes the latest message to the command's
progress line. Without a reporter (a library call, the replication) nothing happens.
"""

from __future__ import annotations

import time
from collections.abc import Callable

EVERY = 2.0  # seconds: at most one message per interval reaches the reporter
_reporter: Callable[[str], None] | None = None
_last = 0.0


def set_reporter(func: Callable[[str], None] | None) -> None:
    """Send progress messages to ``func`` (None: drop them)."""
    global _reporter, _last
    _reporter, _last = func, 0.0


def active() -> bool:
    return _reporter is not None


def report(message: str, *, force: bool = False) -> None:
    """Pass ``message`` on, at most once per :data:`EVERY` seconds (``force``: now)."""
    global _last
    if _reporter is None:
        return
    now = time.monotonic()
    if force or now - _last >= EVERY:
        _last = now
        _reporter(message)
