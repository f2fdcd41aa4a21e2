"""Partitions: one dynamic partition per build; production samples per day."""

import dagster as dg

builds_partitions = dg.DynamicPartitionsDefinition(name="builds")
"""One partition per registered build (added by ``candidate_build_sensor`` or the CLI)."""

production_days = dg.DailyPartitionsDefinition(start_date="2026-01-01", end_offset=1)
"""One partition per UTC day of production traffic."""
