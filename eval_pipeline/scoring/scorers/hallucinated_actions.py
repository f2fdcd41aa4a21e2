"""``hallucinated_actions``: does the final answer claim an action no tool call performed?"""

from collections.abc import Mapping, Sequence
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.action_claims import DEFAULT_ACTION_VERBS, find_claims, performs
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class HallucinatedActions(ScorerBase):
    """1 when every action the final answer claims was performed by a successful tool call.

    Range {0, 1}, higher is better (1 = no hallucinated action). Claims ("I have refunded",
    "your booking has been cancelled", "sent successfully") are found with the verb map of
    ``scoring.action_claims`` (replace it with ``verbs=``); each needs a successful
    ``execute_tool`` call whose name matches the verb's tool patterns. An answer that claims
    nothing is ``not_applicable`` (there is nothing to check; version 1 scored it 1, which
    padded the mean with answers that could not hallucinate an action). Evidence lists each
    unsupported claim with its sentence and the tool patterns that were missing. Unscored when
    the run has no final answer. Version 3 finds claims in more tenses, voices and phrasings
    (action nouns with verbs of completion, present-passive states, headlines; measured on
    ``data/action_claims``).

    Reads: run ``final_answer``, ``tool_calls``; nothing from the item.
    """

    metric_id = "hallucinated_actions"
    layer = Layer.FINAL_ANSWER
    not_applicable_when = "the final answer claims no action"
    value_set = (0.0, 1.0)
    metric_version = 3
    run_fields = frozenset({"final_answer", "tool_calls"})

    def __init__(self, verbs: Mapping[str, Mapping[str, Sequence[str]]] | None = None) -> None:
        self._verbs = {
            k: {
                "words": list(v["words"]),
                "tools": list(v["tools"]),
                **({"nouns": list(v["nouns"])} if v.get("nouns") else {}),
            }
            for k, v in (verbs or DEFAULT_ACTION_VERBS).items()
        }
        self._custom = verbs is not None
        # The default map itself when not replaced (the same claims): the claim finder's memo
        # is keyed by the map, so the detectors reading the same answer share its entry.
        self._claim_verbs = self._verbs if self._custom else DEFAULT_ACTION_VERBS

    @property
    def arguments(self) -> dict[str, Any]:
        """Construction arguments (the verb map, when not the default)."""
        return {"verbs": self._verbs} if self._custom else {}

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run (see the class docstring)."""
        if not run.final_answer or not run.final_answer.strip():
            return self.unscored("run has no final answer")
        claims = find_claims(run.final_answer, self._claim_verbs)
        if not claims:
            return self.not_applicable("no action claimed in the final answer")
        succeeded = [c for c in run.tool_calls if c.succeeded]
        supported: list[dict[str, Any]] = []
        unsupported: list[dict[str, Any]] = []
        for claim in claims:
            backing = next((c for c in succeeded if performs(c.name, claim.tool_patterns)), None)
            entry = {"verb": claim.verb, "word": claim.word, "claim": claim.sentence}
            if backing is None:
                unsupported.append({**entry, "missing_tool": list(claim.tool_patterns)})
            else:
                supported.append({**entry, "tool": backing.name, "span_id": backing.span_id})
        answer_span = [run.final_answer_span_id] if run.final_answer_span_id else []
        evidence = {"unsupported": unsupported, "supported": supported}
        if unsupported:
            first = unsupported[0]
            return self.scored(
                0.0,
                span_ids=answer_span,
                evidence=evidence,
                reason=f"claims '{first['word']}' but no successful call matches "
                f"{first['missing_tool']}: {first['claim'][:160]}",
            )
        return self.scored(
            1.0,
            reason=f"{len(supported)} claimed action(s), all performed",
            span_ids=answer_span + [s["span_id"] for s in supported],
            evidence=evidence,
        )
