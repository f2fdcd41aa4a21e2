"""Suites: suite config schema, risk-tier policy, price tables. Pure: never imports dagster."""
