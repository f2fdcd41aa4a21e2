"""How the CLI reports bad input: one ``error: ...`` line naming the file/field/row, exit 2."""

from typing import IO, Any

import click


class InputError(click.ClickException):
    """Bad input (a file, a field, a row): printed as ``error: ...`` with exit code 2."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message.removeprefix("error: "))

    def show(self, file: IO[Any] | None = None) -> None:
        """Print ``error: <message>`` to stderr (without click's ``Error:`` prefix)."""
        click.echo(f"error: {self.format_message()}", file=file, err=file is None)
