"""Plain text as the trace store holds it: personal data replaced by the redactor's tokens.

Stored traces hold keyed tokens where the data had personal values (``pii.Tokeniser``);
datasets and other references hold the plain values. ``tokenised`` puts a plain text in the
stored form, so the two can be compared (argument checks do); ``holds_token`` tells whether a
stored text was redacted at all; ``opaque`` reads tokens as bare keys, for word-level readers.
"""

import os
from functools import lru_cache

from eval_pipeline.traces.redact.keys import home_key_path
from eval_pipeline.traces.redact.pii import holds_token, opaque
from eval_pipeline.traces.redact.policy import KEY_ENV, RedactionPolicy, load_policy
from eval_pipeline.traces.redact.redactor import Redactor


def tokenised(text: str, policy: RedactionPolicy | None = None) -> str:
    """``text`` with its personal data replaced by tokens, exactly as ``Redactor`` stores it.

    For comparing stored (redacted) values with plain ones, e.g. a dataset's expected tool
    arguments: the tokens are keyed, so equal values give equal tokens under one key. Without
    ``policy``, the shipped default's detectors and key (``KEY_ENV``, read now) are used.
    """
    chosen = (
        policy
        if policy is not None
        else _default_policy(os.environ.get(KEY_ENV), str(home_key_path()))
    )
    return _redactor(chosen).scrub_text(text)


@lru_cache(maxsize=4)
def _default_policy(_key: str | None, _home_key: str) -> RedactionPolicy:
    # Cached per key setting and home: a changed key is honoured, the file read once.
    return load_policy()


@lru_cache(maxsize=8)
def _redactor(policy: RedactionPolicy) -> Redactor:
    return Redactor(policy)


__all__ = ["holds_token", "opaque", "tokenised"]
