"""Singling out, linkability and inference: the three anonymisation criteria as attacks.

The engine's linkage attacks (:mod:`sdcrisk.linkage`) answer linkability; this package holds
the attacks for the other two criteria and the measures agencies compute on categorical keys,
each returning :class:`.rows.CriterionRow` results (success, baseline, intervals). It imports
the engine's kernels and measures, never a product (``sdcrisk.assess``, ``sdcrisk.replication``).
"""

from .rows import CRITERIA, INFERENCE, LINKABILITY, SINGLING_OUT, CriterionRow

__all__ = ["CriterionRow", "CRITERIA", "LINKABILITY", "SINGLING_OUT", "INFERENCE"]
