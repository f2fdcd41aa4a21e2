"""``session.knowledge_retention``: does the agent ask again for what the user already gave?

Rule (deterministic, documented): the user gives a piece of information when a user turn holds
a value of one of these kinds (``KINDS``):

- ``email``: an e-mail address, or the redactor's ``[EMAIL:...]`` token in stored traces;
- ``order_id``: ``#`` followed by an optional letter and 4+ digits (``#W2378156``), or an id
  of 3+ digits after "order" / "order id|number|no";
- ``user_id``: a ``name_name_1234`` user id (tau-bench), or an id after "user id" / "username"
  / "customer id" / "account id|number";
- ``reservation_id``: a 6-character code after "reservation" / "booking" / "confirmation"
  (optionally "id|number|code");
- ``phone``: a phone number (8+ digits with separators, not part of a word or ``#`` id), or
  a ``[PHONE:...]`` token.

Kinds are looked for in that order, and a value found is not read again as a later kind.

The agent asks for it again when, in that turn's answer or a later one, a sentence that is a
request (it ends with ``?``, or says "please provide|share|give|send|tell|enter", "could /
can / would you", "may I have", "I need your", "what is / what's your") names the kind ("e-mail";
"phone" / "mobile" / "telephone"; "order id|number|no"; "user id" / "username" / "customer id"
/ "account id|number"; "reservation" / "booking" / "confirmation" code) and does not quote the
value itself (a quoted value is a confirmation: "Is your order #W2378156?").
"""

import re
from typing import NamedTuple

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.sessions.base import SessionScorerBase
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.sessions.model import Session

_I = re.IGNORECASE


class Kind(NamedTuple):
    """A kind of information: how a user's value looks, and how an agent asks for one."""

    name: str
    value: re.Pattern[str]
    asked: re.Pattern[str]


KINDS = (
    Kind(
        "email",
        re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\[EMAIL:[0-9a-f]+\]", _I),
        re.compile(r"\be-?mail\b", _I),
    ),
    Kind(
        "order_id",
        re.compile(
            r"#[A-Z]?\d{4,}\b|\border\s*(?:id|number|no\.?)?\s*[:#]?\s*([A-Z]{0,3}-?\d{3,}\w*)",
            _I,
        ),
        re.compile(r"\border\s*(?:id|number|no\b|#)", _I),
    ),
    Kind(
        "user_id",
        re.compile(
            r"\b[a-z]+_[a-z]+_\d{3,}\b|\b(?:user\s*id|username|customer\s*id|"
            r"account\s*(?:id|number))\s*(?:is)?\s*[:#]?\s*([\w-]*\d[\w-]*)",
            _I,
        ),
        re.compile(r"\b(?:user\s*id|username|customer\s*id|account\s*(?:id|number))\b", _I),
    ),
    Kind(
        "reservation_id",
        re.compile(
            r"\b(?:reservation|booking|confirmation)\s*(?:id|number|code)?\s*(?:is)?\s*[:#]?\s*"
            r"([A-Z0-9]{6})\b",
            _I,
        ),
        re.compile(r"\b(?:reservation|booking|confirmation)\s*(?:id|number|code)?\b", _I),
    ),
    Kind(
        "phone",
        re.compile(r"(?<![\w#])\+?\d(?:[\s().-]{0,2}\d){7,}(?!\w)|\[PHONE:[0-9a-f]+\]", _I),
        re.compile(r"\b(?:phone|mobile|telephone|cell)\b", _I),
    ),
)
_REQUEST = re.compile(
    r"\?\s*$|\bplease\s+(?:provide|share|give|send|tell|enter)\b|\b(?:could|can|would)\s+you\b"
    r"|\bmay\s+i\s+(?:have|get)\b|\bi\s+(?:will\s+)?need\s+your\b|\bwhat(?:\s+is|'s)\s+your\b",
    _I,
)
_SENTENCE = re.compile(r"(?<=[.?!])\s+|\n+")


def given(text: str) -> dict[str, str]:
    """The kinds of information a user text gives, each with its first value."""
    found = {}
    for kind in KINDS:  # in order; a value found is blanked out for the kinds after it
        match = kind.value.search(text)
        if match:
            found[kind.name] = next((g for g in match.groups() if g), match.group())
            text = kind.value.sub(lambda m: " " * len(m.group()), text)
    return found


def asks_for(text: str, kind: str, value: str) -> str | None:
    """The sentence of an agent text that asks again for ``kind`` (not quoting ``value``)."""
    pattern = next(k.asked for k in KINDS if k.name == kind)
    for sentence in _SENTENCE.split(text):
        if (
            _REQUEST.search(sentence)
            and pattern.search(sentence)
            and value.lower() not in sentence.lower()
        ):
            return sentence.strip()
    return None


class KnowledgeRetention(SessionScorerBase):
    """Share of the information the user gave that the agent did not ask for again (1 = none).

    Range [0, 1], higher is better: each kind of information the user gave (e-mail, phone,
    order id, user id, reservation code; see the module for the rule) counts once, from the
    turn it was first given; it is lost when the agent's answer in that turn or a later one
    asks for it again without quoting it. Not applicable when the user gives none of these.
    """

    metric_id = "session.knowledge_retention"
    not_applicable_when = "the user gives no recognisable information (e-mail, ids, phone)"
    run_fields = frozenset({"turns.user_input", "turns.answer"})

    def session_verdict(self, session: Session, item: DatasetItem | None) -> Verdict:
        """Judge one session (see the class docstring)."""
        facts: dict[str, tuple[int, str]] = {}
        for turn in session.turns:
            for kind, value in given(turn.user_input or "").items():
                facts.setdefault(kind, (turn.index, value))
        if not facts:
            return self.not_applicable("the user gives no recognisable information")
        lost = []
        for kind, (first, value) in facts.items():
            for turn in session.turns:
                question = asks_for(turn.answer or "", kind, value) if turn.index >= first else None
                if question is not None:
                    lost.append(
                        {
                            "kind": kind,
                            "given_turn": first,
                            "asked_turn": turn.index,
                            "question": question,
                            "trace_id": turn.trace_id,
                        }
                    )
                    break
        evidence = {"given": {k: v[0] for k, v in facts.items()}, "asked_again": lost}
        if not lost:
            return self.scored(
                1.0,
                evidence=evidence,
                reason=f"no information given ({', '.join(sorted(facts))}) asked for again",
            )
        first_lost = lost[0]
        return self.scored(
            1.0 - len(lost) / len(facts),
            evidence=evidence,
            reason=f"the agent asked again for the {first_lost['kind']} given in turn "
            f"{first_lost['given_turn']} (turn {first_lost['asked_turn']}: "
            f"{first_lost['question']!r})",
        )
