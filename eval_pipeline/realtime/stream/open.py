"""The one place a span stream is chosen: embedded by default, NATS JetStream by URL."""

import re
from pathlib import Path
from urllib.parse import urlsplit

from eval_pipeline.home import Home
from eval_pipeline.realtime.stream.events import DEFAULT_PREFIX
from eval_pipeline.realtime.stream.protocol import SpanStream
from eval_pipeline.realtime.stream.retention import Retention

_PREFIX = re.compile(r"[A-Za-z0-9_-]{1,100}")


def open_stream(
    home: Path | Home,
    url: str | None = None,
    *,
    prefix: str = DEFAULT_PREFIX,
    retention: Retention | None = None,
) -> SpanStream:
    """The span stream of ``home``.

    Args:
        home: The embedded home (a ``Home`` or its root folder); the embedded log lives in its
            SQL state database (``Home.state_url``).
        url: None for the embedded log; ``nats://host:port`` for NATS JetStream, or
            ``nats://host:port/PREFIX`` to name the subject prefix and stream there (one
            server shared by several homes, or a benchmark's stream of its own).
        prefix: Subject prefix and stream name (tests use a unique one each).
        retention: What the stream keeps (``Retention()``'s defaults when None).

    Raises:
        ValueError: ``url`` is neither None nor a ``nats://`` URL, or names a prefix that is
            not one subject token.
        StreamUnavailable: the NATS server cannot be reached.
    """
    if url is None:
        from eval_pipeline.realtime.stream.embedded import EmbeddedStream

        state = home if isinstance(home, Home) else Home(Path(home))
        return EmbeddedStream(state.state_url, prefix, retention)
    if url.startswith(("nats://", "tls://")):
        from eval_pipeline.realtime.stream.jetstream import JetStreamStream

        parts = urlsplit(url)
        named = parts.path.strip("/")
        if named:
            if not _PREFIX.fullmatch(named):
                raise ValueError(
                    f"stream prefix {named!r} in {url!r}: use letters, digits, _ and - only"
                )
            prefix = named
            url = parts._replace(path="").geturl()
        return JetStreamStream(url, prefix, retention=retention)
    raise ValueError(f"stream URL must be nats://host:port (or none for embedded), got {url!r}")
