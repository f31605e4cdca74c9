"""Command line: ``sdcrisk assess ORIGINAL MASKED [MASKED ...]``, ``sdcrisk check-config
[CONFIGFILE ...]`` and ``sdcrisk compile`` (the numba kernels, after an install).

Every error ends with one line ``sdcrisk <command>: error: ...`` on standard error, never a
traceback (``SDCRISK_DEBUG=1`` adds it for an internal error); see ``docs/assess.md`` and
``docs/bad_inputs.md``. Exit statuses of ``sdcrisk assess`` (:data:`sdcrisk.assess.arguments.EXIT_STATUSES`): 0 done;
1 internal error (an unexpected exception: a defect of sdcrisk or of the machine, e.g. out of
memory; the line names the exception and where it arose); 2 bad input (files, options, the
``--out`` place, its free space; nothing attacked or nothing written); 3 the report was written
and an attack's point estimate exceeds ``--max-risk``; 4 the report was written and the
``--max-risk`` gate could not be decided (an attack not run, or records that row order does not
pair; :func:`sdcrisk.assess.report.gate`); 130 interrupted (Ctrl-C; no report written); 143 terminated
(SIGTERM during the attacks; no report written).

The entry point only (``sdcrisk`` in pyproject's ``[project.scripts]``): no module imports it. What
other code shares with the command (its parser, exit statuses, ``--max-risk`` and the report's
``meta``) is in :mod:`sdcrisk.assess.arguments` (``tests/test_layers.py``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

from . import __version__
from .assess.arguments import (EXIT_GATE, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK,
                               EXIT_TERMINATED, EXIT_UNDECIDED, Parser, add_assess_parser, gate_problem, max_risk_limits,
                               report_meta, secrets, split, tolerance_value)


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="sdcrisk", description="Disclosure risk and information loss of masked microdata.")
    p.add_argument("--version", action="version", version=f"sdcrisk {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    add_assess_parser(sub)
    c = sub.add_parser("check-config", help="check config files as the workflow reads them; print the compute estimate",
                       description="Layer each CONFIGFILE on the reference config, as `snakemake --configfile "
                                   "CONFIGFILE` does, validate the result and print its compute estimate (cell jobs, "
                                   "maskings, linkages, CPU time; the limit is the config key max_linkages). A "
                                   "mistake ends with one line naming the file and key (a YAML syntax error: its "
                                   "line and column).")
    c.add_argument("configfile", nargs="*", help="config file(s) layered on the reference config, in order")
    c.add_argument("--reference", default="config/config.yaml",
                   help="the reference config, with datasets.yaml beside it (default: %(default)s)")
    k = sub.add_parser("compile", help="compile the numba kernels into the cache now (after an install), so that "
                                       "the first sdcrisk assess does not wait for them",
                       description="Compile every group of numba kernels (the attacks', the masking methods') "
                                   "into the numba cache (NUMBA_CACHE_DIR, by default the user cache directory), "
                                   "the groups in parallel processes. Groups compiled before for this source are "
                                   "skipped. See sdcrisk.kernels and sdcrisk.compile.")
    k.add_argument("group", nargs="*", help="kernel groups (default: all)")
    k.add_argument("--jobs", type=int, default=None, help="processes at a time (default: the usable cores)")
    k.add_argument("--force", action="store_true", help="compile groups already compiled, too")
    k.add_argument("--quiet", action="store_true", help="no progress messages (a line per kernel group, on "
                                                        "standard error); the closing line stays")
    return p


def compile_command(args) -> int:
    """``sdcrisk compile``: :func:`sdcrisk.compile.compile_all`, a progress line per group on
    standard error (none with ``--quiet``) and a closing line on standard output."""
    from .compile import _silent, _stderr, compile_all

    t0 = time.perf_counter()
    try:
        done = compile_all(args.group or None, jobs=args.jobs, force=args.force,
                           say=_silent if args.quiet else _stderr)
    except ValueError as exc:
        print(f"sdcrisk compile: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # noqa: BLE001 (one line, as every command's errors)
        if os.environ.get("SDCRISK_DEBUG"):
            traceback.print_exc()
        print(f"sdcrisk compile: error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print("sdcrisk compile: interrupted (the groups compiled so far stay cached)", file=sys.stderr)
        return EXIT_INTERRUPTED
    where = os.environ.get("NUMBA_CACHE_DIR")
    print(f"numba kernels compiled into {where} in {time.perf_counter() - t0:.1f} s" if done
          else f"numba kernels already compiled in {where}")
    return EXIT_OK


def _fail(message: str, status: int = EXIT_INPUT) -> int:
    print(f"sdcrisk assess: error: {message}", file=sys.stderr, flush=True)
    return status


def out_problem(out: str | os.PathLike) -> str | None:
    """Why the report cannot be written to directory ``out`` (``None`` when it can), found
    without leaving anything behind: an existing file at that path, a file among its parents, or
    a place where nothing can be created (checked by creating and removing a temporary entry,
    which also holds for root on a read-only file system)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        return f"--out {out}: is a file; expected a directory (existing or to be created)"
    place = out
    while not place.exists() and place != place.parent:
        place = place.parent
    if not place.is_dir():
        return f"--out {out}: {place} is a file, not a directory"
    try:
        if out.exists():
            fd, probe = tempfile.mkstemp(prefix=".sdcrisk-probe-", dir=out)
            os.close(fd)
            os.unlink(probe)
        else:
            os.rmdir(tempfile.mkdtemp(prefix=".sdcrisk-probe-", dir=place))
    except OSError as exc:
        return f"--out {out}: cannot write in {place} ({exc.strerror or exc})"
    return None


