"""The attack worker process, ``python -m sdcrisk.assess.attack_worker DIR`` (:mod:`sdcrisk.assess.workers`
starts it, ``DIR`` its temporary directory): it imports the attacks, then serves the messages read
from stdin until it closes: ``("pair", PATH)`` maps the paired arrays saved in ``PATH`` (a
subdirectory of ``DIR``; the attacks keep the work they share in its ``shared`` subdirectory,
:mod:`sdcrisk.linkage.shared`), ``("attack", ...)`` runs an attack on them, one result per task on a
duplicate of its stdout (its own stdout goes to stderr, so that
a library's print cannot corrupt the stream), with the latest progress message
(:mod:`sdcrisk.progress`) in between. It ignores SIGINT (the parent, in the terminal's
foreground, stops it) and dies with its parent (Linux ``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import warnings
from multiprocessing.connection import Connection
from pathlib import Path

import scipy.stats  # noqa: F401 - the rank-based attacks' rankdata, imported before the first task

from .. import progress
from .assessment import _attack_row, attack_bound
from ..linkage import shared
from ..linkage.probabilistic import ConvergenceWarning
from ..resources import LIMIT_ENV, spare_address_space
from .workers import expected_bytes, load_pair, where


def _die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _reset_peak() -> None:
    """Start a new peak of the resident set (VmHWM; Linux ``clear_refs`` 5)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _peak() -> int:
    """The resident set's peak since :func:`_reset_peak`, in bytes (0 where unknown)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _return_freed_memory() -> None:
    """glibc: every allocation from 1 MiB on gets its own mapping, given back to the system when
    freed. By default glibc raises that threshold up to 32 MiB as large blocks are freed, and the
    arrays an attack allocates below it stay in the heap after use: at 10^6 x 10, PRL-graded's
    worker then held 860 MB after the attack instead of 485, and peaked 300 MB higher in its flow."""
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD (glibc; elsewhere the call is absent)
    except (OSError, AttributeError):
        pass


def main() -> int:
    """Serve ``("pair", path)`` and attack tasks ``("attack", name, cols, seed, prl_candidates,
    memory limit, numba threads)`` and ``("bound", name, cols)`` until stdin closes; answer each task with ``("done", row, peak
    bytes)`` or ``("error", message, where)``."""
    import numba

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    if len(sys.argv) > 1:  # temporary files (resources.park) in the workers' directory, which the
        tempfile.tempdir = sys.argv[1]  # parent removes even where it kills the worker mid-attack
    _return_freed_memory()
    spare_address_space()
    out = os.dup(1)
    os.dup2(2, 1)
    recv, send = Connection(os.dup(0), writable=False), Connection(out, readable=False)
    pair = perm = None
    progress.set_reporter(lambda message: send.send(("progress", message)))
    while True:
        try:
            kind, *message = recv.recv()
        except EOFError:
            return 0
        if kind == "pair":
            pair = perm = None  # the previous pair's mappings go first
            pair, perm = load_pair(Path(message[0]))
            shared.use_directory(Path(message[0]) / "shared")  # searches the attacks share (.linkage.shared)
            continue
        if kind == "bound":  # the bound of an attack (sdcrisk.attacks.BOUNDS): cheap, no limits set
            name, cols = message
            try:
                send.send(("done", attack_bound(name, pair, perm, cols), 0))
            except Exception as exc:  # noqa: BLE001 - reported by the parent as an internal error
                send.send(("error", f"{type(exc).__name__}: {exc}", where(exc)))
            continue
        name, cols, seed, prl_candidates, limit, threads = message
        try:
            os.environ[LIMIT_ENV] = str(max(int(limit), 1))  # what the running attacks leave
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
            _reset_peak()
            with warnings.catch_warnings():  # a non-converged EM is reported in the row's note
                warnings.simplefilter("ignore", ConvergenceWarning)
                expected = None if name == "PRL" and prl_candidates else expected_bytes(name, pair.n)
                row = _attack_row(name, pair, perm, cols, seed, prl_candidates, expected)
            send.send(("done", row, _peak()))
        except Exception as exc:  # noqa: BLE001 - reported by the parent as an internal error
            send.send(("error", f"{type(exc).__name__}: {exc}", where(exc)))


if __name__ == "__main__":
    sys.exit(main())
