"""A small NeMo Agent Toolkit workflow with a scripted model, run by the NAT venv's Python.

Not imported by the test suite (it needs ``nvidia-nat``, which lives in its own venv): the NAT
test runs ``python nat_workflow.py OUT_DIR COLLECTOR_URL`` with that venv's interpreter. The
workflow is a support agent: a scripted model (a fixed policy standing in for an LLM, reported
through NAT's own LLM_START/LLM_END intermediate steps with token usage) asks for the
``lookup_order`` tool, NAT runs it as a registered function (TOOL_START/TOOL_END around it),
and the model answers with the tool's result. ``nat eval`` runs it over a two-item dataset with
a registered exact-match evaluator; tracing goes to COLLECTOR_URL through NAT's
``otelcollector`` exporter (OTLP/HTTP). Outputs: ``OUT_DIR/eval/workflow_output.json`` and
``OUT_DIR/eval/exact_answer_output.json``.
"""

import asyncio
import json
import os
import sys
from pathlib import Path

# NAT's usage telemetry off three ways (its utils/telemetry/config.py), before NAT is imported.
os.environ.setdefault("NAT_TELEMETRY_ENABLED", "false")
os.environ.setdefault("NAT_TELEMETRY_ENDPOINT", "")
os.environ.setdefault("NAT_TELEMETRY_DRY_RUN", "true")
os.environ.setdefault("DO_NOT_TRACK", "1")

from nat.builder.builder import Builder, EvalBuilder
from nat.builder.context import Context
from nat.builder.evaluator import EvaluatorInfo
from nat.builder.function_info import FunctionInfo
from nat.cli.register_workflow import register_evaluator, register_function
from nat.data_models.evaluator import EvaluatorBaseConfig
from nat.data_models.function import FunctionBaseConfig
from nat.data_models.intermediate_step import (
    IntermediateStepPayload,
    IntermediateStepType,
    StreamEventData,
    UsageInfo,
)
from nat.data_models.token_usage import TokenUsageBaseModel
from nat.plugins.eval.data_models.evaluator_io import EvalOutput, EvalOutputItem

ORDERS = {"W1001": "delivered on 2026-11-18", "W1002": "shipped, arriving 2026-12-03"}
MODEL = "scripted-support-model"


class LookupOrderConfig(FunctionBaseConfig, name="lookup_order"):
    pass


class ScriptedAgentConfig(FunctionBaseConfig, name="scripted_support_agent"):
    tool: str = "lookup_order"


class ExactAnswerConfig(EvaluatorBaseConfig, name="exact_answer"):
    pass


@register_function(config_type=LookupOrderConfig)
async def lookup_order(config: LookupOrderConfig, builder: Builder):
    async def _lookup(order_id: str) -> str:
        return ORDERS.get(order_id, "unknown order")

    yield FunctionInfo.from_fn(_lookup, description="Look up an order's delivery status.")


def _model_step(
    manager, kind: IntermediateStepType, uuid: str, data: StreamEventData, tokens: tuple
) -> None:
    usage = UsageInfo(
        token_usage=TokenUsageBaseModel(
            prompt_tokens=tokens[0], completion_tokens=tokens[1], total_tokens=sum(tokens)
        ),
        num_llm_calls=1,
    )
    manager.push_intermediate_step(
        IntermediateStepPayload(
            event_type=kind,
            name=MODEL,
            UUID=uuid,
            data=data,
            usage_info=usage if kind == IntermediateStepType.LLM_END else None,
        )
    )


@register_function(config_type=ScriptedAgentConfig)
async def scripted_support_agent(config: ScriptedAgentConfig, builder: Builder):
    tool = await builder.get_function(config.tool)

    async def _respond(question: str) -> str:
        words = [w.strip("?.,#") for w in question.split()]
        order = next((w for w in words if w[:1] == "W" and w[1:].isdigit()), "")
        call = {"name": config.tool, "arguments": {"order_id": order}}
        manager = Context.get().intermediate_step_manager  # one manager: it pairs START with END
        _model_step(
            manager,
            IntermediateStepType.LLM_START,
            "llm-1",
            StreamEventData(input=question),
            (0, 0),
        )
        _model_step(
            manager,
            IntermediateStepType.LLM_END,
            "llm-1",
            StreamEventData(input=question, output=json.dumps({"tool_call": call})),
            (42, 9),
        )
        manager.push_intermediate_step(
            IntermediateStepPayload(
                event_type=IntermediateStepType.TOOL_START,
                name=config.tool,
                UUID="tool-1",
                data=StreamEventData(input=call["arguments"]),
            )
        )
        status = await tool.acall_invoke(order_id=order)
        manager.push_intermediate_step(
            IntermediateStepPayload(
                event_type=IntermediateStepType.TOOL_END,
                name=config.tool,
                UUID="tool-1",
                data=StreamEventData(input=call["arguments"], output=status),
            )
        )
        answer = f"Order {order} is {status}."
        _model_step(
            manager, IntermediateStepType.LLM_START, "llm-2", StreamEventData(input=status), (0, 0)
        )
        _model_step(
            manager,
            IntermediateStepType.LLM_END,
            "llm-2",
            StreamEventData(input=status, output=answer),
            (61, 12),
        )
        return answer

    yield FunctionInfo.from_fn(_respond, description="Answer order questions.")


@register_evaluator(config_type=ExactAnswerConfig)
async def exact_answer(config: ExactAnswerConfig, builder: EvalBuilder):
    async def _evaluate(eval_input):
        items = [
            EvalOutputItem(
                id=item.id,
                score=1.0 if str(item.expected_output_obj) == str(item.output_obj) else 0.0,
                reasoning={"expected": item.expected_output_obj, "generated": item.output_obj},
            )
            for item in eval_input.eval_input_items
        ]
        return EvalOutput(
            average_score=sum(i.score for i in items) / len(items), eval_output_items=items
        )

    yield EvaluatorInfo(config=config, evaluate_fn=_evaluate, description="exact answer match")


def main(out_dir: Path, collector: str) -> None:
    from nat.data_models.evaluate_runtime import EvaluationRunConfig
    from nat.plugins.eval.runtime.evaluate import EvaluationRun

    dataset = out_dir / "dataset.json"
    dataset.write_text(
        json.dumps(
            [
                {
                    "id": "order-w1001",
                    "question": "Where is order W1001?",
                    "answer": "Order W1001 is delivered on 2026-11-18.",
                },
                {
                    "id": "order-w1002",
                    "question": "Where is order W1002?",
                    "answer": "Order W1002 is shipped.",
                },
            ]
        )
    )
    config = out_dir / "config.yml"
    config.write_text(f"""
general:
  telemetry:
    tracing:
      otel:
        _type: otelcollector
        endpoint: {collector}
        project: nat-support
        batch_size: 1
functions:
  lookup_order:
    _type: lookup_order
workflow:
  _type: scripted_support_agent
eval:
  general:
    output_dir: {out_dir / "eval"}
    max_concurrency: 1
    dataset:
      _type: json
      file_path: {dataset}
  evaluators:
    exact_answer:
      _type: exact_answer
""")
    run = EvaluationRun(config=EvaluationRunConfig(config_file=config, dataset=None))
    asyncio.run(run.run_and_evaluate())


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
