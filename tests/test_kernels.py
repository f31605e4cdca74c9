"""The numba kernels: the stable argsort they share, and their compilation ahead of first use
(:mod:`sdcrisk.kernels`): ``sdcrisk compile`` caches every kernel, after which ``sdcrisk assess``
compiles nothing; the warm-up child compiles exactly the kernels a real call uses; a change of
kernel source drops the cached kernels that may hold the old code."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from sdcrisk import compile as compile_mod, kernels
from sdcrisk.linkage.sorting import argsort_stable, searchsorted_sorted
from sdcrisk.masking.radix import argsort_values


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_argsort_stable_is_numpys_stable_sort(dtype):
    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 3, 7, 15, 16, 17, 33, 64, 1000, 1025):  # around the insertion runs (16)
        key = rng.integers(0, max(n // 3, 1), n).astype(dtype)  # many ties
        assert argsort_stable(key).tolist() == np.argsort(key, kind="stable").tolist()
    key = np.array([0.0, -0.0, np.inf, -np.inf, 1e-300, 0.0])
    assert argsort_stable(key).tolist() == np.argsort(key, kind="stable").tolist()



@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_sorted_in_any_order_is_numpys(side):
    """The queries in their own ascending order, or in any order given, find numpy's positions."""
    rng = np.random.default_rng(3)
    col = np.sort(np.round(rng.normal(size=500), 1))  # ties
    queries = np.round(rng.normal(size=300), 1)
    expected = np.searchsorted(col, queries, side)
    assert np.array_equal(searchsorted_sorted(col, queries, side), expected)
    for order in (rng.permutation(queries.size), np.argsort(queries + rng.normal(0, 0.1, queries.size))):
        assert np.array_equal(searchsorted_sorted(col, queries, side, order), expected)


def test_argsort_values_is_numpys_stable_sort():
    """The radix argsort of float64 columns: numpy's permutation, signed zeros, infinities, NaNs
    (numpy puts them last), subnormals and heavy ties included; other inputs go to numpy."""
    rng = np.random.default_rng(1)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, -5e-324, 1e308, -1e308])
    for n in (0, 1, 2, 3, 255, 256, 257, 5000):
        for key in (rng.standard_normal(n), np.round(rng.lognormal(size=n), 1), np.full(n, -2.5),
                    rng.choice(special, n), rng.integers(-3, 3, n).astype(np.float64) * 0.0):
            assert argsort_values(key).tolist() == np.argsort(key, kind="stable").tolist(), (n, key[:5])
    strided = rng.standard_normal((1000, 3))[:, 1]
    assert argsort_values(strided).tolist() == np.argsort(strided, kind="stable").tolist()
    ints = rng.integers(0, 5, 100)
    assert argsort_values(ints).tolist() == np.argsort(ints, kind="stable").tolist()

PROBE = """
import sys, numpy as np
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__module__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Listener())
from sdcrisk.attacks import ATTACKS
rng = np.random.default_rng(5)
x = rng.lognormal(size=(1000, 6)); y = x * rng.lognormal(sigma=0.2, size=x.shape)
ATTACKS["PRL"](x, y, np.arange(3), 2, np.random.default_rng(1))
print(",".join(sorted(set(m for m in compiled if m.startswith("sdcrisk")))))
"""


def test_child_compiles_what_a_real_call_uses(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    cold = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    assert "sdcrisk.linkage.probabilistic" in cold.stdout  # the probe sees compilation
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "warmed")
    subprocess.run([sys.executable, "-m", "sdcrisk.compile", "prl"], env=env, check=True)
    assert list((tmp_path / "warmed").glob("sdcrisk-prl-*.compiled"))
    warm = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    assert warm.stdout.strip() == ""  # a real PRL call (other size, other known columns) compiles nothing


