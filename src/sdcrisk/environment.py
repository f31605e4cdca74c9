"""The software environment behind the regenerated tables: Python and package versions.

Bit-identical tables need the same code *and* the same libraries (random streams, BLAS sums,
numba, the pandas/pyarrow writers). The DAG therefore records the environment of its run in
``tables/environment.json`` (rule ``environment``), and ``constraints.txt`` pins the versions of the
committed paper-scale run, so ``pip install -e '.[workflow,test]' -c constraints.txt`` recreates it.
Regenerate the pins from an environment with ``python -m sdcrisk.environment constraints``.
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


def _requirements(dist: str, extras: tuple[str, ...]) -> list[str]:
    env = default_environment()
    names = []
    for text in metadata.requires(dist) or []:
        req = Requirement(text)
        if req.marker is None or any(req.marker.evaluate({**env, "extra": e}) for e in ("", *extras)):
            names.append(req.name)
    return names


def closure(dist: str = PROJECT, extras: tuple[str, ...] = ()) -> dict[str, str]:
    """Installed distributions ``dist`` needs, directly or not, with their versions (``dist``
    itself excluded); ``extras`` of ``dist`` count too (e.g. ``("test",)``)."""
    seen: dict[str, str] = {}
    todo = _requirements(dist, extras)
    while todo:
        name = todo.pop()
        key = canonicalize_name(name)
        if key in seen:
            continue
        try:
            seen[key] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # an optional dependency that is not installed
        todo += _requirements(name, ())
    seen.pop(canonicalize_name(dist), None)
    return dict(sorted(seen.items()))


@functools.cache
def versions(libraries: tuple[str, ...]) -> str:
    """``python=3.11;numpy=2.4.6;...``: the interpreter and ``libraries`` as one provenance string."""
    return ";".join([f"python={python_version()}"] + [f"{lib}={metadata.version(lib)}" for lib in libraries])


def describe() -> dict:
    """The environment of this run: interpreter, platform and every package the project needs."""
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "machine": platform.machine(), "system": platform.system(),
            "packages": closure(PROJECT, ("workflow",))}


def write(path, description: dict | None = None) -> None:
    """Write ``description`` (default: :func:`describe` of this process) as JSON
    (``tables/environment.json``), atomically."""
    from .data import atomic_write

    text = json.dumps(description or describe(), indent=1) + "\n"
    atomic_write(path, lambda tmp: Path(tmp).write_text(text))


def constraints(extras: tuple[str, ...] = ("workflow", "test")) -> str:
    """A pip constraints file pinning every package the project (with ``extras``) needs."""
    head = [f"# Versions of the committed paper-scale run (Python {python_version()}, {platform.machine()}).",
            "# Install with: python3 -m pip install -e '.[workflow,test]' -c constraints.txt",
            "# Regenerate:   python -m sdcrisk.environment constraints > constraints.txt"]
    return "\n".join(head + [f"{name}=={version}" for name, version in closure(PROJECT, extras).items()]) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] != ["constraints"]:
        sys.exit("usage: python -m sdcrisk.environment constraints")
    sys.stdout.write(constraints())
