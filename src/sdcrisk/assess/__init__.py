"""``sdcrisk assess``: the disclosure risk and information loss of a custodian's masked files,
one of the two products over the shared engine (the other: :mod:`sdcrisk.replication`).

``sdcrisk.assess(original, masked, ...)`` runs every attack of the attack registry and the
information-loss measures on one masked file (:func:`sdcrisk.assess.assessment.assess`, whose
signature and docstring ``help`` shows); the command line and its report build on it:

* :mod:`~sdcrisk.assess.assessment`: the attacks per scenario, the criteria and the information
  loss, over :mod:`~sdcrisk.assess.pairing` (reading and pairing the files),
  :mod:`~sdcrisk.assess.rows` (one attack's row) and :mod:`~sdcrisk.assess.bounds` (attacks
  settled by their bound); :mod:`~sdcrisk.assess.sample` and :mod:`~sdcrisk.assess.synthetic`:
  sample and synthetic releases; :mod:`~sdcrisk.assess.categorical`: categorical attributes
  (blocks, the mixed distance);
* :mod:`~sdcrisk.assess.workers`, :mod:`~sdcrisk.assess.attack_worker`: attacks in worker
  processes, the memory estimates;
* :mod:`~sdcrisk.assess.report`: report.json, report.md, report.html and the ``--max-risk`` gate;
* :mod:`~sdcrisk.assess.arguments`: the command's arguments and exit statuses (the entry point
  is :mod:`sdcrisk.cli`); :mod:`~sdcrisk.assess.jobs`: the same command spread over a cluster
  (``workflow/assess.smk``);
* :mod:`~sdcrisk.assess.mixed_example`: a mixed-type example file pair
  (``python -m sdcrisk.assess.mixed_example``).

Layers: this package imports the engine (``sdcrisk.masking``, ``sdcrisk.linkage``,
``sdcrisk.measures``, ``sdcrisk.attacks`` and the top-level helper modules) and never
:mod:`sdcrisk.replication`; the engine imports neither product; only :mod:`sdcrisk.cli` and
:mod:`sdcrisk.compile` (the commands) import this package (``tests/test_layers.py``).
"""

import sys
import types


class _CallableModule(types.ModuleType):
    """This package, callable as :func:`sdcrisk.assess.assessment.assess`.

    ``sdcrisk.assess`` was first a function (``sdcrisk.assess(original, masked)``, ``from sdcrisk
    import assess``), and it is now also the package holding the command's modules. Importing any
    submodule (``import sdcrisk.assess.report``) makes Python set the parent's attribute
    ``sdcrisk.assess`` to this package module, so a function of that name on ``sdcrisk`` would be
    replaced by the module at the first such import. Making the module itself callable keeps both
    forms working whatever was imported first. The call imports the assessment (numpy, pandas,
    the attacks) only when made: importing the package, e.g. by ``python -m
    sdcrisk.assess.attack_worker``, stays light."""

    def __call__(self, *args, **kwargs):
        from .assessment import assess

        return assess(*args, **kwargs)

    @property
    def __signature__(self):  # inspect.signature and help show the function's parameters
        import inspect

        from .assessment import assess

        return inspect.signature(assess)


sys.modules[__name__].__class__ = _CallableModule


def __getattr__(name: str):
    """``sdcrisk.assess.assess`` is the function itself (for ``help(sdcrisk.assess)``, which lists
    it with its signature and docstring), imported on first use (PEP 562)."""
    if name == "assess":
        from .assessment import assess

        return assess
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"assess"})


__all__ = ["assess"]
