"""Stage 4: operational telemetry per build and slice, derived from spans.

Durations follow the GenAI duration metrics in spirit: ``gen_ai.invoke_agent.duration`` (root
agent spans), ``gen_ai.execute_tool.duration`` (tool spans) and
``gen_ai.client.operation.duration`` (inference spans). Cost is tokens x the versioned price
table, never a cost the agent reports about itself.
"""

from typing import Any

import numpy as np
import pandas as pd

from eval_pipeline.evaluation.runs_stage import stored_runs
from eval_pipeline.evaluation.slices_stage import markdown_table
from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.suites.prices import PriceTable, known_cost_of_run
from eval_pipeline.traces.model import AgentRun, Operation

PERCENTILES = (50, 90, 95, 99)


def run_rows(
    runs: list[AgentRun], items_slices: dict[str, dict[str, str]], prices: PriceTable
) -> pd.DataFrame:
    """One row per run: duration, tokens, cost, tool calls and tool errors, slice labels."""
    rows = []
    for run in runs:
        slices = items_slices.get(run.eval_context.item_id or "", {})
        rows.append(
            {
                "trace_id": run.trace_id,
                "agent_s": run.duration_s,
                "input_tokens": run.input_tokens,
                "output_tokens": run.output_tokens,
                "cost_usd": known_cost_of_run(run, prices),
                "tool_calls": len(run.tool_calls),
                "tool_errors": sum(1 for call in run.tool_calls if not call.succeeded),
                **slices,
            }
        )
    return pd.DataFrame(rows)


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {f"p{p}": None for p in PERCENTILES}
    array = np.asarray(values, dtype=float)
    return {f"p{p}": float(np.percentile(array, p)) for p in PERCENTILES}


def operation_durations(runs: list[AgentRun]) -> dict[str, dict[str, float | None]]:
    """Duration percentiles (seconds) of agent, tool and inference operations."""
    tool, model = [], []
    for run in runs:
        tool += [span.duration_s for span in run.spans if span.operation == Operation.EXECUTE_TOOL]
        model += [span.duration_s for span in run.spans if span.operation in Operation.INFERENCE]
    return {
        "gen_ai.invoke_agent.duration": _percentiles([run.duration_s for run in runs]),
        "gen_ai.execute_tool.duration": _percentiles(tool),
        "gen_ai.client.operation.duration": _percentiles(model),
    }


def operational_summary(stage: Stage) -> dict[str, Any]:
    """Metadata for ``operational_metrics``: percentiles, tokens, cost, error rates, slices."""
    runs = stored_runs(stage)
    frame = run_rows(
        runs, {e.item.item_id: dict(e.item.slices) for e in stage.items}, PriceTable.load()
    )
    durations = operation_durations(runs)
    meta: dict[str, Any] = {"build": stage.build, "runs": len(runs), "durations_s": durations}
    if frame.empty:
        return meta
    calls = int(frame["tool_calls"].sum())
    meta.update(
        {
            "p95_latency_s": durations["gen_ai.invoke_agent.duration"]["p95"],
            "input_tokens": int(frame["input_tokens"].sum()),
            "output_tokens": int(frame["output_tokens"].sum()),
            "mean_cost_per_task_usd": float(frame["cost_usd"].dropna().mean())
            if frame["cost_usd"].notna().any()
            else None,
            "runs_without_price": int(frame["cost_usd"].isna().sum()),
            "tool_error_rate": float(frame["tool_errors"].sum() / calls) if calls else 0.0,
        }
    )
    for dimension in stage.suite.slices:
        if dimension not in frame.columns:
            continue
        table = (
            frame.groupby(dimension, dropna=False)
            .agg(
                runs=("trace_id", "count"),
                p95_agent_s=("agent_s", lambda s: float(np.percentile(s, 95))),
                mean_cost_usd=("cost_usd", "mean"),
                tool_error_rate=("tool_errors", "sum"),
            )
            .reset_index()
        )
        calls_by = frame.groupby(dimension, dropna=False)["tool_calls"].sum().to_numpy()
        table["tool_error_rate"] = np.where(
            calls_by > 0, table["tool_error_rate"] / np.maximum(calls_by, 1), 0.0
        )
        meta[f"by_{dimension}_md"] = markdown_table(table)
    return meta
