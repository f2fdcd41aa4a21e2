"""The redaction policy: a YAML file, validated and compiled once, failing fast on bad config.

Policy (YAML; the default ships as ``redaction_policy.yaml`` beside this module)::

    version: 1
    tools:
      keep_arguments: []        # tool names (globs; "*" = every tool) whose arguments are kept
      keep_results: []          # ... whose results are kept; everything else is dropped
    pii:
      detectors: [credit_card, iban, email, ssn, phone, ...]   # recognizers.yaml's detectors
      locales: [US, GB, FR, IN, BR]   # national formats on (omitted: every locale known);
                                      # formats used everywhere (locale "any") are always on
      token_key_env: EVAL_PIPELINE_REDACTION_KEY   # overrides the home's key (``keys``)

``tools.keep: [...]`` opts tools in for both. ``RedactionPolicy.from_mapping`` validates every
field and raises ``PolicyError`` naming the file and field; matching is cached per tool name.
"""

import fnmatch
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from eval_pipeline.bounded_read import read_bounded_text
from eval_pipeline.traces.redact.catalogue import LOCALES, RECOGNIZERS
from eval_pipeline.traces.redact.keys import home_key

DEFAULT_POLICY_PATH = Path(__file__).with_name("redaction_policy.yaml")
KEEP_TOOLS_POLICY_PATH = Path(__file__).with_name("redaction_policy_keep_tools.yaml")
NAMED_POLICIES = {"default": DEFAULT_POLICY_PATH, "keep-tools": KEEP_TOOLS_POLICY_PATH}
KEY_ENV = "EVAL_PIPELINE_REDACTION_KEY"
"""The environment variable the shipped policies take their token key from."""


class PolicyError(ValueError):
    """A redaction policy that cannot be used; the message names the file and field."""


def _names(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise PolicyError(f"{where}: must be a list of tool names or globs")
    return tuple(value)


def _check_keys(section: Any, allowed: set[str], where: str) -> dict[str, Any]:
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise PolicyError(f"{where}: must be a mapping")
    unknown = sorted(set(section) - allowed)
    if unknown:
        raise PolicyError(f"{where}.{unknown[0]}: unknown field (allowed: {sorted(allowed)})")
    return section


@dataclass(frozen=True)
class RedactionPolicy:
    """A compiled policy (build with ``load_policy`` or ``from_mapping``)."""

    name: str
    keep_arguments: tuple[str, ...]
    keep_results: tuple[str, ...]
    detectors: tuple[str, ...]
    key: bytes
    locales: tuple[str, ...] | None = None
    """National formats turned on (None: every locale the catalogue knows)."""

    @classmethod
    def from_mapping(cls, data: Any, source: str) -> "RedactionPolicy":
        """Validate and compile a parsed policy; ``source`` names it in errors."""
        root = _check_keys(data, {"version", "name", "tools", "pii"}, source)
        if root.get("version", 1) != 1:
            raise PolicyError(f"{source}.version: only version 1 is supported")
        tools = _check_keys(
            root.get("tools"), {"keep_arguments", "keep_results", "keep"}, f"{source}.tools"
        )
        both = _names(tools.get("keep"), f"{source}.tools.keep")
        pii = _check_keys(
            root.get("pii"), {"detectors", "locales", "token_key_env"}, f"{source}.pii"
        )
        detectors = _names(pii.get("detectors", list(RECOGNIZERS)), f"{source}.pii.detectors")
        for index, name in enumerate(detectors):
            if name not in RECOGNIZERS:
                raise PolicyError(
                    f"{source}.pii.detectors[{index}]: unknown detector {name!r} "
                    f"(known: {sorted(RECOGNIZERS)})"
                )
        locales = pii.get("locales")
        if locales is not None:
            locales = _names(locales, f"{source}.pii.locales")
            for index, locale in enumerate(locales):
                if locale not in LOCALES:
                    raise PolicyError(
                        f"{source}.pii.locales[{index}]: unknown locale {locale!r} "
                        f"(known: {list(LOCALES)})"
                    )
        env = pii.get("token_key_env")
        if env is not None and not isinstance(env, str):
            raise PolicyError(f"{source}.pii.token_key_env: must be an environment variable name")
        secret = os.environ.get(env) if env else None
        return cls(
            name=str(root.get("name") or source),
            keep_arguments=both
            + _names(tools.get("keep_arguments"), f"{source}.tools.keep_arguments"),
            keep_results=both + _names(tools.get("keep_results"), f"{source}.tools.keep_results"),
            detectors=detectors,
            key=secret.encode() if secret else home_key(),
            locales=locales,
        )

    def keeps_arguments(self, tool: str | None) -> bool:
        """True when this tool's arguments are opted in."""
        return _keeps(tool, self.keep_arguments)

    def keeps_results(self, tool: str | None) -> bool:
        """True when this tool's results are opted in."""
        return _keeps(tool, self.keep_results)


def _keeps(tool: str | None, patterns: tuple[str, ...]) -> bool:
    if not patterns or tool is None:
        return False
    # "*" matches every name: answered without the glob (asked for every tool payload).
    return "*" in patterns or _matches(tool, patterns)


@lru_cache(maxsize=4096)
def _matches(tool: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(tool, pattern) for pattern in patterns)


def load_policy(path: Path | str | None = None) -> RedactionPolicy:
    """Load and compile a policy file (``None``: the shipped default; or a named policy)."""
    if path is None:
        path = DEFAULT_POLICY_PATH
    if isinstance(path, str) and path in NAMED_POLICIES:
        path = NAMED_POLICIES[path]
    path = Path(path)
    try:
        data = yaml.safe_load(read_bounded_text(path))
    except OSError as exc:
        raise PolicyError(f"{path}: cannot read the policy ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise PolicyError(f"{path}: not valid YAML ({exc})") from None
    return RedactionPolicy.from_mapping(data, str(path))