REPORT_BYTES = 256 * 1024  #: a rough bound of the report's size: this much, plus as much again per masked file
# (measured: 144 KB for one 300-record file with 4 scenarios, 224 KB for three; the figures grow with the files)


def report_bytes(files: int) -> int:
    """The space the report of ``files`` masked files is expected to take, with room to spare."""
    return REPORT_BYTES * (1 + files)


def _existing_place(out: Path) -> Path:
    """``out`` or its nearest existing parent: where the report's directory is or will be created."""
    place = out
    while not place.exists() and place != place.parent:
        place = place.parent
    return place


def space_problem(out: str | os.PathLike, files: int) -> str | None:
    """Why the report of ``files`` masked files will not fit in ``out``'s file system (``None``
    when it will): its free space (:func:`shutil.disk_usage`) below :func:`report_bytes`. Checked
    before any attack, so that a full disk does not waste the attacks' time."""
    out = Path(out)
    place = _existing_place(out)
    need = report_bytes(files)
    try:
        free = shutil.disk_usage(place).free
    except OSError:  # cannot tell: the writing itself will say
        return None
    if free < need:
        return (f"--out {out}: {free / 1024:,.0f} KiB free in {place}; the report of {files} masked file(s) needs "
                f"about {need / 1024:,.0f} KiB")
    return None


def _missing_dirs(out: Path) -> list[Path]:
    """The directories that writing into ``out`` would create, deepest first."""
    made = []
    while not out.exists() and out != out.parent:
        made.append(out)
        out = out.parent
    return made


def _remove_empty(dirs: list[Path]) -> None:
    """Remove the directories ``dirs`` (deepest first) that the command created and left empty."""
    for d in dirs:
        try:
            d.rmdir()
        except OSError:  # not empty, or gone
            return


def _where(exc: BaseException) -> str:
    """The innermost frame of the package in ``exc``'s traceback: ' at path:line (function)'
    (:func:`sdcrisk.assess.workers.where`; an attack worker's error carries its own)."""
    from .assess.workers import where

    return getattr(exc, "where", None) or where(exc)


def _interrupted(signum=None, frame=None):
    """SIGINT (or SIGTERM) while attacks run: one line, exit 130 (143) at once (the attacks'
    threads are not waited for, their worker processes are killed and their temporary arrays
    removed; nothing has been written yet)."""
    term = signum == signal.SIGTERM
    try:
        sys.stdout.flush()
        print(f"sdcrisk assess: error: {'terminated' if term else 'interrupted'}; no report written",
              file=sys.stderr, flush=True)
        from .assess.workers import abort

        abort()
    finally:
        os._exit(EXIT_TERMINATED if term else EXIT_INTERRUPTED)


