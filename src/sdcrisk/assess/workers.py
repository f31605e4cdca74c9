"""Attack workers: :func:`sdcrisk.assess` runs the attacks on a large file in child processes.

Why processes, not threads (measured at 100,000 x 10, rank swapping p = 5, 2 cores): the
minimum-cost flow of OR-Tools, which solves PRL's and GDBRL's assignments, holds the
interpreter's lock (GIL) for its whole solve (15 s of PRL's 16.5 s). Two attacks in threads then
take longer than one after the other (the whole command 37.7 s, against 34 s for the attacks
alone in sequence), and Ctrl-C waits for the solver (49 s observed at 200,000 records), because
Python runs a signal handler only in the main thread, between bytecodes, holding the GIL.
In child processes the attacks overlap for real and the parent, which only waits, stops at once.

The parent starts ``count`` workers, ``python -m sdcrisk.assess.attack_worker DIR``
(:mod:`sdcrisk.assess.attack_worker`), each in its own session (a terminal's Ctrl-C reaches only the
parent, which kills them: no stray traceback) and killed by the kernel if the parent dies (Linux
``PR_SET_PDEATHSIG``). ``sdcrisk assess`` starts them before it reads the files where the
original looks large (:func:`start_early`), so that their imports (1.4 s each) overlap the reading,
and keeps them for every masked file of the command: for each file pair it writes the paired
arrays once to a new subdirectory of ``DIR`` (``.npy``, :func:`save_pair`; the workers map them
read-only, so the pages are shared) and tells the workers to map them (:meth:`AttackWorkers.load`).
Measured at 100,000 x 10, 2 cores (docs/benchmarks.md): one masked file about 1 s faster than
with workers started after the reading (15.9-17.0 s against 17.1-18.2 s, interleaved runs; of the
order of the machine's noise), three masked files 67-68 s against 74-76 s with new workers for
each. Messages, tasks and results are pickled over the workers' stdin and a duplicate of their
stdout.
Attacks are handed out longest first (:func:`expected_seconds`), two at a time only while their
expected peak memory (:func:`expected_bytes`) fits the memory limit together
(:mod:`sdcrisk.resources`; a lone attack always runs and checks for itself); each attack may
allocate what the limit leaves beside the other's expectation, and its numba kernels use half
the cores when another attack runs or could run beside it, else all of them. An attack whose
expected peak alone exceeds the limit is refused up front with the estimate (its row says
``not run``), before it allocates anything.

While an attack runs longer than :data:`HEARTBEAT` seconds the parent reports it every
:data:`HEARTBEAT` seconds with its elapsed time, the time left by the estimate of
:func:`expected_seconds` (measured on the reference machine at 10^5 and 10^6 records), and the
latest count of records done that the worker sent (:mod:`sdcrisk.progress`: the k-d tree's
searches, which most attacks spend their time in; the assignment solvers report nothing). When
an attack ends, its line gives its time and its worker's peak resident memory (Linux: the peak
is reset before each attack). Results are those
of the same attacks in the parent process: each worker calls the same function
(``sdcrisk.assess.assessment._attack_row``) on the same arrays and seed. Where the temporary directory
has no room for the arrays, :class:`AttackWorkers` raises :class:`NoRoomError` and the caller
runs the attacks in its own process.
"""

from __future__ import annotations

import math
import os
import pickle
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path

import numpy as np

from ..resources import configured_limit, in_memory

WORKER_MIN = 20_000  # records: from this many sdcrisk.assess runs the attacks in worker processes
HEARTBEAT = 10.0  # seconds between progress lines of a running attack
_WORKER_BASE = 300 * 2**20  # a worker's interpreter and libraries, below what an attack's Needs count
# What each attack needs (time, memory per record, a shared search) is declared where it is
# registered: sdcrisk.attacks.NEEDS (register_attack(name, needs=...) for a plugin).
_ARRAYS = ("x", "y", "cx", "cy")
_LIVE: set["AttackWorkers"] = set()  # running pools, for abort()


class NoRoomError(OSError):
    """The temporary directory cannot hold the workers' arrays."""


