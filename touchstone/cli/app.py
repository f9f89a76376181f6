"""The Typer application that the command modules register with, and ``main``."""

from __future__ import annotations

import signal
from typing import Annotated

import typer

from touchstone import __version__
from touchstone.cli.ui import stdout
from touchstone.engine import raise_terminated

app = typer.Typer(
    name="touchstone",
    help="LLMs an Aufgabenpaketen messen, bewertet von einem LLM-Judge.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def version_callback(value: bool) -> None:
    if value:
        stdout.print(f"touchstone {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(
    version: Annotated[
        bool, typer.Option("--version", callback=version_callback, is_eager=True)
    ] = False,
) -> None:
    """touchstone: LLMs an Aufgabenpaketen messen, bewertet von einem LLM-Judge."""


def main() -> None:
    signal.signal(signal.SIGTERM, raise_terminated)
    app()
