"""Native extensions, discovered rather than listed.

Every ``eval_pipeline/**/_*.c`` file is one CPython extension module named by its path (for
example ``eval_pipeline/traces/redact/_scanner.c`` -> ``eval_pipeline.traces.redact._scanner``),
so adding a hot loop in C means adding one file, never editing this one. Headers beside a source
(``_*.h``) are its build dependencies. Everything links OpenSSL's libcrypto (the keyed hash of the
redaction tokens); the rest of the metadata lives in pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import Extension, setup

_PACKAGE = Path("eval_pipeline")


def _extensions() -> list[Extension]:
    extensions = []
    for source in sorted(_PACKAGE.rglob("_*.c")):
        module = ".".join(source.with_suffix("").parts)
        headers = sorted(str(header) for header in source.parent.glob("_*.h"))
        extensions.append(
            Extension(
                module,
                sources=[str(source)],
                depends=headers,
                libraries=["crypto"],
                extra_compile_args=["-O2", "-std=c11", "-Wall", "-Wextra"],
            )
        )
    return extensions


setup(ext_modules=_extensions())
