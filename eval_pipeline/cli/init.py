"""CLI: ``eval-pipeline init [DIR]``, a working project to start from.

Writes into an empty folder (``--force``: a non-empty one, replacing files of the same names)
every file a team brings of its own: a suite, a small dataset in the user-facing item format
(JSON Lines, one item per line), human labels that calibrate the suite's judge (``labels.csv``),
a custom Python metric (``metrics.py``) and a judged rubric metric (``rubrics/``), a stand-in
agent with a Python entry point (``agent.py``) and the same agent behind an HTTP endpoint
(``agent_http.py``), a GitHub Actions workflow that runs, scores and gates every push, and a
README. The templates are package data (``cli/scaffold``). ``init`` publishes nothing: the
dataset is published the way every user's dataset is, by ``eval-pipeline datasets import``
(validated before publishing), the first of the next steps it prints and the first step of the
workflow. A folder that is not empty, or a name that is not a valid suite name, is exit 2 and
nothing is written.
"""

import re
from dataclasses import dataclass
from pathlib import Path

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option
from eval_pipeline.home import DEFAULT_DIRNAME
from eval_pipeline.package_data import package_path

MARKER = "__NAME__"
"""What the templates say where the project's name goes."""
NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
"""A suite name (``suites/config.py``), which also names the dataset ``golden/NAME``."""


@dataclass(frozen=True)
class ScaffoldFile:
    """One template of ``cli/scaffold`` and where it goes in the project."""

    template: str
    target: str
    named: bool = True
    """Whether the template's ``__NAME__`` markers are replaced (the Python stubs have none)."""


FILES = (
    ScaffoldFile("README.md", "README.md"),
    ScaffoldFile("suite.yaml", "suite.yaml"),
    ScaffoldFile("dataset.jsonl", "datasets/__NAME__.jsonl", named=False),
    ScaffoldFile("labels.csv", "labels.csv", named=False),
    ScaffoldFile("metrics.py", "metrics.py", named=False),
    ScaffoldFile("rubrics/helpfulness.yaml", "rubrics/helpfulness.yaml", named=False),
    ScaffoldFile("agent.py", "agent.py", named=False),
    ScaffoldFile("agent_http.py", "agent_http.py", named=False),
    ScaffoldFile("eval-workflow.yaml", ".github/workflows/eval.yml"),
)
"""Every file ``init`` writes, in the order it writes them (then ``.gitignore``)."""
GITIGNORE = f"{DEFAULT_DIRNAME}/\n__pycache__/\neval-report/\ngate.xml\n"
"""What the project keeps out of version control: its home and the gate's artefacts."""


def project_name(folder: Path, given: str | None) -> str:
    """``--name``, else the folder's name made into a suite name (``My Agent`` -> ``my-agent``).

    Raises:
        InputError: ``--name`` is not a valid suite name.
    """
    if given is not None:
        if not NAME.match(given):
            raise InputError(
                f"--name {given!r}: expected lowercase letters, digits, '.', '_' or '-', "
                "starting with a letter or digit (it names the suite and the dataset)"
            )
        return given
    slug = re.sub(r"[^a-z0-9_.-]+", "-", folder.resolve().name.lower()).strip("-._")
    return slug or "my-agent"


def write_project(folder: Path, name: str, *, force: bool) -> list[Path]:
    """Write the scaffold into ``folder`` (created if absent); the paths written.

    Raises:
        InputError: ``folder`` is a file, or not empty and ``force`` is not set.
    """
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not force:
        listed = ", ".join(sorted(p.name for p in folder.iterdir())[:5])
        raise InputError(
            f"{folder}: not empty ({listed}); init writes into an empty folder "
            "(--force writes here anyway, replacing files of the same names)"
        )
    written = []
    for spec in FILES:
        text = package_path("eval_pipeline.cli", "scaffold", spec.template).read_text("utf-8")
        target = folder / spec.target.replace(MARKER, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.replace(MARKER, name) if spec.named else text, encoding="utf-8")
        written.append(target)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text(GITIGNORE, encoding="utf-8")
        written.append(ignore)
    return written


@click.command("init")
@click.argument("folder", default=".", type=click.Path(path_type=Path, file_okay=False))
@click.option("--name", default=None, help="Suite and dataset name (default: the folder's).")
@click.option("--force", is_flag=True, help="Write into a non-empty folder (same names replaced).")
@format_option()
def init(folder: Path, name: str | None, force: bool, fmt: str) -> None:
    """Scaffold a project: suite, dataset, labels, metrics, agent stubs, CI workflow, README."""
    name = project_name(folder, name)
    written = write_project(folder, name, force=force)
    next_steps = [
        f"cd {folder}" if folder != Path(".") else None,
        f"eval-pipeline datasets import {name} datasets/{name}.jsonl",
        "eval-pipeline run --suite suite.yaml --build v1 --runner python:agent:run_item",
        "eval-pipeline score --suite suite.yaml --build v1",
        "eval-pipeline gate --suite suite.yaml --candidate v1 --no-baseline",
    ]
    if fmt == "json":
        echo_json(
            {
                "project": str(folder),
                "name": name,
                "files": [str(p) for p in written],
                "next": [step for step in next_steps if step],
            }
        )
        return
    click.echo(f"project {name} in {folder}: {len(written)} files written")
    for path in written:
        click.echo(f"  {path}")
    click.echo("next:")
    click.echo("\n".join(f"  {step}" for step in next_steps if step))


COMMANDS: list[click.Command] = [init]
