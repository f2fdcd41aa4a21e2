"""Alerts of the real-time plane: deduplicated flags, their SQL store, sinks and the worker."""
