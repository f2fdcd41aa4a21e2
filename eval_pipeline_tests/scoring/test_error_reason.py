"""A scorer's exception becomes a one-line reason: no stray pydantic line in any output.

Contract: when a scorer raises, its ``error`` row's reason is one line, ``Type: message``; a
pydantic ``ValidationError`` (what the DeepEval and RAGAS test-case models raise) is rendered
as its model, field, message and offending input, without the multi-line layout and the
"For further information visit https://errors.pydantic.dev/..." line that otherwise follows
the reason into every table, report and CSV cell.
"""

from typing import Any

from pydantic import BaseModel

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.registry import score_run
from eval_pipeline.traces.model import AgentRun


class ToolCallModel(BaseModel):
    name: str
    input_parameters: dict[str, Any] | None = None


class RaisingScorer:
    """Builds a library's test case the way an adapter does, from a bad value."""

    id = "raises"
    version = 1
    arguments: dict[str, Any] = {}  # noqa: RUF012
    needs_judge = False

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error

    def score(self, run: AgentRun, item: DatasetItem) -> Any:
        if self.error is not None:
            raise self.error
        ToolCallModel(name="get_weather", input_parameters="atlantis")  # type: ignore[arg-type]


def _reason(scorer: RaisingScorer) -> str:
    run = AgentRun(trace_id="ab" * 16, root_span_id=None, spans=())
    scorers: list[Any] = [scorer]
    (row,) = score_run(run, DatasetItem(item_id="i"), scorers, build="b", run_index=0)
    assert row.status == "error"
    return row.reason


def test_a_pydantic_validation_error_is_one_line_naming_the_field() -> None:
    reason = _reason(RaisingScorer())
    assert "\n" not in reason and "pydantic.dev" not in reason
    assert reason.startswith("ValidationError: ToolCallModel: input_parameters: ")
    assert "Input should be a valid dictionary" in reason and "'atlantis'" in reason


def test_any_multi_line_exception_is_one_line() -> None:
    reason = _reason(RaisingScorer(RuntimeError("upstream failed\n  while reading\n")))
    assert reason == "RuntimeError: upstream failed while reading"
