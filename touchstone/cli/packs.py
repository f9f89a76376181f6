"""``touchstone pack check`` and ``pack import``: packs that can decide (DESIGN §20)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from touchstone.cli.ui import handled, show_warnings, stdout
from touchstone.errors import InputError
from touchstone.pack import load_pack
from touchstone.packs.check import check
from touchstone.packs.terminal import render_pack_check
from touchstone.stages.view import load_run

pack_app = typer.Typer(
    help="Pakete prüfen und aus CSV/JSONL anlegen.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@pack_app.command("check")
def pack_check(
    pack: Annotated[Path, typer.Argument(help="Paket (YAML).")],
    run: Annotated[
        Path | None,
        typer.Option(
            "--run", help="Run-Verzeichnis: dessen gemessene Streuung statt der typischen."
        ),
    ] = None,
) -> None:
    """Prüft ein Paket: Befunde und kleinster trennbarer Unterschied. Exit 0 brauchbar, 1
    Fehler im Paket, 2 ungültige Eingabe."""
    with handled():
        loaded = load_pack(pack)
        spread = None
        if run is not None:
            view = load_run(run)
            show_warnings(view.run_dir.warnings)
            resolution = view.scorecard().resolution
            if resolution is None:
                raise InputError(
                    f"Im Lauf {run} teilen keine zwei Zeilen (Modell · Variante) mindestens 2 "
                    "bewertete Prompts: seine Streuung ist nicht messbar. Ohne --run rechnet "
                    "pack check mit einer typischen Streuung."
                )
            spread = resolution.spread
        result = check(loaded, spread, run=str(run or ""))
        stdout.print(render_pack_check(result))
    if not result.usable:
        raise typer.Exit(1)
