"""A project folder with custom metrics of both kinds, over a small sample-agent dataset.

``custom_project(folder, name)`` publishes the dataset (``small_suite``), writes a Python scorer
module (``<name>_metrics.py``: ``ConciseAnswer``, a ``ScorerBase`` subclass at version 2 with an
argument) and a rubric file (``rubrics/<name>_explained.yaml``, answered by the offline judge's
relevancy check), and a suite gating both beside a built-in metric. Ids carry ``name``, so each
test's metrics are its own in the process-wide registry.
"""

from dataclasses import dataclass
from pathlib import Path

from eval_pipeline_tests.cli.small_suite import small_suite

SCORER_MODULE = '''\
"""A team's own deterministic check, as a user writes it."""

from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.protocol import Layer


class ConciseAnswer(ScorerBase):
    """Share of the word budget the final answer keeps to: 1 within it, less beyond."""

    metric_id = "{name}_concise"
    metric_version = 2
    layer = Layer.FINAL_ANSWER
    run_fields = frozenset({{"final_answer"}})

    def __init__(self, max_words: int = 60) -> None:
        self.max_words = max_words

    @property
    def arguments(self):
        return {{"max_words": self.max_words}}

    def verdict(self, run, item):
        if not run.final_answer:
            return self.unscored("run has no final answer")
        words = len(run.final_answer.split())
        return self.scored(min(1.0, self.max_words / words), reason=f"{{words}} words")
'''

RUBRIC = """\
version: 1
description: Does the answer explain to the customer what was done about their request?
fields: [question, answer]
criteria:
  - The answer says what happened to the order or the request.
  - The answer is addressed to the customer, in plain words.
scale: {min: 1, max: 5}
pass_threshold: 4
offline_task: answer_relevancy
"""

JUDGE = """\
judge:
  model: offline-minilm
  rubric_version: "1"
  calibration_set: human-labels/agent-faithfulness-v1
"""

CUSTOM_METRICS = """\
  - {{id: {name}_concise, scorer: "{name}_metrics:ConciseAnswer", threshold: 0.5,
     max_regression: 0.1, args: {{max_words: 12}}}}
  - {{id: {name}_explained, rubric: rubrics/{name}_explained.yaml, threshold: 0.5,
     max_regression: 0.1}}
"""


@dataclass(frozen=True)
class Project:
    """The files of a custom-metrics project."""

    suite: Path
    module: Path
    rubric: Path
    scorer_id: str
    metric_python: str
    metric_rubric: str


def custom_project(folder: Path, name: str, *, items: int = 2) -> Project:
    """Write the project (see the module docstring) and publish its dataset."""
    suite = small_suite(folder, name, items=items)
    metrics = "metrics:\n" + CUSTOM_METRICS.format(name=name)
    suite.write_text(suite.read_text().replace("metrics:\n", JUDGE + metrics, 1))
    module = folder / f"{name}_metrics.py"
    module.write_text(SCORER_MODULE.format(name=name))
    rubric = folder / "rubrics" / f"{name}_explained.yaml"
    rubric.parent.mkdir(exist_ok=True)
    rubric.write_text(RUBRIC)
    return Project(
        suite=suite,
        module=module,
        rubric=rubric,
        scorer_id=f"{name}_metrics:ConciseAnswer",
        metric_python=f"{name}_concise",
        metric_rubric=f"{name}_explained",
    )
