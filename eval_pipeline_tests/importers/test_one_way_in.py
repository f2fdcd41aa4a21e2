"""Importers hand their spans to the one ingest function; none has a pipeline of its own.

Contract: no module under ``eval_pipeline/importers`` (any sub-package) normalises, redacts or
writes spans to a store itself; each calls ``traces.ingest.ingest`` (directly or through
``importers.traces.files``).
"""

import ast
from pathlib import Path

import eval_pipeline.importers

IMPORTERS = Path(eval_pipeline.importers.__file__).parent
OWN_STAGES = {
    "Redactor",
    "redact",
    "redact_batch",
    "normalise_spans",
    "normalise_batch",
    "write_spans",
    "write_rows",
}


def _names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    names |= {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    return names


def test_no_importer_runs_a_stage_of_ingest_itself() -> None:
    modules = sorted(IMPORTERS.rglob("*.py"))
    assert {p.relative_to(IMPORTERS).as_posix() for p in modules} >= {
        "benchmarks/bfcl_results.py",
        "benchmarks/tau2.py",
        "benchmarks/taubench.py",
        "traces/files.py",
        "backends/phoenix.py",
    }
    offenders = {
        p.relative_to(IMPORTERS).as_posix(): sorted(_names(p) & OWN_STAGES)
        for p in modules
        if _names(p) & OWN_STAGES
    }
    assert offenders == {}


def test_the_storing_importers_call_the_one_ingest_function() -> None:
    for name in ("benchmarks/bfcl_results.py", "traces/files.py"):
        assert "ingest" in _names(IMPORTERS / name), name
