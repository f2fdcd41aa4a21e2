"""The token key: a per-home secret made on first use, or one shared through the environment.

Tokens are an HMAC of the personal value (``pii.Tokeniser``); whoever holds the key can test a
guessed value against a token, so the key is a secret: 32 random bytes, written once to
``<home>/secrets/redaction.key`` (mode 0600, outside the store, so copying the store does not
copy the key). ``EVAL_PIPELINE_REDACTION_KEY`` overrides it, to share one key across hosts
whose tokens must compare equal. Rotation (README, "Privacy"): a new key gives new tokens for
the same values, so data stored under the old key no longer matches new data.
"""

import os
import secrets
from pathlib import Path

KEY_FILE = Path("secrets") / "redaction.key"
"""Where the home's key lives, relative to the home."""


def home_key_path() -> Path:
    """The key file of the current home.

    The home is ``home.current_home()``'s, resolved here from the same setting because
    ``traces`` imports nothing of the project above it (a test holds the two equal).
    """
    raw = os.environ.get("EVAL_PIPELINE_HOME")
    root = Path(raw) if raw else Path.cwd() / ".eval_pipeline"
    return root.resolve() / KEY_FILE


def home_key() -> bytes:
    """The current home's token key, created (0600) on first use."""
    path = home_key_path()
    try:
        return path.read_bytes().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = secrets.token_hex(32).encode()
    try:
        # O_EXCL: two processes creating the key at once agree on the one written first.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes().strip()
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
        handle.flush()
        os.fsync(handle.fileno())
    return key
