"""The software environment behind the regenerated tables: Python and package versions.

Bit-identical tables need the same code *and* the same libraries (random streams, BLAS sums,
numba, the pandas/pyarrow writers). The DAG therefore records the environment of its run in
``tables/environment.json`` (rule ``environment``), and ``constraints.txt`` pins the versions of the
committed paper-scale run, so ``pip install -e '.[workflow,test,cluster]' -c constraints.txt``
recreates it: every distribution that install reaches (the requirement closure, :func:`walk`, incl.
extras that dependencies request, e.g. ``bleach[css]``) is pinned. Regenerate the pins from an
environment with ``python -m sdcrisk.replication.environment constraints``. ``tables/environment.json`` also
records the CPU model and the BLAS kernel of the run.
"""

from __future__ import annotations

import functools
import json
import platform
import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PROJECT = "sdcrisk"


def python_version() -> str:
    """``major.minor`` of the running interpreter (the part that can change results)."""
    return "{}.{}".format(*sys.version_info[:2])


def _requirements(dist: str, extra: str) -> list[tuple[str, tuple[str, ...]]]:
    """``(name, extras)`` of the requirements of the installed distribution ``dist`` that apply
    here with ``extra`` requested (``""``: the base requirements): markers evaluated for this
    interpreter and platform, ``extra == ...`` markers against ``extra``."""
    env = {**default_environment(), "extra": extra}
    out = []
    for text in metadata.requires(dist) or []:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate(env):
            out.append((req.name, tuple(sorted(canonicalize_name(e) for e in req.extras))))
    return out


def walk(dist: str = PROJECT, extras: tuple[str, ...] = ()) -> tuple[dict[str, str], set[str]]:
    """The requirement closure of the installed ``dist`` with ``extras``: what ``pip install
    'dist[extras]'`` installs. Follows every requirement whose environment marker holds here,
    and the extras that requirements request of their own dependencies (nbconvert needs
    ``bleach[css]``, hence tinycss2), each distribution with every extra anyone requests.

    Returns ``({name: installed version}, missing)``: canonical names (``dist`` itself excluded)
    and the names required but not installed here (none in a complete environment)."""
    found: dict[str, str] = {}
    missing: set[str] = set()
    done: dict[str, set[str]] = {}
    todo = [(dist, ("", *(canonicalize_name(e) for e in extras)))]
    while todo:
        name, wanted = todo.pop()
        key = canonicalize_name(name)
        new = [e for e in ("", *wanted) if e not in done.setdefault(key, set())]
        if not new:
            continue
        try:
            found[key] = metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.add(key)
            continue
        for extra in new:
            done[key].add(extra)
            todo += _requirements(name, extra)
    found.pop(canonicalize_name(dist), None)
    return dict(sorted(found.items())), missing


def closure(dist: str = PROJECT, extras: tuple[str, ...] = ()) -> dict[str, str]:
    """Installed distributions ``dist`` needs, directly or not, with their versions (``dist``
    itself excluded); ``extras`` of ``dist`` count too (e.g. ``("test",)``), and so do the extras
    that dependencies request of each other (:func:`walk`). A required distribution that is not
    installed is left out (:func:`walk` names it)."""
    return walk(dist, extras)[0]


def cpu_model() -> str:
    """The CPU's model name (``model name`` of /proc/cpuinfo; ``platform.processor()`` elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def blas() -> list[dict[str, str]]:
    """The BLAS libraries numpy and scipy loaded and the kernel each picked for this CPU
    (threadpoolctl: ``internal_api`` e.g. openblas, ``version``, ``architecture`` e.g. Haswell or
    SkylakeX, set by ``OPENBLAS_CORETYPE`` or detected). The project's results do not depend on
    it (masking and linkage avoid BLAS/LAPACK where rounding decides an order, a group or a link,
    :mod:`sdcrisk.fixed_order`); it is recorded so that a difference can be traced."""
    import numpy  # noqa: F401  (load the BLAS libraries the computations use)
    import scipy.linalg  # noqa: F401

    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - a declared dependency of the workflow
        return []
    libs = [{"file": Path(str(info.get("filepath", ""))).name, "internal_api": str(info.get("internal_api", "")),
             "version": str(info.get("version") or ""), "architecture": str(info.get("architecture") or "")}
            for info in threadpool_info() if info.get("user_api") == "blas"]
    return sorted({tuple(d.items()): d for d in libs}.values(), key=lambda d: tuple(d.values()))


@functools.cache
def versions(libraries: tuple[str, ...]) -> str:
    """``python=3.11;numpy=2.4.6;...``: the interpreter and ``libraries`` as one provenance string."""
    return ";".join([f"python={python_version()}"] + [f"{lib}={metadata.version(lib)}" for lib in libraries])


def describe() -> dict:
    """The environment of this run: interpreter, platform, CPU model, BLAS kernel and every
    package the project needs."""
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "machine": platform.machine(), "system": platform.system(),
            "cpu": cpu_model(), "blas": blas(),
            "packages": closure(PROJECT, ("workflow",))}


def write(path, description: dict | None = None) -> None:
    """Write ``description`` (default: :func:`describe` of this process) as JSON
    (``tables/environment.json``), atomically."""
    from ..data import atomic_write

    text = json.dumps(description or describe(), indent=1) + "\n"
    atomic_write(path, lambda tmp: Path(tmp).write_text(text))


#: the extras constraints.txt covers (every extra of pyproject.toml)
EXTRAS = ("workflow", "test", "cluster", "docs")


def constraints(extras: tuple[str, ...] = EXTRAS) -> str:
    """A pip constraints file pinning every package the project (with ``extras``) needs: the
    closure :func:`walk`, the same walk the tests check constraints.txt against."""
    head = [f"# Versions of the committed paper-scale run (Python {python_version()}, {platform.machine()}).",
            f"# Install with: python3 -m pip install -e '.[{','.join(extras)}]' -c constraints.txt",
            "# Regenerate:   python -m sdcrisk.replication.environment constraints > constraints.txt"]
    return "\n".join(head + [f"{name}=={version}" for name, version in closure(PROJECT, extras).items()]) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] != ["constraints"]:
        sys.exit("usage: python -m sdcrisk.replication.environment constraints")
    sys.stdout.write(constraints())
