"""``--help`` entirely in German (design.md §22).

Typer translates its panel titles through module constants of ``typer.rich_utils``, set when a
help page is drawn: that module brings rich's markdown and syntax highlighting, which a command
that shows no help need not load (start-up, design.md §10). The rest of a help page comes from
its vendored click, in English and without a hook: the usage line ("Usage: … [OPTIONS] COMMAND
[ARGS]..."), the help option's "Show this message and exit." and the value types ("<int>",
"<path>", "<list[str]>"). ``germanize`` replaces them on the built command tree, once, before
it runs.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

# Typer vendors click as ``typer._click``.
from typer._click import core as click_core
from typer.core import TyperGroup

HELP_TEXT = "Diese Hilfe zeigen und beenden."
USAGE_PREFIX = "Aufruf: "
OPTIONS_METAVAR = "[OPTIONEN]"
SUBCOMMAND_METAVAR = "BEFEHL [ARGUMENTE]..."

# Typer's type labels (inside "<…>") in German; a flag shows none, a choice its choices.
_TYPE_WORDS = {
    "int": "Ganzzahl",
    "float": "Zahl",
    "str": "Text",
    "path": "Pfad",
    "file": "Datei",
    "directory": "Verzeichnis",
    "bool": "",
    "int range": "Ganzzahl",
    "float range": "Zahl",
}
_LIST = re.compile(r"^list\[(.+)\]$")


def _german_type(label: str | None) -> str | None:
    """``<list[str]>`` → ``<Text>``; a label it does not know (choices) stays as it is."""
    if label is None or not (label.startswith("<") and label.endswith(">")):
        return label
    inner = label[1:-1]
    listed = _LIST.match(inner)
    if listed:
        inner = listed.group(1)
    if inner not in _TYPE_WORDS:
        return label
    word = _TYPE_WORDS[inner]
    return f"<{word}>" if word else None


def _germanize_param(param: Any, ctx: click_core.Context) -> None:
    german = _german_type(param.display_type(ctx))
    # An instance attribute: typer asks ``display_type`` for the type column.
    param.display_type = lambda ctx, _german=german: _german
    if isinstance(param.default, float) and hasattr(param, "_get_default_string"):
        # "[Standard: 300]", "[Standard: 0,5]", not Python's "300.0".
        shown = f"{param.default:g}".replace(".", ",")
        param._get_default_string = lambda **_: shown


def _germanize_help_option(command: click_core.Command) -> None:
    original = command.get_help_option

    def get_help_option(ctx: click_core.Context) -> Any:
        option = original(ctx)
        if option is not None and option.help != HELP_TEXT:
            option.help = HELP_TEXT
            _germanize_param(option, ctx)
        return option

    command.get_help_option = get_help_option  # type: ignore[method-assign]


# Typer writes a required argument as "{run_dir}" (or "{NEW}" with a metavar), which reads as
# a placeholder left in; the usage line names it as click does: RUN_DIR (optional ones stay in
# brackets: [RUN_DIR]).
_ARGUMENT = re.compile(r"[{\[]([A-Za-z][A-Za-z0-9_]*)[}\]]")


def _usage_piece(piece: str) -> str:
    def name(match: re.Match[str]) -> str:
        upper = match.group(1).upper()
        return upper if match.group(0).startswith("{") else f"[{upper}]"

    return _ARGUMENT.sub(name, piece)


def _germanize_usage(command: click_core.Command) -> None:
    def format_usage(ctx: click_core.Context, formatter: Any) -> None:
        pieces = [_usage_piece(piece) for piece in command.collect_usage_pieces(ctx)]
        formatter.write_usage(ctx.command_path, " ".join(pieces), prefix=USAGE_PREFIX)

    command.format_usage = format_usage  # type: ignore[method-assign]


def _german_panels() -> None:
    import typer.rich_utils

    typer.rich_utils.OPTIONS_PANEL_TITLE = "Optionen"
    typer.rich_utils.COMMANDS_PANEL_TITLE = "Befehle"
    typer.rich_utils.ARGUMENTS_PANEL_TITLE = "Argumente"
    typer.rich_utils.ERRORS_PANEL_TITLE = "Fehler"
    typer.rich_utils.DEFAULT_STRING = "[Standard: {}]"
    typer.rich_utils.REQUIRED_LONG_STRING = "[Pflicht]"


def _germanize_panels(command: click_core.Command) -> None:
    original = command.format_help

    def format_help(ctx: click_core.Context, formatter: Any) -> None:
        _german_panels()
        original(ctx, formatter)

    command.format_help = format_help  # type: ignore[method-assign]


# A single newline inside a paragraph of a docstring is the source's line length, not a break
# the reader should see: the command list would show it ("(ohne Modellnamen und" alone).
_SOFT_BREAK = re.compile(r"(?<=\S)[ \t]*\n[ \t]*(?=\S)")


def _prose(text: str | None) -> str | None:
    return None if text is None else _SOFT_BREAK.sub(" ", inspect.cleandoc(text))


def germanize(command: click_core.Command) -> click_core.Command:
    """``command`` and its subcommands with German help pages (changed in place)."""
    ctx = click_core.Context(command)
    command.help = _prose(command.help)
    command.options_metavar = OPTIONS_METAVAR
    for param in command.params:
        _germanize_param(param, ctx)
    _germanize_help_option(command)
    _germanize_usage(command)
    _germanize_panels(command)
    if isinstance(command, TyperGroup):
        command.subcommand_metavar = SUBCOMMAND_METAVAR
        for sub in command.commands.values():
            germanize(sub)
    return command
