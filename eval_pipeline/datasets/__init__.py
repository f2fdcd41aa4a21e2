"""Datasets: items, versioned artefacts, validation and importers. Pure: never imports dagster."""
