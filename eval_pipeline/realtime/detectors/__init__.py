"""Detectors: bounded real-time checks over spans and completed traces. Pure."""
