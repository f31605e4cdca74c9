"""Command line: ``sdcrisk assess ORIGINAL MASKED [MASKED ...]`` and ``sdcrisk check-config
[CONFIGFILE ...]``.

Bad input ends with one line ``sdcrisk <command>: error: ...`` on standard error and exit status 2,
never a traceback; see ``docs/assess.md`` and ``docs/bad_inputs.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import __version__


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sdcrisk", description="Disclosure risk and information loss of masked microdata.")
    p.add_argument("--version", action="version", version=f"sdcrisk {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("assess", help="attack masked files with every record-linkage attack and measure "
                                      "their information loss",
                       description="Attack each MASKED file with every record-linkage attack (DBRL, RBRL-Sum, "
                                   "RBRL-Max, PRL, RS-RL, L-RL, GDBRL), interval disclosure and the information-"
                                   "loss measures; write report.json, report.md and report.html to --out.")
    a.add_argument("original", help="original file (.csv with a header row, or .parquet)")
    a.add_argument("masked", nargs="+", help="masked file(s), same columns as the original")
    a.add_argument("--id", help="column identifying a record in both files (default: pair records by row order)")
    g = a.add_mutually_exclusive_group()
    g.add_argument("--known", help="comma-separated attributes the intruder knows (one scenario)")
    g.add_argument("--scenarios", help="first-j-attributes scenarios 'lo..hi' ('half' and 'all' allowed, "
                                       "e.g. 1..all); default: every attribute known")
    a.add_argument("--attacks", help="comma-separated subset of DBRL,RBRL-Sum,RBRL-Max,PRL,RS-RL,L-RL,GDBRL,ID "
                                     "(default: all)")
    a.add_argument("--prl-candidates", type=int, metavar="K",
                   help="PRL's assignment on each record's K best candidates (for files whose candidate "
                        "graph exceeds the memory limit; default: every candidate)")
    a.add_argument("--out", default="sdcrisk-report", help="report directory (default: %(default)s)")
    a.add_argument("--seed", type=int, default=0, help="seed of the attacks' record order and tie breaks (default 0)")
    a.add_argument("--quiet", action="store_true", help="no progress messages")
    c = sub.add_parser("check-config", help="check config files as the workflow reads them; print the compute estimate",
                       description="Layer each CONFIGFILE on the reference config, as `snakemake --configfile "
                                   "CONFIGFILE` does, validate the result and print its compute estimate (cell jobs, "
                                   "maskings, linkages, CPU time; the limit is the config key max_linkages). A "
                                   "mistake ends with one line naming the file and key (a YAML syntax error: its "
                                   "line and column).")
    c.add_argument("configfile", nargs="*", help="config file(s) layered on the reference config, in order")
    c.add_argument("--reference", default="config/config.yaml",
                   help="the reference config, with datasets.yaml beside it (default: %(default)s)")
    return p


def _split(text: str | None) -> list[str] | None:
    return None if text is None else [t.strip() for t in text.split(",") if t.strip()]


def assess_command(args) -> int:
    from .assessment import AssessError, assess, read_file
    from .report import summary_text, write_report

    start = time.perf_counter()

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"  {time.perf_counter() - start:7.1f} s  {message}", file=sys.stderr, flush=True)

    try:
        if args.id is not None and not args.id.strip():
            raise AssessError("--id: empty column name")
        original = read_file(args.original)
        tables = []
        for path in args.masked:
            masked = read_file(path)
            progress(f"{path}")
            t = assess(original, masked, id=args.id, known=_split(args.known), scenarios=args.scenarios,
                       attacks=_split(args.attacks), seed=args.seed, progress=progress,
                       names=(args.original, path), prl_candidates=args.prl_candidates)
            tables.append(t.assign(masked=path))
    except AssessError as exc:
        print(f"sdcrisk assess: error: {exc}", file=sys.stderr)
        return 2
    import pandas as pd

    results = pd.concat(tables, ignore_index=True)
    warned = [f"{path}: {w}" for path, t in zip(args.masked, tables) for w in t.attrs["warnings"]]
    meta = {"original": args.original, "masked": args.masked, "pairing": tables[0].attrs["pairing"], "warnings": warned,
            "seed": args.seed, "command": "sdcrisk assess " + " ".join(sys.argv[2:])}
    try:
        files = write_report(results, args.out, meta)
    except OSError as exc:  # a read-only place, a full disk
        from .data import write_error

        print(f"sdcrisk assess: error: {write_error(exc, exc.filename or args.out)}", file=sys.stderr)
        return 2
    print(summary_text(results))
    print(f"records paired by {tables[0].attrs['pairing'].split(' (')[0]}; report: "
          + ", ".join(str(f) for f in files))
    for w in warned:
        print(f"warning: {w}", file=sys.stderr)
    print(f"done in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


def check_config_command(args) -> int:
    from .config import ConfigError, compute_estimate, layered, validate

    try:
        cfg = validate(layered(args.reference, args.configfile), source="config")
    except ConfigError as exc:
        print(f"sdcrisk check-config: error: {exc}", file=sys.stderr)
        return 2
    print(f"config OK: {compute_estimate(cfg)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "assess":
        return assess_command(args)
    if args.command == "check-config":
        return check_config_command(args)
    return 2  # pragma: no cover (argparse requires a command)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