def test_warmup_starts_only_when_needed(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert kernels.warm_in_background(["DBRL", "GDBRL"]).proc is None  # no kernel group of theirs
    stamp = kernels._stamp("prl")
    stamp.touch()
    w = kernels.warm_in_background(["PRL", "DBRL"])
    assert w.proc is None
    w.wait("PRL")  # nothing to wait for
    stamp.unlink()
    w = kernels.warm_in_background(["PRL"])
    assert w.proc is not None
    w.wait("PRL")
    assert w.proc.returncode == 0 and stamp.exists()


EXAMPLE = """
import sys
import numpy as np
import pandas as pd
rng = np.random.default_rng(1)  # the README's example (section "Assess your own files"), as files
original = pd.DataFrame(rng.lognormal(size=(500, 4)), columns=["income", "rent", "tax", "savings"])
masked = original * np.exp(rng.normal(scale=0.2, size=original.shape))
original.to_csv(sys.argv[1] + "/original.csv", index=False)
masked.to_csv(sys.argv[1] + "/masked.csv", index=False)
"""

UNCACHED = """
from sdcrisk import kernels
modules = sorted({m for g in kernels.GROUPS.values() for m in g[0]})
for m in modules:
    for k in kernels._kernels(m):
        if k.targetoptions.get("inline", "never") != "always" and not kernels._index_file(k).exists():
            print(m + "." + k.py_func.__name__)
"""


def _files(directory):
    return {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in directory.rglob("*") if p.is_file()}


def test_after_compile_assess_compiles_nothing(tmp_path):
    """The install line's ``sdcrisk compile`` caches every kernel of the package (each one the
    attacks or the masking methods can reach); a first ``sdcrisk assess`` then only loads kernels:
    numba writes no cache file and the command starts no warm-up child."""
    cache = tmp_path / "cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    env.pop("NUMBA_DEBUG_CACHE", None)
    done = subprocess.run([sys.executable, "-m", "sdcrisk.cli", "compile"], env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert "numba kernels compiled into" in done.stdout and "compiled tree" not in done.stdout
    # progress on standard error: a start line, then one line per group as it finishes, with its time
    progress = done.stderr.splitlines()
    assert progress[0].startswith(f"compiling {len(kernels.GROUPS)} kernel groups")
    finished = [re.match(r"  compiled (\S+) \(.*\) in \d+\.\d s \[(\d+)/(\d+), ", line) for line in progress[1:]]
    assert all(finished), done.stderr
    assert sorted(m.group(1) for m in finished) == sorted(kernels.GROUPS)
    assert [int(m.group(2)) for m in finished] == list(range(1, len(kernels.GROUPS) + 1))
    assert {p.name.split("-")[1] for p in cache.glob("sdcrisk-*.compiled")} == set(kernels.GROUPS)
    missing = subprocess.run([sys.executable, "-c", UNCACHED], env=env, capture_output=True, text=True, check=True)
    assert missing.stdout == "", f"kernels sdcrisk compile does not reach (extend sdcrisk.kernels):\n{missing.stdout}"
    again = subprocess.run([sys.executable, "-m", "sdcrisk.cli", "compile"], env=env, capture_output=True,
                           text=True, check=True)
    assert "already compiled" in again.stdout
    # the workflows' onstart (sdcrisk.compile.before_jobs) finds them current and compiles nothing
    onstart = subprocess.run([sys.executable, "-c", "from sdcrisk.compile import before_jobs; assert before_jobs() == []"],
                             env=env, capture_output=True, text=True)
    assert onstart.returncode == 0 and "sdcrisk: numba kernels up to date" in onstart.stderr, onstart.stderr

    subprocess.run([sys.executable, "-c", EXAMPLE, str(tmp_path)], check=True)
    before = _files(cache)
    run = subprocess.run([sys.executable, "-m", "sdcrisk.cli", "assess", str(tmp_path / "original.csv"),
                          str(tmp_path / "masked.csv"), "--out", str(tmp_path / "report"), "--quiet"],
                         env={**env, "NUMBA_DEBUG_CACHE": "1"}, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "data loaded from" in run.stdout  # the kernels came from the cache
    assert "saved to" not in run.stdout  # no kernel compiled (numba saves what it compiles)
    assert _files(cache) == before


DROP = """
import os
from pathlib import Path
from sdcrisk import kernels
cache = Path(os.environ["NUMBA_CACHE_DIR"])
def files(module):
    out = []
    for k in kernels._kernels(module):
        index = kernels._index_file(k)
        out += [index, index.with_name(index.name[:-3] + "0.nbc")]
    return out
for m in kernels.GROUPS["tree"][0] + kernels.GROUPS["prl"][0] + kernels.GROUPS["masking"][0]:
    for f in files(m):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.touch()
(cache / "sdcrisk-prl-0123456789abcdef.compiled").touch()  # prl compiled for another source
for g in ("tree", "masking"):
    kernels._stamp(g).touch()
assert kernels._drop_stale(["prl"]) == sorted(kernels.GROUPS["prl"][0])
gone = lambda m: not any(f.exists() for f in files(m))
kept = lambda m: all(f.exists() for f in files(m))
assert gone("sdcrisk.linkage.probabilistic") and gone("sdcrisk.linkage.sorting")
assert kept("sdcrisk.linkage.neighbours") and kept("sdcrisk.masking.swapping")
assert not kernels.compiled("tree")  # shares sorting: compiled again
assert kernels.compiled("masking")  # shares nothing: kept
assert not list(cache.glob("sdcrisk-prl-*.compiled"))
print("ok")
"""


def test_changed_source_drops_the_cached_kernels_that_may_hold_it(tmp_path):
    """Numba's cache index checks only a kernel's own file: after a callee in another file
    changed, the caller's cached code is the old one. A group whose stamp is not the current
    source's has its modules' cached kernels removed before it is compiled again; the groups
    sharing those modules lose their stamps."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", DROP], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_groups_list_their_callees_modules():
    """A group's stamp is keyed by the source of every module whose kernels it compiles: the
    modules of the kernels a group's modules import are in the group too."""
    import ast
    from importlib import import_module
    from pathlib import Path

    kernel_modules = {m for g in kernels.GROUPS.values() for m in g[0] if kernels._kernels(m)}
    for group, (modules, _) in kernels.GROUPS.items():
        for module in modules:
            tree = ast.parse(Path(import_module(module).__file__).read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.level:
                    base = module.rsplit(".", node.level)[0]
                    target = f"{base}.{node.module}" if node.module else base
                    names = [target] + [f"{target}.{a.name}" for a in node.names]
                    for t in names:
                        if t in kernel_modules and t != module and kernels._kernels(module):
                            assert t in modules, f"group {group}: {module} imports kernels of {t}"
    assert kernels.warm_in_background(["DBRL", "RS-RL(p<=20%)", "PRL-graded"]).proc is None  # not background


def test_every_attack_and_masking_method_has_a_kernel_group():
    """``sdcrisk compile`` runs every built-in attack (a new attack goes into a group of
    sdcrisk.kernels.GROUPS) and every masking method, with parameters each method accepts."""
    from sdcrisk.attacks import _BUILTIN
    from sdcrisk.masking import METHODS

    assert set(_BUILTIN) == {a for _, attacks in kernels.GROUPS.values() for a in attacks}
    for method in METHODS.values():
        for p in method.params:
            p.check(compile_mod._example_params(p), method.name)
    assert all(set(after) <= set(kernels.GROUPS) for after in kernels.AFTER.values())
    assert set(kernels.BACKGROUND) <= set(kernels.GROUPS)


SPECIALISATIONS = """
import numpy as np
from sdcrisk.masking import mdav_tree, microaggregation
rng = np.random.Generator(np.random.PCG64(3))
z = np.round(rng.normal(size=(400, 3)), 1)
mdav_tree._mdav_tree_kernel(z, 3, 1, 10**9)  # the serial searches
mdav_tree._mdav_tree_kernel(z, 3, 2, 0)  # the searches in threads
microaggregation._mdav_kernel_brute(z, 3)
for module in (mdav_tree, microaggregation):
    for name, f in sorted(vars(module).items()):
        if hasattr(f, "signatures") and f.py_func.__module__ == module.__name__ and len(f.signatures) > 1:
            print(name, [str(sig) for sig in f.signatures])
"""


def test_mdav_kernels_compile_one_specialisation_each(tmp_path):
    """On an empty cache, MDAV's kernels (the k-d tree kernel on both search paths and the brute
    one) compile each callee once: a constant argument (a thread's part 0, an empty
    nearest-record search, the first group's number) is passed as an int64, not as a numba literal
    that would compile a second copy of the callee and of everything it calls, the largest share of
    ``sdcrisk compile``'s time (benchmarks/results/compile.md). The labels are the same either way
    (tests/test_mdav_fast.py)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", SPECIALISATIONS], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "", f"kernels compiled for more than one argument-type signature:\n{done.stdout}"


def test_compile_command_progress_on_stderr_and_quiet(monkeypatch, capsys):
    """``sdcrisk compile`` passes compile_all a writer to standard error (flushed, so each group's
    line shows as it finishes), and a silent one with ``--quiet``; the closing line stays on
    standard output either way."""
    from sdcrisk.cli import main

    def fake(groups, *, jobs, force, say):
        say("  compiled prl (PRL) in 1.0 s [1/1, 1.0 s since the start]")
        return ["prl"]

    monkeypatch.setattr(compile_mod, "compile_all", fake)
    assert main(["compile", "prl"]) == 0
    out, err = capsys.readouterr()
    assert err == "  compiled prl (PRL) in 1.0 s [1/1, 1.0 s since the start]\n"
    assert out.startswith("numba kernels compiled into") and out.count("\n") == 1
    assert main(["compile", "--quiet", "prl"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.startswith("numba kernels compiled into")


def test_compile_command_names_an_unknown_group(capsys):
    from sdcrisk.cli import main

    assert main(["compile", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sdcrisk compile: error: unknown kernel group(s) nope") and err.count("\n") == 1


def test_workflow_compile_step_that_fails_lets_the_jobs_compile(monkeypatch):
    """The workflows' onstart (before_jobs) reports a failed compile in one line and returns, so
    that the jobs compile for themselves instead of the run stopping."""
    def fail(**_):
        raise RuntimeError("kernel group tree: PermissionError: read-only cache")

    said = []
    monkeypatch.setattr(compile_mod, "compile_all", fail)
    assert compile_mod.before_jobs(say=said.append) == []
    assert len(said) == 1 and said[0].startswith("sdcrisk: numba kernels not compiled before the first job")
    assert "read-only cache" in said[0]


def test_every_attack_group_warms_up_through_the_assess_path():
    """compile_group runs each group's attacks as sdcrisk assess does (its imports included)."""
    from sdcrisk.compile import compile_group

    compile_group("location")  # RS-RL and L-RL: quick once the kernels are cached
