"""Attack workers (sdcrisk.assess.workers): the attacks of a large file in child processes give the
rows of the same attacks in this process, an error names its place, Ctrl-C leaves nothing
behind, and the progress estimate follows its measured points."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sdcrisk
import sdcrisk.assess.assessment as assessment
from sdcrisk.assess import workers
from sdcrisk.assess.assessment import AssessError, attack_workers, pair_files

from interrupt import signal_during_attacks


def _pool(pair, count):
    """Workers holding ``pair`` (rows in their own order)."""
    pool = workers.AttackWorkers(count)
    pool.load(pair, np.arange(pair.n))
    return pool


def _files(n=400, seed=0):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame(np.round(rng.lognormal(3.0, 0.7, (n, 4)), 1), columns=list("abcd"))
    y = x + rng.normal(0.0, 0.3, x.shape) * x.std().to_numpy()
    return x, y


def test_workers_give_the_in_process_rows(monkeypatch):
    x, y = _files()
    monkeypatch.setenv("SDCRISK_WORKER_MIN", "0")
    assert attack_workers(len(x), 2) == 2
    pooled = sdcrisk.assess(x, y, scenarios="2..all")
    monkeypatch.delenv("SDCRISK_WORKER_MIN")
    assert attack_workers(len(x), 2) == 0
    local = sdcrisk.assess(x, y, scenarios="2..all")
    pd.testing.assert_frame_equal(pooled.drop(columns="seconds"), local.drop(columns="seconds"))


def test_worker_count_rule(monkeypatch):
    monkeypatch.delenv("SDCRISK_WORKER_MIN", raising=False)
    assert attack_workers(assessment.WORKER_MIN - 1, 8) == 0
    assert attack_workers(assessment.WORKER_MIN, 8) == 2
    assert attack_workers(10 * assessment.CONCURRENT_MAX, 8) == 2  # the memory decides what runs together
    assert attack_workers(assessment.WORKER_MIN, 1) == 1
    monkeypatch.setenv("SDCRISK_WORKER_MIN", "many")
    with pytest.raises(AssessError, match="SDCRISK_WORKER_MIN='many': expected a whole number"):
        attack_workers(10, 2)


def test_error_in_a_worker_names_the_exception_and_the_place(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    x, y = _files(50)
    pair = pair_files(x, y)
    with _pool(pair, 1) as pool:
        with pytest.raises(workers.WorkerError, match="KeyError: 'no such attack'") as err:
            pool.run([("no such attack", [0, 1])], 0, None, pair.n, lambda m: None)
    assert err.value.where.startswith(" at sdcrisk/")
    assert not list(tmp_path.iterdir())  # the arrays are removed


@pytest.mark.parametrize("share, overlap", [(0.6, False), (0.1, True)])
def test_two_attacks_run_together_only_while_their_memory_fits(share, overlap, tmp_path, monkeypatch):
    """Expected peaks of 60 % of the limit each: one attack at a time; of 10 %: two at a time."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(workers, "expected_bytes", lambda name, n: share * workers.configured_limit())
    x, y = _files(3000)
    pair = pair_files(x, y)
    events = []
    tasks = [("DBRL", [0, 1, 2, 3]), ("RBRL-Sum", [0, 1, 2, 3]), ("RBRL-Max", [0, 1, 2, 3]), ("DBRL", [0, 1])]
    with _pool(pair, 2) as pool:
        rows, _ = pool.run(tasks, 0, None, pair.n, lambda m: events.append("end") if "] " in m else None,
                           before=lambda name: events.append("start"))
    assert len(rows) == 4 and all(r["percent"] >= 0 for r in rows)
    running = np.cumsum([1 if e == "start" else -1 for e in events])
    assert running.max() == (2 if overlap else 1)


@pytest.mark.parametrize("sig, status_expected, word", [(signal.SIGINT, 130, "interrupted"),
                                                         (signal.SIGTERM, 143, "terminated")])
