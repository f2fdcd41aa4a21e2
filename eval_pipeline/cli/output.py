"""How every command prints: ``--format text|json``, tables, and progress on stderr.

One way each: ``format_option`` is the output-format option (``text`` or ``json``; a command
whose JSON is a contract and was JSON by default keeps that default), ``echo_json`` prints a
JSON document, ``print_table`` / ``print_fields`` print text as rich tables on stdout, and
``progress`` draws a rich progress display on stderr for long commands.

The progress display is drawn only when stderr is a terminal and ``--quiet`` was not given, so
a pipe, a CI log or ``--format json > file`` stays clean: nothing is written to stderr but
errors. ``EVAL_PIPELINE_FORCE_TERMINAL=1`` draws it as if stderr were a terminal (tests, or a
CI runner whose log renders control sequences). Lower layers never import rich: they take
plain callbacks (``Tracker.advance`` for done/total counts, ``Tracker.say`` for lines).
"""

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import click
from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

FORCE_TERMINAL_ENV = "EVAL_PIPELINE_FORCE_TERMINAL"
"""Set to 1 to draw progress (and colour) as if stderr and stdout were terminals."""
PIPE_WIDTH = 100_000
"""Columns a table may use when stdout is not a terminal: as many as its cells need, since a
file, a pipe or a CI log wraps nothing, and a folded cell (a sha256 split in two) cannot be
searched or copied. Lines carry no trailing blanks, so the width costs nothing."""
VERDICT_STYLES = {"pass": "green", "fail": "bold red", "inconclusive": "yellow"}

F = TypeVar("F", bound=Callable[..., Any])


def format_option(default: str = "text", *, flag: str = "--format") -> Callable[[F], F]:
    """The ``--format text|json`` option (``flag`` where ``--format`` names the input)."""
    return click.option(
        flag,
        "fmt",
        type=click.Choice(["text", "json"]),
        default=default,
        show_default=True,
        help="text: tables for people; json: one document for scripts.",
    )


def quiet_option(function: F) -> F:
    """``--quiet``: no progress display (it is drawn on a terminal's stderr only anyway)."""
    return click.option("--quiet", "-q", is_flag=True, help="Draw no progress display on stderr.")(
        function
    )


def _forced() -> bool:
    return os.environ.get(FORCE_TERMINAL_ENV) == "1"


def _console(stream: Any) -> Console:
    terminal = _forced() or bool(getattr(stream, "isatty", lambda: False)())
    return Console(
        file=stream,
        force_terminal=terminal,
        width=None if terminal else PIPE_WIDTH,
        highlight=False,
        soft_wrap=False,
    )


def echo_json(document: Any, *, indent: int | None = 2, sort_keys: bool = False) -> None:
    """Print one JSON document on stdout (dates and paths as strings)."""
    click.echo(
        json.dumps(document, indent=indent, ensure_ascii=False, default=str, sort_keys=sort_keys)
    )


def cell(value: object) -> Text:
    """One table cell: missing as ``-``, floats to 3 places, lists joined, verdicts coloured."""
    if value is None or (isinstance(value, str) and not value):
        return Text("-")
    if isinstance(value, Text):
        return value
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, float):
        return Text(f"{value:.3f}")
    if isinstance(value, list | tuple | set | frozenset):
        return Text(", ".join(str(v) for v in value) or "-")
    text = str(value)
    return Text(text, style=VERDICT_STYLES.get(text.split(" ")[0], ""))


def print_table(
    columns: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    title: str | None = None,
    caption: str | None = None,
) -> None:
    """Print rows as a table on stdout (values through ``cell``; never read as markup).

    On a terminal the table is drawn in colour and fitted to the window (long cells fold);
    elsewhere as plain text, every cell and the title on one line, without trailing blanks.
    No rows prints ``title: (none)``, else the caption.
    """
    body = [tuple(cell(value) for value in row) for row in rows]
    if not body:
        click.echo(f"{title}: (none)" if title else caption or "(none)")
        return
    console = _console(sys.stdout)
    terminal = console.is_terminal
    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        title=title if terminal else None,
        caption=caption if terminal else None,
        title_justify="left",
        caption_justify="left",
    )
    for column in columns:
        table.add_column(column, overflow="fold", no_wrap=not terminal)
    for row in body:
        table.add_row(*row)
    if terminal:
        console.print(table)
        return
    with console.capture() as captured:
        console.print(table)
    lines = [line.rstrip() for line in captured.get().splitlines()]
    click.echo("\n".join([*([title] if title else []), *lines, *([caption] if caption else [])]))


def print_fields(fields: Mapping[str, object], *, title: str | None = None) -> None:
    """Print a mapping as a two-column table (a summary of one thing)."""
    print_table(("field", "value"), fields.items(), title=title)


class Tracker:
    """What a long command reports while it works; a no-op when nothing is drawn."""

    def __init__(self, bar: Progress | None, task: TaskID | None) -> None:
        self._bar = bar
        self._task = task

    def advance(self, done: int, total: int) -> None:
        """``done`` of ``total`` steps finished (the callback lower layers are given)."""
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=done, total=total)

    def status(self, description: str) -> None:
        """What is being done now (the display's label)."""
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, description=description)

    def say(self, line: str) -> None:
        """A line printed above the display (a finished step's summary)."""
        if self._bar is not None:
            self._bar.console.print(Text(line))


@contextmanager
def progress(description: str, *, quiet: bool, total: int | None = None) -> Iterator[Tracker]:
    """A progress display on stderr while the block runs, when stderr is a terminal.

    ``total`` None shows a spinner and the elapsed time until ``advance`` gives a total; the
    display stays on screen when the block ends, so the time taken remains readable.
    """
    console = _console(sys.stderr)
    if quiet or not console.is_terminal:
        yield Tracker(None, None)
        return
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        redirect_stdout=False,
        redirect_stderr=False,
    ) as bar:
        yield Tracker(bar, bar.add_task(description, total=total))
