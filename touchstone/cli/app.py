"""The Typer application that the command modules register with, and ``main``.

``main`` runs the command line itself (not Typer's standalone mode) so that usage errors
(a missing or unknown option, a value of the wrong type, an unknown command) get a German
message and exit 2 like any other bad input; the help pages are German too (``helptext``).
"""

from __future__ import annotations

import difflib
import os
import re
import signal
import sys
from typing import Annotated

import typer
from pydantic import ValidationError

# Typer vendors click as ``typer._click``; its exceptions are only reachable there.
from typer._click import exceptions as click_errors
from typer.core import TyperGroup

from touchstone import __version__, started
from touchstone.cli.helptext import germanize
from touchstone.cli.packs import pack_app
from touchstone.cli.ui import honour_columns, say_error, stdout
from touchstone.errors import raise_terminated

app = typer.Typer(
    name="touchstone",
    help="LLMs an Aufgabenpaketen messen, bewertet von einem LLM-Judge.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["--help", "-h"]},
)
app.add_typer(pack_app, name="pack")


def version_callback(value: bool) -> None:
    if value:
        stdout.print(f"touchstone {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=version_callback, is_eager=True, help="Version zeigen."),
    ] = False,
) -> None:
    """touchstone: LLMs an Aufgabenpaketen messen, bewertet von einem LLM-Judge."""


_TYPE_WORDS = {
    "int_parsing": "eine ganze Zahl",
    "int_type": "eine ganze Zahl",
    "int_from_float": "eine ganze Zahl",
    "float_parsing": "eine Zahl",
    "float_type": "eine Zahl",
    "bool_parsing": "true oder false",
}
_CHOICES = re.compile(r"is not one of (.+?)\.?$")


def _option_name(exc: click_errors.BadParameter) -> str:
    param = exc.param
    opts = getattr(param, "opts", None) or [getattr(param, "name", None) or "?"]
    return str(opts[0])


def _expected(exc: click_errors.BadParameter) -> str:
    cause = exc.__cause__
    if isinstance(cause, ValidationError) and cause.errors():
        error = cause.errors()[0]
        if error["type"] == "value_error":
            # A parser's own German reason (limits.decimal: "„0,3,4“ ist keine Zahl; …").
            return str(error.get("ctx", {}).get("error", "der Wert passt nicht"))
        if error["type"] in _TYPE_WORDS:
            return f"erwartet wird {_TYPE_WORDS[error['type']]}"
        choices = _CHOICES.search(str(error.get("msg", "")))
        if choices:
            return f"erlaubt sind: {choices.group(1).replace(chr(39), '')}"
    return "der Wert passt nicht"


def german_usage_error(exc: click_errors.UsageError) -> str:
    """A usage error as one German sentence (click itself speaks English)."""
    path = exc.ctx.command_path.partition(" ")[2] if exc.ctx is not None else ""
    hint = f" Hilfe: {started.command(path)} --help".replace("  ", " ")
    if isinstance(exc, click_errors.MissingParameter):
        if exc.param is not None and exc.param.param_type_name == "argument":
            name = exc.param.metavar or _option_name(exc).upper()
            return f"Fehlendes Argument {name}.{hint}"
        return f"Fehlende Option „{_option_name(exc)}“.{hint}"
    if isinstance(exc, click_errors.NoSuchOption):
        close = difflib.get_close_matches(exc.option_name, exc.possibilities or [], n=1)
        guess = f" Meinten Sie „{close[0]}“?" if close else ""
        return f"Unbekannte Option „{exc.option_name}“.{guess}{hint}"
    if isinstance(exc, click_errors.BadParameter):
        return f"Ungültiger Wert für „{_option_name(exc)}“ ({_expected(exc)}).{hint}"
    message = exc.format_message()
    if message.startswith("No such command"):
        command = message.split("'")[1] if "'" in message else message
        ctx = exc.ctx
        group = ctx.command if ctx is not None else None
        known = group.list_commands(ctx) if ctx and isinstance(group, TyperGroup) else []
        close = difflib.get_close_matches(command, known, n=1)
        guess = f" Meinten Sie „{close[0]}“?" if close else ""
        return f"Unbekannter Befehl „{command}“.{guess}{hint}"
    if message.startswith("Got unexpected extra argument"):
        extra = message.rpartition("(")[2].rstrip(")")
        return f"Überzähliges Argument: {extra}.{hint}"
    return f"Falscher Aufruf: {message}{hint}"


def main() -> None:
    signal.signal(signal.SIGTERM, raise_terminated)
    with honour_columns(os.environ.get("COLUMNS")):
        _main()


def _main() -> None:
    command = germanize(typer.main.get_command(app))
    try:
        code = command.main(prog_name="touchstone", standalone_mode=False)
    except click_errors.NoArgsIsHelpError as exc:
        stdout.print(exc.ctx.get_help() if exc.ctx is not None else "")
        sys.exit(0)
    except click_errors.UsageError as exc:
        say_error("Fehler:", german_usage_error(exc))
        sys.exit(2)
    except typer.Abort:
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
