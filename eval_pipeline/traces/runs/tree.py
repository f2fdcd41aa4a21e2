"""One trace's spans as a tree: de-duplicated by span id, ordered, with agent attribution.

Spans may arrive out of order, twice, without their parent or in several batches; the tree is
rebuilt from whatever is there, so assembling again after a late span is always correct.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

from eval_pipeline.traces.model import Operation, Span


def _richness(span: Span) -> tuple[bool, int, int]:
    return (
        span.end_time_unix_nano > 0,
        len(span.attributes) + len(span.input_messages) + len(span.output_messages),
        len(span.events),
    )


def deduplicate(spans: Iterable[Span]) -> dict[str, Span]:
    """Span id -> span; of two copies the more complete one wins (ties: the first seen)."""
    by_id: dict[str, Span] = {}
    for span in spans:
        seen = by_id.get(span.span_id)
        if seen is None or _richness(span) > _richness(seen):
            by_id[span.span_id] = span
    return by_id


@dataclass
class TraceTree:
    """The spans of one trace, with parent/child links and the run root."""

    trace_id: str
    spans: dict[str, Span]
    ordered: list[Span] = field(default_factory=list)
    children: dict[str, list[Span]] = field(default_factory=dict)
    tops: list[Span] = field(default_factory=list)
    orphans: list[Span] = field(default_factory=list)
    cyclic: list[Span] = field(default_factory=list)
    """Spans whose parents lead to no top span (a parent cycle, or below one), in order."""
    root: Span | None = None

    @classmethod
    def build(cls, trace_id: str, spans: Iterable[Span]) -> "TraceTree":
        """Build the tree of ``spans`` (all of one trace)."""
        tree = cls(trace_id, deduplicate(spans))
        tree.ordered = sorted(
            tree.spans.values(), key=lambda s: (s.start_time_unix_nano, s.span_id)
        )
        for span in tree.ordered:
            parent = span.parent_span_id
            if parent is None:
                tree.tops.append(span)
            elif parent not in tree.spans:
                tree.tops.append(span)
                tree.orphans.append(span)
            else:
                tree.children.setdefault(parent, []).append(span)
        tree.cyclic = tree._unreachable()
        tree.root = tree._find_root()
        return tree

    def _unreachable(self) -> list[Span]:
        reached: set[str] = set()
        stack = [span.span_id for span in self.tops]
        while stack:
            span_id = stack.pop()
            if span_id not in reached:
                reached.add(span_id)
                stack.extend(child.span_id for child in self.children.get(span_id, ()))
        if len(reached) == len(self.spans):
            return []
        return [span for span in self.ordered if span.span_id not in reached]

    def depth(self, span: Span) -> int:
        """Number of resolvable ancestors."""
        depth = 0
        seen = {span.span_id}
        while span.parent_span_id in self.spans and span.parent_span_id not in seen:
            span = self.spans[span.parent_span_id]
            seen.add(span.span_id)
            depth += 1
        return depth

    def ancestors(self, span: Span) -> list[Span]:
        """Resolvable ancestors, nearest first (cycles are cut)."""
        out: list[Span] = []
        seen = {span.span_id}
        while span.parent_span_id in self.spans and span.parent_span_id not in seen:
            span = self.spans[span.parent_span_id]
            seen.add(span.span_id)
            out.append(span)
        return out

    def _find_root(self) -> Span | None:
        """The least deep ``invoke_agent`` span; without one, a top workflow span.

        OpenInference's CHAIN kind (LangChain's runnables) and Traceloop's workflow normalise
        to ``invoke_workflow``: such a trace's top span is its agent run's root.
        """
        agents = [s for s in self.ordered if s.operation == Operation.INVOKE_AGENT]
        if not agents:
            return next(
                (
                    s
                    for s in self.tops
                    if s.parent_span_id is None and s.operation == Operation.INVOKE_WORKFLOW
                ),
                None,
            )
        return min(agents, key=lambda s: (self.depth(s), s.start_time_unix_nano, s.span_id))

    def agent_of(self, span: Span) -> str | None:
        """The agent a span ran under: its nearest named ``invoke_agent`` (itself included).

        Instrumentations put a default agent name on child spans (OpenAI Agents writes
        "OpenAI Agent" on every chat span), so the enclosing agent invocation is trusted first.
        """
        if span.operation == Operation.INVOKE_AGENT and span.agent_name:
            return span.agent_name
        for ancestor in self.ancestors(span):
            if ancestor.operation == Operation.INVOKE_AGENT and ancestor.agent_name:
                return ancestor.agent_name
        return span.agent_name

    def parent_agent(self, span: Span) -> str | None:
        """The agent of the nearest named ``invoke_agent`` strictly above ``span``."""
        for ancestor in self.ancestors(span):
            if ancestor.operation == Operation.INVOKE_AGENT and ancestor.agent_name:
                return ancestor.agent_name
        return None
