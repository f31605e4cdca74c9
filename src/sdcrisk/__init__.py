"""sdcrisk: method-specific record linkage for statistical disclosure control, and the reference
replication of Nin, Herranz & Torra (2007, 2008), Muralidhar & Domingo-Ferrer (2016) and
Torra, Stokes et al.

Two products over one engine:

* the engine: ``sdcrisk.masking`` the masking methods, ``sdcrisk.linkage`` the record-linkage
  attacks, ``sdcrisk.measures`` IL, ID and the scores, ``sdcrisk.attacks`` the attack registry,
  and the helper modules beside them (``data``, ``validation``, ``resources``, ``kernels``,
  ``fixed_order``, ``threads``, ``progress``);
* :mod:`sdcrisk.replication`: the papers' tables and figures (the Snakemake workflow);
* :mod:`sdcrisk.assess`: ``sdcrisk.assess(original, masked, ...)`` measures the disclosure risk
  of every attack and the information loss of a masked file, and the ``sdcrisk assess`` command.

:mod:`sdcrisk.cli` is the command line's entry point and :mod:`sdcrisk.compile` the kernel
compilation command; they alone import the products. The engine imports neither product, and
neither product imports the other (``tests/test_layers.py``).
"""

import os
import sys
from pathlib import Path

__version__ = "0.1.0"


def _user_cache_dir() -> Path:
    """The per-user cache directory (XDG on Linux, ~/Library/Caches on macOS, LOCALAPPDATA on Windows)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "sdcrisk" / "numba"


def _set_numba_cache() -> None:
    """Compiled kernels go to a user cache directory, not into the (possibly read-only) package;
    ``NUMBA_CACHE_DIR`` set by the user wins."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    os.environ["NUMBA_CACHE_DIR"] = str(_user_cache_dir())
    if "numba" in sys.modules:  # imported before sdcrisk: its config was read already
        sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]


_set_numba_cache()


def __getattr__(name: str):
    """``sdcrisk.assess`` is the package :mod:`sdcrisk.assess`, callable as
    :func:`sdcrisk.assess.assessment.assess` (its ``__init__`` says why), imported on first use
    (PEP 562): ``import sdcrisk`` stays light (no numpy, pandas or numba until an attack is
    wanted)."""
    if name == "assess":
        from importlib import import_module

        return import_module(".assess", __name__)  # the import also sets it here: no second visit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"assess"})


__all__ = ["assess", "__version__"]
