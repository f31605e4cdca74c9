"""Code provenance of the DAG's jobs: a digest of the code their outputs come from.

Snakemake reruns a job when its params or its rule's script change, not when the imported
package changes, so without this an edited masking method, attack or renderer would leave stale
outputs behind. Every rule therefore takes a digest of the package code it runs as a param: the
cell rule :func:`cell_code` (the package's compute modules: masking, linkage, measures,
criteria, evaluations, seeds; and the plugin modules the cell uses), the other rules :func:`code_digest` of
their module (data, replication, render, figures, belief). The digest is taken over the syntax
tree without docstrings, so comments, docstrings and layout rerun nothing. It also covers the
Python version (``major.minor``) and the versions of the libraries whose behaviour decides the
output (:data:`COMPUTE_LIBRARIES` for cells; numpy and pandas, plus matplotlib for figures, for the
rest): upgrading numpy reruns the cells, upgrading matplotlib re-renders the figures only.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import inspect
from pathlib import Path

from .environment import versions

# Modules whose code decides a cell's numbers; packages count with every module in them.
COMPUTE_MODULES = ("sdcrisk.masking", "sdcrisk.linkage", "sdcrisk.measures", "sdcrisk.attacks", "sdcrisk.criteria",
                   "sdcrisk.replication.evaluation",
                   "sdcrisk.replication.belief", "sdcrisk.replication.experiments_belief", "sdcrisk.validation", "sdcrisk.resources",
                   "sdcrisk.threads", "sdcrisk.fixed_order")  # the last: noise's and PCP's covariances, Mahalanobis DBRL
# Libraries whose versions decide a cell's numbers (random streams, sums, kernels, I/O of tables).
COMPUTE_LIBRARIES = ("numpy", "scipy", "numba", "pandas", "pyarrow", "ortools")
TABLE_LIBRARIES = ("numpy", "pandas")
FIGURE_LIBRARIES = TABLE_LIBRARIES + ("matplotlib",)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def source_digest(source: str) -> str:
    """Digest of Python source that ignores comments, docstrings and formatting."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return _hash(ast.dump(tree))


@functools.cache
def module_digest(name: str) -> str:
    """Digest of an importable module, or of every module of a package (sorted by path)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ValueError(f"cannot locate module {name!r}")
    origin = Path(spec.origin)
    files = sorted(origin.parent.rglob("*.py")) if spec.submodule_search_locations else [origin]
    return _hash("".join(source_digest(f.read_text()) for f in files))


def code_digest(*modules: str, libraries: tuple[str, ...] = TABLE_LIBRARIES) -> str:
    """Digest of several modules or packages (see :func:`module_digest`), the Python version and
    the versions of ``libraries``."""
    return _hash("".join(module_digest(m) for m in modules) + versions(libraries))


def cell_code(method: str, settings: dict | None = None) -> str:
    """Digest of the code behind a cell of ``method`` under the experiment's cell ``settings``
    (:func:`sdcrisk.replication.config.cell_settings`): the compute modules, the seed derivation
    (:class:`sdcrisk.replication.config.Cell`) and the plugin modules defining or registering the method or, for
    the attack matrix, one of the attacks it runs (:func:`sdcrisk.replication.config.cell_plugin_modules`)."""
    from .config import cell_plugin_modules

    plugins = cell_plugin_modules(method, settings)
    return _hash(code_digest(*COMPUTE_MODULES, *plugins, libraries=COMPUTE_LIBRARIES) + _seed_digest())


@functools.cache
def _seed_digest() -> str:
    from .config import Cell

    return source_digest(inspect.getsource(Cell))
