"""``sdcrisk assess`` on several releases of one original, spread over a cluster: the jobs of
``workflow/assess.smk`` (docs/cluster.md, "Several releases on a cluster").

The workflow has one job per (release, attack), one per release for the information loss and a
gather step that writes the report. Before any job, where Snakemake builds the DAG,
:func:`check_inputs` runs the command's checks that each file's header and first records decide
(a release with other columns, an id column a file lacks, options not fitting the columns), so
that such a mistake stops the run with one line instead of failing every job of the file. Each
job writes a *part* (JSON) with its rows:

- :func:`attack_part` runs :func:`sdcrisk.assess.assessment.assess` on one release with one attack and
  no information loss. Every attack's row depends only on the files, the options and ``seed``
  (the record order the attacks see and each attack's generator are drawn from ``seed`` alone),
  so the rows are the ones the all-attacks run gives; ``tests/test_assess_jobs.py`` checks it.
- :func:`loss_part` pairs the files as ``assess`` does and computes its information-loss rows.
- :func:`gather` puts the parts in the local command's order (per release: scenario by scenario,
  the attacks in their order within a scenario, then the information loss), builds the report's
  ``meta`` as the command does (:func:`sdcrisk.assess.arguments.report_meta`, with the local command that makes
  the same report as ``meta.command``) and calls :func:`sdcrisk.assess.report.write_report`.

With ``timings: false`` (the command's ``--no-timings``) the report holds no clock values and its
files are byte-identical to those of the local command :func:`local_argv` names.

The workflow's config (:func:`plan_from_config`): ``original`` (path), ``releases`` (list of
paths, or one string with commas), and optionally ``attacks``, ``id``, ``known``, ``scenarios``,
``categorical``, ``prl_candidates``, ``seed``, ``max_risk``, ``timings`` (the command's options)
and ``out`` (report directory, default ``sdcrisk-report``). The parts and their logs go to
``<out>/parts/``.

    python -m sdcrisk.assess.jobs attack --original O --release R --attack A --settings JSON --part PATH
    python -m sdcrisk.assess.jobs loss --original O --release R --settings JSON --part PATH
    python -m sdcrisk.assess.jobs gather --plan JSON
    python -m sdcrisk.assess.jobs config ORIGINAL MASKED [MASKED ...] [sdcrisk assess options] > assess.yaml
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .assessment import AssessError, attack_names

#: config keys of workflow/assess.smk; IGNORED are keys a profile may add for the replication
KEYS = ("original", "releases", "attacks", "id", "known", "scenarios", "categorical", "prl_candidates", "seed",
        "max_risk", "timings", "out")
IGNORED = ("cell_batch",)
#: the part options every job of a release gets (its params: a change reruns the part)
SETTINGS = ("id", "known", "scenarios", "categorical", "prl_candidates", "seed")
LOSS = "information-loss"  # the file name of a release's information-loss part


class AssessJobsError(AssessError):
    """A bad workflow config or a part that does not belong to the run; the message says which."""


@dataclass
class Plan:
    """A checked config of workflow/assess.smk: the files, the attacks (canonical names, in the
    order the report lists them), the options and the report directory."""

    original: str
    releases: list[str]
    attacks: list[str]
    attacks_given: bool
    settings: dict
    max_risk: float | None = None
    timings: bool = True
    out: str = "sdcrisk-report"
    keys: list[str] = field(default_factory=list)

    @property
    def parts(self) -> str:
        return f"{self.out}/parts"

    def part(self, release: int, attack: str | None) -> str:
        """Path of the part of release number ``release`` (0-based) for ``attack`` (None: information loss)."""
        return f"{self.parts}/{self.keys[release]}/{slug(attack) if attack else LOSS}.json"

    def report_files(self) -> list[str]:
        return [f"{self.out}/{name}" for name in ("report.json", "report.md", "report.html")]

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Plan:
        return cls(**json.loads(text))


def slug(name: str) -> str:
    """A file and job name for an attack: 'RS-RL(p<=20%)' -> 'RS-RL_p_20'."""
    return re.sub(r"[^A-Za-z0-9-]+", "_", name).strip("_")


def release_keys(releases: list[str]) -> list[str]:
    """A directory name per release: its number and file stem ('1-noise', '2-swap')."""
    return [f"{i}-{slug(Path(r).stem) or 'release'}" for i, r in enumerate(releases, start=1)]


def _names(value, key: str) -> list[str] | None:
    """A list of names from a YAML list or a comma-separated string (None stays None)."""
    if value is None:
        return None
    if isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()]
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                                for v in value):
        out = [str(v).strip() for v in value]
        bad = [v for v in out if not v or "," in v]
        if bad:
            raise AssessJobsError(f"config {key}: {bad[0]!r} is empty or holds a comma; the command line could "
                                  "not name it (sdcrisk assess splits its lists at commas)")
        return out
    raise AssessJobsError(f"config {key}: expected a list of names or one comma-separated string, got {value!r}")


def plan_from_config(config: dict) -> Plan:
    """Check the workflow's config (module docstring) and return its :class:`Plan`; a mistake
    raises :class:`AssessJobsError` naming the key."""
    from .arguments import max_risk_value

    unknown = [k for k in config if k not in KEYS and k not in IGNORED]
    if unknown:
        raise AssessJobsError(f"config: unknown key(s) {', '.join(map(repr, unknown))}; the keys are {', '.join(KEYS)}")
    original = config.get("original")
    if not isinstance(original, str) or not original.strip():
        raise AssessJobsError("config original: expected the path of the original file (original=PATH)")
    releases = _names(config.get("releases"), "releases")
    if not releases:
        raise AssessJobsError("config releases: expected one or more masked files (releases=[A.csv,B.csv] or a "
                              "list in a config file)")
    repeated = sorted({r for r in releases if releases.count(r) > 1})
    if repeated:
        raise AssessJobsError(f"config releases: {repeated[0]!r} given {releases.count(repeated[0])} times")
    try:
        attacks = attack_names(_names(config.get("attacks"), "attacks"))
    except AssessError as exc:
        raise AssessJobsError(f"config {exc}") from None
    slugs = [slug(a) for a in attacks]
    if len(set(slugs)) != len(slugs) or LOSS in slugs:
        raise AssessJobsError(f"config attacks: two attacks share a file name ({slugs})")
    id_ = config.get("id")
    id_ = str(id_) if isinstance(id_, int) and not isinstance(id_, bool) else id_  # --config id=7: column '7'
    if id_ is not None and (not isinstance(id_, str) or not id_.strip()):
        raise AssessJobsError(f"config id: expected a column name, got {id_!r}")
    known, scenarios = _names(config.get("known"), "known"), config.get("scenarios")
    if known is not None and scenarios is not None:
        raise AssessJobsError("config: give either known or scenarios, not both")
    if scenarios is not None and not isinstance(scenarios, str):
        scenarios = str(scenarios)
    k = config.get("prl_candidates")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise AssessJobsError(f"config prl_candidates: expected a whole number >= 1, got {k!r}")
    seed = config.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise AssessJobsError(f"config seed: expected a whole number >= 0, got {seed!r}")
    limit = config.get("max_risk")
    try:
        limit = max_risk_value(None if limit is None else str(limit))
    except ValueError as exc:
        raise AssessJobsError(f"config max_risk: {str(exc).split(': ', 1)[1]}") from None
    timings = config.get("timings", True)
    if isinstance(timings, str) and timings.strip().lower() in ("true", "false", "yes", "no"):
        timings = timings.strip().lower() in ("true", "yes")  # --config timings=false
    if not isinstance(timings, bool):
        raise AssessJobsError(f"config timings: expected true or false, got {timings!r}")
    out = config.get("out", "sdcrisk-report")
    if not isinstance(out, str) or not out.strip():
        raise AssessJobsError(f"config out: expected a directory, got {out!r}")
    settings = {"id": id_, "known": known, "scenarios": scenarios,
                "categorical": _names(config.get("categorical"), "categorical"), "prl_candidates": k, "seed": seed}
    return Plan(original, releases, attacks, config.get("attacks") is not None, settings, limit, timings,
                out.rstrip("/") or out, release_keys(releases))


# ----------------------------------------------------------------------------- the inputs, once before the jobs
HEAD_ROWS = 1000  # records of each file the check before the jobs reads (the jobs read every record)


def read_head(path: str | Path, rows: int = HEAD_ROWS):
    """The header and first ``rows`` records of a CSV or parquet file, refused with the messages of
    :func:`sdcrisk.assess.assessment.read_file` (which reads them); the rest of the file is not read."""
    from .assessment import read_file

    try:
        return read_file(path, rows)
    except AssessError as exc:
        raise AssessJobsError(str(exc)) from None


def check_inputs(plan: Plan, rows: int = HEAD_ROWS) -> None:
    """The checks of ``sdcrisk assess`` that the header and first ``rows`` records of each file
    decide, run once before any job (workflow/assess.smk): every file readable, with a header of
    distinct names and records; the ``id`` column in every file, without a missing or repeated
    value among those records; each release with the original's columns; ``known``,
    ``scenarios`` and ``categorical`` fitting the attribute columns. Each of these would fail every
    job of the file (:func:`sdcrisk.assess.assessment.pair_files`, :func:`~sdcrisk.assess.assessment.scenarios_from`);
    the first found raises :class:`AssessJobsError` naming the file and field.

    What only the whole file shows (record counts, ids of one file missing from the other, values
    that are not numbers further down) is left to the jobs, which read every record."""
    from .assessment import _ids as ids_of, scenarios_from

    def _ids(table, name, id_):
        try:
            ids_of(table, name, id_)
        except AssessJobsError:
            raise
        except AssessError as exc:
            raise AssessJobsError(str(exc)) from None

    s = plan.settings
    id_ = s["id"]
    head = read_head(plan.original, rows)
    if id_ is not None:
        _ids(head, plan.original, id_)
    cols = [c for c in head.columns if c != id_]
    if not cols:
        raise AssessJobsError(f"{plan.original}: no attribute columns besides the id")
    for release in plan.releases:
        other = read_head(release, rows)
        if id_ is not None:
            _ids(other, release, id_)
        attrs = [c for c in other.columns if c != id_]
        if set(attrs) != set(cols):
            only_o = [c for c in cols if c not in attrs]
            only_m = [c for c in attrs if c not in cols]
            raise AssessJobsError(f"{plan.original} and {release} have different columns: only in {plan.original}: "
                                  f"{only_o or 'none'}; only in {release}: {only_m or 'none'}")
    unknown = [c for c in (s["categorical"] or []) if c not in cols]
    if unknown:
        raise AssessJobsError(f"{plan.original}: categorical: {unknown} not among the attribute columns {cols}")
    try:  # identifier columns the jobs leave out only shorten the list: what fails here fails there
        scenarios_from(cols, s["known"], s["scenarios"])
    except AssessError as exc:
        raise AssessJobsError(f"{plan.original}: {exc}") from None


def local_argv(plan: Plan) -> list[str]:
    """The arguments of the ``sdcrisk assess`` command that makes the same report on one machine
    (the report's ``meta.command`` is ``sdcrisk`` and these)."""
    s = plan.settings
    argv = ["assess", plan.original, *plan.releases]
    if s["id"] is not None:
        argv += ["--id", s["id"]]
    if s["known"] is not None:
        argv += ["--known", ",".join(s["known"])]
    if s["scenarios"] is not None:
        argv += ["--scenarios", s["scenarios"]]
    if plan.attacks_given:
        argv += ["--attacks", ",".join(plan.attacks)]
    if s["prl_candidates"] is not None:
        argv += ["--prl-candidates", str(s["prl_candidates"])]
    if s["categorical"]:
        argv += ["--categorical", ",".join(s["categorical"])]
    if plan.max_risk is not None:
        argv += ["--max-risk", repr(plan.max_risk)]
    if s["seed"] != 0:
        argv += ["--seed", str(s["seed"])]
    argv += ["--out", plan.out]
    if not plan.timings:
        argv.append("--no-timings")
    return argv


# ----------------------------------------------------------------------------- the jobs
def _assess_options(settings: dict) -> dict:
    return {"id": settings["id"], "known": settings["known"], "scenarios": settings["scenarios"],
            "seed": settings["seed"], "prl_candidates": settings["prl_candidates"],
            "categorical": settings["categorical"] or None}


def _write_part(path, doc: dict) -> Path:
    from ..data import atomic_write

    # floats as repr: read back to the same bits; NaN as NaN; numpy scalars as Python numbers
    text = json.dumps(doc, indent=1, default=lambda v: v.item() if hasattr(v, "item") else str(v)) + "\n"
    return atomic_write(path, lambda tmp: Path(tmp).write_text(text))


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def attack_part(original: str, release: str, attack: str, settings: dict, path) -> Path:
    """One attack on one release, every scenario: :func:`~sdcrisk.assess.assessment.assess` with
    ``attacks=[attack]`` and no information loss, its rows and ``attrs`` written to ``path``."""
    from .assessment import assess

    table = assess(original, release, attacks=[attack], information_loss=False, progress=_say,
                   **_assess_options(settings))
    doc = {"original": original, "release": release, "measure": attack, "settings": settings,
           "rows": table.to_dict(orient="records"),
           "attrs": dict(table.attrs)}  # all of them: the command's report_meta reads them
    return _write_part(path, doc)


def loss_part(original: str, release: str, settings: dict, path) -> Path:
    """The information-loss rows of one release, as :func:`~sdcrisk.assess.assessment.assess` computes
    them (the files paired by :func:`~sdcrisk.assess.assessment.pair_files`), written to ``path``."""
    from .assessment import _loss_rows, pair_files, read_file

    categorical = settings["categorical"] or None
    pair = pair_files(read_file(original), read_file(release), settings["id"], (original, release), categorical)
    doc = {"original": original, "release": release, "measure": None, "settings": settings,
           "rows": _loss_rows(pair), "attrs": {}}
    return _write_part(path, doc)


def _read_part(plan: Plan, i: int, attack: str | None) -> dict:
    path = plan.part(i, attack)
    doc = json.loads(Path(path).read_text())
    want = {"original": plan.original, "release": plan.releases[i], "measure": attack, "settings": plan.settings}
    for key, value in want.items():
        if doc.get(key) != value:
            raise AssessJobsError(f"{path}: made for {key} {doc.get(key)!r}, not {value!r}; remove it and run again")
    return doc


def gather(plan: Plan):
    """The results table and ``meta`` of the report, from the parts: the rows in the order of
    the local command (module docstring)."""
    import pandas as pd

    from .assessment import COLUMNS
    from .arguments import report_meta

    tables = []
    for i, release in enumerate(plan.releases):
        parts = [_read_part(plan, i, a) for a in plan.attacks]
        scenarios = {len(p["rows"]) for p in parts}
        if len(scenarios) != 1:
            raise AssessJobsError(f"parts of {release}: different numbers of scenarios {sorted(scenarios)}")
        rows = [p["rows"][s] for s in range(scenarios.pop()) for p in parts]
        rows += _read_part(plan, i, None)["rows"]
        t = pd.DataFrame(rows).reindex(columns=COLUMNS)
        t.attrs.update(parts[0]["attrs"])
        if not plan.attacks_given:  # each job named its attack: the default set's left-out ones, as the command says
            from .default_attacks import left_out_reasons

            t.attrs["left_out"] = left_out_reasons(None)
        tables.append(t.assign(masked=release))
    results = pd.concat(tables, ignore_index=True)
    meta = report_meta(plan.original, plan.releases, tables, plan.settings["seed"], local_argv(plan), plan.max_risk)
    return results, meta


def write(plan: Plan) -> list[Path]:
    """Gather the parts and write the report into ``plan.out``; print the command's summary."""
    from .report import gate, summary_text, write_report

    results, meta = gather(plan)
    files = write_report(results, plan.out, meta, timings=plan.timings)
    print(summary_text(results))
    print("report: " + ", ".join(str(f) for f in files))
    if plan.max_risk is not None:  # the command's verdict: pass, fail, or undecided (attacks not run, rows not paired)
        verdict = gate(results, plan.max_risk, meta.get("warnings", []))
        for line in verdict["lines"]:
            print(f"risk gate ({verdict['status']}): {line}")
    return files


def config_from_argv(argv: list[str]) -> dict:
    """The workflow config of the ``sdcrisk assess`` arguments ``argv`` (without ``assess``):
    the same files and options (``--quiet`` has no counterpart). Checked with :func:`plan_from_config`."""
    from .arguments import max_risk_value, parse_assess_args, split

    args = parse_assess_args(argv)
    config = {"original": args.original, "releases": list(args.masked)}
    options = {"id": args.id, "known": split(args.known), "scenarios": args.scenarios,
               "attacks": split(args.attacks), "categorical": split(args.categorical),
               "prl_candidates": args.prl_candidates, "seed": args.seed or None,
               "max_risk": max_risk_value(args.max_risk), "timings": False if args.no_timings else None}
    config.update({k: v for k, v in options.items() if v is not None})
    config["out"] = args.out
    plan_from_config(config)
    return config


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sdcrisk.assess.jobs", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="step", required=True)
    c = sub.add_parser("config", help="print the workflow config (JSON, which is YAML too) of sdcrisk assess arguments",
                       description="Print the config of workflow/assess.smk for the arguments of `sdcrisk assess` "
                                   "(ORIGINAL MASKED [MASKED ...] and its options): snakemake -s workflow/assess.smk "
                                   "--configfile FILE then attacks the same files with the same options.")
    c.add_argument("assess_args", nargs=argparse.REMAINDER, help="the arguments of sdcrisk assess")
    for step in ("attack", "loss"):
        s = sub.add_parser(step)
        s.add_argument("--original", required=True)
        s.add_argument("--release", required=True)
        if step == "attack":
            s.add_argument("--attack", required=True)
        s.add_argument("--settings", required=True, help="JSON object with the keys of SETTINGS")
        s.add_argument("--part", required=True, help="the part file to write")
    g = sub.add_parser("gather")
    g.add_argument("--plan", required=True, help="the Plan as JSON")
    args = p.parse_args(argv)
    try:
        if args.step == "config":
            config = config_from_argv(args.assess_args)
            print(json.dumps(config, indent=1))
            print(f"then: snakemake -s workflow/assess.smk --profile profiles/slurm --configfile FILE (the same "
                  f"report as: {shlex.join(['sdcrisk', *local_argv(plan_from_config(config))])})", file=sys.stderr)
        elif args.step == "attack":
            attack_part(args.original, args.release, args.attack, json.loads(args.settings), args.part)
        elif args.step == "loss":
            loss_part(args.original, args.release, json.loads(args.settings), args.part)
        else:
            write(Plan.from_json(args.plan))
    except (AssessError, ValueError) as exc:
        print(f"{p.prog} {args.step}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
