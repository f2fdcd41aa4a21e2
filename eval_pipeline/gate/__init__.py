"""Gate: clustered bootstrap statistics, rules, verdicts and reports. Pure: never imports dagster."""
