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
  With a secret the part holds the attack's links (each original record's linked release record).
- :func:`loss_part` pairs the files as ``assess`` does and computes its information-loss rows.
- :func:`criteria_part` (with a secret, singling out (the default) or weights): the criteria
  beside linkability by :func:`sdcrisk.assess.assessment.criteria_results`, the function the
  command calls, from the attack parts' links: inference, singling out, the agencies' measures
  and the records at risk.
- :func:`synthetic_part` (``control`` given): a synthetic release, every attack in one job
  (:func:`sdcrisk.assess.synthetic.assess_synthetic`).
- :func:`gather` puts the parts in the local command's order (per release: scenario by scenario,
  the attacks in their order within a scenario, then the information loss, then the criteria),
  builds the report's
  ``meta`` as the command does (:func:`sdcrisk.assess.arguments.report_meta`, with the local command that makes
  the same report as ``meta.command``) and calls :func:`sdcrisk.assess.report.write_report`.

With ``timings: false`` (the command's ``--no-timings``) the report holds no clock values and its
files are byte-identical to those of the local command :func:`local_argv` names.

The release type is told from the files as the command tells it: a sample (``id`` in both files,
fewer released records; the default set then adds DBRL, whose job writes no rows on a one-to-one
release) or, with ``control``, synthetic.

The workflow's config (:func:`plan_from_config`): ``original`` (path), ``releases`` (list of
paths, or one string with commas), and optionally ``attacks``, ``id``, ``known``, ``scenarios``,
``categorical``, ``prl_candidates``, ``seed``, ``secret`` (names, or ``each``), ``tolerance``,
``singling_out`` (default true), ``weights``, ``control``, ``max_risk`` (one percentage, or a
mapping ``{linkability: 5, inference: 10, singling-out: 20}``), ``timings`` (the command's
options) and ``out`` (report directory, default ``sdcrisk-report``). Each is checked before any
job, one line naming the key (exit 2). The parts and their logs go to ``<out>/parts/``.

    python -m sdcrisk.assess.jobs attack --original O --release R --attack A --settings JSON --part PATH
    python -m sdcrisk.assess.jobs loss --original O --release R --settings JSON --part PATH
    python -m sdcrisk.assess.jobs criteria --plan JSON --number I --part PATH
    python -m sdcrisk.assess.jobs synthetic --original O --release R --settings JSON --part PATH
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
        "secret", "tolerance", "singling_out", "weights", "control", "max_risk", "timings", "out")
IGNORED = ("cell_batch",)
#: the part options every job of a release gets (its params: a change reruns the part)
SETTINGS = ("id", "known", "scenarios", "categorical", "prl_candidates", "seed", "secret", "tolerance", "singling_out",
            "weights", "control", "default_attacks")
LOSS = "information-loss"  # the file name of a release's information-loss part
CRITERIA = "criteria"  # a record-level release's criteria other than linkability (inference, singling out)
SYNTHETIC = "synthetic"  # a synthetic release's one job (every attack, sdcrisk.assess.synthetic)


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
    max_risk: float | dict | None = None
    timings: bool = True
    out: str = "sdcrisk-report"
    keys: list[str] = field(default_factory=list)

    @property
    def parts(self) -> str:
        return f"{self.out}/parts"

    @property
    def synthetic(self) -> bool:
        """A synthetic release with a control set (``control``): one job per release."""
        return self.settings.get("control") is not None

    @property
    def criteria(self) -> bool:
        """Whether a record-level release has a criteria job (a secret, singling out or weights)."""
        s = self.settings
        return not self.synthetic and bool(s.get("secret") or s.get("singling_out") or s.get("weights"))

    def part(self, release: int, attack: str | None) -> str:
        """Path of the part of release number ``release`` (0-based) for ``attack`` (None: information
        loss; :data:`CRITERIA`, :data:`SYNTHETIC`: those jobs)."""
        name = LOSS if attack is None else attack if attack in (CRITERIA, SYNTHETIC) else slug(attack)
        return f"{self.parts}/{self.keys[release]}/{name}.json"

    def release_parts(self, release: int) -> list[str]:
        """Every part of release number ``release`` the report step reads."""
        if self.synthetic:
            return [self.part(release, SYNTHETIC)]
        return [self.part(release, a) for a in [*self.attacks, None, *([CRITERIA] if self.criteria else [])]]

    def criteria_inputs(self, release: int) -> list[str]:
        """The parts the criteria job of a release waits for: its attacks' (their links) with a secret."""
        return [self.part(release, a) for a in self.attacks] if self.settings.get("secret") else []

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


