"""The arguments of ``sdcrisk assess``: its parser, exit statuses and the report's ``meta``
built from them; shared by the command line (:mod:`sdcrisk.cli`, the entry point) and the cluster
workflow's jobs (:mod:`sdcrisk.assess.jobs`, whose ``config`` step reads the same arguments and
whose gather step builds the same ``meta``).
"""

from __future__ import annotations

import argparse
import shlex
import textwrap


EXIT_OK, EXIT_INTERNAL, EXIT_INPUT, EXIT_GATE, EXIT_UNDECIDED = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143
EXIT_STATUSES = {EXIT_OK: "done", EXIT_INTERNAL: "internal error (an unexpected exception; please report it)",
                 EXIT_INPUT: "bad input: a file, an option, the --out place or its free space (nothing attacked "
                             "or nothing written)",
                 EXIT_GATE: "report written; an attack's point estimate exceeds --max-risk",
                 EXIT_UNDECIDED: "report written; the --max-risk gate could not be decided: an attack was not run "
                                 "(e.g. refused by the memory limit) or row order does not pair the records",
                 EXIT_INTERRUPTED: "interrupted (Ctrl-C); no report written",
                 EXIT_TERMINATED: "terminated (SIGTERM, e.g. a batch system's time limit); no report written"}


class Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line (``prog: error: message (see --help)``), exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def format_help(self):
        fill = getattr(self, "fill_help", None)  # texts made when help is asked for (_attack_help)
        if fill is not None:
            fill(self)
        return super().format_help()


def attack_choices() -> list[str]:
    """The measures ``--attacks`` takes, as a user types them: :data:`sdcrisk.assess.assessment.ALL_ATTACKS`
    with the short names it accepts (RS-RL for RS-RL(p<=20%), L-RL for L-RL(MA))."""
    from .default_attacks import ALL_ATTACKS, ATTACK_NAMES

    out = []
    for name in ALL_ATTACKS:
        short = name.split("(")[0]
        out.append(short if ATTACK_NAMES.get(short.upper()) == name else name)
    return out


def _attack_help(parser) -> None:
    """The assess command's description and ``--attacks`` help, listing :func:`attack_choices`
    (made when help is printed: importing the attacks takes about 0.5 s)."""
    from .default_attacks import LEFT_OUT

    names = attack_choices()
    linkage = [n for n in names if n != "ID"]
    parser.description = textwrap.fill(f"Attack each MASKED file with the record-linkage attacks "
                                       f"({', '.join(linkage)}), interval disclosure (ID) and the information-loss "
                                       "measures; write report.json, report.md and report.html to --out. By "
                                       "default the attacks no other dominates on the project's corpus of "
                                       f"releases run (left out: {', '.join(LEFT_OUT) or 'none'}; "
                                       "docs/assess.md, Default attacks).", 100, break_on_hyphens=False)
    for action in parser._actions:
        if "--attacks" in action.option_strings:
            action.help = (f"comma-separated subset of {','.join(names)}, or 'all' (default: every attack "
                           f"but {', '.join(LEFT_OUT)})" if LEFT_OUT else
                           f"comma-separated subset of {','.join(names)} (default: all)").replace("%", "%%")


