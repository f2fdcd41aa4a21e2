"""Every configuration file is read within a size cap, whatever the path names.

Contract: ``read_bounded`` returns a file within the cap and refuses one past it with an
``OSError`` naming the file, after reading one byte past the cap (``/dev/zero`` never ends);
every config loader of the CLI reads through it, so ``--redaction-policy /dev/zero``,
``detectors run --config /dev/zero``, ``detect --config /dev/zero``, a token file, a suite and
a TLS file of ``/dev/zero`` are each an input error naming the file (exit 2) in well under the
time it took to read to the OOM killer.
"""

import errno
from pathlib import Path

import pytest
from click.testing import CliRunner

from eval_pipeline.bounded_read import read_bounded
from eval_pipeline.cli import cli
from eval_pipeline.realtime.detectors.config import DetectorConfigError, load_detector_config
from eval_pipeline.suites.config import load_suite
from eval_pipeline.suites.errors import ConfigError
from eval_pipeline.traces.redact.policy import PolicyError, load_policy

ZERO = "/dev/zero"


def test_a_file_within_the_cap_is_read_and_one_past_it_refused(tmp_path: Path) -> None:
    small = tmp_path / "small.yaml"
    small.write_bytes(b"x" * 100)
    assert read_bounded(small, limit=100) == b"x" * 100
    with pytest.raises(OSError, match="larger than 99 bytes") as refused:
        read_bounded(small, limit=99)
    assert refused.value.errno == errno.EFBIG and refused.value.filename == str(small)
    with pytest.raises(OSError, match="larger than 1,048,576 bytes"):
        read_bounded(ZERO)


def test_each_loader_refuses_an_endless_file_naming_it() -> None:
    with pytest.raises(PolicyError, match=f"{ZERO}: .*larger than"):
        load_policy(ZERO)
    with pytest.raises(DetectorConfigError, match=f"{ZERO}: .*larger than"):
        load_detector_config(Path(ZERO))
    with pytest.raises(ConfigError, match="larger than"):
        load_suite(Path(ZERO))


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["serve", "--redaction-policy", ZERO], "--redaction-policy"),
        (["serve", "--token-file", ZERO], ZERO),
        (["serve", "--detect", "--detector-config", ZERO], "--detector-config"),
        (["serve", "--ssl-certfile", ZERO, "--ssl-keyfile", ZERO], "--ssl-certfile"),
        (["detect", "--build", "b", "--config", ZERO], "--config"),
        (["detectors", "run", "--config", ZERO], "--config"),
    ],
)
def test_the_cli_refuses_an_endless_config_with_exit_2(args: list[str], option: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert option in result.output and ZERO in result.output and "larger than" in result.output
