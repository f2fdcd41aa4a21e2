"""redact."""
