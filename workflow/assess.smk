# `sdcrisk assess` on several masked releases of one original, spread over a cluster: one job per
# (release, attack), one per release for the information loss, and a local gather step that writes
# the report the command writes (docs/cluster.md, "Several releases on a cluster";
# sdcrisk.assess.jobs). Separate from the replication's Snakefile.
#
#   snakemake -s workflow/assess.smk --profile profiles/slurm --configfile assess.yaml
#   snakemake -s workflow/assess.smk --cores 2 --config original=orig.csv 'releases=[a.csv,b.csv]' timings=false
#
# Config keys (sdcrisk.assess.jobs.plan_from_config): original, releases, and optionally attacks,
# id, known, scenarios, categorical, prl_candidates, seed, secret, tolerance, singling_out (false:
# the command's --no-singling-out), weights, control (a synthetic release's control set), max_risk
# (one number or a mapping criterion: limit), timings (false: the command's --no-timings) and out
# (default sdcrisk-report). Paths are relative to the working directory (--directory). The report
# is <out>/report.{json,md,html} (and records_at_risk.csv); the parts and logs go to <out>/parts/.
# A sample release (id in both files, fewer released records) is told from the files as the
# command tells it; a synthetic release (control) runs as one job per release.
import json
import os
import re
import shlex
import sys

from sdcrisk.assess import jobs as assess_jobs

try:
    PLAN = assess_jobs.plan_from_config(config)
except assess_jobs.AssessJobsError as _exc:  # one line, exit 2 (bad input), before any job
    print(f"CONFIG ERROR: {_exc}", file=sys.stderr)
    os._exit(2)

# The command's own input checks, once, before any job (also with --dry-run): every file's header
# and first records (assess_jobs.check_inputs). A release with other columns, an id column missing
# from a file or an option that does not fit the columns would fail every job of the file, each
# (on SLURM) a submitted job with the cause only in its log. Only where Snakemake was started: the
# processes it starts for single jobs read the files themselves.
if workflow.is_main_process:
    try:
        assess_jobs.check_inputs(PLAN)
    except assess_jobs.AssessError as _exc:
        print(f"INPUT ERROR: {_exc}", file=sys.stderr)
        os._exit(2)

PY = shlex.quote(sys.executable)
RELEASE = dict(zip(PLAN.keys, PLAN.releases))  # directory name -> release path
RELEASE_NUMBER = {k: i for i, k in enumerate(PLAN.keys)}
ATTACK = {assess_jobs.slug(a): a for a in PLAN.attacks}  # file name -> attack
SETTINGS = json.dumps(PLAN.settings, sort_keys=True)
# each job's BLAS and numba threads: the rule's threads (1 unless --set-threads attack=N)
THREADS = "export OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads} MKL_NUM_THREADS={threads} " \
          "NUMBA_NUM_THREADS={threads}; "

wildcard_constraints:
    release="|".join(map(re.escape, PLAN.keys)),
    attack="|".join(map(re.escape, ATTACK)) or "(?!)",

localrules: all, report

# the numba kernels, compiled once before the first attack job (sdcrisk.compile.before_jobs)
onstart:
    from sdcrisk.compile import before_jobs

    before_jobs()


rule all:
    input:
        PLAN.report_files(),


# One attack on one release (every scenario). Where a cluster executor reads them: memory (MB),
# runtime (minutes); raise them for large files with --set-resources attack:mem_mb=16000.
rule attack:
    input:
        original=PLAN.original,
        release=lambda wc: RELEASE[wc.release],
    output:
        f"{PLAN.parts}/{{release}}/{{attack}}.json",
    log:
        f"{PLAN.parts}/logs/{{release}}/{{attack}}.log",
    params:
        original=PLAN.original,
        release=lambda wc: RELEASE[wc.release],
        attack=lambda wc: ATTACK[wc.attack],
        settings=SETTINGS,
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    shell:
        THREADS + PY + " -m sdcrisk.assess.jobs attack --original {params.original:q} --release {params.release:q}"
        " --attack {params.attack:q} --settings {params.settings:q} --part {output:q} > {log:q} 2>&1"


rule information_loss:
    input:
        original=PLAN.original,
        release=lambda wc: RELEASE[wc.release],
    output:
        f"{PLAN.parts}/{{release}}/{assess_jobs.LOSS}.json",
    log:
        f"{PLAN.parts}/logs/{{release}}/{assess_jobs.LOSS}.log",
    params:
        original=PLAN.original,
        release=lambda wc: RELEASE[wc.release],
        settings=SETTINGS,
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    shell:
        THREADS + PY + " -m sdcrisk.assess.jobs loss --original {params.original:q} --release {params.release:q}"
        " --settings {params.settings:q} --part {output:q} > {log:q} 2>&1"


# The criteria beside linkability of one release (inference from its attacks' links, with a
# secret; singling out; the agencies' measures): sdcrisk.assess.assessment.criteria_results.
rule criteria:
    input:
        original=PLAN.original,
        release=lambda wc: RELEASE[wc.release],
        links=lambda wc: PLAN.criteria_inputs(RELEASE_NUMBER[wc.release]),
    output:
        f"{PLAN.parts}/{{release}}/{assess_jobs.CRITERIA}.json",
    log:
        f"{PLAN.parts}/logs/{{release}}/{assess_jobs.CRITERIA}.log",
    params:
        plan=PLAN.to_json(),
        number=lambda wc: RELEASE_NUMBER[wc.release],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        THREADS + PY + " -m sdcrisk.assess.jobs criteria --plan {params.plan:q} --number {params.number}"
        " --part {output:q} > {log:q} 2>&1"


# A synthetic release with its control set (config control): every attack in one job
# (sdcrisk.assess.synthetic.assess_synthetic).
rule synthetic:
    input:
        original=PLAN.original,
        release=lambda wc: RELEASE[wc.release],
        control=PLAN.settings["control"] or [],
    output:
        f"{PLAN.parts}/{{release}}/{assess_jobs.SYNTHETIC}.json",
    log:
        f"{PLAN.parts}/logs/{{release}}/{assess_jobs.SYNTHETIC}.log",
    params:
        original=PLAN.original,
        release=lambda wc: RELEASE[wc.release],
        settings=SETTINGS,
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    shell:
        THREADS + PY + " -m sdcrisk.assess.jobs synthetic --original {params.original:q} --release {params.release:q}"
        " --settings {params.settings:q} --part {output:q} > {log:q} 2>&1"


# Local: reads the parts, orders them as the command does and writes the report.
rule report:
    input:
        [p for i in range(len(PLAN.releases)) for p in PLAN.release_parts(i)],
    output:
        PLAN.report_files(),
    log:
        f"{PLAN.parts}/logs/report.log",
    params:
        plan=PLAN.to_json(),
    shell:
        PY + " -m sdcrisk.assess.jobs gather --plan {params.plan:q} > {log:q} 2>&1"
