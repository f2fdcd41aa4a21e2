"""tau-bench (v1) historical trajectories -> runs and imported ``task_success`` scores.

A trajectories file is a JSON list of ``{task_id, reward, info, traj, trial?}``; ``traj`` holds
OpenAI chat messages (system, user, assistant with ``tool_calls``, tool with
``tool_call_id``). The files record no timestamps and no token usage: spans are ordered by
message position, and chat spans carry no usage (so completeness flags them, truthfully).
Eval context: build (given, else ``taubench:<file stem>``), dataset ``tau-bench/<domain>``
(domain from the file name or the system prompt), item = task id, run index = trial.
"""

from pathlib import Path
from typing import Any

from eval_pipeline.importers.conversation import Turn, conversation_spans, reward_score
from eval_pipeline.importers.report import Recorded
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.decode.errors import FieldError
from eval_pipeline.traces.model import EvalContext, Span
from eval_pipeline.traces.semconv import DIALECT_TAUBENCH

SCORER_ID = "imported:taubench"
METRIC_ID = "task_success"


def is_taubench(document: Any) -> bool:
    """True for a parsed tau-bench trajectories list."""
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(e, dict) and "traj" in e and "task_id" in e for e in document)
    )


def _domain(source: str, entries: list[dict[str, Any]]) -> str:
    stem = Path(source).stem.lower()
    for domain in ("airline", "retail"):
        if domain in stem:
            return domain
    for entry in entries:
        for msg in entry.get("traj") or []:
            if isinstance(msg, dict) and msg.get("role") == "system":
                head = str(msg.get("content", ""))[:80].lower()
                for domain in ("airline", "retail"):
                    if domain in head:
                        return domain
    return "unknown"


def _entries(document: Any) -> list[dict[str, Any]]:
    if not is_taubench(document):
        raise FieldError("$", "not a tau-bench trajectories file (a list of {task_id, traj})")
    for index, entry in enumerate(document):
        if not isinstance(entry["traj"], list):
            raise FieldError(f"[{index}].traj", "must be a list of messages")
    return list(document)


def read_taubench(document: Any, *, source: str, build: str | None = None) -> Recorded:
    """Spans of every trajectory in a tau-bench trajectories document, and their rewards.

    Each trajectory's recorded reward becomes a ``task_success`` score row pointing at the
    trajectory's root span.
    """
    entries = _entries(document)
    build_id = build or f"taubench:{Path(source).stem}"
    dataset = f"tau-bench/{_domain(source, entries)}"
    spans: list[Span] = []
    scores: list[Score] = []
    for index, entry in enumerate(entries):
        trial = int(entry.get("trial") or 0)
        turns = []
        for position, raw in enumerate(entry["traj"]):
            if not isinstance(raw, dict) or "role" not in raw:
                raise FieldError(f"[{index}].traj[{position}]", "must be an object with a role")
            turns.append(
                Turn(
                    raw=raw,
                    time_ns=(position + 1) * 1_000_000,
                    model_call=raw.get("role") == "assistant",
                )
            )
        run = conversation_spans(
            key=f"taubench:{Path(source).name}:{entry['task_id']}:{trial}:{index}:{build_id}",
            agent_name="tau_bench_agent",
            model=None,
            turns=turns,
            context=EvalContext(
                build_id=build_id,
                dataset=dataset,
                item_id=str(entry["task_id"]),
                run_index=trial,
            ),
            dialect=DIALECT_TAUBENCH,
            root_attributes={
                "taubench.entry.index": index,
                "taubench.reward": entry.get("reward"),
            },
        )
        spans.extend(run)
        scores.append(
            reward_score(
                entry.get("reward"),
                benchmark="tau-bench",
                metric_id=METRIC_ID,
                scorer_id=SCORER_ID,
                root=run[0],
                build=build_id,
                item_id=str(entry["task_id"]),
                run_index=trial,
                evidence={"source": source, "entry": index},
            )
        )
    return Recorded(spans, scores)


def import_taubench(document: Any, *, source: str, build: str | None = None) -> list[Span]:
    """Spans of every trajectory in a tau-bench trajectories document (``read_taubench``)."""
    return read_taubench(document, source=source, build=build).spans


def imported_scores(document: Any, *, source: str, build: str | None = None) -> list[Score]:
    """The recorded reward of each trajectory as a ``task_success`` score (``read_taubench``)."""
    return read_taubench(document, source=source, build=build).scores
