"""Processors: extraction, reconciliation and expiry — thin services over the domain and the state layer."""
