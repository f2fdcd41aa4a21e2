"""Rendering the Helm chart in tests: helm-python-sdk (Helm's Go SDK, no helm binary)."""

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import helm_python as helm
import yaml

from eval_pipeline_tests.conftest import REPO_ROOT

CHART = REPO_ROOT / "deploy" / "helm" / "eval-pipeline"
RELEASE = "ep"
NAMESPACE = "observability"


def render(values: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every Kubernetes object the chart renders with ``values`` (NOTES.txt left out)."""
    with helm.Chart.load(str(CHART)) as chart:
        files = chart.render(values or {}, name=RELEASE, namespace=NAMESPACE)
    objects = []
    for name, text in sorted(files.items()):
        if name.endswith("NOTES.txt"):
            continue
        objects.extend(doc for doc in yaml.safe_load_all(text) if doc)
    return objects


def only(objects: list[dict[str, Any]], kind: str, component: str) -> dict[str, Any]:
    """The one object of ``kind`` labelled with ``component``."""
    found = [
        o
        for o in objects
        if o["kind"] == kind
        and o["metadata"].get("labels", {}).get("app.kubernetes.io/component") == component
    ]
    assert len(found) == 1, f"{kind} of {component}: {[o['metadata']['name'] for o in found]}"
    return found[0]


def values_docs() -> ModuleType:
    """deploy/helm/values_docs.py, the README table generator (a script, not a package)."""
    path = Path(CHART.parent / "values_docs.py")
    spec = importlib.util.spec_from_file_location("values_docs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
