"""Running a judge over labelled items, producing a verdicts table for calibration.

Each row of the labels table supplies the rubric's fields by column name (``question``,
``answer``, ``contexts``, ...). A judge failure (``JudgeError``) leaves the item without a
verdict (calibration counts it as missing); a judge that cannot judge the task at all stops
the run with ``JudgeCannotJudge``.
"""

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pandas as pd

from eval_pipeline.judges.calibration import CalibrationReport, calibrate
from eval_pipeline.judges.errors import JudgeCannotJudge
from eval_pipeline.judges.fanout import judge_each
from eval_pipeline.judges.label_files import LabelFileError, item_ids
from eval_pipeline.judges.protocol import Judge, JudgeError, JudgeRequest
from eval_pipeline.judges.rubrics import Rubric, RubricError, conclude, load_rubric


@dataclass(frozen=True)
class LabelledRun:
    """The verdicts (``item_id``, ``verdict``, ``score``, ``reason``) and the failures."""

    verdicts: pd.DataFrame
    errors: dict[str, str]


def _field_value(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value == ""


def build_requests(
    labels: pd.DataFrame, rubric: Rubric, source: str
) -> list[tuple[str, JudgeRequest]]:
    """``(item_id, request)`` per labelled row, the fields from the columns the rubric names.

    Raises:
        LabelFileError: a column the rubric requires is missing, or a row leaves it empty.
    """
    ids = item_ids(labels, source)
    missing = [name for name in rubric.required_fields if name not in labels.columns]
    if missing:
        raise LabelFileError(
            f"{source}: rubric {rubric.ref} needs column(s) {missing}; "
            f"found {sorted(map(str, labels.columns))}"
        )
    names = [n for n in (*rubric.required_fields, *rubric.optional_fields) if n in labels.columns]
    requests = []
    for row, (item, record) in enumerate(zip(ids, labels[names].to_dict("records"), strict=True)):
        fields = {k: _field_value(v) for k, v in record.items() if not _is_blank(v)}
        try:
            requests.append((item, rubric.request(fields)))
        except RubricError as exc:
            raise LabelFileError(f"{source}: row {row + 1}: {exc}") from exc
    return requests


def run_judge(judge: Judge, requests: list[tuple[str, JudgeRequest]]) -> LabelledRun:
    """Judge every request, concurrently up to the judge's limit; failures are recorded.

    The requests go to the judge as one batch (``judges.fanout.judge_each``: one cache
    lookup, the misses asked concurrently up to the judge's ``max_concurrency``).
    """
    errors: dict[str, str] = {}
    rows = []
    answers = judge_each(judge, [request for _, request in requests])
    for (item, request), answer in zip(requests, answers, strict=True):
        if isinstance(answer, JudgeError) and not isinstance(answer, JudgeCannotJudge):
            errors[item] = str(answer)
            continue
        if isinstance(answer, Exception):
            raise answer
        verdict = conclude(request, answer)  # a custom rubric's own threshold
        rows.append(
            {
                "item_id": item,
                "verdict": "pass" if verdict.passed else "fail",
                "score": verdict.score,
                "reason": verdict.reason,
            }
        )
    frame = pd.DataFrame(rows, columns=["item_id", "verdict", "score", "reason"])
    return LabelledRun(frame, errors)


def repeated_scores(
    judge: Judge, requests: list[tuple[str, JudgeRequest]], repeats: int, *, workers: int = 1
) -> tuple[dict[str, list[float]], dict[str, str]]:
    """``repeats`` verdict scores per item (for ``judges.variance``), and the last failure of each.

    ``judge`` should be the judge itself, not the cache around it: a cache answers a repeat with
    the first verdict, which would hide the judge's disagreement with itself.
    """
    errors: dict[str, str] = {}
    scores: dict[str, list[float]] = {item: [] for item, _ in requests}

    def one(pair: tuple[str, JudgeRequest]) -> tuple[str, float | None]:
        item, request = pair
        try:
            return item, judge.judge(request).score
        except JudgeCannotJudge:
            raise
        except JudgeError as exc:
            errors[item] = str(exc)
            return item, None

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for item, score in pool.map(one, [pair for pair in requests for _ in range(repeats)]):
            if score is not None:
                scores[item].append(score)
    return scores, errors


def calibrate_judge(
    judge: Judge,
    labels: pd.DataFrame,
    task: str,
    *,
    rubric_version: str | None = None,
    slice_columns: tuple[str, ...] = (),
    seed: int = 0,
    n_resamples: int = 2000,
    source: str = "labels",
) -> tuple[CalibrationReport, LabelledRun]:
    """Run ``judge`` on labelled items for ``task`` and calibrate its verdicts against the labels.

    Items the judge failed on count as missing verdicts in the report.

    Raises:
        LabelFileError: the labels lack a column the rubric needs, or a bad label value.
        RubricError: no rubric for ``task`` at ``rubric_version``.
        JudgeCannotJudge: the judge has no method for ``task``.
    """
    rubric = load_rubric(task, rubric_version)
    run = run_judge(judge, build_requests(labels, rubric, source))
    report = calibrate(
        labels,
        run.verdicts,
        slice_columns=slice_columns,
        seed=seed,
        n_resamples=n_resamples,
        labels_source=source,
        verdicts_source=f"verdicts of {judge.backend}",
    )
    return report, run
