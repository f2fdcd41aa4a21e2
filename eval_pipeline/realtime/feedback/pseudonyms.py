"""User and session ids as the home's keyed tokens: stored pseudonymous, never raw.

An id is replaced as a whole by the token the ingest redactor's ``Tokeniser`` gives it, under
the same key (the home's ``secrets/redaction.key``, or ``EVAL_PIPELINE_REDACTION_KEY``): the
same id always gives the same token, so feedback from one user or session can be grouped, and a
trace's conversation id can be matched (``pseudonym(SESSION, run.conversation_id)``), while the
id cannot be recovered, nor guessed by trying values, without the key.
"""

import os
from functools import lru_cache

from eval_pipeline.traces.redact.keys import home_key_path
from eval_pipeline.traces.redact.pii import Tokeniser
from eval_pipeline.traces.redact.policy import KEY_ENV, RedactionPolicy, load_policy

USER = "USER"
SESSION = "SESSION"


def pseudonym(kind: str, value: str, policy: RedactionPolicy | None = None) -> str:
    """``[KIND:<24 hex>]`` for an id (``USER`` or ``SESSION``), keyed like the ingest's tokens.

    Without ``policy``, the shipped default's key (``KEY_ENV``, read now, or the home's key).
    """
    chosen = policy if policy is not None else _default(os.environ.get(KEY_ENV), home_key_path())
    return _tokeniser(chosen.key).token(kind, value.strip())


@lru_cache(maxsize=4)
def _default(_key: str | None, _home_key: object) -> RedactionPolicy:
    # Cached per key setting and home: a changed key is honoured, the policy read once.
    return load_policy()


@lru_cache(maxsize=4)
def _tokeniser(key: bytes) -> Tokeniser:
    return Tokeniser((), key)
