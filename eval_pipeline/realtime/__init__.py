"""Real-time plane: OTLP receiver, stream consumers, alert sinks. Never imports dagster."""
