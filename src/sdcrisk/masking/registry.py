"""Registry of masking methods: name -> function + parameter schema.

A masking method is a function ``f(x, rng, **params) -> masked`` taking an ``(n, m)`` float64
array ``x`` (records x attributes, already checked by :func:`sdcrisk.validation.as_data_matrix`)
and a ``numpy.random.Generator``; it returns a new array of the same shape whose row ``i`` is the
masked version of original record ``i``. Deterministic methods ignore ``rng``. The input is the
caller's data: a plugin method gets it read-only (a write raises), and an output sharing memory
with the input (``x += noise; return x``) is refused naming the method, since the original
data the attacks then compare it with would be the masked data themselves.

Adding a method is one decorated function::

    @register("my_method", Param("k", "int", low=2), family="microaggregation", randomised=False)
    def my_method(x, rng, *, k): ...

Memory: a method may declare ``memory=f``, ``f(n, m, params)`` an upper estimate in bytes of what
the call allocates beyond its input (its output included); the call is then refused before it
starts, with the estimate, where that exceeds :func:`sdcrisk.resources.memory_limit`. Every
built-in method declares one, fitted on the peaks measured by ``benchmarks/bench_mask_memory.py``
(``benchmarks/results/mask_memory.md``); a method without one is not checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..resources import check_memory, gib
from ..validation import as_data_matrix, check_int, check_real


@dataclass(frozen=True)
class Param:
    """One parameter of a masking method: its type and static range (data-dependent bounds,
    such as k <= n, are checked by the method itself)."""

    name: str
    kind: str  # "int", "real" or "choice"
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    default: object = None
    doc: str = ""
    at_most: str | None = None  # data-dependent upper bound: "n" (records) or "m" (attributes)

    def check(self, value, method: str):
        label = f"{method}: parameter {self.name}"
        if self.kind == "int":
            return check_int(label, value, int(self.low) if self.low is not None else -(2**62),
                             int(self.high) if self.high is not None else None)
        if self.kind == "real":
            return check_real(label, value, self.low if self.low is not None else -np.inf,
                              self.high if self.high is not None else np.inf,
                              low_open=self.low_open, high_open=self.high_open)
        if value not in self.choices:
            raise ValueError(f"{label} must be one of {list(self.choices)}, got {value!r}")
        return value


@dataclass(frozen=True)
class MaskingMethod:
    name: str
    func: Callable[..., np.ndarray]
    params: tuple[Param, ...]
    family: str
    randomised: bool
    doc: str = field(default="", compare=False)
    memory: Callable[[int, int, Mapping], float] | None = field(default=None, compare=False)

    def check_params(self, params: Mapping) -> dict:
        known = {p.name: p for p in self.params}
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise ValueError(f"{self.name}: unknown parameter(s) {unknown}; allowed: {sorted(known)}")
        out = {}
        for p in self.params:
            if p.name in params:
                out[p.name] = p.check(params[p.name], self.name)
            elif p.default is not None:
                out[p.name] = p.default
            else:
                raise ValueError(f"{self.name}: missing parameter {p.name!r} ({p.doc or p.kind})")
        return out

    def check_data_params(self, params: Mapping, n: int, m: int) -> None:
        """The data-dependent bounds (``Param.at_most``): e.g. k <= n records, v <= m attributes."""
        size = {"n": (n, "records"), "m": (m, "attributes")}
        for p in self.params:
            if p.at_most is not None and p.name in params and params[p.name] > size[p.at_most][0]:
                bound, what = size[p.at_most]
                raise ValueError(f"{self.name}: parameter {p.name} = {params[p.name]} exceeds the data's "
                                 f"{bound} {what}; expected {p.name} <= {bound}")

    def __call__(self, data, rng: np.random.Generator | None = None, **params) -> np.ndarray:
        x = as_data_matrix(data)
        checked = self.check_params(params)
        self.check_data_params(checked, *x.shape)
        if self.memory is not None:
            n, m = x.shape
            check_memory(f"masking method {self.name!r} on {n:,} records x {m} attributes",
                         self.memory(n, m, checked), f"the input itself holds {gib(x.nbytes)} on top")
        if rng is None:
            if self.randomised:
                raise ValueError(f"{self.name}: a numpy.random.Generator is required (rng=...)")
            rng = np.random.default_rng(0)
        given = x
        if not self.builtin:  # a plugin sees its input read-only: a write cannot change the caller's data
            given = x.view()
            given.flags.writeable = False
        with np.errstate(over="ignore", invalid="ignore"):  # non-finite output is refused below
            try:
                out = self.func(given, rng, **checked)
            except ValueError as exc:
                if "read-only" not in str(exc):
                    raise
                raise ValueError(f"masking method {self.name!r} wrote into its input ({exc}); expected a new "
                                 "array, its input left unchanged (e.g. x + noise, not x += noise)") from None
            return self.checked_output(out, x)

    @property
    def builtin(self) -> bool:
        """Whether the method is one of the package's own (they leave their input unchanged,
        ``tests/test_bad_inputs.py``; their numba kernels are compiled for writable arrays)."""
        return getattr(self.func, "__module__", "").startswith("sdcrisk.")

    def checked_output(self, out, x: np.ndarray) -> np.ndarray:
        """The method's output ``out`` for input ``x`` as float64, if it is numeric, of the input's
        shape and finite; else ``ValueError``, one sentence naming the method, what was expected
        and what it returned."""
        expected = f"expected numbers of the input's shape {x.shape} (records x attributes)"
        if not hasattr(out, "__array__"):
            raise ValueError(f"masking method {self.name!r} returned a {type(out).__name__}; {expected}")
        out = np.asarray(out)
        if out.shape != x.shape:
            raise ValueError(f"masking method {self.name!r} returned shape {out.shape}; {expected}")
        if out.dtype.kind not in "iuf":
            raise ValueError(f"masking method {self.name!r} returned values of dtype {out.dtype}; {expected}")
        if np.may_share_memory(out, x):
            raise ValueError(f"masking method {self.name!r} returned its input (or a view of it), changed in "
                             "place; expected a new array, its input left unchanged (e.g. x + noise, not x += noise)")
        out = out.astype(np.float64, copy=False)
        bad = ~np.isfinite(out)
        if bad.any():
            j = int(np.flatnonzero(bad.any(axis=0))[0])
            raise ValueError(f"{self.name}: the masked data hold {int(bad.sum())} non-finite value(s) (first in "
                             f"attribute #{j}, record {int(np.flatnonzero(bad[:, j])[0]) + 1}); the method overflowed "
                             f"on values up to {np.abs(x).max():.3g}: rescale the data set")
        return out


METHODS: dict[str, MaskingMethod] = {}


def per_value(value_bytes: float, record_bytes: float = 0.0):
    """A ``memory=`` estimate of ``n (value_bytes m + record_bytes)`` bytes for an n x m input."""
    return lambda n, m, params: float(n) * (value_bytes * m + record_bytes)


def register(name: str, *params: Param, family: str, randomised: bool, memory=None):
    """Decorator adding ``func`` to :data:`METHODS` under ``name`` (``memory``: module docstring)."""

    def deco(func):
        if name in METHODS:
            raise ValueError(f"masking method {name!r} registered twice")
        METHODS[name] = MaskingMethod(name, func, tuple(params), family, randomised, (func.__doc__ or "").strip(),
                                      memory)
        return func

    return deco


def get_method(name: str) -> MaskingMethod:
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown masking method {name!r}; known methods: {sorted(METHODS)}") from None


def mask(name: str, data, rng: np.random.Generator | None = None, **params) -> np.ndarray:
    """Mask ``data`` with the registered method ``name``."""
    return get_method(name)(data, rng, **params)
