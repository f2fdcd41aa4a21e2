"""Calibration sets: the labelled files a judge is calibrated on, shipped or the suite's own.

The shipped sets (package data, ``judges/calibration_sets/``) are listed in ``CALIBRATION_SETS``
with the rubric task their labels grade; a suite names one (``judge.calibration_set``) or its
own labels file (``judge.calibration: {labels, task}``, resolved by ``suites.calibration_labels``).
``suite_calibration_set`` resolves either; ``check_calibration_set`` reads a set as calibration
will, so a registration can refuse a set that would fail later.
"""

from dataclasses import dataclass
from pathlib import Path

from eval_pipeline.package_data import package_path
from eval_pipeline.suites.config import SuiteConfig

CALIBRATION_DIR = package_path("eval_pipeline.judges", "calibration_sets")


@dataclass(frozen=True)
class CalibrationSet:
    """A labelled file and the rubric task its labels grade."""

    name: str
    path: Path
    task: str


CALIBRATION_SETS = {
    entry.name: entry
    for entry in (
        CalibrationSet(
            "human-labels/agent-faithfulness-v1",
            CALIBRATION_DIR / "agent_faithfulness.jsonl",
            "faithfulness",
        ),
        CalibrationSet(
            "human-labels/agent-task-completion-v1",
            CALIBRATION_DIR / "agent_task_completion.jsonl",
            "task_completion",
        ),
        CalibrationSet(
            "human-labels/halueval-general-v1",
            CALIBRATION_DIR / "halueval_general_600.labels.jsonl",
            "hallucination",
        ),
    )
}


def calibration_set(name: str) -> CalibrationSet:
    """The shipped calibration set ``name``.

    Raises:
        KeyError: no such set is shipped (the message lists the known ones).
    """
    if name not in CALIBRATION_SETS:
        raise KeyError(
            f"calibration set {name!r} is not shipped; known: {sorted(CALIBRATION_SETS)}"
        )
    return CALIBRATION_SETS[name]


def suite_calibration_set(suite: SuiteConfig) -> CalibrationSet:
    """The calibration set ``suite``'s judge names: its own labels file, or a shipped set.

    Raises:
        SuiteResolutionError: the suite has no judge, or names a set that is not shipped.
    """
    from eval_pipeline.evaluation.suite_parts import SuiteResolutionError

    if suite.judge is None:
        raise SuiteResolutionError(f"suite {suite.suite} has no judge: block")
    own = suite.judge.calibration
    if own is not None:
        return CalibrationSet(suite.judge.calibration_set, Path(own.labels), own.task)
    try:
        return calibration_set(suite.judge.calibration_set)
    except KeyError as exc:
        raise SuiteResolutionError(
            f"suite {suite.suite}: judge.calibration_set: {exc.args[0]}; or name your own "
            "labels with judge.calibration: {labels: FILE, task: RUBRIC}"
        ) from exc


def check_calibration_set(entry: CalibrationSet) -> int:
    """Read ``entry``'s labels as calibration will; the number of labelled items.

    Raises:
        LabelFileError: the file cannot be read, lacks ``item_id``/``label`` or a column the
            rubric needs, or a row holds a blank id, a duplicate or an unreadable label (the
            message names the file, the row and the column).
        RubricError: no rubric for the set's task.
    """
    from eval_pipeline.judges.label_files import read_table, require_columns, to_pass
    from eval_pipeline.judges.labelled_run import build_requests
    from eval_pipeline.judges.rubrics import load_rubric

    source = str(entry.path)
    labels = read_table(entry.path)
    require_columns(labels, ["item_id", "label"], source)
    to_pass(labels["label"], source, "label")
    return len(build_requests(labels, load_rubric(entry.task), source))
