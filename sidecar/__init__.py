"""The context sidecar: an HTTP service for context lookups, ingest, memory controls and metrics."""