def add_assess_parser(sub) -> argparse.ArgumentParser:
    """Add the ``assess`` command with its arguments to ``sub`` (a parser's subparsers)."""
    a = sub.add_parser("assess", help="attack masked files with every record-linkage attack and measure "
                                      "their information loss",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Attack each MASKED file with every record-linkage attack, interval "
                                   "disclosure and the information-loss measures; write report.json, report.md and "
                                   "report.html to --out.",
                       epilog="exit status:\n" + "\n".join(f"  {code:<4} {text}" for code, text in EXIT_STATUSES.items())
                              + "\n\nSee docs/assess.md.")
    a.add_argument("original", help="original file (.csv with a header row, or .parquet)")
    a.add_argument("masked", nargs="+", help="masked file(s), same columns as the original")
    a.add_argument("--id", help="column identifying a record in both files (default: pair records by row order)")
    a.add_argument("--control", metavar="FILE",
                   help="synthetic release: the custodian's originals not used to train the generator (same columns "
                        "as ORIGINAL, the training set); every attack runs on training and on control targets and "
                        "the risk is the excess, training minus control (docs/assess.md, Synthetic releases)")
    g = a.add_mutually_exclusive_group()
    g.add_argument("--known", help="comma-separated attributes the intruder knows (one scenario)")
    g.add_argument("--scenarios", help="first-j-attributes scenarios 'lo..hi' ('half' and 'all' allowed, "
                                       "e.g. 1..all); default: every attribute known")
    a.add_argument("--attacks", help="comma-separated subset of the attacks (default: all)")
    a.fill_help = _attack_help
    a.add_argument("--prl-candidates", type=int, metavar="K",
                   help="PRL keeps each record's K best candidates, or on tied blocks its K best pairs "
                        "agreeing on several attributes (for files whose candidate graph exceeds the "
                        "memory limit; default: every candidate)")
    a.add_argument("--categorical", metavar="A,B", help="comma-separated integer-coded attributes to treat as categorical "
                                         "(non-numeric columns are categorical anyway)")
    a.add_argument("--out", default="sdcrisk-report",
                   help="report directory, checked before any attack (default: %(default)s)")
    a.add_argument("--secret", action="append", metavar="COL",
                   help="attribute the intruder tries to infer (inference, attribute disclosure); repeatable or "
                        "comma-separated; 'each': every attribute not in --known in turn. Without --known the "
                        "intruder knows every other attribute")
    so = a.add_mutually_exclusive_group()
    so.add_argument("--no-singling-out", dest="singling_out", action="store_false",
                    help="leave out the singling-out attacks, run by default on the known attributes (release "
                         "records unique on the categorical keys that match one original; predicates), and the "
                         "agencies' measures on the known categorical attributes (k-anonymity, individual risk, "
                         "l-diversity of the secrets)")
    so.add_argument("--singling-out", dest="singling_out", action="store_true",
                    help="singling out is run by default: accepted for compatibility, changes nothing")
    a.set_defaults(singling_out=True)
    a.add_argument("--weights", metavar="COL",
                   help="the release's sampling-weight column (left out of the attacks): the agencies' individual "
                        "risk under the super-population model and the expected re-identifications")
    a.add_argument("--tolerance", metavar="T", default=None,
                   help="a numeric secret counts as inferred when |guess - true| <= T x |true| (0 < T <= 1; "
                        "default 0.05)")
    a.add_argument("--max-risk", metavar="P",
                   help="after writing the report, exit with status 3 when an attack's point estimate of the "
                        "percent of records correctly linked exceeds P (0-100; ID not counted), or an inference "
                        "attack's excess over its baseline exceeds P points (inference, singling out); per "
                        "criterion as 'linkability=5,inference=10'; with status 4 "
                        "when no attack that ran exceeds P but one was not run or the records are not paired")
    a.add_argument("--seed", type=int, default=0, help="seed of the attacks' record order and tie breaks (default 0)")
    a.add_argument("--no-timings", action="store_true",
                   help="leave the clock out of the report (each attack's seconds, the creation time): the same "
                        "files and options then give the same bytes, also through workflow/assess.smk "
                        "(docs/cluster.md)")
    a.add_argument("--quiet", action="store_true", help="no progress messages and no closing time")
    return a


def parse_assess_args(argv: list[str]) -> argparse.Namespace:
    """``argv`` (without ``assess``) parsed as ``sdcrisk assess ARGV`` parses them, with the same
    messages (``sdcrisk assess: error: ...``; ``sdcrisk: error: unrecognized arguments ...``) and
    exit status 2."""
    top = Parser(prog="sdcrisk")
    add_assess_parser(top.add_subparsers(dest="command", required=True))
    return top.parse_args(["assess", *argv])


def split(text: str | None) -> list[str] | None:
    """Comma-separated ``text`` as a list of its non-empty items (``None`` for ``None``)."""
    return None if text is None else [t.strip() for t in text.split(",") if t.strip()]


