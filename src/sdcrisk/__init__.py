"""sdcrisk: reference replication of method-specific record linkage for statistical disclosure control."""

__version__ = "0.1.0"
