"""What the scanner detects, as the README lists it: generated from the catalogue.

The README's list (between ``BEGIN`` and ``END``) is ``detected_markdown()``'s text; a test
holds them equal, so the list changes with the catalogue and only with it. Rewrite it with
``python -m benchmarks.presidio_catalogue --readme``.
"""

from eval_pipeline.traces.redact.catalogue import CATALOGUE, CONTEXT_SCORE, RECOGNIZERS
from eval_pipeline.traces.redact.validators import VALIDATORS

BEGIN = "<!-- detected: generated from traces/redact/recognizers.yaml; do not edit -->"
END = "<!-- detected: end -->"


def _check(name: str) -> str:
    """A validator's first docstring line (what it checks)."""
    for key, validator in VALIDATORS.items():
        if validator.__name__ == name or key == name:
            return (validator.__doc__ or key).strip().splitlines()[0].rstrip(".")
    return name


def detected_markdown() -> str:
    """The README's table of detectors: kind, locales, where the patterns come from, checks."""
    lines = [
        BEGIN,
        "| policy detector | token kind | locales | recognizers (source) | check |",
        "|---|---|---|---|---|",
    ]
    for detector, recognizers in RECOGNIZERS.items():
        kinds = ", ".join(dict.fromkeys(r.kind for r in recognizers))
        locales = sorted({locale for r in recognizers for locale in r.locales})
        shown = "any" if "any" in locales else ", ".join(locales)
        names = []
        for recognizer in recognizers:
            source = recognizer.source.split(": ")[-1] if "presidio" in recognizer.source else ""
            label = recognizer.name + (f" ({source})" if source else "")
            if recognizer.context:
                label += " (with a context word)"
            elif recognizer.bare_context:
                label += " (digits alone: with a context word)"
            names.append(f"`{label}`")
        checks = "; ".join(
            dict.fromkeys(_check(r.validate.__name__) for r in recognizers)  # type: ignore[attr-defined]
        )
        lines.append(f"| `{detector}` | {kinds} | {shown} | {', '.join(names)} | {checks} |")
    sources = sorted({r.source for r in CATALOGUE if "presidio" in r.source})
    lines += [
        "",
        f"Presidio patterns from {sources[0].split(':')[0] if sources else 'none'}; one scored "
        f"below {CONTEXT_SCORE} without a checksum counts only with one of its context words "
        "within 48 characters.",
        END,
    ]
    return "\n".join(lines)
