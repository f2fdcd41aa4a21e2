"""Runners: execute a build over dataset items and capture its traces."""
