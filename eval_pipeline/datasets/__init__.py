"""Datasets: items, versioned artefacts, validation and triage. Pure: never imports dagster.

The item format a person writes is ``item.schema.json`` (``user_items`` maps it onto the item
model); every version a person publishes is validated first (``publishing``). Your files and
benchmark sources become datasets through ``importers.datasets``.
"""
