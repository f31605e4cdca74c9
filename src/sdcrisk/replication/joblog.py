"""Standard error of a workflow job: everything goes to the job's log file, and an error that
ends the job is also printed on the console in one line, so that it is seen where Snakemake runs,
not only in ``logs/``."""

from __future__ import annotations

import sys
import traceback


_log = None  # the log file a previous call opened (a batch job logs its cells one after another)


def log_stderr(path: str) -> None:
    """Send standard error to ``path``; an uncaught exception goes to the console as
    ``ERROR (log: path): <message>`` and there in full (if the disk takes it). A second call
    closes the first call's file."""
    global _log
    if _log is not None:
        _log.close()
    log = _log = open(path, "w")
    sys.stderr = log

    def hook(kind, value, tb):
        # the console first: on a full disk the log cannot take the traceback
        print(f"ERROR (log: {path}): {kind.__name__}: {value}", file=sys.__stderr__, flush=True)
        try:
            traceback.print_exception(kind, value, tb, file=log)
            log.flush()
        except OSError:
            pass

    sys.excepthook = hook
