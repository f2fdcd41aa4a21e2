"""The completeness stage of ingest: which traces of a batch are incomplete, and why.

Each trace the batch touches is judged on the spans of that trace in the batch (one file, one
request, one run) by the rules of ``runs.completeness``, with the reasons ``assemble_run``
would give. Spans of the trace stored by earlier batches are not read back: that would cost a
store read per trace on the hot path. A trace split over several OTLP requests is therefore
judged per part; the stored trace, assembled, has the final word.

Nearly every trace has a plain shape: span ids unique, one top span, every parent present.
For those the rules reduce to: is there an ``invoke_agent`` span at all, are the requested
tool calls matched by tool spans (``runs.views.match_request``), and do inference spans report
token usage, which ``_plain_reasons`` checks on the store rows without building spans or the
trace tree. Any other trace, and one whose unmatched request a hand-off (explicit, or to a
nested agent) might answer, is assembled from its rows. The two ways are held equal by
``eval_pipeline_tests/traces/ingest/test_completeness.py``.
"""

from collections.abc import Sequence
from itertools import groupby
from operator import itemgetter
from typing import Any

from eval_pipeline.traces.model import Message, Operation, StatusCode
from eval_pipeline.traces.runs.assemble import assemble_run
from eval_pipeline.traces.runs.completeness import (
    NO_ROOT,
    no_usage,
    unended,
    unexecuted,
    unrequested,
)
from eval_pipeline.traces.runs.views import Request, match_request, request
from eval_pipeline.traces.store.span_table import (
    ATTRIBUTES,
    PARENT_SPAN_ID,
    ROW_FIELDS,
    SPAN_ID,
    TRACE_ID,
    Row,
    row_span,
)

(
    _NAME,
    _START,
    _END,
    _STATUS,
    _OPERATION,
    _AGENT,
    _TOOL_NAME,
    _TOOL_CALL_ID,
    _TOOL_ARGUMENTS,
    _INPUT_TOKENS,
    _OUTPUT_TOKENS,
    _OUTPUTS,
) = map(
    ROW_FIELDS.index,
    (
        "name",
        "start_time_unix_nano",
        "end_time_unix_nano",
        "status_code",
        "operation",
        "agent_name",
        "tool_name",
        "tool_call_id",
        "tool_arguments",
        "input_tokens",
        "output_tokens",
        "output_messages",
    ),
)
_ORDER = itemgetter(_START, SPAN_ID)
_TRACE = itemgetter(TRACE_ID)
_SPAN = itemgetter(SPAN_ID)
_PARENT = itemgetter(PARENT_SPAN_ID)  # ``TraceTree.ordered``'s order
_INVOKE_AGENT = Operation.INVOKE_AGENT
_INFERENCE = Operation.INFERENCE
_EXECUTE_TOOL = Operation.EXECUTE_TOOL
_HANDOFF = Operation.HANDOFF
_WORKFLOW = Operation.INVOKE_WORKFLOW
_ERROR = StatusCode.ERROR


def incomplete_traces(rows: Sequence[Row]) -> dict[str, tuple[str, ...]]:
    """Trace id -> why it is incomplete, for each incomplete trace among ``rows``."""
    incomplete: dict[str, tuple[str, ...]] = {}
    for trace_id, members in _grouped(rows).items():
        reasons = _plain_reasons(members)
        if reasons is None:
            reasons = assemble_run(trace_id, map(row_span, members)).completeness_reasons
        if reasons:
            incomplete[trace_id] = reasons
    return incomplete


def _grouped(rows: Sequence[Row]) -> dict[str, list[Row]]:
    """The rows of each trace, traces in first-seen order."""
    by_trace: dict[str, list[Row]] = {}
    # A trace's spans nearly always arrive together: one step per run of them, not per row.
    for trace_id, run in groupby(rows, _TRACE):
        members = by_trace.get(trace_id)
        if members is None:
            by_trace[trace_id] = list(run)
        else:
            members.extend(run)
    return by_trace


