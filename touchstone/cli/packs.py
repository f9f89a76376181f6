"""``touchstone pack check`` and ``pack import``: packs that can decide (design.md §20)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from touchstone import started
from touchstone.cli.ui import handled, show_warnings, stderr, stdout
from touchstone.errors import InputError
from touchstone.german import counted
from touchstone.pack import load_pack
from touchstone.stages.view import load_run
from touchstone.store import atomic_write_text

pack_app = typer.Typer(
    help="Pakete prüfen und aus CSV/JSONL anlegen.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@pack_app.command("check")
def pack_check(
    pack: Annotated[Path, typer.Argument(metavar="PAKET", help="Paket (YAML).")],
    run: Annotated[
        Path | None,
        typer.Option(
            "--run",
            help="Run-Verzeichnis: dessen gemessene Streuung statt der typischen (Standard: "
            "die typische).",
        ),
    ] = None,
    json_path: Annotated[
        Path | None,
        typer.Option(
            "--json",
            help="Die Prüfung als JSON in diese Datei schreiben (Standard: keine Datei).",
        ),
    ] = None,
) -> None:
    """Prüft ein Paket und sagt, welche Unterschiede es trennt: Exit 0 brauchbar, 1 Fehler."""
    # The pack tools load only for the ``pack`` commands: other commands start without them.
    from touchstone.packs.check import check
    from touchstone.packs.check_text import render_pack_check

    with handled():
        loaded = load_pack(pack)
        spread = None
        if run is not None:
            view = load_run(run)
            show_warnings(view.run_dir.warnings)
            resolution = view.scorecard().resolution
            if resolution is None:
                raise InputError(
                    f"Im Run {run} teilen keine zwei Zeilen (Modell · Variante) mindestens 2 "
                    "bewertete Prompts: seine Streuung ist nicht messbar. Ohne --run rechnet "
                    "pack check mit einer typischen Streuung."
                )
            spread = resolution.spread
        result = check(loaded, spread, run=str(run or ""))
        if json_path is not None:
            text = json.dumps(result.as_dict(), ensure_ascii=False, indent=1) + "\n"
            atomic_write_text(json_path, text)
        stdout.print(render_pack_check(result))
    if not result.usable:
        raise typer.Exit(1)


@pack_app.command("import")
def pack_import(
    source: Annotated[
        Path, typer.Argument(metavar="QUELLE", help="CSV- oder JSONL-Datei mit den Prompts.")
    ],
    out: Annotated[Path, typer.Option("--out", help="Das neue Paket (YAML).")],
    pack_id: Annotated[
        str | None, typer.Option("--id", help="Paket-ID (Standard: der Dateiname).")
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="Titel (Standard: die ID).")] = None,
    scale: Annotated[str, typer.Option("--scale", help="Skala, z. B. 0-5 oder 1..10.")] = "0-5",
    force: Annotated[bool, typer.Option("--force", help="Ein vorhandenes --out ersetzen.")] = False,
) -> None:
    """Legt aus CSV oder JSONL ein Paket an und prüft es: Exit 0 brauchbar, 1 Fehler im Paket."""
    from touchstone.packs.check import check
    from touchstone.packs.check_text import render_pack_check
    from touchstone.packs.importer import import_pack

    with handled():
        imported = import_pack(source, out, pack_id=pack_id, title=title, scale=scale, force=force)
        # The file as written: it must load like any pack.
        pack = load_pack(imported.out)
        stdout.print(
            f"Importiert: {counted(pack.prompt_count, 'Prompt', 'Prompts')} in "
            f"{counted(len(pack.categories), 'Kategorie', 'Kategorien')} nach {imported.out}."
        )
        result = check(pack)
        stdout.print(render_pack_check(result))
    if not result.usable:
        stderr.print(
            f"pack check meldet {counted(result.errors, 'Fehler', 'Fehler')} (oben): das Paket ist "
            f"geschrieben; bessern Sie {imported.out} nach und prüfen Sie mit "
            f"{started.command('pack check')} {imported.out}."
        )
        raise typer.Exit(1)
