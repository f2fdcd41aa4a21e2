"""A small agent trace as stored rows: a root, a tool call that may fail, a final answer."""

from eval_pipeline.traces.model import Message, Operation, StatusCode
from eval_pipeline.traces.store.span_table import Row, span_row
from eval_pipeline_tests.traces.builders import make_span


def agent_trace_rows(
    trace_id: str,
    *,
    tool_error: bool = False,
    answer: str = "Your order ships tomorrow.",
    tools: tuple[str, ...] = ("lookup_order",),
    start: int = 1_790_000_000_000_000_000,  # 2026-09-21, in the price table's range
    root_ends: bool = True,
) -> list[Row]:
    """Rows of one run: ``invoke_agent`` root, one ``execute_tool`` per tool, one ``chat``."""
    spans = [
        make_span(
            "1",
            trace_id=trace_id,
            operation=Operation.INVOKE_AGENT,
            name="invoke_agent support",
            agent_name="support",
            start=start,
            end=start + 3_000_000 if root_ends else 0,
        )
    ]
    for index, tool in enumerate(tools):
        failed = tool_error and index == len(tools) - 1
        spans.append(
            make_span(
                f"{index + 2:x}",
                "1",
                trace_id=trace_id,
                operation=Operation.EXECUTE_TOOL,
                name=f"execute_tool {tool}",
                tool_name=tool,
                tool_arguments={"order_id": index},
                tool_result=None if failed else {"ok": True},
                status_code=StatusCode.ERROR if failed else StatusCode.OK,
                status_message="upstream timeout" if failed else None,
                start=start + 100_000 * (index + 1),
            )
        )
    spans.append(
        make_span(
            "f0",
            "1",
            trace_id=trace_id,
            operation=Operation.CHAT,
            name="chat m",
            model="gpt-4o-mini",
            input_tokens=100,
            output_tokens=20,
            output_messages=(
                Message(role="assistant", parts=({"type": "text", "content": answer},)),
            ),
            start=start + 2_000_000,
        )
    )
    return [span_row(span) for span in spans]