def _argument_problem(args) -> str | None:
    """The first mistake among the options, the environment and the files' sizes that would
    otherwise surface only after the files are read (``None`` when there is none): a negative
    ``--seed``, a masked file given twice, ``SDCRISK_MEMORY_LIMIT`` or ``SDCRISK_WORKER_MIN`` not
    of their form, and files whose reading or every attack would exceed the memory limit
    (:func:`sdcrisk.assess.workers.memory_problem`, from the files' sizes, nothing read)."""
    from .resources import configured_limit
    from .assess.workers import memory_problem, worker_min

    if args.seed < 0:
        return f"--seed: expected a whole number >= 0, got {args.seed}"
    seen: dict[str, str] = {}
    for path in args.masked:
        key = os.path.realpath(path)
        if key in seen:
            return (f"masked file given twice: {path} is {seen[key]}" if path != seen[key]
                    else f"masked file given twice: {path}") + "; give each masked file once"
        seen[key] = path
    for check in (configured_limit, worker_min):
        try:
            check()
        except ValueError as exc:
            return str(exc)
    from .assess.assessment import AssessError, attack_names

    problem = _secret_problem(args)
    if problem:
        return problem
    try:
        attacks = attack_names(split(args.attacks))
    except AssessError:
        return None  # assess names it
    return memory_problem(args.original, args.masked, attacks)


def _secret_problem(args) -> str | None:
    """A ``--secret`` the files or the other options rule out, from the files' header rows only:
    a secret also in ``--known``, with ``--scenarios``, ``each`` without ``--known``, or a secret
    that is not a column of the original and of every masked file (or is the ``--id`` column)."""
    from .assess.assessment import READERS, AssessError, _header, secret_names

    wanted = secrets(args.secret)
    if wanted is None:
        return None
    known = split(args.known)
    columns = None
    for path in [args.original, *args.masked]:
        p = Path(path)
        if p.suffix.lower() not in READERS or not p.is_file() or p.stat().st_size == 0:
            return None  # the reading names the file
        try:
            header = _header(p, READERS[p.suffix.lower()])
        except Exception:  # noqa: BLE001 - an unreadable file: the reading names it
            return None
        for w in wanted:
            if w != "each" and w not in header:
                return f"--secret: {path} has no column {w!r}; a secret must be a column of the original and " \
                       "of every masked file"
            if w == args.id:
                return f"--secret: {w!r} is the --id column, not an attribute"
        if columns is None:
            columns = [c for c in header if c != args.id]
    try:
        secret_names(columns, wanted, known, args.scenarios)
    except AssessError as exc:
        return "--" + str(exc)
    return None


def assess_command(args) -> int:
    """``sdcrisk assess``; returns the exit status (module docstring)."""
    try:
        limit = max_risk_limits(args.max_risk)
        args.tolerance_value = tolerance_value(args.tolerance)
    except ValueError as exc:
        return _fail(str(exc))
    problem = gate_problem(limit, bool(secrets(args.secret)), args.singling_out)
    if problem:
        return _fail(problem)
    if args.id is not None and not args.id.strip():
        return _fail("--id: empty column name")
    problem = _argument_problem(args)
    if problem:
        return _fail(problem)
    problem = out_problem(args.out) or space_problem(args.out, len(args.masked))
    if problem:
        return _fail(problem)
    start = time.perf_counter()
    from .resources import spare_address_space

    spare_address_space()

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"  {time.perf_counter() - start:7.1f} s  {message}", file=sys.stderr, flush=True)

    # our handler where the signal has its default action, in the main thread (a runner that starts
    # the command in the background passes SIGINT down ignored: it stays ignored)
    default = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    ours = [sig for sig, handler in default.items()
            if threading.current_thread() is threading.main_thread() and signal.getsignal(sig) is handler]
    previous = {sig: signal.signal(sig, _interrupted) for sig in ours}

    def restore():
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    try:
        return _assess_and_report(args, limit, progress, start, restore)
    except KeyboardInterrupt:
        return _fail("interrupted; no report written", EXIT_INTERRUPTED)
    except MemoryError as exc:
        from .resources import out_of_memory

        return _fail(f"{out_of_memory(f'stopped{_where(exc)}')}; or try fewer attacks (--attacks) or a machine with "
                     "more memory", EXIT_INTERNAL)
    except Exception as exc:  # a defect: one line, the traceback only on request
        if os.environ.get("SDCRISK_DEBUG"):
            traceback.print_exc()
        return _fail(f"internal error {type(exc).__name__}: {exc}{_where(exc)}; please report it "
                     "(SDCRISK_DEBUG=1 prints the traceback)", EXIT_INTERNAL)
    finally:
        restore()


