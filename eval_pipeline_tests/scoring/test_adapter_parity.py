"""Parity: each DeepEval/RAGAS adapter gives the library's own number on the same input.

The library metric is computed directly in the test on an input written out by hand (tool
calls, expected tools, messages, contexts) and compared with the adapter scoring the
equivalent ``AgentRun``. Judge-free metrics run as they are. Judge-needing ones talk to the
same scripted OpenAI-compatible endpoint on loopback (``scripted_endpoint``: replies depend
only on the prompt and the reply schema): the library side through its own OpenAI client
(DeepEval's ``GPTModel``, RAGAS's ``llm_factory`` over ``AsyncOpenAI``), our side through the
suite's cached HTTP judge and the one LLM bridge. With only a non-generative judge,
judge-needing adapters are unscored, never a number.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.http_judge import HttpJudge
from eval_pipeline.scoring.adapters.conversion import trace_dict
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline_tests.scoring.builders import call, expect, make_item, make_run
from eval_pipeline_tests.scoring.judges_for_tests import OverlapJudge
from eval_pipeline_tests.scoring.scripted_endpoint import ScriptedEndpoint, scripted_endpoint

MODEL = "gpt-4o"  # a name DeepEval's own client knows (structured outputs); the server ignores it

QUESTION = "Please cancel order W1 if it is still pending."
ANSWER = "Order W1 was pending, so I cancelled it."
CONTEXT = "Orders can be cancelled while pending."
ITEM = make_item(
    "parity",
    input_messages=({"role": "user", "content": QUESTION},),
    reference_answer="Order W1 is cancelled.",
    expected_tool_calls=(
        expect("get_order", id=["W1"]),
        expect("cancel_order", id=["W1"]),
        expect("notify_user", optional=False, channel=["email", ""]),
    ),
)
CALLS = [("get_order", {"id": "W1"}, {"status": "pending"}), ("cancel_order", {"id": "W2"}, "ok")]
RUN = make_run(
    [call(n, a, result=r) for n, a, r in CALLS],
    answer=ANSWER,
    retrieved=(CONTEXT,),
    user_input=QUESTION,
)
EVIDENCE = [CONTEXT, 'get_order returned: {"status": "pending"}', "cancel_order returned: ok"]


@pytest.fixture
def endpoint() -> Iterator[ScriptedEndpoint]:
    with scripted_endpoint() as served:
        yield served


def _judge(endpoint: ScriptedEndpoint, tmp_path: Path) -> CachedJudge:
    inner = HttpJudge(MODEL, base_url=endpoint.url, api_key="test-key")
    return CachedJudge(inner, f"sqlite:///{tmp_path / 'judge-cache.db'}")


def _deepeval_model(endpoint: ScriptedEndpoint) -> Any:
    from deepeval.models import GPTModel

    return GPTModel(model=MODEL, base_url=endpoint.url, api_key="test-key")


def _ragas_llm(endpoint: ScriptedEndpoint) -> Any:
    from openai import AsyncOpenAI
    from ragas.llms.base import llm_factory

    return llm_factory(MODEL, client=AsyncOpenAI(base_url=endpoint.url, api_key="test-key"))


def _deepeval_case(with_trace: bool = False) -> Any:
    from deepeval.test_case import LLMTestCase, ToolCall

    case = LLMTestCase(
        input=QUESTION,
        actual_output=ANSWER,
        expected_output="Order W1 is cancelled.",
        tools_called=[ToolCall(name=n, input_parameters=a, output=r) for n, a, r in CALLS],
        expected_tools=[
            ToolCall(name="get_order", input_parameters={"id": "W1"}),
            ToolCall(name="cancel_order", input_parameters={"id": "W1"}),
            ToolCall(name="notify_user", input_parameters={"channel": "email"}),
        ],
        retrieval_context=EVIDENCE,
    )
    if with_trace:
        case._trace_dict = trace_dict(RUN)
    return case


def _ragas_messages() -> list[Any]:
    from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage

    return [
        HumanMessage(content=QUESTION),
        AIMessage(content="", tool_calls=[ToolCall(name="get_order", args={"id": "W1"})]),
        ToolMessage(content='{"status": "pending"}'),
        AIMessage(content="", tool_calls=[ToolCall(name="cancel_order", args={"id": "W2"})]),
        ToolMessage(content="ok"),
        AIMessage(content=ANSWER),
    ]


def _ragas_reference() -> list[Any]:
    from ragas.messages import ToolCall

    return [
        ToolCall(name="get_order", args={"id": "W1"}),
        ToolCall(name="cancel_order", args={"id": "W1"}),
        ToolCall(name="notify_user", args={"channel": "email"}),
    ]


def test_trace_dict_has_deepevals_shape() -> None:
    tree = trace_dict(RUN)
    assert tree is not None and tree["type"] == "agent"
    tools = [c for c in tree["children"] if c["type"] == "tool"]
    assert [t["name"] for t in tools] == ["get_order", "cancel_order"]
    assert tools[0]["input"] == {"id": "W1"} and tree["output"] == ANSWER


def test_deepeval_tool_correctness_parity() -> None:
    from deepeval.metrics import ToolCorrectnessMetric

    from eval_pipeline.scoring.adapters.llm_bridge import deepeval_unused_llm

    direct = ToolCorrectnessMetric(model=deepeval_unused_llm(), async_mode=False)
    direct.measure(_deepeval_case(), _show_indicator=False)
    ours = build_scorer("deepeval.tool_correctness").score(RUN, ITEM)
    assert ours.status == "scored" and ours.value == pytest.approx(direct.score)
    assert 0.0 < ours.value < 1.0  # type: ignore[operator]


@pytest.mark.parametrize(
    "metric, cls, with_trace",
    [
        ("deepeval.argument_correctness", "ArgumentCorrectnessMetric", False),
        ("deepeval.faithfulness", "FaithfulnessMetric", False),
        ("deepeval.task_completion", "TaskCompletionMetric", True),
        ("deepeval.plan_adherence", "PlanAdherenceMetric", True),
        ("deepeval.plan_quality", "PlanQualityMetric", True),
        ("deepeval.step_efficiency", "StepEfficiencyMetric", True),
    ],
)
def test_deepeval_judge_metric_parity(
    metric: str, cls: str, with_trace: bool, endpoint: ScriptedEndpoint, tmp_path: Path
) -> None:
    import deepeval.metrics

    direct = getattr(deepeval.metrics, cls)(model=_deepeval_model(endpoint), async_mode=False)
    direct.measure(_deepeval_case(with_trace), _show_indicator=False)
    asked_directly = len(endpoint.requests)
    judge = _judge(endpoint, tmp_path)
    ours = build_scorer(metric, judge=judge).score(RUN, ITEM)
    assert ours.status == "scored", ours.reason
    assert ours.value == pytest.approx(direct.score)
    assert len(endpoint.requests) == 2 * asked_directly  # the same calls, all through the judge
    assert judge.stats.calls == asked_directly > 0
    assert (ours.judge_fingerprint, ours.judge_backend) == (judge.fingerprint.digest, judge.backend)


@pytest.mark.filterwarnings("ignore:Length mismatch")
@pytest.mark.parametrize(
    "metric, cls",
    [("ragas.tool_call_accuracy", "ToolCallAccuracy"), ("ragas.tool_call_f1", "ToolCallF1")],
)
def test_ragas_tool_metric_parity(metric: str, cls: str) -> None:
    import ragas.metrics.collections as collections

    direct = getattr(collections, cls)().score(
        user_input=_ragas_messages(), reference_tool_calls=_ragas_reference()
    )
    ours = build_scorer(metric).score(RUN, ITEM)
    assert ours.status == "scored" and ours.value == pytest.approx(direct.value)


def _ragas_direct(metric: str, llm: Any) -> Any:
    import ragas.metrics.collections as collections

    if metric == "ragas.agent_goal_accuracy":
        return collections.AgentGoalAccuracyWithReference(llm=llm).score(
            user_input=_ragas_messages(), reference="Order W1 is cancelled."
        )
    return collections.Faithfulness(llm=llm).score(
        user_input=QUESTION, response=ANSWER, retrieved_contexts=EVIDENCE
    )


@pytest.mark.parametrize("metric", ["ragas.agent_goal_accuracy", "ragas.faithfulness"])
def test_ragas_judge_metric_parity(metric: str, endpoint: ScriptedEndpoint, tmp_path: Path) -> None:
    direct = _ragas_direct(metric, _ragas_llm(endpoint))
    asked_directly = len(endpoint.requests)
    judge = _judge(endpoint, tmp_path)
    ours = build_scorer(metric, judge=judge).score(RUN, ITEM)
    assert ours.status == "scored", ours.reason
    assert ours.value == pytest.approx(direct.value)
    assert judge.stats.calls == asked_directly > 0
    assert ours.judge_fingerprint == judge.fingerprint.digest


@pytest.mark.parametrize(
    "metric",
    [
        "deepeval.faithfulness",
        "deepeval.task_completion",
        "ragas.faithfulness",
        "ragas.agent_goal_accuracy",
    ],
)
def test_non_generative_judge_gives_unscored(metric: str) -> None:
    judge = OverlapJudge()
    score = build_scorer(metric, judge=judge).score(RUN, ITEM)
    assert score.status == "unscored" and "generative judge" in score.reason
    assert score.judge_backend == judge.backend


def test_fresh_metric_instance_per_score() -> None:
    scorer = build_scorer("deepeval.tool_correctness")
    perfect = make_run(
        [
            call("get_order", {"id": "W1"}),
            call("cancel_order", {"id": "W1"}),
            call("notify_user", {"channel": "email"}),
        ],
        answer=ANSWER,
    )
    first = scorer.score(RUN, ITEM)
    assert scorer.score(perfect, ITEM).value == 1.0
    assert scorer.score(RUN, ITEM).value == first.value
