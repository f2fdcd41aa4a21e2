"""Dropping slow clients: a header deadline for uvicorn's HTTP/1.1 protocol.

uvicorn closes idle keep-alive connections, but a connection that sends its request headers a
byte at a time is held as long as the client likes (300 such connections held for over a
minute). ``header_deadline_protocol`` closes a connection whose request headers are not
complete within the deadline; the body's deadline is the app's (``http_body``).
"""

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol


class _HeaderDeadlineProtocol(H11Protocol):
    header_timeout_s: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = self.loop.call_later(
            self.header_timeout_s, self._drop
        )

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle and self._header_timer is not None:
            self._header_timer.cancel()  # the headers are complete
            self._header_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._header_timer is None and not self.transport.is_closing():
            # The next request on this connection gets the same deadline for its headers.
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._drop)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)

    def _drop(self) -> None:
        self._header_timer = None
        waiting = self.cycle is None or self.cycle.response_complete
        if waiting and not self.transport.is_closing():
            self.transport.close()


def header_deadline_protocol(header_timeout_s: float) -> type[H11Protocol]:
    """An h11 protocol class (uvicorn's ``http=``) closing connections slow to send headers."""
    return type(
        "HeaderDeadlineProtocol", (_HeaderDeadlineProtocol,), {"header_timeout_s": header_timeout_s}
    )
