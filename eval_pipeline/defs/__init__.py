"""Dagster objects only: assets, checks, sensors, schedules, jobs, resources."""