def _assess_and_report(args, limit, progress, start, restore_sigint) -> int:
    from .assess.workers import start_early

    if getattr(args, "control", None) is not None:  # a synthetic release (sdcrisk.assess.synthetic)
        from .assess.assessment import AssessError
        from .assess.synthetic import run

        try:
            return run(args, progress)
        except AssessError as exc:
            return _fail(str(exc))

    # a large original: the attack workers start now and import while this process reads
    attacks = split(args.attacks) or []
    single = len(attacks) == 1 and attacks[0].lower() != "all" and not args.scenarios
    pool = start_early(args.original, 1 if single else 2)
    try:
        return _assess_files(args, limit, progress, start, restore_sigint, pool)
    finally:
        if pool is not None:
            pool.close()


def _assess_files(args, limit, progress, start, restore_sigint, pool) -> int:
    from .assess.assessment import READERS, AssessError, assess, read_file, records_at_risk
    from .assess.report import FAIL, UNDECIDED, gate, left_out_text, preload, summary_text, write_report

    extra = {"categorical": split(args.categorical)} if args.categorical else {}
    try:
        for path in [args.original, *args.masked]:  # a missing, empty or unknown file before any attack
            p = Path(path)
            if p.suffix.lower() not in READERS or not p.is_file() or p.stat().st_size == 0:
                read_file(p)  # raises its one-line message without reading
        tables = []
        for path in args.masked:  # by path: assess lets each table go once its records are paired (0.8 GB at 10^7 x 10)
            progress(f"{path}")
            t = assess(args.original, path, id=args.id, known=split(args.known), scenarios=args.scenarios,
                       attacks=split(args.attacks), seed=args.seed, progress=progress,
                       names=(args.original, path), prl_candidates=args.prl_candidates, pool=pool, idle=preload,
                       secret=secrets(args.secret), tolerance=args.tolerance_value,
                       singling_out=args.singling_out, weights=args.weights, **extra)
            tables.append(t.assign(masked=path))
    except AssessError as exc:
        return _fail(str(exc))
    import pandas as pd

    results = pd.concat(tables, ignore_index=True)
    meta = report_meta(args.original, args.masked, tables, args.seed, args.argv, limit)
    warned = meta["warnings"]
    restore_sigint()  # from here Ctrl-C is a KeyboardInterrupt: the writer removes its temporary files
    # the summary and the gate first: a report that cannot be written (a full disk) loses neither
    print(summary_text(results), flush=True)
    for line in left_out_text(meta):
        print(f"left out by default: {line}")
    for w in warned:
        print(f"warning: {w}", file=sys.stderr)
    status = EXIT_OK
    if limit is not None:
        verdict = gate(results, limit, warned)
        for line in verdict["failed"]:
            print(f"sdcrisk assess: risk gate: {line}", file=sys.stderr)
        for line in verdict["undecided"]:
            print(f"sdcrisk assess: risk gate undecided: {line}", file=sys.stderr)
        if verdict["status"] == UNDECIDED:
            print(f"sdcrisk assess: risk gate undecided: {verdict['lines'][-1]}", file=sys.stderr)
        status = {FAIL: EXIT_GATE, UNDECIDED: EXIT_UNDECIDED}.get(verdict["status"], EXIT_OK)
    sys.stderr.flush()
    out = Path(args.out)
    made = _missing_dirs(out)
    try:
        at_risk = None
        if any("records_at_risk" in t.attrs for t in tables):  # a criterion beside linkability measured
            at_risk = pd.concat([records_at_risk(t).assign(masked=path) for t, path in zip(tables, args.masked)],
                                ignore_index=True)
        extra = {**({"records": at_risk} if at_risk is not None else {}),
                 **({"timings": False} if args.no_timings else {})}
        files = write_report(results, out, meta, **extra)
    except OSError as exc:  # a read-only place, a full disk
        from .data import write_error

        _remove_empty(made)
        return _fail(str(write_error(exc, exc.filename or args.out)) + "; no report written")
    except KeyboardInterrupt:
        _remove_empty(made)
        raise
    print(f"records paired by {meta['pairing'].split(' (')[0]}; report: " + ", ".join(str(f) for f in files))
    if not args.quiet:
        print(f"done in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return status


def check_config_command(args) -> int:
    from .replication.config import ConfigError, compute_estimate, layered, validate

    try:
        cfg = validate(layered(args.reference, args.configfile), source="config")
    except ConfigError as exc:
        print(f"sdcrisk check-config: error: {exc}", file=sys.stderr)
        return 2
    print(f"config OK: {compute_estimate(cfg)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    args.argv = argv
    if args.command == "assess":
        return assess_command(args)
    if args.command == "check-config":
        return check_config_command(args)
    if args.command == "compile":
        return compile_command(args)
    return 2  # pragma: no cover (argparse requires a command)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