class WorkerError(RuntimeError):
    """An attack failed inside a worker: the message has its exception, ``where`` its place."""

    def __init__(self, message: str, where: str = ""):
        super().__init__(message)
        self.where = where


def worker_min() -> int:
    """:data:`WORKER_MIN`, or the environment variable ``SDCRISK_WORKER_MIN`` where set
    (ValueError where it is not a whole number)."""
    raw = os.environ.get("SDCRISK_WORKER_MIN", "").strip()
    try:
        return int(raw) if raw else WORKER_MIN
    except ValueError:
        raise ValueError(f"SDCRISK_WORKER_MIN={raw!r}: expected a whole number of records") from None


def estimated_records(path) -> int | None:
    """About how many records the file at ``path`` holds, without reading it: a Parquet file's
    row count from its footer; a CSV file's size over the mean length of its first lines (64
    KiB); None where the file cannot tell."""
    p = Path(path)
    try:
        if p.suffix.lower() in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            return int(pq.read_metadata(p).num_rows)
        with open(p, "rb") as f:
            head = f.read(65536)
        lines = head.count(b"\n")
        return int(p.stat().st_size * lines / len(head)) - 1 if lines else None
    except Exception:  # noqa: BLE001 - an estimate only: the reader reports what is wrong
        return None


# Memory of reading a file pair and pairing its records (sdcrisk.assess.assessment.read_file, pair_files),
# per value (record x column) of each file, above the interpreter: the peak resident set of
# reading both files of 1,000,000 x 6 and pairing them is 332 MiB (CSV) and 352 MiB (Parquet)
# above the imports, 29.0 and 30.8 bytes per value of the two files together; the fault-injection
# campaign's 50,000,000 x 6 CSV pair peaked at 16.9 GB, 28 bytes per value. Rounded up: 16 per value
# of each file (the parsed columns, the table and its share of the paired arrays).
READ_BYTES_PER_VALUE = 16.0


def file_shape(path) -> tuple[int, int] | None:
    """About how many records and columns the file at ``path`` holds, without reading it
    (:func:`estimated_records`; the columns from a CSV file's header line or a Parquet file's
    footer); None where the file cannot tell."""
    p = Path(path)
    n = estimated_records(p)
    if n is None:
        return None
    try:
        if p.suffix.lower() in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            m = int(pq.read_metadata(p).num_columns)
        else:
            import csv

            with open(p, newline="", encoding="utf-8", errors="replace") as f:
                m = len(next(csv.reader([f.readline()])))
    except Exception:  # noqa: BLE001 - an estimate only: the reader reports what is wrong
        return None
    return max(n, 0), m


def reading_bytes(path) -> float | None:
    """The memory reading the file at ``path`` takes (:data:`READ_BYTES_PER_VALUE` per value,
    :func:`file_shape`), None where the file cannot tell."""
    shape = file_shape(path)
    return None if shape is None else READ_BYTES_PER_VALUE * shape[0] * shape[1]


def memory_problem(original, masked, attacks) -> str | None:
    """Why ``sdcrisk assess`` on the files ``original`` and ``masked`` (one path or several) with
    ``attacks`` (canonical names) would exceed the memory limit (:func:`sdcrisk.resources.configured_limit`),
    told from the files' sizes before anything is read; None where it fits or the files cannot
    tell (the reader then names what is wrong). Two causes, one masked file at a time (the command
    reads the original again for each): reading both files and pairing them
    (:func:`reading_bytes`), and, where the attacks run in workers (from :func:`worker_min`
    records), every record-linkage attack's expected peak (:func:`expected_bytes`), which the
    workers would refuse one by one after the reading."""
    from ..resources import LIMIT_ENV, size_text as gib

    limit = configured_limit()
    first = file_shape(original)
    if first is None:
        return None
    n, m = first
    links = [a for a in attacks if a != "ID"]
    for path in [masked] if isinstance(masked, (str, os.PathLike)) else list(masked):
        other = file_shape(path)
        if other is None:
            continue
        need = READ_BYTES_PER_VALUE * (n * m + other[0] * other[1])
        if need > limit:
            return (f"{original} and {path}: reading them needs about {gib(need)} (about {n:,} records x {m} "
                    f"columns and {other[0]:,} x {other[1]}, estimated from the files' sizes; "
                    f"{READ_BYTES_PER_VALUE:.0f} bytes per value), more than the memory limit of {gib(limit)} "
                    f"({LIMIT_ENV}); raise the limit or assess a sample of the records")
    try:
        least = worker_min()
    except ValueError:
        return None  # the command reports it
    if links and n >= least:
        name = min(links, key=lambda a: expected_bytes(a, n))
        need = expected_bytes(name, n)
        if need > limit:
            return (f"{original}: about {n:,} records (estimated from the file's size): every attack asked for "
                    f"needs more than the memory limit of {gib(limit)} ({LIMIT_ENV}), the least {name} about "
                    f"{gib(need)} (its peak measured per record, sdcrisk.assess.workers); raise the limit or assess a "
                    "sample of the records")
    return None


