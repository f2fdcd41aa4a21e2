"""How the CLI reports bad input: a message naming the file/field/row, and exit code 2."""

import click


class InputError(click.ClickException):
    """Bad input (a file, a field, a row): printed as ``error: ...`` with exit code 2."""

    exit_code = 2

    def format_message(self) -> str:
        """The message as printed."""
        return self.message