def _plain_reasons(members: list[Row]) -> tuple[str, ...] | None:
    """``completeness_reasons`` of a trace of plain shape; None for any other shape."""
    ids = set(map(_SPAN, members))
    if len(ids) != len(members):
        return None
    parents = set(map(_PARENT, members))
    parents.discard(None)
    if not parents.issubset(ids):
        return None
    tops = agents = named_agents = 0
    handoff = workflow_top = False
    top = None
    inference: list[Row] = []
    tools: list[Row] = []
    unused: list[Row] = []  # successful inference spans without token usage
    open_spans: list[Row] = []  # spans that never ended
    for row in members:
        if row[PARENT_SPAN_ID] is None:
            tops += 1
            top = row[SPAN_ID]
            workflow_top = row[_OPERATION] == _WORKFLOW
        if not row[_END]:
            open_spans.append(row)
        operation = row[_OPERATION]
        if operation in _INFERENCE:
            if row[_OUTPUTS]:
                inference.append(row)
            if (
                (row[_INPUT_TOKENS] is None or row[_OUTPUT_TOKENS] is None)
                and row[_STATUS] != _ERROR
                and "error.type" not in row[ATTRIBUTES]
            ):
                unused.append(row)
        elif operation == _EXECUTE_TOOL:
            tools.append(row)
        elif operation == _INVOKE_AGENT:
            agents += 1
            if row[_AGENT]:
                named_agents += 1
        elif operation == _HANDOFF:
            handoff = True
    # A parent cycle can hide spans only below a parent other than the one top span.
    if tops != 1 or (parents and (len(parents) > 1 or top not in parents) and _has_cycle(members)):
        return None
    # With one top span, every parent present and no cycle, the rules about roots and orphans
    # can only find a missing agent root; the run's root is the least deep ``invoke_agent``
    # span, or with none the top span when it is a workflow (``TraceTree._find_root``).
    reasons = [] if agents or workflow_top else [NO_ROOT]
    if inference:
        if len(inference) > 1:
            inference.sort(key=_ORDER)
        requests = _requests(inference)
        if requests:
            if len(tools) > 1:
                tools.sort(key=_ORDER)
            stray: list[Row] = []  # tool executions no request asked for
            for row in tools:
                matched = match_request(
                    row[_TOOL_CALL_ID], row[_TOOL_NAME], row[_START], row[_TOOL_ARGUMENTS], requests
                )
                if matched is not None:
                    matched.matched_by = row[SPAN_ID]
                else:
                    stray.append(row)
            unmatched = [r for r in requests if r.matched_by is None]
            if unmatched and (handoff or (agents > 1 and named_agents)):
                return None  # a hand-off may answer what no tool span did
            reasons.extend(map(unexecuted, unmatched))
            reasons.extend(
                unrequested(row[SPAN_ID], row[_TOOL_NAME] or row[_NAME]) for row in stray
            )
    if unused:
        unused.sort(key=_ORDER)
        reasons.extend(no_usage(row[SPAN_ID], row[_NAME]) for row in unused)
    if open_spans:
        open_spans.sort(key=_ORDER)
        reasons.extend(unended(row[SPAN_ID], row[_NAME]) for row in open_spans)
    return tuple(reasons)


def _has_cycle(members: list[Row]) -> bool:
    """True when some span's parents lead to no top span (``TraceTree.cyclic``)."""
    children: dict[str, list[str]] = {}
    top = ""
    for row in members:
        parent = row[PARENT_SPAN_ID]
        if parent is None:
            top = row[SPAN_ID]
        else:
            children.setdefault(parent, []).append(row[SPAN_ID])
    reached = 0
    stack = [top]
    while stack:
        span_id = stack.pop()
        reached += 1
        stack.extend(children.get(span_id, ()))
    return reached != len(members)


def _requests(inference: list[Row]) -> list[Request]:
    """``views.request`` of every ``tool_call`` part of the rows' outputs, in order."""
    requests = []
    for row in inference:
        span_id = row[SPAN_ID]
        start = row[_START]
        for part in _tool_call_parts(row[_OUTPUTS]):
            call_id = part.get("id")
            name = part.get("name")
            if type(call_id) is str and call_id and type(name) is str:
                # What ``request`` makes of the usual part, without its call.
                requests.append(Request(call_id, name, part.get("arguments"), span_id, start))
            else:
                requests.append(request(part, span_id, start))
    return requests


def _tool_call_parts(outputs: tuple[Message, ...]) -> list[dict[str, Any]]:
    """The ``tool_call`` parts of a row's output messages, in order.

    ``Message.tool_calls`` of each message, without a tuple built per message.
    """
    return [
        part for message in outputs for part in message.parts if part.get("type") == "tool_call"
    ]
