"""CLI: `datasets` commands (see the package docstring for exit codes)."""

import click

COMMANDS: list[click.Command] = []
