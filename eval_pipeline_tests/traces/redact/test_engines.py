"""Either engine finds exactly the matches of a recognizer's Python pattern.

Contract (``redact.engines``): for every recognizer, ``ExactPattern.spans`` gives the spans of
the Python pattern's ``finditer`` over the whole text, whichever engine finds them (RE2 while
matches are sparse, ``re`` once they are dense, ``re`` alone for text that is not ASCII), with
or without the gate's hot spans: each catalogue ``re2`` form equals its Python pattern on
ASCII text.
"""

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, assume, given, settings

from eval_pipeline.traces.redact import engines
from eval_pipeline.traces.redact.catalogue import CATALOGUE, Recognizer
from eval_pipeline.traces.redact.engines import ExactPattern
from eval_pipeline.traces.redact.gate import Gate
from eval_pipeline_tests.traces.redact.generated_texts import PIECES, TEXTS

_SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)


def _python(recognizer: Recognizer, text: str) -> list[tuple[int, int]]:
    return [found.span() for found in recognizer.pattern.finditer(text)]


@pytest.fixture(
    params=[(engines.DENSE_AFTER, engines.DENSE_CHARS), (1, 10**6), (10**9, 1)],
    ids=["default", "dense-at-once", "never-dense"],
)
def density(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The shipped switch to ``re``, one right after RE2's first match, and none at all."""
    monkeypatch.setattr(engines, "DENSE_AFTER", request.param[0])
    monkeypatch.setattr(engines, "DENSE_CHARS", request.param[1])
    yield


def test_a_recognizer_without_an_re2_form_is_scanned_by_python_alone() -> None:
    text = " ".join(PIECES[:-1]) * 20  # ASCII, long enough for RE2
    data = engines.ascii_bytes(text)
    assert data is not None
    for recognizer in CATALOGUE:
        exact = ExactPattern(recognizer.pattern, None)
        assert exact.spans(text, data, None) == _python(recognizer, text), recognizer.name


@_SETTINGS
@given(TEXTS)
def test_re2_forms_find_what_the_python_patterns_find(density: None, text: str) -> None:
    assume(text.isascii())
    data = text.encode("ascii")
    for recognizer in CATALOGUE:
        exact = ExactPattern(recognizer.pattern, recognizer.re2)
        assert exact.spans(text, data, None) == _python(recognizer, text), recognizer.name


@_SETTINGS
@given(TEXTS)
def test_hot_spans_find_what_the_whole_text_holds(density: None, text: str) -> None:
    assume(text.isascii())
    text = text * 8  # several gate chunks of 64 characters
    hot = Gate(CATALOGUE, chunk=64).hot_spans(text)
    for recognizer in CATALOGUE:
        exact = ExactPattern(recognizer.pattern, recognizer.re2)
        spans = hot.get(recognizer.name)
        found = [] if spans is None else exact.spans(text, text.encode(), spans)
        assert found == _python(recognizer, text), recognizer.name


def test_text_that_is_not_ascii_is_scanned_by_python_alone() -> None:
    text = "é " + " ".join(PIECES) * 20
    assert engines.ascii_bytes(text) is None
    for recognizer in CATALOGUE:
        exact = ExactPattern(recognizer.pattern, recognizer.re2)
        assert exact.spans(text, None, None) == _python(recognizer, text), recognizer.name
