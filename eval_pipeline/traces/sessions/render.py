"""Sessions rendered for people and scripts: the ``sessions list`` row and ``sessions show``.

``session_row`` is one list object (session_id, build, item_id, run_index, turns, start_time,
last_activity, duration_s, input_tokens, output_tokens, tool_calls, errors, ended,
end_reason, end_detail); ``session_document`` adds every turn (trace id, user input, answer,
tool calls with arguments, result and error, errors, start, duration, tokens), and
``render_text`` prints it as a transcript.
"""

import json
from typing import Any

from eval_pipeline.traces.runs.render import iso_time
from eval_pipeline.traces.sessions.model import Session, Turn


def session_row(session: Session) -> dict[str, Any]:
    """One ``sessions list`` object."""
    return {
        "session_id": session.session_id,
        "build": session.build,
        "item_id": session.item_id,
        "run_index": session.run_index,
        "turns": len(session.turns),
        "start_time": iso_time(session.start_time_unix_nano),
        "last_activity": iso_time(session.last_activity_unix_nano),
        "duration_s": round(session.duration_s, 6),
        "input_tokens": session.input_tokens,
        "output_tokens": session.output_tokens,
        "tool_calls": len(session.tool_calls),
        "errors": len(session.errors),
        "ended": session.ended,
        "end_reason": session.end_reason,
        "end_detail": session.end_detail,
        "ended_at": iso_time(session.ended_at_unix_nano or 0),
    }


def turn_document(turn: Turn) -> dict[str, Any]:
    """One turn of ``sessions show --format json``."""
    return {
        "turn": turn.index,
        "trace_id": turn.trace_id,
        "user_input": turn.user_input,
        "answer": turn.answer,
        "tool_calls": [
            {
                "name": call.name,
                "arguments": call.arguments,
                "result": call.result,
                "error": call.error,
                "span_id": call.span_id,
            }
            for call in turn.tool_calls
        ],
        "errors": list(turn.errors),
        "start_time": iso_time(turn.start_time_unix_nano),
        "duration_s": round(turn.duration_s, 6),
        "input_tokens": turn.input_tokens,
        "output_tokens": turn.output_tokens,
        "complete": turn.run.complete,
    }


def session_document(session: Session) -> dict[str, Any]:
    """The ``sessions show --format json`` document: the list row and every turn."""
    return {**session_row(session), "turn_list": [turn_document(t) for t in session.turns]}


def _short(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _dash(value: Any) -> str:
    return "-" if value is None else str(value)


def render_text(document: dict[str, Any]) -> str:
    """The ``sessions show --format text`` transcript of a ``session_document``."""
    if document["ended"]:
        detail = f" ({document['end_detail']})" if document["end_detail"] else ""
        state = f"ended: {document['end_reason']}{detail} at {document['ended_at']}"
    else:
        state = "open"
    out = [
        f"session {document['session_id']}  build={document['build']}  "
        f"item={_dash(document['item_id'])} run={_dash(document['run_index'])}  {state}",
        f"start {document['start_time'] or '-'}  duration {document['duration_s']:.3f}s  "
        f"turns {document['turns']}  tokens {document['input_tokens']} in / "
        f"{document['output_tokens']} out  tool calls {document['tool_calls']}  "
        f"errors {document['errors']}",
    ]
    for turn in document["turn_list"]:
        out.append(
            f"turn {turn['turn']} ({turn['trace_id']}, {turn['start_time'] or '-'}, "
            f"{turn['duration_s']:.3f}s, tokens {turn['input_tokens']}/{turn['output_tokens']})"
        )
        out.append(f"  user: {turn['user_input'] if turn['user_input'] is not None else '-'}")
        for call in turn["tool_calls"]:
            line = f"  tool {call['name']}"
            if call["arguments"] is not None:
                line += f" args: {_short(call['arguments'])}"
            if call["result"] is not None:
                line += f" result: {_short(call['result'])}"
            if call["error"]:
                line += f" ERROR {call['error']}"
            out.append(line)
        out.extend(f"  error: {error}" for error in turn["errors"])
        out.append(f"  agent: {turn['answer'] if turn['answer'] is not None else '-'}")
    return "\n".join(out)
