"""Sample systems under test (importable as ``examples.*`` from the repository root)."""
