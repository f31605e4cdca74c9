"""Rank swapping and its variants (placeholder; being written)."""
