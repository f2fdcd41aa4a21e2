"""The import rules of docs/DESIGN.md section 3, checked mechanically (issue 13).

Contract: the import-linter contracts in ``pyproject.toml`` hold (pure packages never import
dagster; no package imports one above it); the dagster contract covers every package but the
three that load Dagster; no module imports Dagster's private ``dagster._*`` modules (import-linter
sees an external package only as a whole, so this is an AST check); and no module looks up the
project's own modules through ``importlib`` except the scorer registry, which imports scorer
modules by name on purpose.
"""

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "eval_pipeline"
DAGSTER_LOADERS = {"defs", "cli", "definitions"}
"""The only top-level modules of eval_pipeline allowed to import dagster."""

REGISTRY = "eval_pipeline/scoring/registry.py"
"""The scorer registry: imports ``eval_pipeline.scoring.<module>`` by name, by design."""

LOOKUPS_BEING_REMOVED: set[tuple[str, str]] = set()
"""Project lookups still there: delete each entry as its fix lands (an empty one is set())."""

_LOOKUP_FUNCTIONS = {"import_module", "__import__", "find_spec"}


def _sources() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(), filename=str(path)))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "..."`` bindings, so ``import_module(NAME)`` is resolved too."""
    constants: dict[str, str] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if (
            isinstance(target, ast.Name)
            and isinstance(value, ast.Constant)
            and isinstance(value.value, str)
        ):
            constants[target.id] = value.value
    return constants


def _static_prefix(node: ast.expr, constants: dict[str, str]) -> str | None:
    """The known leading text of a module-name expression (None when nothing is known)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.JoinedStr) and node.values:
        return _static_prefix(node.values[0], constants)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _static_prefix(node.left, constants)
    return None


def project_lookups(tree: ast.Module) -> list[str]:
    """Module names (or their known prefix) this module looks up dynamically in the project.

    A lookup is a call to ``import_module``, ``__import__`` or ``find_spec`` (bare or as an
    attribute) whose first argument starts with ``eval_pipeline`` or is relative. A name only known
    at run time (a user's entry point from a build's config) is not the project's own module.
    """
    constants = _string_constants(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name not in _LOOKUP_FUNCTIONS:
            continue
        prefix = _static_prefix(node.args[0], constants)
        if prefix is not None and (
            prefix.split(".", 1)[0] == "eval_pipeline" or prefix.startswith(".")
        ):
            found.append(prefix)
    return found


def private_dagster_imports(tree: ast.Module) -> list[str]:
    """Imported module paths under a dagster package that pass through a ``_private`` part."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    return [
        name
        for name in names
        if name.split(".")[0].startswith("dagster")
        and any(part.startswith("_") for part in name.split(".")[1:])
    ]


def _lint_imports() -> subprocess.CompletedProcess[str]:
    executable = Path(sys.executable).parent / "lint-imports"
    assert executable.exists(), f"{executable} is missing: `make setup` installs requirements.lock"
    return subprocess.run(
        [str(executable), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def test_import_linter_contracts_hold() -> None:
    result = _lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 4 kept, 0 broken." in result.stdout, result.stdout


def test_the_dagster_contract_covers_every_package_but_the_loaders() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [
        c for c in config["contracts"] if c["id"] == "pure-packages-never-import-dagster"
    ]
    # Regular packages and modules only: grimp does not see a folder without __init__.py (ruff's
    # TID251 ban still covers its files).
    tops = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    tops |= {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert set(contract["source_modules"]) == {f"eval_pipeline.{t}" for t in tops - DAGSTER_LOADERS}


def test_no_module_imports_private_dagster_modules() -> None:
    offenders = {
        path: names for path, tree in _sources() if (names := private_dagster_imports(tree))
    }
    assert offenders == {}, "use the public dagster API (import dagster as dg)"


def test_no_importlib_lookup_of_project_modules_outside_the_scorer_registry() -> None:
    found = {
        (path, name)
        for path, tree in _sources()
        if path != REGISTRY
        for name in project_lookups(tree)
    }
    assert found - LOOKUPS_BEING_REMOVED == set(), "import the project's own modules statically"
    assert LOOKUPS_BEING_REMOVED - found == set(), "fixed: delete these lines from the allow-list"
    assert (ROOT / REGISTRY).is_file(), "the registry moved: update REGISTRY"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            'import importlib\nimportlib.import_module("eval_pipeline.suites.risk")',
            ["eval_pipeline.suites.risk"],
        ),
        (
            'from importlib import import_module\nimport_module(f"eval_pipeline.{x}")',
            ["eval_pipeline."],
        ),
        (
            'MOD = "eval_pipeline.importers.tau2"\n\ndef f():\n    return import_module(MOD)',
            ["eval_pipeline.importers.tau2"],
        ),
        ('__import__("eval_pipeline" + ".gate")', ["eval_pipeline"]),
        ('importlib.util.find_spec("eval_pipeline.scoring")', ["eval_pipeline.scoring"]),
        ('importlib.import_module(".store", package=__package__)', [".store"]),
        ("def load(name):\n    return importlib.import_module(name)", []),
        ('importlib.import_module("yaml")', []),
        ('importlib.import_module("eval_pipeline_tests.gate")', []),
    ],
)
def test_the_lookup_finder_sees_each_form(source: str, expected: list[str]) -> None:
    assert project_lookups(ast.parse(source)) == expected


def test_the_private_import_finder_sees_each_form() -> None:
    tree = ast.parse(
        "import dagster as dg\n"
        "import dagster._core.errors\n"
        "from dagster._core.definitions import x\n"
        "from dagster import _check\n"
        "from dagster_postgres._utils import y\n"
        "from dagster_postgres import PostgresEventLogStorage\n"
    )
    assert private_dagster_imports(tree) == [
        "dagster._core.errors",
        "dagster._core.definitions.x",
        "dagster._check",
        "dagster_postgres._utils.y",
    ]