def _max_risk(value) -> float | dict | None:
    """``max_risk``: one percentage for every criterion, or ``{criterion: percentage}`` (a mapping
    in the config file, or the command's text ``linkability=5,inference=10``)."""
    from .arguments import CRITERION_NAMES, max_risk_limits, max_risk_value

    if value is None:
        return None
    if isinstance(value, bool):
        raise AssessJobsError(f"config max_risk: expected a percentage from 0 to 100 or a mapping criterion: "
                              f"percentage, got {value!r}")
    try:
        if isinstance(value, dict):
            out = {}
            for name, v in value.items():
                key = str(name).strip().lower()
                if key not in CRITERION_NAMES:
                    raise AssessJobsError(f"config max_risk: unknown criterion {name!r}; expected linkability, "
                                          "inference or singling-out")
                if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                    raise AssessJobsError(f"config max_risk: {name}: expected a percentage from 0 to 100, got {v!r}")
                if CRITERION_NAMES[key] in out:
                    raise AssessJobsError(f"config max_risk: {CRITERION_NAMES[key]} given twice")
                out[CRITERION_NAMES[key]] = max_risk_value(str(v))
            if not out:
                raise AssessJobsError("config max_risk: an empty mapping; name a criterion or give one number")
            return dict(sorted(out.items()))  # the order the plan's JSON keeps (sort_keys)
        if isinstance(value, (int, float)):
            return max_risk_value(str(value))
        if isinstance(value, str):
            limit = max_risk_limits(value)
            return dict(sorted(limit.items())) if isinstance(limit, dict) else limit
    except ValueError as exc:
        raise AssessJobsError(f"config max_risk: {str(exc).split(': ', 1)[1]}") from None
    raise AssessJobsError(f"config max_risk: expected a percentage from 0 to 100 or a mapping criterion: percentage, "
                          f"got {value!r}")


def plan_from_config(config: dict) -> Plan:
    """Check the workflow's config (module docstring) and return its :class:`Plan`; a mistake
    raises :class:`AssessJobsError` naming the key."""
    from .arguments import gate_problem, tolerance_value

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
    limit = _max_risk(config.get("max_risk"))
    timings = _flag(config.get("timings", True), "timings")  # --config timings=false
    out = config.get("out", "sdcrisk-report")
    if not isinstance(out, str) or not out.strip():
        raise AssessJobsError(f"config out: expected a directory, got {out!r}")
    secret = _names(config.get("secret"), "secret") or None
    tolerance = config.get("tolerance")
    if tolerance is not None:
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float, str)):
            raise AssessJobsError(f"config tolerance: expected a number in (0, 1] (a share of the true value), "
                                  f"got {tolerance!r}")
        try:
            tolerance = tolerance_value(str(tolerance))
        except ValueError as exc:
            raise AssessJobsError(f"config tolerance: {str(exc).split(': ', 1)[1]}") from None
        if not secret:
            raise AssessJobsError("config tolerance: applies to inference only; name the secret (secret: COL)")
    singling_out = _flag(config.get("singling_out", True), "singling_out")
    gate = gate_problem(limit, bool(secret), singling_out, "config max_risk")
    if gate:
        raise AssessJobsError(gate)
    weights = _column(config.get("weights"), "weights")
    control = config.get("control")
    if control is not None:
        if not isinstance(control, str) or not control.strip():
            raise AssessJobsError(f"config control: expected the path of the control file (originals not used to "
                                  f"train the generator), got {control!r}")
        given = {"attacks": "attacks", "scenarios": "scenarios", "prl_candidates": "prl_candidates",
                 "weights": "weights"}
        for key in given:
            if config.get(key) is not None:
                raise AssessJobsError(f"config {key}: does not apply to a synthetic release (control); a synthetic "
                                      "assessment runs every attack that applies on the known attributes "
                                      "(docs/assess.md, Synthetic releases)")
        if control in releases or control == original:
            raise AssessJobsError(f"config control: {control!r} is also the original or a release; the control set "
                                  "holds originals the generator was not trained on")
    settings = {"id": id_, "known": known, "scenarios": scenarios,
                "categorical": _names(config.get("categorical"), "categorical"), "prl_candidates": k, "seed": seed,
                "secret": secret, "tolerance": tolerance, "singling_out": singling_out, "weights": weights,
                "control": control, "default_attacks": config.get("attacks") is None}
    if control is not None:
        attacks = []
    elif config.get("attacks") is None:  # a sample release's default adds DBRL (sdcrisk.assess.sample)
        from .sample import sample_attacks

        attacks = sample_attacks(attacks, None)
    return Plan(original, releases, attacks, config.get("attacks") is not None, settings, limit, timings,
                out.rstrip("/") or out, release_keys(releases))