def test_a_signal_kills_the_workers_and_removes_their_arrays(sig, status_expected, word, tmp_path):
    """A real SIGINT (as from a terminal, SIGINT at its default) or SIGTERM (also where a background
    runner left SIGINT ignored) while workers run: one line, the status at once, no worker left,
    no files."""
    x, y = _files(30_000, seed=3)
    x.to_parquet(tmp_path / "o.parquet")
    y.to_parquet(tmp_path / "m.parquet")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "SDCRISK_WORKER_MIN": "0"}
    pids = []

    def workers_running():
        pids.extend(int(p) for p in subprocess.run(["pgrep", "-f", f"sdcrisk.assess.attack_worker {tmp}"],
                                                   capture_output=True, text=True).stdout.split())

    status, err, seconds = signal_during_attacks(
        [str(tmp_path / "o.parquet"), str(tmp_path / "m.parquet"), "--out", str(tmp_path / "rep")], sig,
        sigint=signal.SIG_DFL if sig == signal.SIGINT else signal.SIG_IGN, env=env, wait=1.0,
        before=workers_running)
    assert status == status_expected, err
    assert seconds < 2.0
    assert err.strip().splitlines()[-1] == f"sdcrisk assess: error: {word}; no report written"
    assert "Traceback" not in err and not (tmp_path / "rep").exists()
    assert pids  # there were workers, and none is left
    time.sleep(0.2)
    assert not [p for p in pids if os.path.exists(f"/proc/{p}") and "Z" not in open(f"/proc/{p}/stat").read().split()[2]]
    assert not list(tmp.iterdir())


def test_progress_estimate_passes_through_its_measured_points():
    from sdcrisk.attacks import NEEDS

    for name, (t1, t2) in ((a, v.seconds) for a, v in NEEDS.items() if v.seconds):
        assert workers.expected_seconds(name, 100_000) == pytest.approx(t1)
        assert workers.expected_seconds(name, 1_000_000) == pytest.approx(t2)
        assert workers.expected_seconds(name, 10_000_000) > t2
    assert workers.expected_seconds("ID", 10**6) is None
    expect = workers.expected_seconds("PRL", 100_000)
    assert f"running for 2 s, about {expect - 2:.0f} s left" in workers._running("PRL", 10, 100_000, 2.0)
    assert f"beyond the {expect:.0f} s estimated from the reference machine on untied values" in \
        workers._running("PRL", 10, 100_000, expect + 10)


@pytest.mark.filterwarnings("ignore:prl. EM did not converge")
def test_prl_says_when_tied_values_void_the_estimates(monkeypatch):
    """On tied values PRL's work grows with the tie groups, not with n: it reports the
    agreement-range entries it is about to walk (which the progress line carries)."""
    from sdcrisk import progress
    from sdcrisk.linkage.probabilistic import _BYTES_PER_EDGE, prl

    rng = np.random.default_rng(0)
    n, c = 400, 3
    said = []
    progress.set_reporter(said.append)
    try:
        x = np.round(rng.normal(50, 3, (n, c)))  # about 20 distinct values per column
        y = np.round(x + rng.normal(0, 1, (n, c)))
        prl(x, y, rng=np.random.default_rng(0))
        untied = rng.lognormal(size=(n, c))
        quiet = len(said)
        prl(untied, untied * 1.01, rng=np.random.default_rng(0))
    finally:
        progress.set_reporter(None)
    (line,) = [m for m in said if m.startswith("probabilistic linkage: ")]
    # brute force: every masked record at the nearest distance, per original and attribute
    entries = sum(int(np.sum(np.abs(y[:, j] - x[i, j]) == np.min(np.abs(y[:, j] - x[i, j]))))
                  for i in range(n) for j in range(c))
    assert line.startswith(f"probabilistic linkage: {entries:,} agreement-range entries to walk "
                           f"({entries / n:,.0f} per record: tied values)"), line
    assert f"{_BYTES_PER_EDGE * entries / 2**20:.2f} MiB" in line
    assert len(said) == quiet  # untied values: nothing said


