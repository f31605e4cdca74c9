"""Shared fixtures: the two reference files, fetched from the local mirror and checksum-verified."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from sdcrisk.data import MIRROR_ENV, DatasetSpec, fetch, load_table

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MIRROR = ROOT.parent / "shared" / "data"


def planned_jobs(output: str) -> dict[str, int]:
    """Jobs per rule from the "Job stats" table a Snakemake (dry) run prints; empty when nothing is to be done."""
    return {rule: int(n) for rule, n in re.findall(r"^(\w+)\s+(\d+)$", output, flags=re.M)}


def mirror_dir() -> Path:
    return Path(os.environ.get(MIRROR_ENV) or DEFAULT_MIRROR)


def dataset_spec(name: str) -> DatasetSpec:
    entries = yaml.safe_load((ROOT / "config" / "datasets.yaml").read_text())["datasets"]
    return DatasetSpec.from_config(name, entries[name])


def _load(name: str, tmp_path_factory) -> np.ndarray:
    spec = dataset_spec(name)
    if not (mirror_dir() / spec.filename).is_file():
        pytest.skip(f"reference data mirror {mirror_dir()} not available")
    path = fetch(spec, tmp_path_factory.mktemp("data") / spec.filename, mirror=mirror_dir())
    return load_table(spec, path).to_numpy()


@pytest.fixture(scope="session")
def census(tmp_path_factory) -> np.ndarray:
    """Census (CASCrefmicrodata), 1080 x 13 float64."""
    return _load("census", tmp_path_factory)


@pytest.fixture(scope="session")
def eia(tmp_path_factory) -> np.ndarray:
    """EIA, the 10 numeric attributes, 4092 x 10 float64."""
    return _load("eia", tmp_path_factory)


#: modules whose tests run Snakemake, a notebook, the SLURM cluster or the committed paper-scale outputs
SLOW_MODULES = {"test_workflow", "test_slurm", "test_cell_batch", "test_notebooks", "test_committed",
                "test_bench_scaling"}
#: tests that start Snakemake, a compiling child process or the command line in subprocesses (measured
#: at 1-70 s each with `pytest -m "not slow" --durations=70`)
SLOW_TESTS = {"test_toy_method_and_dataset_through_the_dag", "test_readme_extension_example_runs_as_written",
              "test_prl_same_links_on_one_thread", "test_child_compiles_what_a_real_call_uses",
              "test_warmup_starts_only_when_needed", "test_numba_cache_goes_to_the_user_cache_directory",
              "test_command_writes_the_report_and_prints_a_summary", "test_assess_needs_no_workflow_dependency",
              "test_bad_input_gets_a_message_and_no_report", "test_unreadable_files_are_named",
              "test_command_errors_have_no_traceback", "test_internal_error_in_a_subprocess_has_no_traceback",
              "test_ctrl_c_during_the_attacks_exits_130_at_once",
              "test_mixed_example_files", "test_mixed_example_end_to_end_through_the_command",
              "test_workflow_with_the_local_profile_matches_the_command",
              "test_workflow_on_the_slurm_cluster_matches_the_command",
              "test_sample_and_synthetic_releases_through_the_workflow_match_the_command",
              "test_a_bad_criterion_key_stops_the_workflow_with_one_line_and_exit_2"}
SLOW_TESTS |= {"test_declared_memory_covers_the_measured_peak",  # a child process per masking method
               "test_after_compile_assess_compiles_nothing",  # sdcrisk compile in a fresh cache
               "test_mdav_kernels_compile_one_specialisation_each",  # MDAV's kernels in a fresh cache
               "test_changed_source_drops_the_cached_kernels_that_may_hold_it"}
SLOW_TESTS |= {"test_workers_give_the_in_process_rows",  # attack worker processes (sdcrisk.assess.workers)
               "test_error_in_a_worker_names_the_exception_and_the_place",
               "test_two_attacks_run_together_only_while_their_memory_fits",
               "test_a_signal_kills_the_workers_and_removes_their_arrays",
               "test_an_attack_expected_above_the_limit_is_refused_up_front",
               "test_the_progress_line_carries_the_worker_s_count",
               "test_under_an_address_space_limit_every_attack_runs_or_is_refused"}
#: fixtures that read the reference data
DATA_FIXTURES = {"census", "eia"}


def pytest_collection_modifyitems(config, items):
    """Mark as ``slow`` every test that reads the reference data or runs the DAG, so that
    ``pytest -m "not slow"`` is the fast subset of unit and property tests (README)."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if (module in SLOW_MODULES or item.originalname in SLOW_TESTS
                or DATA_FIXTURES & set(getattr(item, "fixturenames", ()))):
            item.add_marker(pytest.mark.slow)