def _flag(value, key: str) -> bool:
    """A YAML boolean, or its text from ``--config key=false``."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return value.strip().lower() in ("true", "yes")
    if not isinstance(value, bool):
        raise AssessJobsError(f"config {key}: expected true or false, got {value!r}")
    return value


def _column(value, key: str) -> str | None:
    """A column name (``--config weights=7``: column '7')."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise AssessJobsError(f"config {key}: expected a column name, got {value!r}")
    return value


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
    value among those records; each release (and the control file) with the original's columns
    (the ``weights`` column aside, which every release needs); ``known``, ``scenarios``,
    ``categorical`` and ``secret`` fitting the attribute columns; with a control set and an ``id``,
    no release holding ids of the original (a one-to-one or sample release is not synthetic: the
    id columns are read whole). Each of these would fail every job of the file
    (:func:`sdcrisk.assess.assessment.pair_files`, :func:`~sdcrisk.assess.assessment.scenarios_from`,
    :func:`sdcrisk.assess.synthetic.check_files`); the first found raises :class:`AssessJobsError`
    naming the file and field.

    What only the whole file shows (record counts, ids of one file missing from the other, values
    that are not numbers further down) is left to the jobs, which read every record."""
    from .assessment import _ids as ids_of, scenarios_from, secret_names

    def _ids(table, name, id_):
        try:
            ids_of(table, name, id_)
        except AssessJobsError:
            raise
        except AssessError as exc:
            raise AssessJobsError(str(exc)) from None

    s = plan.settings
    id_, weights = s["id"], s.get("weights")
    head = read_head(plan.original, rows)
    if id_ is not None:
        _ids(head, plan.original, id_)
    cols = [c for c in head.columns if c not in (id_, weights)]
    if not cols:
        raise AssessJobsError(f"{plan.original}: no attribute columns besides the id")
    others = [(r, "release") for r in plan.releases] + ([(s["control"], "control")] if plan.synthetic else [])
    for release, what in others:
        other = read_head(release, rows)
        if id_ is not None and (what == "control" or not plan.synthetic or id_ in other.columns):
            _ids(other, release, id_)
        if weights is not None and what == "release" and weights not in other.columns:
            raise AssessJobsError(f"weights: {release} has no column {weights!r}; expected the release's "
                                  "sampling-weight column")
        attrs = [c for c in other.columns if c not in (id_, weights)]
        if set(attrs) != set(cols):
            only_o = [c for c in cols if c not in attrs]
            only_m = [c for c in attrs if c not in cols]
            raise AssessJobsError(f"{plan.original} and {release} have different columns: only in {plan.original}: "
                                  f"{only_o or 'none'}; only in {release}: {only_m or 'none'}")
    unknown = [c for c in (s["categorical"] or []) if c not in cols]
    if unknown:
        raise AssessJobsError(f"{plan.original}: categorical: {unknown} not among the attribute columns {cols}")
    try:  # identifier columns the jobs leave out only shorten the list: what fails here fails there
        _, known = secret_names(cols, s.get("secret"), s["known"], s["scenarios"], (plan.original, plan.releases[0]))
        scenarios_from(cols, known, s["scenarios"])
    except AssessError as exc:
        raise AssessJobsError(f"{plan.original}: {exc}") from None
    if plan.synthetic and id_ is not None:
        ids = set(_id_column(plan.original, id_))
        for release in plan.releases:
            if id_ in read_head(release, 1).columns:
                shared = [v for v in _id_column(release, id_) if v in ids]
                if shared:
                    raise AssessJobsError(f"control: {release} holds {len(shared):,} id(s) of {plan.original} "
                                          f"(column {id_!r}), e.g. {shared[0]!r}: a one-to-one or sample release is "
                                          "not a synthetic release; drop control for it")


def _id_column(path: str, id_: str) -> list:
    """Every value of one column of a CSV or parquet file (the others are not read)."""
    import pandas as pd

    if str(path).lower().endswith(".parquet"):
        return pd.read_parquet(path, columns=[id_])[id_].tolist()
    return pd.read_csv(path, usecols=[id_])[id_].tolist()


def local_argv(plan: Plan) -> list[str]:
    """The arguments of the ``sdcrisk assess`` command that makes the same report on one machine
    (the report's ``meta.command`` is ``sdcrisk`` and these)."""
    s = plan.settings
    argv = ["assess", plan.original, *plan.releases]
    if s["id"] is not None:
        argv += ["--id", s["id"]]
    if s.get("control") is not None:
        argv += ["--control", s["control"]]
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
    if s.get("secret"):
        argv += ["--secret", ",".join(s["secret"])]
    if s.get("tolerance") is not None:
        argv += ["--tolerance", repr(s["tolerance"])]
    if not s.get("singling_out", True):
        argv.append("--no-singling-out")
    if s.get("weights") is not None:
        argv += ["--weights", s["weights"]]
    if plan.max_risk is not None:
        limit = plan.max_risk
        argv += ["--max-risk", ",".join(f"{k.replace(' ', '-')}={v!r}" for k, v in limit.items())
                 if isinstance(limit, dict) else repr(limit)]
    if s["seed"] != 0:
        argv += ["--seed", str(s["seed"])]
    argv += ["--out", plan.out]
    if not plan.timings:
        argv.append("--no-timings")
    return argv


# ----------------------------------------------------------------------------- the jobs
def _assess_options(settings: dict) -> dict:
    from ..criteria.inference import TOLERANCE

    return {"id": settings["id"], "known": settings["known"], "scenarios": settings["scenarios"],
            "seed": settings["seed"], "prl_candidates": settings["prl_candidates"],
            "categorical": settings["categorical"] or None, "secret": settings.get("secret"),
            "tolerance": TOLERANCE if settings.get("tolerance") is None else settings["tolerance"],
            "weights": settings.get("weights")}


def _write_part(path, doc: dict) -> Path:
    from ..data import atomic_write

    # floats as repr: read back to the same bits; NaN as NaN; numpy scalars as Python numbers
    text = json.dumps(doc, indent=1, default=lambda v: v.item() if hasattr(v, "item") else str(v)) + "\n"
    return atomic_write(path, lambda tmp: Path(tmp).write_text(text))


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _paired(original: str, release: str, settings: dict) -> tuple:
    """The files read and paired as :func:`~sdcrisk.assess.assessment.assess` pairs them:
    ``(pair, secrets, known, labels, record_ids, weights)`` (:func:`~sdcrisk.assess.assessment._prepared`)."""
    from .assessment import _prepared, read_file

    return _prepared(read_file(original), read_file(release), id=settings["id"], names=(original, release),
                     categorical=settings["categorical"] or None, weights=settings.get("weights"),
                     secret=settings.get("secret"), known=settings["known"], scenarios=settings["scenarios"])


def attack_part(original: str, release: str, attack: str, settings: dict, path) -> Path:
    """One attack on one release, every scenario: :func:`~sdcrisk.assess.assessment.assess` with
    ``attacks=[attack]``, no information loss and the criteria left to the criteria job (with a
    secret the part holds the attack's links for it); its rows and ``attrs`` written to ``path``.
    With the default set, DBRL (which only a sample release's default runs,
    :func:`sdcrisk.assess.sample.sample_attacks`) writes no rows on a one-to-one release."""
    from .assessment import assess, attack_names

    doc = {"original": original, "release": release, "measure": attack, "settings": settings}
    if settings.get("default_attacks") and attack not in attack_names(None) and _paired(
            original, release, settings)[0].rows is None:
        return _write_part(path, {**doc, "rows": [], "attrs": {}, "skipped": "not in a one-to-one release's "
                                                                             "default set"})
    links: dict = {}
    table = assess(original, release, attacks=[attack], information_loss=False, progress=_say, links_out=links,
                   singling_out=settings.get("singling_out", True), **_assess_options(settings))
    attrs = dict(table.attrs)  # all of them: the command's report_meta reads them
    doc.update(rows=table.to_dict(orient="records"), attrs=attrs,
               links={k: v.tolist() for k, v in links.items()})
    return _write_part(path, doc)


def loss_part(original: str, release: str, settings: dict, path) -> Path:
    """The information-loss rows of one release, as :func:`~sdcrisk.assess.assessment.assess` computes
    them (the files paired as there: :func:`_paired`), written to ``path``."""
    from .assessment import Pair, _loss_rows

    pair = _paired(original, release, settings)[0]
    sample = pair.rows is not None
    if sample:  # a sample: each released record beside its own original record (assess_sample)
        from .sample import RECORDS

        pair = Pair(pair.x[pair.rows], pair.y, pair.cx[pair.rows], pair.cy, pair.columns, pair.numeric,
                    pair.categorical, pair.keys, pair.pairing, pair.warnings)
    rows = [{**r, "records": RECORDS} if sample else r for r in _loss_rows(pair)]  # as assess_sample marks them
    doc = {"original": original, "release": release, "measure": None, "settings": settings,
           "rows": rows, "attrs": {}}
    return _write_part(path, doc)


def criteria_part(plan: Plan, i: int, path) -> Path:
    """The criteria other than linkability of release number ``i``: inference of the secrets (from
    the links of its attack parts), singling out and the agencies' measures, by
    :func:`sdcrisk.assess.assessment.criteria_results` as the command computes them; its rows,
    ``attrs`` and records at risk written to ``path``."""
    import numpy as np

    from .assessment import COLUMNS, CRITERION_COLUMNS, _evidence, criteria_results, sample_criteria, scenarios_from
    from .criteria import criteria_attrs, sample_criterion_rows
    from ..criteria.inference import TOLERANCE

    s = plan.settings
    original, release = plan.original, plan.releases[i]
    pair, secrets, known, labels, record_ids, weights = _paired(original, release, s)
    sets = scenarios_from(pair.columns, known, s["scenarios"])
    tolerance = s.get("tolerance") or TOLERANCE
    singling_out = s.get("singling_out", True)
    links = {}
    if pair.rows is None and secrets:  # a one-to-one release: inference from each attack's links
        for attack in plan.attacks:
            part = _read_part(plan, i, attack)
            links.update({k: np.asarray(v, dtype=np.int64) for k, v in part.get("links", {}).items()})
    common = dict(tolerance=tolerance, record_ids=record_ids, labels=labels, singling_out=singling_out,
                  seed=s["seed"], weights=weights, say=_say)
    crit = (sample_criteria(pair, sets, secrets, **common) if pair.rows is not None
            else criteria_results(pair, sets, secrets, links, singled=None, **common))
    evidence = crit["evidence"]
    attrs: dict = {"singling_out": bool(singling_out), **criteria_attrs(crit, secrets, tolerance)}
    import pandas as pd

    if pair.rows is not None:  # a sample: the inference rows count released records
        table = sample_criterion_rows(crit["rows"])
        table = table if table is not None else pd.DataFrame(columns=COLUMNS)
        rows = table.reindex(columns=COLUMNS + CRITERION_COLUMNS + ["records"])
    else:
        rows = pd.DataFrame(crit["rows"]).reindex(columns=COLUMNS + CRITERION_COLUMNS)
    rows = rows.to_dict(orient="records")
    doc = {"original": original, "release": release, "measure": CRITERIA, "settings": s, "rows": rows,
           "attrs": attrs, "records": _evidence(evidence).to_dict(orient="records")}
    return _write_part(path, doc)


def synthetic_part(original: str, release: str, settings: dict, path) -> Path:
    """A synthetic release with its control set: :func:`sdcrisk.assess.synthetic.assess_synthetic`
    (every attack), its rows, ``attrs`` and records at risk written to ``path``."""
    from ..criteria.inference import TOLERANCE
    from .synthetic import assess_synthetic

    t = assess_synthetic(original, release, settings["control"], id=settings["id"], known=settings["known"],
                         secret=settings.get("secret"), categorical=settings["categorical"] or None,
                         tolerance=settings.get("tolerance") or TOLERANCE, seed=settings["seed"],
                         singling_out=settings.get("singling_out", True),
                         names=(original, release, settings["control"]), progress=_say)
    attrs = {k: v for k, v in t.attrs.items() if k != "records_at_risk"}
    doc = {"original": original, "release": release, "measure": SYNTHETIC, "settings": settings,
           "rows": t.to_dict(orient="records"), "attrs": attrs,
           "records": t.attrs["records_at_risk"].table.to_dict(orient="records")}
    return _write_part(path, doc)


def _read_part(plan: Plan, i: int, attack: str | None) -> dict:
    path = plan.part(i, attack)
    doc = json.loads(Path(path).read_text())
    want = {"original": plan.original, "release": plan.releases[i], "measure": attack, "settings": plan.settings}
    for key, value in want.items():
        if doc.get(key) != value:
            raise AssessJobsError(f"{path}: made for {key} {doc.get(key)!r}, not {value!r}; remove it and run again")
    return doc


def _release_attacks(plan: Plan, sample: bool) -> list[str]:
    """The attacks of one release in the command's order: the plan's, or with the default set the
    one-to-one default (:func:`sdcrisk.assess.assessment.attack_names`) or a sample's (DBRL added)."""
    from .assessment import attack_names
    from .sample import sample_attacks

    if not plan.settings.get("default_attacks"):
        return list(plan.attacks)
    return sample_attacks(attack_names(None), None) if sample else attack_names(None)


def gather(plan: Plan):
    """The results table and ``meta`` of the report, from the parts: the rows in the order of
    the local command (module docstring), and the records at risk (None without a criterion
    beside linkability)."""
    import pandas as pd

    from .assessment import COLUMNS, CRITERION_COLUMNS
    from .arguments import report_meta
    from .pairing import RecordsAtRisk

    tables, records = [], []
    for i, release in enumerate(plan.releases):
        done = {a: _read_part(plan, i, a) for a in plan.attacks}
        sample = any(p["attrs"].get("release_type") == "sample" for p in done.values())
        parts = [done[a] for a in _release_attacks(plan, sample)]
        if any("skipped" in p for p in parts):
            raise AssessJobsError(f"parts of {release}: an attack part was skipped that the release needs; "
                                  "remove the parts and run again")
        scenarios = {len(p["rows"]) for p in parts}
        if len(scenarios) != 1:
            raise AssessJobsError(f"parts of {release}: different numbers of scenarios {sorted(scenarios)}")
        rows = [p["rows"][s] for s in range(scenarios.pop()) for p in parts]
        rows += _read_part(plan, i, None)["rows"]
        crit = _read_part(plan, i, CRITERIA) if plan.criteria else None
        if crit is not None:
            rows += crit["rows"]
        asked = crit is not None and (bool(plan.settings.get("secret")) or bool(crit["attrs"].get("singling_out")))
        t = pd.DataFrame(rows)
        extra = [c for c in t.columns if c not in COLUMNS + CRITERION_COLUMNS]  # a sample's ``records``
        t = t.reindex(columns=COLUMNS + (CRITERION_COLUMNS if asked else []) + extra)
        t.attrs.update(parts[0]["attrs"])
        if sample:  # each attack's precision-recall table, in the command's order (scenario, then attack)
            from .sample import CONFIDENCE

            todo = _release_attacks(plan, True)
            labels = list(dict.fromkeys(r["scenario"] for r in parts[0]["rows"]))
            pr = sorted((e for p in parts for e in p["attrs"]["sample"]["precision_recall"]),
                        key=lambda e: (labels.index(e["scenario"]), todo.index(e["attack"])))
            t.attrs["sample"] = {**parts[0]["attrs"]["sample"], "precision_recall": pr,
                                 "no_confidence": [a for a in todo if a not in CONFIDENCE and a != "ID"]}
        elif not plan.attacks_given:  # each job named its attack: the default set's left-out ones, as the command says
            from .default_attacks import left_out_reasons

            t.attrs["left_out"] = left_out_reasons(None)
        if crit is not None:
            t.attrs.update(crit["attrs"])
            if asked:
                t.attrs["records_at_risk"] = RecordsAtRisk(pd.DataFrame(crit["records"]).reindex(
                    columns=["record", "criterion", "attack", "evidence"]))
                records.append(t.attrs["records_at_risk"].table.assign(masked=release))
        tables.append(t.assign(masked=release))
    results = pd.concat(tables, ignore_index=True)
    meta = report_meta(plan.original, plan.releases, tables, plan.settings["seed"], local_argv(plan), plan.max_risk)
    return results, meta, (pd.concat(records, ignore_index=True) if records else None)


def _gather_synthetic(plan: Plan):
    import pandas as pd

    from .pairing import RecordsAtRisk
    from .synthetic import COLUMNS

    tables = []
    for i in range(len(plan.releases)):
        part = _read_part(plan, i, SYNTHETIC)
        t = pd.DataFrame(part["rows"]).reindex(columns=COLUMNS)
        t.attrs.update(part["attrs"], records_at_risk=RecordsAtRisk(
            pd.DataFrame(part["records"]).reindex(columns=["record", "criterion", "attack", "evidence"])))
        tables.append(t)
    return tables


def write(plan: Plan) -> list[Path]:
    """Gather the parts and write the report into ``plan.out``; print the command's summary."""
    from .report import gate, summary_text, write_report

    if plan.synthetic:
        from . import synthetic

        tables = _gather_synthetic(plan)
        print(synthetic.summary_text(tables, plan.releases))
        meta = {"original": plan.original, "control": plan.settings["control"], "seed": plan.settings["seed"],
                "command": " ".join(["sdcrisk", *local_argv(plan)]), "max_risk": plan.max_risk}
        verdict = synthetic.gate(tables, plan.releases, plan.max_risk) if plan.max_risk is not None else None
        files = synthetic.write_report(tables, plan.releases, Path(plan.out), meta, timings=plan.timings,
                                       verdict=verdict)
        print("report: " + ", ".join(str(f) for f in files))
        if verdict is not None:
            for line in verdict["lines"]:
                print(f"risk gate ({verdict['status']}): {line}")
        return files
    results, meta, records = gather(plan)
    files = write_report(results, plan.out, meta, timings=plan.timings,
                         **({"records": records} if records is not None else {}))
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
    from .arguments import max_risk_limits, parse_assess_args, secrets, split, tolerance_value

    args = parse_assess_args(argv)
    config = {"original": args.original, "releases": list(args.masked)}
    options = {"id": args.id, "known": split(args.known), "scenarios": args.scenarios,
               "attacks": split(args.attacks), "categorical": split(args.categorical),
               "prl_candidates": args.prl_candidates, "seed": args.seed or None,
               "secret": secrets(args.secret),
               "tolerance": None if args.tolerance is None else tolerance_value(args.tolerance),
               "singling_out": False if not args.singling_out else None, "weights": args.weights,
               "control": args.control, "max_risk": max_risk_limits(args.max_risk),
               "timings": False if args.no_timings else None}
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
    for step in ("attack", "loss", "synthetic"):
        s = sub.add_parser(step)
        s.add_argument("--original", required=True)
        s.add_argument("--release", required=True)
        if step == "attack":
            s.add_argument("--attack", required=True)
        s.add_argument("--settings", required=True, help="JSON object with the keys of SETTINGS")
        s.add_argument("--part", required=True, help="the part file to write")
    k = sub.add_parser("criteria")
    k.add_argument("--plan", required=True, help="the Plan as JSON")
    k.add_argument("--number", required=True, type=int, help="the release's number in the plan (from 0)")
    k.add_argument("--part", required=True, help="the part file to write")
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
        elif args.step == "synthetic":
            synthetic_part(args.original, args.release, json.loads(args.settings), args.part)
        elif args.step == "criteria":
            criteria_part(Plan.from_json(args.plan), args.number, args.part)
        else:
            write(Plan.from_json(args.plan))
    except (AssessError, ValueError) as exc:
        print(f"{p.prog} {args.step}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