def test_no_room_for_the_arrays_runs_the_attacks_here(monkeypatch):
    from collections import namedtuple

    x, y = _files(200)
    local = sdcrisk.assess(x, y, attacks=["DBRL", "RBRL-Sum"], information_loss=False)
    monkeypatch.setenv("SDCRISK_WORKER_MIN", "0")
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(workers.shutil, "disk_usage", lambda path: usage(10, 10, 0))
    said = []
    pooled = sdcrisk.assess(x, y, attacks=["DBRL", "RBRL-Sum"], information_loss=False, progress=said.append)
    assert any("need" in m and "free (TMPDIR chooses the place); the attacks run in this process" in m for m in said)
    pd.testing.assert_frame_equal(pooled.drop(columns="seconds"), local.drop(columns="seconds"))


def test_an_attack_expected_above_the_limit_is_refused_up_front(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("SDCRISK_MEMORY_LIMIT", "100M")  # below a worker's expected peak on any file
    x, y = _files(3000)
    pair = pair_files(x, y)
    with _pool(pair, 1) as pool:
        (row,), _ = pool.run([("RBRL-Sum", [0, 1, 2, 3])], 0, None, pair.n, lambda m: None)
    need = workers.expected_bytes("RBRL-Sum", 3000) / 2**30
    assert row["note"].startswith(f"not run: RBRL-Sum on 3,000 records: its expected peak (measured per record "
                                  f"at 10^6, sdcrisk.assess.workers): needs about {need:.2f} GiB, more than the limit "
                                  "of 0.10 GiB (set SDCRISK_MEMORY_LIMIT")
    assert np.isnan(row["percent"])


def test_the_tree_searches_report_records_done(monkeypatch):
    from sdcrisk import progress
    from sdcrisk.linkage.neighbours import KDTree

    said = []
    monkeypatch.setattr(progress, "EVERY", 0.0)
    progress.set_reporter(said.append)
    try:
        rng = np.random.default_rng(0)
        b = rng.normal(size=(5000, 3))
        plain = KDTree(b).query(b[:3000])
        progress.set_reporter(None)
        assert said and said[-1] == "nearest-record search: 3,000 of 3,000 records"
        assert all(m.startswith(("search order: ", "nearest-record search: ")) for m in said)
        quiet = KDTree(b).query(b[:3000])  # no reporter: nothing, and the same links
        assert np.array_equal(plain[0], quiet[0])
    finally:
        progress.set_reporter(None)


def test_the_progress_line_carries_the_worker_s_count(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(workers, "HEARTBEAT", 0.0)  # a line at every message
    x, y = _files(3000)
    pair = pair_files(x, y)
    said = []
    with _pool(pair, 1) as pool:
        pool.run([("DBRL", [0, 1, 2, 3])], 0, None, pair.n, said.append)
    assert any(re.search(r"DBRL, 4 known attribute\(s\): running for .*; [a-z -]+: [\d,]+ of 3,000 records$", m)
               for m in said)


def test_a_failed_allocation_stops_only_its_attack(monkeypatch):
    """A MemoryError the estimate did not foresee becomes that attack's "not run" row."""
    x, y = _files(300)
    pair = pair_files(x, y)

    def boom(*a, **k):
        raise MemoryError

    from sdcrisk.assess import rows

    monkeypatch.setattr(rows, "run_attack", boom)
    row = assessment._attack_row("DBRL", pair, np.arange(pair.n), [0, 1], 0)
    assert row["note"].startswith("not run: DBRL on 300 records: out of ")
    assert np.isnan(row["percent"])


_BASELINE = """
import sys, pandas as pd
from sdcrisk.resources import spare_address_space, _virtual_size
spare_address_space()
pd.read_parquet(sys.argv[1])
import sdcrisk.assess.assessment, sdcrisk.cli, sdcrisk.assess.attack_worker
print(_virtual_size())
"""


def test_under_an_address_space_limit_every_attack_runs_or_is_refused(tmp_path):
    """``ulimit -v`` counts reserved address space: the command spares it (pyarrow's and glibc's
    reservations) and each attack worker checks what its own limit leaves, so that every attack
    runs or is refused up front with its estimate; no failure, no traceback."""
    import resource

    x, y = _files(30_000)
    x.to_parquet(tmp_path / "x.parquet")
    y.to_parquet(tmp_path / "y.parquet")
    base = int(subprocess.run([sys.executable, "-c", _BASELINE, str(tmp_path / "x.parquet")], check=True,
                              capture_output=True, text=True).stdout.split()[-1])
    limit = base + 2**29  # what the libraries take after import, plus 0.5 GiB

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))

    out = subprocess.run([sys.executable, "-m", "sdcrisk.cli", "assess", str(tmp_path / "x.parquet"),
                          str(tmp_path / "y.parquet"), "--out", str(tmp_path / "r"), "--quiet"],
                         capture_output=True, text=True, preexec_fn=cap, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    rows = pd.DataFrame(json.loads((tmp_path / "r" / "report.json").read_text())["results"])
    attacks = rows[~rows["measure"].str.startswith(("IL", "ID"))]
    ran = attacks["percent"].notna()
    refused = attacks["note"].str.startswith("not run: ") & attacks["note"].str.contains("limit")
    refused |= attacks["note"].str.startswith("not applicable: ")  # L-RL on a release with no equal values
    refused |= attacks["note"].str.startswith("at most ")  # PRL settled by its bound (tests/test_bounds.py)
    assert (ran | refused).all(), attacks[~(ran | refused)][["measure", "note"]]
    assert ran.any()


def test_one_pool_serves_several_pairs_in_turn(tmp_path, monkeypatch):
    """The command's workers attack every masked file in turn: each pair's rows are those of the
    attacks in this process, and a pair's arrays are removed when the next one is loaded."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    x, y = _files(600, seed=1)
    _, z = _files(600, seed=2)
    tasks = [("DBRL", [0, 1, 2, 3]), ("RBRL-Max", [0, 1])]
    with workers.AttackWorkers(2) as pool:
        for masked in (y, x + (z - x) * 0.5):
            pair = pair_files(x, masked)
            perm = np.random.default_rng(5).permutation(pair.n)
            before = {name: getattr(pair, name).copy() for name in workers._ARRAYS}
            pool.load(pair, perm)
            for name, values in before.items():  # this process now maps the workers' files
                mapped = getattr(pair, name)
                assert isinstance(mapped, np.memmap) and Path(mapped.filename).parent.parent == pool.dir
                np.testing.assert_array_equal(mapped, values)
            rows, _ = pool.run(tasks, 0, None, pair.n, lambda m: None)
            local = [assessment._attack_row(name, pair, perm, cols, 0) for name, cols in tasks]
            pd.testing.assert_frame_equal(pd.DataFrame(rows).drop(columns="seconds"),
                                          pd.DataFrame(local).drop(columns="seconds"))
            assert [p.name for p in pool.dir.iterdir()] == [f"pair-{pool.pairs}"]
    assert not list(tmp_path.iterdir())


def test_a_worker_s_arrays_are_copy_on_write(tmp_path):
    """The workers map the pair writable (an attack then takes every column without a copy); a
    write stays in that process and never reaches the file the others map."""
    x, y = _files(50)
    pair = pair_files(x, y)
    workers.save_pair(tmp_path, pair, np.arange(pair.n))
    mine, _ = workers.load_pair(tmp_path)
    assert mine.x.flags.writeable
    mine.x[0, 0] += 1.0
    again, perm = workers.load_pair(tmp_path)
    np.testing.assert_array_equal(again.x, pair.x)
    np.testing.assert_array_equal(perm, np.arange(pair.n))


def test_records_are_estimated_without_reading_the_file(tmp_path):
    x, _ = _files(5000)
    x.to_parquet(tmp_path / "x.parquet")
    x.to_csv(tmp_path / "x.csv", index=False)
    assert workers.estimated_records(tmp_path / "x.parquet") == 5000
    assert workers.estimated_records(tmp_path / "x.csv") == pytest.approx(5000, rel=0.1)
    assert workers.estimated_records(tmp_path / "missing.csv") is None


def test_workers_start_early_only_for_a_large_original(tmp_path, monkeypatch):
    x, _ = _files(500)
    x.to_parquet(tmp_path / "x.parquet")
    monkeypatch.delenv("SDCRISK_WORKER_MIN", raising=False)
    assert workers.start_early(tmp_path / "x.parquet") is None  # 500 records: the attacks run here
    monkeypatch.setenv("SDCRISK_WORKER_MIN", "many")
    assert workers.start_early(tmp_path / "x.parquet") is None  # the command reports the bad value
    monkeypatch.setenv("SDCRISK_WORKER_MIN", "500")
    pool = workers.start_early(tmp_path / "x.parquet", 1)
    try:
        assert pool is not None and pool.count == 1 and pool.procs[0].poll() is None
    finally:
        pool.close()


def test_workers_share_the_nearest_record_search(tmp_path, monkeypatch):
    """DBRL, RS-RL and L-RL in two workers: one search for the pair, kept in the pair's directory
    (sdcrisk.linkage.shared), and the rows of the same attacks in this process, which searches
    for each of them."""
    from sdcrisk.linkage import shared

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    x, y = _files(shared.SHARE_MIN, seed=3)
    tasks = [("RS-RL(p<=20%)", [0, 1, 2, 3]), ("L-RL(MA)", [0, 1, 2, 3]), ("DBRL", [0, 1, 2, 3]), ("DBRL", [1, 2])]
    pair = pair_files(x, y)
    perm = np.random.default_rng(5).permutation(pair.n)
    local = [assessment._attack_row(name, pair, perm, cols, 0) for name, cols in tasks]
    with workers.AttackWorkers(2) as pool:
        pool.load(pair, perm)
        rows, _ = pool.run(tasks, 0, None, pair.n, lambda m: None)
        entries = [p for p in (pool.dir / f"pair-{pool.pairs}" / "shared").glob("nearest-*") if p.is_dir()]
    assert len(entries) == 2  # one search per set of known attributes
    pd.testing.assert_frame_equal(pd.DataFrame(rows).drop(columns="seconds"),
                                  pd.DataFrame(local).drop(columns="seconds"))


def test_a_plugin_attack_declares_its_needs_at_registration(monkeypatch):
    """The scheduler reads each attack's time and memory from its registration, none from a table of its own."""
    from sdcrisk import attacks

    monkeypatch.setattr(attacks, "ATTACKS", dict(attacks.ATTACKS))
    monkeypatch.setattr(attacks, "NEEDS", dict(attacks.NEEDS))
    attacks.register_attack("SLOW-RL", attacks.Needs(seconds=(10.0, 1000.0), bytes_per_record=100.0))(
        lambda x, y, known, v, rng: None)
    assert workers.expected_seconds("SLOW-RL", 100_000) == pytest.approx(10.0)
    assert workers.expected_seconds("SLOW-RL", 10**7) == pytest.approx(1e5)
    assert workers.expected_bytes("SLOW-RL", 10**6) == workers._WORKER_BASE + 100.0 * 10**6
    attacks.register_attack("UNMEASURED-RL")(lambda x, y, known, v, rng: None)
    assert workers.expected_seconds("UNMEASURED-RL", 10**6) is None
    largest = max(v.bytes_per_record for v in attacks.NEEDS.values() if v.bytes_per_record)
    assert workers.expected_bytes("UNMEASURED-RL", 10**6) >= workers._WORKER_BASE + largest * 10**6 - 1
    with pytest.raises(ValueError, match="needs must be a sdcrisk.attacks.Needs"):
        attacks.register_attack("BAD-RL", {"seconds": 1})


def test_workers_keep_no_table_of_attacks():
    import inspect

    source = inspect.getsource(workers)
    for name in ("PRL-graded", "RBRL-Sum", "GDBRL"):
        assert f'"{name}"' not in source
