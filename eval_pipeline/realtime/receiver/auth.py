"""Who may send to the receiver, and which builds a sender may write.

Loopback by default. A receiver bound anywhere else needs at least one bearer token
(``--token-file``, or ``EVAL_PIPELINE_RECEIVER_TOKEN``); every request then carries
``Authorization: Bearer <token>``, compared in constant time with every configured token (401
otherwise). A token has a scope: ``production`` (live traffic: stored under the ``production``
build whatever its eval context says) or ``evaluation`` (may write the build named in the eval
context, as runners do). No token may write into a pinned baseline (``write_guard``).

Token file: one token a line, optionally followed by its scope (``production`` when omitted);
blank lines and ``#`` comments are ignored. Every token, from the file or the environment, has
at least ``MIN_TOKEN_CHARS`` characters (a shorter one is a ``TokenError``: exit 2 from ``serve``).
"""

import hmac
import ipaddress
import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from eval_pipeline.bounded_read import read_bounded_text

TOKEN_ENV = "EVAL_PIPELINE_RECEIVER_TOKEN"
"""A production-scope token from the environment (``--token-file`` for more, or other scopes)."""
MIN_TOKEN_CHARS = 16
"""Every token, from the file or the environment: a guessable one is no authentication."""


class Scope(Enum):
    """What a sender may write."""

    PRODUCTION = "production"
    EVALUATION = "evaluation"


@dataclass(frozen=True)
class Grant:
    """What an authenticated request may do."""

    scope: Scope

    @property
    def writes_evaluation_builds(self) -> bool:
        """Whether a build id in the eval context is honoured (never a pinned baseline)."""
        return self.scope is Scope.EVALUATION


class TokenError(ValueError):
    """The token configuration is unusable (names the file and line)."""


def load_tokens(token_file: Path | None, environ: dict[str, str] | None = None) -> dict[str, Scope]:
    """The configured tokens and their scopes, from the file and the environment."""
    environ = dict(os.environ) if environ is None else environ
    tokens: dict[str, Scope] = {}
    if token_file is not None:
        try:
            lines = read_bounded_text(token_file).splitlines()
        except OSError as exc:
            raise TokenError(f"{token_file}: cannot be read: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise TokenError(f"{token_file}: not UTF-8 text ({exc.reason})") from None
        for number, line in enumerate(lines, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            scope = fields[1] if len(fields) > 1 else Scope.PRODUCTION.value
            if len(fields) > 2 or scope not in {s.value for s in Scope}:
                raise TokenError(f"{token_file}:{number}: expected 'TOKEN [production|evaluation]'")
            if len(fields[0]) < MIN_TOKEN_CHARS:
                raise TokenError(
                    f"{token_file}:{number}: a token needs at least {MIN_TOKEN_CHARS} characters"
                )
            tokens[fields[0]] = Scope(scope)
    token = environ.get(TOKEN_ENV, "")
    if token:
        if len(token.strip()) < MIN_TOKEN_CHARS:
            raise TokenError(
                f"${TOKEN_ENV}: a token needs at least {MIN_TOKEN_CHARS} characters "
                f"(it has {len(token.strip())}); use a random one, e.g. `openssl rand -hex 24`"
            )
        tokens.setdefault(token.strip(), Scope.PRODUCTION)
    return tokens


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a bind address) is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Authenticator:
    """Checks a request's ``Authorization`` header against the configured tokens."""

    def __init__(self, tokens: dict[str, Scope], *, host: str) -> None:
        """Refuse an open receiver off loopback: binding elsewhere needs a token."""
        if not tokens and not is_loopback(host):
            raise TokenError(
                f"binding {host} (not loopback) needs a token: --token-file or ${TOKEN_ENV}"
            )
        self._tokens = [(token.encode(), scope) for token, scope in tokens.items()]

    @property
    def open(self) -> bool:
        """No token configured (loopback only): every local sender may write evaluation builds."""
        return not self._tokens

    def grant(self, authorization: str | None) -> Grant | None:
        """The grant of a request's ``Authorization`` value; None when it must be refused."""
        if self.open:
            return Grant(Scope.EVALUATION)
        scheme, _, presented = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not presented:
            return None
        candidate = presented.strip().encode()
        found: Scope | None = None
        for token, scope in self._tokens:  # every token compared: the time says nothing
            if hmac.compare_digest(candidate, token):
                found = scope
        return None if found is None else Grant(found)
