"""Masking (protection) methods of the five papers, behind one registry.

Importing this package registers every method: rank swapping and its variants
(:mod:`.swapping`), microaggregation (:mod:`.microaggregation`) and noise (:mod:`.noise`).
"""

from .registry import METHODS, MaskingMethod, Param, get_method, mask, register
from . import noise, swapping, microaggregation  # noqa: F401  (registration side effects)

__all__ = ["METHODS", "MaskingMethod", "Param", "get_method", "mask", "register"]