def start_early(path, count: int = 2) -> "AttackWorkers | None":
    """Attack workers started before the files are read, where the file at ``path`` (the
    original) looks large enough to need them (:func:`estimated_records` >= :func:`worker_min`):
    their imports then overlap the reading (module docstring).
    None otherwise; the caller closes them. Either way, removes the workers' directories left by
    killed commands first (:func:`sweep_stale`)."""
    sweep_stale()
    try:
        least = worker_min()
    except ValueError:
        return None  # the command reports it where it decides
    n = estimated_records(path)
    if n is None or n < least:
        return None
    return AttackWorkers(count)


def _power_law(points, n: int) -> float:
    from ..attacks import NEEDS_SIZES

    (t1, t2), (n1, n2) = points, NEEDS_SIZES
    return t1 * (n / n1) ** (math.log(t2 / t1) / math.log(n2 / n1))


def shares_search(name: str) -> bool:
    """Whether ``name`` begins with the shared nearest-record search (``sdcrisk.attacks.Needs``)."""
    from ..attacks import NEEDS

    return name in NEEDS and NEEDS[name].shares_search


def expected_seconds(name: str, n: int, searched: bool = False) -> float | None:
    """The time ``name`` should take on ``n`` records on the reference machine: the power law
    through its two measured sizes (``sdcrisk.attacks.NEEDS``); ``searched``: another attack has
    run the nearest-record search this one would begin with (``Needs.shares_search``)."""
    from ..attacks import NEEDS, SEARCH

    needs = NEEDS.get(name)
    if needs is None or needs.seconds is None or n < 2:
        return None
    own = _power_law(needs.seconds, n)
    if searched and needs.shares_search:
        own = max(own - _power_law(SEARCH.seconds, n), 0.05 * own)
    return own


def expected_bytes(name: str, n: int) -> float:
    """The peak memory of ``name``'s worker on ``n`` records: proportional to n from the 10^6
    measurement (``Needs.bytes_per_record``), the largest of any attack for one not measured;
    where the temporary directory is held in memory, ``Needs.unparked`` where declared."""
    from ..attacks import NEEDS

    unparked = in_memory(tempfile.gettempdir())
    per = {a: (v.unparked if unparked and v.unparked is not None else v.bytes_per_record)
           for a, v in NEEDS.items() if v.bytes_per_record is not None}
    return _WORKER_BASE + per.get(name, max(per.values())) * n


def _running(name: str, known: int, n: int, elapsed: float, searched: bool = False) -> str:
    expect = expected_seconds(name, n, searched)
    if expect is None:
        hint = ""
    elif expect > elapsed:
        hint = f", about {expect - elapsed:.0f} s left (estimated from the reference machine)"
    else:  # the estimate holds for the reference runs' untied values: none is left to give
        hint = (f", beyond the {expect:.0f} s estimated from the reference machine on untied values "
                "(tied values make the attacks compare more pairs)")
    return f"{name}, {known} known attribute(s): running for {elapsed:.0f} s{hint}"


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


DIR_PREFIX = "sdcrisk-workers-"
_OWNED = re.compile(re.escape(DIR_PREFIX) + r"(\d+)@(.+)-[^-]+$")