def max_risk_value(text: str | None) -> float | None:
    """``--max-risk P`` as a number in [0, 100] (``ValueError`` with the message otherwise)."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 100.0:  # NaN fails too
        raise ValueError(f"--max-risk: expected a percentage from 0 to 100, got {text!r}")
    return value


CRITERION_NAMES = {"linkability": "linkability", "inference": "inference", "singling-out": "singling out",
                   "singling_out": "singling out", "singling out": "singling out"}


def max_risk_limits(text: str | None) -> float | dict | None:
    """``--max-risk``: one number for every criterion (:func:`max_risk_value`), or per criterion
    ``linkability=5,inference=10`` as ``{criterion: limit}`` (``ValueError`` naming the mistake:
    a criterion not in :data:`sdcrisk.criteria.CRITERIA`, a value outside 0-100, one given twice)."""
    if text is None or "=" not in text:
        return max_risk_value(text)
    out = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        key = name.strip().lower()
        if not sep or key not in CRITERION_NAMES:
            raise ValueError(f"--max-risk: unknown criterion {name.strip()!r} in {text!r}; expected "
                             "CRITERION=P with CRITERION one of linkability, inference, singling-out "
                             "(e.g. linkability=5,inference=10), or one number for all")
        criterion = CRITERION_NAMES[key]
        if criterion in out:
            raise ValueError(f"--max-risk: {criterion} given twice in {text!r}")
        try:
            out[criterion] = max_risk_value(value.strip())
        except ValueError:
            raise ValueError(f"--max-risk: {criterion}: expected a percentage from 0 to 100, got "
                             f"{value.strip()!r}") from None
    return out


def gate_problem(limit, secret_given: bool, singling_out: bool, flag: str = "--max-risk") -> str | None:
    """A per-criterion ``--max-risk`` naming a criterion the run does not assess (None if none):
    inference without a secret (``--secret``; a secret is the custodian's choice), singling out
    with ``--no-singling-out``. Such a gate could never fail, so it is refused before any work."""
    if not isinstance(limit, dict):
        return None
    if "inference" in limit and not secret_given:
        return (f"{flag}: inference={limit['inference']:g} gates a criterion that is not assessed: name the "
                "attribute the intruder tries to infer with --secret COL, or drop inference= from the gate")
    if "singling out" in limit and not singling_out:
        return (f"{flag}: singling-out={limit['singling out']:g} gates a criterion that is not assessed "
                "(--no-singling-out): drop one of them")
    return None


def tolerance_value(text: str | None) -> float:
    """``--tolerance T`` as a number in (0, 1] (default 0.05; ``ValueError`` with the message otherwise)."""
    if text is None:
        return 0.05
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value <= 1.0:
        raise ValueError(f"--tolerance: expected a share of the true value in (0, 1] (e.g. 0.05 for 5 %), "
                         f"got {text!r}")
    return value


def secrets(values: list[str] | None) -> list[str] | None:
    """``--secret`` (repeated, comma-separated) as one list of names (``None`` when not given)."""
    if not values:
        return None
    return [s for v in values for s in split(v)]


def report_meta(original: str, masked: list[str], tables: list, seed: int, argv: list[str],
                max_risk: float | dict | None) -> dict:
    """The report's ``meta`` from :func:`sdcrisk.assess.assessment.assess`'s tables, one per masked file
    (their ``attrs``): also used by the cluster workflow's gather step (:mod:`sdcrisk.assess.jobs`)."""
    warned = [f"{path}: {w}" for path, t in zip(masked, tables) for w in t.attrs.get("warnings", [])]
    blocking = {path: t.attrs["blocking"] for path, t in zip(masked, tables) if t.attrs.get("blocking")}
    return {"original": original, "masked": list(masked), "pairing": tables[0].attrs.get("pairing", ""),
            "warnings": warned, "seed": seed, "command": shlex.join(["sdcrisk", *argv]),
            "blocking": blocking, "max_risk": max_risk, "left_out": dict(tables[0].attrs.get("left_out") or {}),
            **({"inference": tables[0].attrs["inference"]} if "inference" in tables[0].attrs else {}),
            **({"key_risk": {path: t.attrs["key_risk"] for path, t in zip(masked, tables) if t.attrs.get("key_risk")}}
               if any(t.attrs.get("key_risk") for t in tables) else {}),
            "singling_out": any(bool(t.attrs.get("singling_out")) for t in tables),
            **_sample_meta(masked, tables)}


def _sample_meta(masked: list[str], tables: list) -> dict:
    """``release_type`` ("one to one" or "sample", :mod:`sdcrisk.assess.sample`; "mixed" with
    ``release_types``, each file's, when the masked files differ) and, for samples,
    ``sample``: per masked file its sizes, precision-recall tables and sample-unique measures."""
    each = {path: t.attrs.get("release_type", "one to one") for path, t in zip(masked, tables)}
    kinds = set(each.values())
    out = {"release_type": kinds.pop()} if len(kinds) == 1 else {"release_type": "mixed", "release_types": each}
    samples = {path: t.attrs["sample"] for path, t in zip(masked, tables) if t.attrs.get("sample")}
    return {**out, "sample": samples} if samples else out
