"""Judges: the Judge protocol, HTTP and offline judges, the cache, calibration. Pure: no dagster."""
