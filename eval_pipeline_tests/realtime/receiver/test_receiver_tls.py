"""TLS as documented: ``--ssl-certfile``/``--ssl-keyfile`` serve HTTPS and gRPC over TLS.

Contract: a receiver given a certificate and key answers OTLP/HTTP over HTTPS and OTLP/gRPC
over TLS (clients verifying the certificate), and stores the spans of both.
"""

import shutil
import subprocess
from pathlib import Path

import grpc
import httpx
import pytest

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.auth import Authenticator
from eval_pipeline.realtime.receiver.grpc_receiver import TRACE_SERVICE
from eval_pipeline.realtime.receiver.server import Endpoints, Receiver
from eval_pipeline.realtime.receiver.write_path import WritePath
from eval_pipeline.realtime.receiver.writer import Writer
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.receiver.receivers import traces_request


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_https_and_grpc_over_tls_store_spans(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    command = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext"
    names = "subjectAltName=DNS:localhost,IP:127.0.0.1"
    subprocess.run(
        [*command.split(), names, "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    home = current_home().ensure()
    writer = Writer(TraceStore(home.store), registry=BuildRegistry(home.state_url))
    receiver = Receiver(
        WritePath(writer),
        Authenticator({}, host="127.0.0.1"),
        Endpoints(http_port=0, grpc_port=0, ssl_certfile=cert, ssl_keyfile=key),
    )
    with receiver.running():
        reply = httpx.post(
            f"https://127.0.0.1:{receiver.http_port}/v1/traces",
            content=traces_request(0, 1),
            headers={"content-type": "application/x-protobuf"},
            verify=str(cert),
        )
        assert reply.status_code == 200
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with grpc.secure_channel(f"127.0.0.1:{receiver.grpc_port}", credentials) as channel:
            channel.unary_unary(f"/{TRACE_SERVICE}/Export")(traces_request(1, 1), timeout=10)
    assert len(TraceStore(home.store).read_spans(PRODUCTION)) == 4