def _owner_prefix() -> str:
    """The temporary directory's name up to mkdtemp's random part: its owner's pid and host
    (``sdcrisk-workers-PID@HOST-``), so that a later run can tell a directory no live process
    owns (:func:`sweep_stale`)."""
    return f"{DIR_PREFIX}{os.getpid()}@{socket.gethostname().replace('/', '_')}-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):  # another user's process: alive
        return True
    return True


def sweep_stale(where=None) -> list[Path]:
    """Remove the workers' directories in ``where`` (default: the temporary directory, ``TMPDIR``)
    that no live process owns: those of a command killed with SIGKILL (``kill -9``, the
    out-of-memory killer), which had no chance to remove its arrays (39 MB at 200,000 x 6, about
    1 GB at 10^6). Only directories of this host whose owner pid (in the name, :func:`_owner_prefix`)
    is not running go; a directory of another host (a shared ``TMPDIR``) or without an owner in its
    name stays. Returns the directories removed."""
    here = socket.gethostname().replace("/", "_")
    removed = []
    try:
        entries = list(Path(where or tempfile.gettempdir()).glob(DIR_PREFIX + "*"))
    except OSError:
        return removed
    for d in entries:
        owner = _OWNED.match(d.name)
        if owner is None or owner.group(2) != here or not d.is_dir():
            continue
        pid = int(owner.group(1))
        if pid == os.getpid() or _alive(pid):
            continue
        shutil.rmtree(d, ignore_errors=True)
        if not d.exists():
            removed.append(d)
    return removed


