"""A suite's own metrics: a Python scorer by entry point, or a judged metric by its rubric file.

```yaml
metrics:
  - {id: refund_stated, scorer: "my_metrics:RefundStated", threshold: 0.9}   # module:Class
  - {id: refund_explained, rubric: rubrics/refund_explained.yaml, threshold: 0.8}
```

``define_custom_metrics`` runs while the suite is loaded, before its metric ids are checked:
each declaration is loaded (the module from the suite's folder, else installed; the rubric file
relative to the suite, recorded absolute) and defined in the scoring registry for the process,
so every later step (scoring, the gate, calibration, ``metrics list``) knows the id. Every
problem is an issue on the declaring field (suite file, line, metric), and a rubric file's
own problems name that file's line and field too.
"""

import re
from pathlib import Path
from typing import Any

from eval_pipeline.judges.custom_rubrics import RubricSpecError, parse_custom_rubric
from eval_pipeline.judges.rubrics import RubricError, register_rubric
from eval_pipeline.scoring.custom import CustomMetricError, python_metric, rubric_metric
from eval_pipeline.scoring.registry import built_in_metric_ids, define_custom
from eval_pipeline.suites.errors import IssueList
from eval_pipeline.suites.yaml_source import YamlSourceError, load_yaml, render_path

CUSTOM_ID = re.compile(r"^[a-z][a-z0-9_]*$")
KINDS = ("scorer", "rubric")


def _rubric(metric_id: str, path: Path) -> Any:
    try:
        source = load_yaml(path)
    except YamlSourceError as exc:
        return f"rubric file {exc}"
    try:
        return parse_custom_rubric(source.data, metric_id=metric_id, source=str(path))
    except RubricSpecError as exc:
        return "; ".join(
            f"{path}:{source.line(where)}: {render_path(where)}: {message}"
            for where, message in exc.problems
        )


def _define(metric: dict[str, Any], kind: str, folder: Path) -> str | None:
    """Define one declared metric; the problem, if any (None when it is defined)."""
    metric_id, value = metric["id"], metric[kind]
    if not isinstance(value, str) or not value:
        return f"{kind} must be a non-empty string"
    if metric_id in built_in_metric_ids():
        return f"metric id {metric_id!r} is built in: name the custom metric otherwise"
    if not CUSTOM_ID.match(metric_id):
        return f"custom metric id {metric_id!r} must be snake_case ([a-z][a-z0-9_]*)"
    try:
        if kind == "scorer":
            define_custom(python_metric(metric_id, value, folder))
            return None
        path = (folder / value).resolve()
        metric["rubric"] = str(path)
        rubric = _rubric(metric_id, path)
        if isinstance(rubric, str):
            return rubric
        register_rubric(rubric)
        define_custom(rubric_metric(metric_id, rubric))
    except (CustomMetricError, RubricError) as exc:
        return str(exc)
    return None


def define_custom_metrics(raw: dict[str, Any], path: Path, issues: IssueList) -> None:
    """Load and define every custom metric the suite's ``metrics`` declare (module docstring)."""
    metrics = raw.get("metrics")
    if not isinstance(metrics, list):
        return
    for index, metric in enumerate(metrics):
        if not isinstance(metric, dict) or not isinstance(metric.get("id"), str):
            continue
        declared = [kind for kind in KINDS if kind in metric]
        if len(declared) > 1:
            issues.add(
                ("metrics", index, "rubric"),
                f"metric {metric['id']!r}: give scorer or rubric, not both",
            )
            continue
        if not declared:
            continue
        problem = _define(metric, declared[0], path.parent.resolve())
        if problem is not None:
            issues.add(("metrics", index, declared[0]), f"metric {metric['id']!r}: {problem}")
