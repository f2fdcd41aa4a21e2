"""The conftest's network audit: non-loopback connects are caught; loopback and AF_UNIX are not."""

import socket

from eval_pipeline_tests import conftest


def _seen_after(address: object, family: int) -> list[str]:
    before = list(conftest._OUTBOUND)
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        conftest._audit("socket.connect", (sock, address))
    new = conftest._OUTBOUND[len(before) :]
    del conftest._OUTBOUND[len(before) :]  # only recorded, never attempted: keep the run clean
    return new


def test_a_non_loopback_connect_is_recorded():
    assert _seen_after(("192.0.2.1", 443), socket.AF_INET) == ["connect ('192.0.2.1', 443)"]


def test_loopback_and_unix_socket_connects_are_not():
    assert _seen_after(("127.0.0.1", 5432), socket.AF_INET) == []
    assert _seen_after("/tmp/pymp-x/listener", socket.AF_UNIX) == []
