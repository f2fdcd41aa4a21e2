"""A ``http.server`` handler served on 127.0.0.1 at an ephemeral port, for test peers."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[ThreadingHTTPServer]:
    """Serve ``handler`` in a background thread for the block; yields the bound server."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        # ``shutdown`` waits, without a timeout, for the serving loop to say it stopped; once
        # in a full-suite run that wait never ended. Bound it, so a stuck loop cannot hang CI.
        stopper = threading.Thread(target=httpd.shutdown, daemon=True)
        stopper.start()
        stopper.join(timeout=10)
        httpd.server_close()