class AttackWorkers:
    """``count`` worker processes; :meth:`load` hands them a file pair, :meth:`run` its attack
    tasks. The processes start (and import the attacks, 1.4 s) before any file is read, so
    that ``sdcrisk assess`` starts them while it reads the files (:func:`start_early`), and serve
    every masked file of the command in turn. Use as a context manager: leaving it (also by
    Ctrl-C or an error) kills the workers and removes the temporary directory."""

    def __init__(self, count: int):
        sweep_stale()
        self.dir = Path(tempfile.mkdtemp(prefix=_owner_prefix()))
        self.procs: list[subprocess.Popen] = []
        self.pairs = 0  # pairs loaded so far (each in its own subdirectory)
        _LIVE.add(self)
        try:
            self.ensure(count)
        except BaseException:
            self.close()
            raise

    @property
    def count(self) -> int:
        return len(self.procs)

    def ensure(self, count: int) -> None:
        """At least ``count`` workers (new ones get the pair loaded last, if any)."""
        while len(self.procs) < max(1, int(count)):
            self.procs.append(subprocess.Popen([sys.executable, "-m", "sdcrisk.assess.attack_worker", str(self.dir)],
                                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ),
                                               start_new_session=True))
            if self.pairs:
                self._send(self.procs[-1], ("pair", str(self._pair_dir())))

    def _pair_dir(self) -> Path:
        """The subdirectory of the pair loaded last."""
        return self.dir / f"pair-{self.pairs}"

    @staticmethod
    def _send(proc: subprocess.Popen, message) -> None:
        conn = Connection(os.dup(proc.stdin.fileno()), readable=False)
        try:
            conn.send(message)
        finally:
            conn.close()

    def load(self, pair, perm: np.ndarray) -> None:
        """Write ``pair``'s arrays and ``perm`` to a new subdirectory and have every worker map
        them (replacing the previous pair, whose files are removed). ``pair``'s own arrays are then
        replaced by mappings of the same files (:func:`_mapped`), so that this process holds no
        private copy beside the workers' (1.6 GB at 10^7 x 10). :class:`NoRoomError` where the temporary
        directory cannot hold them."""
        need = sum(getattr(pair, name).nbytes for name in _ARRAYS) + perm.nbytes
        free = shutil.disk_usage(self.dir).free
        if need > 0.9 * free:
            raise NoRoomError(f"the attack workers' arrays need {need / 2**30:.2f} GiB in {tempfile.gettempdir()}, "
                              f"which has {free / 2**30:.2f} GiB free (TMPDIR chooses the place)")
        previous = self._pair_dir()
        self.pairs += 1
        here = self._pair_dir()
        here.mkdir()
        save_pair(here, pair, perm)
        for proc in self.procs:
            self._send(proc, ("pair", str(here)))
        for name, mapped in _mapped(here).items():
            setattr(pair, name, mapped)
        shutil.rmtree(previous, ignore_errors=True)  # the workers' mappings outlive the names

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        """Kill the workers (at once: an attack may hold a solver for minutes) and remove the arrays."""
        for p in self.procs:
            if p.poll() is None:
                p.kill()
        for p in self.procs:
            p.wait()
            for stream in (p.stdin, p.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
        shutil.rmtree(self.dir, ignore_errors=True)
        _LIVE.discard(self)

    def run(self, tasks, seed, prl_candidates, n: int, say, before=lambda name: None, meanwhile=None,
            bounds: bool = False, data_bytes: dict | None = None):
        """The rows of ``tasks`` ([(attack name, known column indices)]), in order, and what
        ``meanwhile()`` returned (called in this process while the workers run, e.g. the
        information loss); ``before(name)`` is called before an attack starts (the compile
        warm-up's wait). ``bounds``: the attacks with a bound (:data:`sdcrisk.attacks.BOUNDS`) are
        handed out after the others; a worker computes the bound, and once every other attack has
        finished the attack runs only where the bound exceeds their best result
        (:func:`sdcrisk.assess.assessment.bounded_row`; the default set of ``sdcrisk assess``).
        ``data_bytes``: {task: bytes} where an attack's memory follows the values
        (``Needs.data_bytes``); a task's expected memory is the larger of that and
        :func:`expected_bytes`."""
        from ..attacks import BOUNDS
        from .bounds import best_result, bounded_row

        bounded = {k for k, (name, _) in enumerate(tasks) if bounds and name in BOUNDS}
        others = [k for k in range(len(tasks)) if k not in bounded]
        order = sorted(range(len(tasks)), key=lambda k: (k in bounded, -(expected_seconds(tasks[k][0], n) or 0.0)))
        data_bytes = data_bytes or {}

        def need(k) -> float:
            return max(expected_bytes(tasks[k][0], n), _WORKER_BASE + data_bytes.get(k, 0.0))

        budget = configured_limit()  # each worker also checks its own address space
        ready = threading.Condition()
        running: dict[int, float] = {}  # task -> its expected peak memory, while it runs
        results: dict[int, dict] = {}
        failure: list[BaseException] = []
        searchers: set[tuple] = set()  # the known columns of the sharers' searches started so far

        def take() -> tuple[int, float, int] | None:
            """The next task that fits beside the running ones (longest first; a bounded one once
            every other has been handed out), its memory limit and numba threads; waits while none
            fits; None when none is left."""
            with ready:
                while not failure and order:
                    used = sum(running.values())
                    rest = [k for k in order if k not in bounded] or order
                    fits = [k for k in rest if not running or used + need(k) <= budget]
                    if fits:
                        k = fits[0]
                        order.remove(k)
                        running[k] = need(k)
                        # alone: nothing else runs, and nothing left could run beside it
                        alone = len(running) == 1 and not any(
                            used + running[k] + need(j) <= budget for j in order)
                        return k, budget - used, _cores() if alone else max(1, _cores() // self.count)
                    ready.wait()
                return None

        def answer(send, recv, proc, message, name, cols, searched):
            """Send ``message`` to the worker and wait for its answer, saying how long it runs."""
            send.send(message)
            t0, beat, latest = time.perf_counter(), HEARTBEAT, ""
            while True:
                if recv.poll(1.0):
                    kind, *payload = recv.recv()
                    if kind != "progress":
                        break
                    latest = payload[0]
                elif proc.poll() is not None:
                    raise WorkerError(f"the worker running {name} ended with status {proc.returncode}")
                elapsed = time.perf_counter() - t0
                if elapsed >= beat:
                    beat += HEARTBEAT
                    say(_running(name, len(cols), n, elapsed, searched) + (f"; {latest}" if latest else ""))
            if kind == "error":
                raise WorkerError(*payload)
            return payload

        def settle(k, reach, seconds) -> dict | None:
            """The bounded row of task ``k`` once every other task has finished, or None (run it)."""
            with ready:
                del running[k]
                ready.notify_all()
                while not failure and not all(j in results for j in others):
                    ready.wait()
                if failure:
                    return None
                row = bounded_row(tasks[k][0], reach, n, best_result(
                    [(results[j], tasks[j][0], len(tasks[j][1])) for j in others]), seconds)
                if row is None:
                    running[k] = need(k)
                return row

        def serve(proc: subprocess.Popen) -> None:
            send = Connection(os.dup(proc.stdin.fileno()), readable=False)
            recv = Connection(os.dup(proc.stdout.fileno()), writable=False)
            try:
                while (job := take()) is not None:
                    k, limit, threads = job
                    name, cols = tasks[k]
                    row = None
                    if k in bounded:
                        t0 = time.perf_counter()
                        reach, _ = answer(send, recv, proc, ("bound", name, cols), name, cols, False)
                        row = settle(k, reach, time.perf_counter() - t0)
                        if failure:
                            break
                    if row is None:
                        with ready:
                            searched = shares_search(name) and tuple(cols) in searchers
                            if shares_search(name):
                                searchers.add(tuple(cols))
                        before(name)
                        row, peak = answer(send, recv, proc, ("attack", name, cols, seed, prl_candidates, limit, threads),
                                           name, cols, searched)
                    else:
                        peak = 0
                    with ready:
                        results[k] = row
                        running.pop(k, None)
                        ready.notify_all()
                        memory = f", peak memory {peak / 2**30:.2f} GiB" if peak else ""
                        say(f"[{len(results)}/{len(tasks)}] {name}, {len(cols)} known attribute(s): "
                            f"{results[k]['seconds']:.1f} s{memory}")
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                with ready:
                    failure.append(exc)
                    ready.notify_all()
            finally:
                send.close()
                recv.close()

        threads = [threading.Thread(target=serve, args=(p,), daemon=True) for p in self.procs]
        for t in threads:
            t.start()
        other = meanwhile() if meanwhile is not None else None
        for t in threads:
            while t.is_alive():
                t.join(0.2)  # short waits: Ctrl-C in the main thread is handled at once
        if failure:
            raise failure[0]
        return [results[k] for k in range(len(tasks))], other


def abort() -> None:
    """Kill every running worker and remove its arrays (the command's Ctrl-C handler)."""
    for pool in list(_LIVE):
        pool.close()


def where(exc: BaseException) -> str:
    """The innermost frame of the package in ``exc``'s traceback: ' at path:line (function)'."""
    root = Path(__file__).resolve().parents[1]  # the sdcrisk package
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        try:
            rel = Path(frame.filename).resolve().relative_to(root.parent)
        except ValueError:
            continue
        return f" at {rel.as_posix()}:{frame.lineno} ({frame.name})"
    return ""


def save_pair(directory: Path, pair, perm: np.ndarray) -> None:
    """The arrays of ``pair`` and ``perm`` as ``.npy`` files in ``directory``, the rest pickled."""
    for name in _ARRAYS:
        np.save(directory / f"{name}.npy", getattr(pair, name))
    np.save(directory / "perm.npy", perm)
    (directory / "pair.pickle").write_bytes(pickle.dumps(replace(pair, **{name: None for name in _ARRAYS})))


def _mapped(directory: Path) -> dict:
    """The arrays :func:`save_pair` wrote, mapped copy-on-write: pages shared between the processes,
    and writable, so that an attack or a measure takes all the columns as they are instead of a
    copy (:func:`sdcrisk.validation.prepare` copies read-only input; no attack writes into its
    input, ``tests/test_attacks_inputs.py``, and a write would change that process's pages only)."""
    return {name: np.load(directory / f"{name}.npy", mmap_mode="c") for name in _ARRAYS}


def load_pair(directory: Path):
    """:func:`save_pair`'s ``(pair, perm)``, the arrays mapped (:func:`_mapped`)."""
    pair = pickle.loads((directory / "pair.pickle").read_bytes())
    return replace(pair, **_mapped(directory)), np.load(directory / "perm.npy")
