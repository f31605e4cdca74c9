"""Compute estimate of a config: how many cell jobs, maskings and linkages its sweeps run, and
roughly how long; :func:`check_compute` refuses a config over the limit when the DAG is built
(:func:`sdcrisk.replication.config.validate`), before any job runs.

The rule: every cell (data set x method x parameter set of an experiment; :func:`sdcrisk.replication.config.cells`)
masks its data ``replicates`` times (once for a deterministic method), and every masked file is
attacked ``attacks x scenarios`` times, with the attacks and known-attribute scenarios of the
experiment's evaluation (:data:`ATTACKS_PER_SCENARIO`; an evaluation that varies the known
attributes is counted as one scenario per attribute, an upper bound; the attack matrix runs its
``options.attacks`` once). The time is the linkages times :data:`SECONDS_PER_LINKAGE`, measured on
the paper-scale run (24 CPU minutes for 34,000 linkages on files of 1,080 and 4,092 records;
README, "Run time and memory"): a larger file costs more per linkage.

The limit is :data:`DEFAULT_MAX_LINKAGES` linkages (about 30 times the paper-scale run, half a
CPU day); the config key ``max_linkages`` sets another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

DEFAULT_MAX_LINKAGES = 1_000_000
SECONDS_PER_LINKAGE = 0.04  # CPU seconds: 24 CPU minutes / 34,000 linkages of the paper-scale run

# evaluation -> (attacks per known-attribute scenario, whether the scenarios run over the
# attributes); the attack matrix's attacks are its options.attacks (sdcrisk.replication.evaluation)
ATTACKS_PER_SCENARIO = {
    "rank_linkage": (3, False),      # DBRL, RBRL-Sum, RBRL-Max, all attributes known
    "location_scores": (3, True),    # L-RL, DBRL, PRL
    "rsrl_scores": (3, True),        # RS-RL, DBRL, PRL
    "projected_scores": (4, True),   # DBRL, PRL, Pro-RL PCP and z-score
    "belief_rsrl": (1, True),        # RS-RL candidate sets
    "attack_matrix": (None, False),  # options.attacks, half of the attributes known
}


@dataclass
class Estimate:
    jobs: int = 0
    maskings: int = 0
    linkages: int = 0
    by_experiment: dict[str, int] = field(default_factory=dict)  # linkages

    @property
    def seconds(self) -> float:
        return self.linkages * SECONDS_PER_LINKAGE

    def __str__(self) -> str:
        return (f"{self.jobs:,} cell job(s), {self.maskings:,} masking(s) and {self.linkages:,} linkage(s), "
                f"about {cpu_time(self.seconds)} at {SECONDS_PER_LINKAGE} s per linkage")


def cpu_time(seconds: float) -> str:
    for unit, size in (("CPU years", 365 * 86400), ("CPU days", 86400), ("CPU hours", 3600), ("CPU minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.0f} {unit}"
    return f"{seconds:.0f} CPU seconds"


def estimate(cfg: dict, jobs: Sequence[Sequence]) -> Estimate:
    """The compute estimate of a validated config whose cells run as ``jobs`` (lists of
    :class:`sdcrisk.replication.config.Cell`, :func:`sdcrisk.replication.config.cell_batches`; module docstring)."""
    from ..attacks import matrix_attacks
    from ..masking import get_method

    out = Estimate(jobs=len(jobs))
    for c in (c for job in jobs for c in job):
        exp = cfg["experiments"][c.experiment]
        maskings = int(exp["replicates"]) if get_method(c.method).randomised else 1
        attacks, per_attribute = ATTACKS_PER_SCENARIO[exp["evaluation"]]
        attacks = attacks or len(matrix_attacks(exp.get("options") or {}))
        linkages = maskings * attacks * (len(cfg["datasets"][c.dataset]["columns"]) if per_attribute else 1)
        out.maskings += maskings
        out.linkages += linkages
        out.by_experiment[c.experiment] = out.by_experiment.get(c.experiment, 0) + linkages
    return out


def check_compute(cfg: dict, jobs: Sequence[Sequence]) -> Estimate:
    """The estimate of ``cfg`` (:func:`estimate`), or ``ValueError`` when its linkages exceed the
    config key ``max_linkages`` (default :data:`DEFAULT_MAX_LINKAGES`)."""
    limit = cfg.get("max_linkages", DEFAULT_MAX_LINKAGES)
    est = estimate(cfg, jobs)
    if est.linkages > limit:
        top = max(est.by_experiment, key=est.by_experiment.get)
        raise ValueError(f"the sweeps would run {est}, more than the limit of {limit:,} linkages (most in "
                         f"experiments.{top}: {est.by_experiment[top]:,}); lower its replicates or parameter grid, "
                         f"or set max_linkages: {est.linkages} in the config to run it anyway")
    return est
