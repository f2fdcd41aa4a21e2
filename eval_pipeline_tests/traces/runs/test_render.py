"""``traces show`` and ``traces list`` say what happened in a run, as stored.

Contract (``traces/runs/render.py``): the ``traces show`` document and its text carry the run's
start time, each span's start offset and duration, the input and output messages of model
calls, tool arguments and results, token counts, and every error span's status message (a
failing tool's "unknown city: atlantis"), nothing of it dropped; the ``traces list`` row adds
start time, duration, tokens and the first error to the contract fields.
"""

from eval_pipeline.traces.model import Message, Operation, StatusCode
from eval_pipeline.traces.runs.assemble import assemble_run
from eval_pipeline.traces.runs.render import render_text, run_row, run_tree
from eval_pipeline_tests.traces.builders import assistant, make_span, tool_call

T0 = 1_765_000_000_000_000_000  # 2025-12-06T05:46:40Z
MS = 1_000_000
TRACE = "cd" * 16


def _run():  # type: ignore[no-untyped-def]
    question = Message(role="user", parts=({"type": "text", "content": "Weather in Atlantis?"},))
    spans = [
        make_span(
            "1",
            trace_id=TRACE,
            operation=Operation.INVOKE_AGENT,
            start=T0,
            end=T0 + 50 * MS,
            name="invoke_agent weather",
            agent_name="weather",
        ),
        make_span(
            "2",
            "1",
            trace_id=TRACE,
            operation=Operation.CHAT,
            start=T0 + 1 * MS,
            end=T0 + 11 * MS,
            name="chat m",
            model="m",
            input_tokens=46,
            output_tokens=12,
            input_messages=(question,),
            output_messages=(assistant(tool_call("c1", "get_weather", {"city": "Atlantis"})),),
        ),
        make_span(
            "3",
            "1",
            trace_id=TRACE,
            operation=Operation.EXECUTE_TOOL,
            start=T0 + 12 * MS,
            end=T0 + 15 * MS,
            name="execute_tool get_weather",
            tool_name="get_weather",
            tool_call_id="c1",
            tool_arguments={"city": "Atlantis"},
            status_code=StatusCode.ERROR,
            status_message="unknown city: atlantis",
        ),
        make_span(
            "4",
            "1",
            trace_id=TRACE,
            operation=Operation.EXECUTE_TOOL,
            start=T0 + 16 * MS,
            end=T0 + 18 * MS,
            name="execute_tool get_time",
            tool_name="get_time",
            tool_call_id="c2",
            tool_arguments={},
            tool_result={"utc": "05:46"},
        ),
        make_span(
            "5",
            "1",
            trace_id=TRACE,
            operation=Operation.CHAT,
            start=T0 + 20 * MS,
            end=T0 + 40 * MS,
            name="chat m",
            model="m",
            input_tokens=60,
            output_tokens=9,
            output_messages=(assistant({"type": "text", "content": "Sorry, no weather."}),),
        ),
    ]
    return assemble_run(TRACE, spans)


def test_the_show_document_keeps_inputs_results_errors_timings_and_tokens() -> None:
    document = run_tree(_run(), "b1")
    assert document["start_time"] == "2025-12-06T05:46:40.000Z"
    assert document["errors"] == [
        {
            "span_id": "0000000000000003",
            "name": "execute_tool get_weather",
            "message": "unknown city: atlantis",
        }
    ]
    root = document["spans"][0]
    chat, failed, timed = root["children"][:3]
    assert chat["input_messages"] == [
        {"role": "user", "parts": [{"type": "text", "content": "Weather in Atlantis?"}]}
    ]
    assert chat["output_messages"][0]["parts"][0]["name"] == "get_weather"
    assert (chat["start_offset_s"], chat["duration_s"]) == (0.001, 0.01)
    assert failed["status_message"] == "unknown city: atlantis"
    assert timed["tool_result"] == {"utc": "05:46"}


def test_the_show_text_prints_what_the_document_holds() -> None:
    text = render_text(run_tree(_run(), "b1"))
    for expected in (
        "start 2025-12-06T05:46:40.000Z",
        "tokens 106 in / 21 out",
        "input: user: Weather in Atlantis?",
        'args: {"city": "Atlantis"}',
        "ERROR unknown city: atlantis",
        'result: {"utc": "05:46"}',
        "output: assistant: Sorry, no weather.",
        "tool_call get_weather",
        "+0.012s 0.003s",
        "errors: execute_tool get_weather: unknown city: atlantis",
    ):
        assert expected in text, (expected, text)


def test_the_list_row_adds_start_duration_tokens_and_error() -> None:
    row = run_row(_run(), "b1")
    assert row["start_time"] == "2025-12-06T05:46:40.000Z"
    assert (row["duration_s"], row["input_tokens"], row["output_tokens"]) == (0.05, 106, 21)
    assert row["error"] == "execute_tool get_weather: unknown city: atlantis"
    assert row["tool_calls"] == ["get_weather", "get_time"]
