"""``traces`` sits on the bottom layer: it imports nothing else of the project but its leaves.

Contract (docs/DESIGN.md section 3): every module under ``eval_pipeline/traces`` imports only the
standard library, third-party packages, ``eval_pipeline.traces`` itself and the leaf modules of
the bottom layer that import nothing of the project (``LEAVES``), at module level or
inside functions, and never looks the project's modules up by name through ``importlib``.
Scorers, importers and runners sit above it and call into it, never the other way round.
"""

import ast
from pathlib import Path

import eval_pipeline.traces

TRACES = Path(eval_pipeline.traces.__file__).parent
# Bottom-layer modules with no project imports of their own (pyproject's "layers" contract).
LEAVES = {"eval_pipeline.bounded_read"}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            found.append((node.lineno, "." * node.level + (node.module or "")))
    return found


def test_traces_imports_nothing_above_it() -> None:
    modules = sorted(TRACES.rglob("*.py"))
    assert len(modules) > 30  # the whole package is walked, not an empty folder
    above = [
        f"{path.relative_to(TRACES.parent)}:{line}: {name}"
        for path in modules
        for line, name in _imports(path)
        if (
            name.startswith("eval_pipeline.")
            and not name.startswith("eval_pipeline.traces")
            and name not in LEAVES
        )
        or name == "eval_pipeline"
        or name.startswith(".")
    ]
    assert above == []


def test_the_leaves_traces_may_use_import_nothing_of_the_project() -> None:
    import importlib

    for leaf in sorted(LEAVES):
        path = Path(importlib.import_module(leaf).__file__ or "")
        assert [name for _, name in _imports(path) if name.startswith(("eval_pipeline", "."))] == []


def test_traces_does_not_look_project_modules_up_by_name() -> None:
    offenders = [
        str(path.relative_to(TRACES.parent))
        for path in sorted(TRACES.rglob("*.py"))
        if "import_module(" in path.read_text(encoding="utf-8")
        or "__import__(" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
