"""A suite's own labels file as its judge's calibration set (``judge.calibration``).

```yaml
judge:
  model: offline-minilm
  rubric_version: "1"
  calibration:
    labels: labels/support.csv     # CSV or JSONL: item_id, label (pass/fail), the rubric's fields
    task: faithfulness             # the rubric the human labels grade
```

A judge names either a shipped set (``calibration_set: human-labels/...``) or its own labels
(``calibration``), never both. When the suite is loaded, the labels path is resolved against
the suite file's folder (never the working directory, so the suite means the same from any
folder) and stored absolute, and ``calibration_set`` becomes ``labels/<file stem>@<first 12
hex of the file's sha256>``: calibration reports are stored per set name, so edited labels are
a new calibration rather than a stale one. What the file holds (columns, label values) is
checked where the set is used or a build registered (``evaluation.calibration_stage``).
"""

import hashlib
from pathlib import Path
from typing import Any

from eval_pipeline.suites.errors import IssueList

LABEL_SUFFIXES = (".csv", ".jsonl", ".ndjson", ".parquet")


def labels_set_name(path: Path) -> str:
    """The calibration set name of a labels file: its stem and a hash of its bytes."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    return f"labels/{path.stem}@{digest}"


def resolve_calibration_labels(raw: dict[str, Any], folder: Path, issues: IssueList) -> None:
    """Resolve ``judge.calibration.labels`` in place (see the module docstring)."""
    judge = raw.get("judge")
    if not isinstance(judge, dict):
        return
    calibration = judge.get("calibration")
    if calibration is None:
        if "calibration_set" not in judge:
            issues.add(
                ("judge", "calibration_set"),
                "required: a shipped set's name (calibration_set: human-labels/...) or your "
                "labels (calibration: {labels: FILE, task: RUBRIC})",
                at=("judge",),
            )
        return
    if "calibration_set" in judge:
        issues.add(
            ("judge", "calibration"),
            "give calibration_set (a shipped set) or calibration (your labels file), not both",
        )
        return
    labels = calibration.get("labels") if isinstance(calibration, dict) else None
    if not isinstance(labels, str) or not labels.strip():
        return  # the model reports the missing or mistyped field
    where = ("judge", "calibration", "labels")
    path = (folder / Path(labels).expanduser()).resolve()
    if path.suffix.lower() not in LABEL_SUFFIXES:
        issues.add(where, f"{path}: expected a {', '.join(LABEL_SUFFIXES)} file")
        return
    if not path.is_file():
        issues.add(where, f"{path}: no such file")
        return
    raw["judge"] = {
        **judge,
        "calibration": {**calibration, "labels": str(path)},
        "calibration_set": labels_set_name(path),
    }
