"""slotstream: long-term memory for personal AI agents, kept as a stream-processing pipeline."""

__version__ = "0.1.0"
