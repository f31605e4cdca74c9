"""Microaggregation (placeholder; being written)."""
