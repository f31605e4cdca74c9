"""Record-linkage attacks of the papers (DBRL, PRL, RS-RL/L-RL, Pro-RL, RBRL)."""

from .base import LinkResult, prepare

__all__ = ["LinkResult", "prepare"]
