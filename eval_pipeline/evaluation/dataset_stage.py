"""Dataset-level stages: the pinned versions, their validation, regression cases, sampling."""

import json
from typing import Any

from eval_pipeline.evaluation.sampler import sample_runs
from eval_pipeline.evaluation.stage import dataset_store
from eval_pipeline.home import Home
from eval_pipeline.suites.locate import suite_files
from eval_pipeline.traces.store.trace_store import PRODUCTION as PRODUCTION_BUILD


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


def validate_pinned_datasets(home: Home) -> dict[str, Any]:
    """great_expectations validation of every pinned dataset; failures listed per dataset."""
    from eval_pipeline.datasets.validation import validate_dataset

    failures: dict[str, list[str]] = {}
    for suite, dataset in _pinned(home):
        result = validate_dataset(dataset, required_slices=tuple(suite.slices))
        if not result.success:
            failures[dataset.ref] = list(result.failures)
    return {"success": not failures, "failures": failures, "datasets_checked": len(_pinned(home))}


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


def sample_production_day(home: Home, day: str, rate: float | None = None) -> dict[str, Any]:
    """Sample one day of production traces (build ``production``) and store the sample."""
    from eval_pipeline.suites.risk import load_risk_policy
    from eval_pipeline.traces.runs.assemble import assemble_runs
    from eval_pipeline.traces.store.trace_store import TraceStore

    if rate is None:
        rate = float(load_risk_policy().tier("medium").production_sampling_rate)
    runs = assemble_runs(TraceStore(home.store).read_spans(PRODUCTION_BUILD, day=day))
    sampled = sample_runs(runs, rate, seed=day)
    target = home.store / "production_sample" / f"day={day}" / "sample.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps([s.__dict__ for s in sampled], indent=2, default=list))
    return {
        "day": day,
        "traces": len(runs),
        "sampled": len(sampled),
        "flagged": sum(1 for s in sampled if s.flags),
        "rate": rate,
    }
