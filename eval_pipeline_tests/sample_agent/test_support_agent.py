"""The sample support agent: GenAI-convention traces over the committed tau-bench subset.

Contract: a run is one trace rooted at ``invoke_agent support_agent`` carrying the eval context
and the conversation id, with a nested ``invoke_agent refunds_agent`` hand-off; every
``execute_tool`` span has its name, call id, arguments and result, and its call id matches the
``tool_call`` part of the ``chat`` turn that requested it; chat spans carry model and tokens;
durations are realistic (simulated, not slept); writes really change the (per-run) database
and are confirmed first; a run is reproducible from its seed; the seeded defects change the
trace the way their names say.
"""

from typing import Any

from opentelemetry.sdk.trace import TracerProvider

from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.sample_agent.app import run_support_agent
from eval_pipeline.sample_agent.items import adversarial_items, golden_items
from eval_pipeline.sample_agent.retail_db import tables
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import AgentRun, Operation
from eval_pipeline.traces.runs.assemble import assemble_runs

ENTRY = "eval_pipeline.sample_agent.app:run_item"


def _runs(build: str, items: list[Any], runs_per_item: int = 1) -> list[AgentRun]:
    runner = PythonEntryPointRunner(ENTRY, params={"agent_build": build})
    result = runner.run_items(items, build=build, runs_per_item=runs_per_item)
    assert not result.failed, [o.failure_reason for o in result.failed]
    return assemble_runs(result.spans)


def test_trace_shape_follows_the_genai_conventions() -> None:
    item = golden_items(1)[0]
    (run,) = _runs("candidate-improved", [item])
    root = run.span(run.root_span_id or "")
    assert root is not None and root.operation == Operation.INVOKE_AGENT
    assert root.agent_name == "support_agent" and run.conversation_id
    assert eval_context.from_attributes(root.attributes).item_id == item.item_id
    assert [h.to_agent for h in run.handoffs] == ["refunds_agent"]
    assert all(
        s.conversation_id == run.conversation_id
        for s in run.spans
        if s.operation in (Operation.CHAT, Operation.EXECUTE_TOOL)
    )
    requested = {part["id"]: part for call in run.model_calls for part in call.requested_tool_calls}
    for call in run.tool_calls:
        assert call.call_id in requested
        assert requested[call.call_id]["name"] == call.name
        assert requested[call.call_id]["arguments"] == call.arguments
        assert call.result is not None
    for model_call in run.model_calls:
        assert model_call.model == "gpt-4.1-mini"
        assert (model_call.input_tokens or 0) > 300 and (model_call.output_tokens or 0) > 5
        assert 0.1 < model_call.duration_s < 5
    assert 2 < run.duration_s < 40
    assert run.final_answer and item.required_entities[0] in run.final_answer
    assert run.retrieved and run.retrieved[0].document_id.startswith("current/")


def test_writes_are_confirmed_first_and_change_the_database() -> None:
    item = next(i for i in golden_items() if i.slices["intent"] == "cancel")
    (run,) = _runs("candidate-improved", [item])
    names = list(run.tool_names)
    write = names.index("cancel_pending_order")
    assert "confirm_action" in names[:write]
    result = run.tool_calls[write].result
    order_id = run.tool_calls[write].arguments["order_id"]
    assert result["status"] == "cancelled"
    assert tables()["orders"][order_id]["status"] == "pending"  # the shared tables are intact


def test_runs_are_reproducible_from_the_seed() -> None:
    item = golden_items(3)[2]
    provider = TracerProvider()
    answers = [
        run_support_agent(
            item,
            build="baseline",
            seed=seed,
            tracer=provider.get_tracer("t"),
            context=eval_context.from_attributes({}),
        )["answer"]
        for seed in (7, 7, 8)
    ]
    assert answers[0] == answers[1]


def test_seeded_defects_change_the_trace_as_named() -> None:
    item = golden_items(1)[0]
    (renamed,) = _runs("defect-renamed-argument", [item])
    write = next(c for c in renamed.tool_calls if c.name == "return_delivered_order_items")
    assert "orderId" in write.arguments and "order_id" not in write.arguments
    assert write.succeeded

    (skipped,) = _runs("defect-skips-confirmation", [item])
    assert "confirm_action" not in skipped.tool_names

    (stale,) = _runs("defect-stale-policy-index", [item])
    assert stale.retrieved and all(d.document_id.startswith("2023/") for d in stale.retrieved)

    (dropped,) = _runs("defect-handoff-drops-order-id", [item])
    assert item.required_entities[0] not in dropped.handoffs[0].context

    attack = adversarial_items()[0]
    (obeyed,) = _runs("defect-obeys-injection", [attack])
    (resisted,) = _runs("baseline", [attack])
    forbidden = attack.forbidden_calls[0]
    hits = [
        c
        for c in obeyed.tool_calls
        if c.name == forbidden.name
        and c.arguments.get("order_id") == forbidden.arguments["order_id"]
    ]
    assert hits and hits[0].succeeded
    assert not [
        c
        for c in resisted.tool_calls
        if c.arguments.get("order_id") == forbidden.arguments["order_id"]
    ]

    (slow,) = _runs("defect-slow", [item])
    (usual,) = _runs("baseline", [item])
    assert slow.duration_s > 2.5 * usual.duration_s
    (costly,) = _runs("defect-expensive", [item])
    assert {c.model for c in costly.model_calls} == {"gpt-4.1"}
    assert costly.input_tokens > 1.4 * usual.input_tokens
