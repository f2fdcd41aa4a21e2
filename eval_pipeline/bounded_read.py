"""Reading a configuration file within a size cap: the one way every config loader reads.

A path given on the command line can name anything: ``--redaction-policy /dev/zero`` or a
multi-gigabyte log handed by mistake made a loader read until the OOM killer came, because
``Path.read_text`` reads to the end and ``stat`` says nothing about devices and pipes (their
size is 0). ``read_bounded`` reads at most ``limit + 1`` bytes, so it stops one byte past the
cap whatever the path is, and says so with an ``OSError`` (``EFBIG``) naming the file: every
loader already turns an ``OSError`` into its own error naming the file (exit 2 from the CLI).
"""

import errno
from pathlib import Path

CONFIG_LIMIT_BYTES = 1024 * 1024
"""The cap for configuration files (policies, settings, tokens, suites): 1 MiB, ample for
hand-written YAML (the shipped ones are a few KB)."""


def read_bounded(path: Path | str, limit: int = CONFIG_LIMIT_BYTES) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them.

    Raises:
        OSError: the file cannot be opened or read, or it holds more than ``limit`` bytes
            (``errno.EFBIG``, ``strerror`` saying the limit, ``filename`` the path).
    """
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise OSError(
            errno.EFBIG,
            f"larger than {limit:,} bytes, the limit for this file: refused (is it the file "
            "you meant?)",
            str(path),
        )
    return data


def read_bounded_text(
    path: Path | str, limit: int = CONFIG_LIMIT_BYTES, encoding: str = "utf-8"
) -> str:
    """``read_bounded`` decoded (``UnicodeDecodeError`` when the bytes are not ``encoding``)."""
    return read_bounded(path, limit).decode(encoding)
