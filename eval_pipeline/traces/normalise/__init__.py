"""normalise."""
