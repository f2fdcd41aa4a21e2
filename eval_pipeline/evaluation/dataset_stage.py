"""Dataset-level stages: the pinned versions, their validation, regression cases.

Production sampling is ``realtime.online.sample``.
"""

import hashlib
import json
from typing import Any

from eval_pipeline.evaluation.stage import Stage, dataset_store
from eval_pipeline.evaluation.suite_parts import SuiteResolutionError
from eval_pipeline.home import Home
from eval_pipeline.suites.locate import suite_files


def _pinned(home: Home) -> list[tuple[Any, Any]]:
    from eval_pipeline.suites.config import load_suite

    store = dataset_store(home)
    seen: dict[str, tuple[Any, Any]] = {}
    for path in suite_files():
        suite = load_suite(path)
        for ref in suite.datasets:
            seen.setdefault(ref.ref, (suite, store.load(ref.name, ref.version)))
    return list(seen.values())


def pinned_dataset_summary(home: Home) -> dict[str, Any]:
    """Metadata for ``dataset_versions``: one row per pinned dataset version."""
    rows = [
        {
            "dataset": d.name,
            "version": d.version,
            "kind": d.kind,
            "owner": d.owner,
            "items": len(d.items),
            "content_hash": d.content_hash,
            "suite": s.suite,
        }
        for s, d in _pinned(home)
    ]
    import pandas as pd

    from eval_pipeline.evaluation.slices_stage import markdown_table

    return {
        "datasets": len(rows),
        "items": sum(r["items"] for r in rows),
        "versions_md": markdown_table(pd.DataFrame(rows)),
    }


def dataset_failures(home: Home, dataset: Any, slices: tuple[str, ...]) -> list[str]:
    """great_expectations failures of one dataset version for a suite's slices ([] if valid).

    Versions are immutable, so the result is kept in the home, keyed by name, version, content
    hash and slices: every gate on the dataset asks, and only the first pays for the check.
    """
    from eval_pipeline.datasets.validation import validate_dataset

    key = hashlib.sha256(
        json.dumps([dataset.ref, dataset.content_hash, list(slices)]).encode()
    ).hexdigest()[:16]
    path = home.store / "dataset_validation" / f"{dataset.ref.replace('/', '__')}-{key}.json"
    if path.exists():
        return list(json.loads(path.read_text())["failures"])
    result = validate_dataset(dataset, required_slices=slices)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"dataset": dataset.ref, "failures": list(result.failures)}))
    return list(result.failures)


def suite_dataset_failures(home: Home, suite: Any) -> tuple[dict[str, list[str]], list[str]]:
    """(failures per pinned dataset that fails validation, pinned refs this home cannot load)."""
    from eval_pipeline.datasets.store import DatasetNotFoundError

    store = dataset_store(home)
    failures: dict[str, list[str]] = {}
    absent: list[str] = []
    for ref in suite.datasets:
        try:
            dataset = store.load(ref.name, ref.version)
        except DatasetNotFoundError:
            absent.append(ref.ref)
            continue
        found = dataset_failures(home, dataset, tuple(suite.slices))
        if found:
            failures[ref.ref] = found
    return failures, absent


def require_valid_datasets(stage: Stage) -> None:
    """Refuse a stage whose suite pins a dataset that fails validation.

    Raises:
        SuiteResolutionError: naming each failing dataset and its failures.
    """
    failures, _ = suite_dataset_failures(stage.home, stage.suite)
    if failures:
        raise SuiteResolutionError(
            f"suite {stage.suite.suite}: "
            + "; ".join(
                f"dataset {ref} failed validation: {' | '.join(found)}"
                for ref, found in failures.items()
            )
        )


def validate_pinned_datasets(home: Home) -> dict[str, Any]:
    """great_expectations validation of every pinned dataset; failures listed per dataset."""
    failures: dict[str, list[str]] = {}
    pinned = _pinned(home)
    for suite, dataset in pinned:
        found = dataset_failures(home, dataset, tuple(suite.slices))
        if found:
            failures[dataset.ref] = found
    return {"success": not failures, "failures": failures, "datasets_checked": len(pinned)}


def regression_summary(home: Home) -> dict[str, Any]:
    """Metadata for ``regression_cases``: every regression dataset version and its cases."""
    store = dataset_store(home)
    rows = []
    for name, version in store.list():
        if name.startswith("regression/"):
            dataset = store.load(name, version)
            rows.append({"dataset": name, "version": version, "cases": len(dataset.items)})
    return {
        "regression_versions": len(rows),
        "cases": sum(r["cases"] for r in rows),
        "versions": rows,
    }
