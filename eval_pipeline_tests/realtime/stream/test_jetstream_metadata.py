"""A JetStream delivery's counts are read from its reply subject as nats-py reads them.

Contract: ``_ack_metadata`` gives (times delivered, publish time, messages pending) equal to
nats-py's ``Msg.metadata`` for the reply subjects servers send (the 9-token form it parses
itself, the 12-token form with domain and account hash it leaves to nats-py).
"""

import pytest
from nats.aio.msg import Msg

from eval_pipeline.realtime.stream.jetstream import _ack_metadata

REPLIES = [
    "$JS.ACK.EVALPIPE.realtime-detectors.3.1200.1187.1796276558121000123.42",
    "$JS.ACK.EVALPIPE.realtime-detectors.1.7.7.1796276558000000000.0",
    "$JS.ACK.hub.ACCHASH.EVALPIPE.realtime-detectors.2.1200.1187.1796276558121000123.5.tok",
]


@pytest.mark.parametrize("reply", REPLIES)
def test_counts_match_nats_py(reply: str) -> None:
    message = Msg(None, subject="evalpipe.spans.prod.2026-12-01", reply=reply)  # type: ignore[arg-type]
    expected = Msg(None, subject=message.subject, reply=reply).metadata  # type: ignore[arg-type]
    delivered, published, pending = _ack_metadata(message)
    assert delivered == expected.num_delivered
    assert expected.timestamp is not None
    assert published == pytest.approx(expected.timestamp.timestamp(), abs=1e-6)
    assert pending == expected.num_pending
