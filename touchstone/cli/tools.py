"""The tool commands: ``gui``, ``sim``, ``demo``, ``cache``."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer

from touchstone.cli.app import app
from touchstone.cli.progress_bar import ProgressView
from touchstone.cli.ui import handled, stderr, stdout
from touchstone.errors import InputError
from touchstone.german import count, counted, number
from touchstone.limits import MAX_AGE_DAYS, check_count, check_port, check_range, decimal
from touchstone.store.verdict_cache import cache_stats, clear_cache, default_cache_path


@app.command()
def gui(
    runs_dir: Annotated[Path, typer.Option("--runs-dir", help="Verzeichnis der Runs.")] = Path(
        "runs"
    ),
    host: Annotated[
        str, typer.Option("--host", help="Adresse, an der die GUI lauscht (nur lokal).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port der GUI; 0 = freier Port.")] = 8642,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Keinen Browser öffnen.")
    ] = False,
) -> None:
    """Startet die lokale Web-Oberfläche (Runs, Scorecards, Judge-Jobs)."""
    from touchstone.gui.server import serve

    with handled():
        check_port("--port", port)
        serve(
            runs_dir=runs_dir,
            host=host,
            port=port,
            open_browser=not no_browser,
            announce=lambda url: stdout.print(f"touchstone-GUI: {url}  (Beenden mit Strg-C)"),
        )


@app.command()
def sim(
    host: Annotated[
        str, typer.Option("--host", help="Adresse, an der der Simulator lauscht.")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", help="Port des Simulators; 0 = freier Port.")
    ] = 8765,
    capacity: Annotated[
        int | None,
        typer.Option(
            "--capacity",
            help="Höchstens so viele Aufrufe gleichzeitig, sonst 429 (Rate-Limit; Standard: "
            "unbegrenzt).",
        ),
    ] = None,
) -> None:
    """Startet den Simulator: einen OpenAI-kompatiblen Server mit simulierten Modellen."""
    from touchstone.sim import MODELS, SimServer

    with handled():
        check_port("--port", port)
        if capacity is not None:
            check_count("--capacity", capacity, 1, 10_000)
        try:
            server = SimServer(host, port, capacity=capacity)
        except OSError as exc:
            raise InputError(f"Simulator kann {host}:{port} nicht belegen: {exc}") from exc
        stdout.print(f"touchstone-Simulator (simulierte Modelle) auf {server.base_url}")
        stdout.print(f"Modelle: {', '.join(MODELS)}")
        stdout.print("Beenden mit Strg-C.")
        server.serve_forever()


@app.command()
def demo(
    runs_dir: Annotated[Path, typer.Option("--runs-dir", help="Wohin der Demo-Run kommt.")] = Path(
        "runs"
    ),
) -> None:
    """Komplett-Durchlauf auf dem eingebauten Simulator: Run, Judge-Schutz, Judge, Bericht."""
    from touchstone.demo import run_demo

    with handled():
        run_demo(runs_dir, out=stdout, err=stderr, progress=ProgressView)


cache_app = typer.Typer(
    help="Der Bewertungs-Cache (wiederverwendete Bewertungen desselben Judges).",
    no_args_is_help=True,
)
app.add_typer(cache_app, name="cache")


@cache_app.command("stats")
def cache_stats_command() -> None:
    """Zeigt, was der Bewertungs-Cache enthält."""
    with handled():
        path = default_cache_path()
        stats = cache_stats(path)
        stdout.print(f"Bewertungs-Cache: {stats.path}")
        if not stats.entries:
            stdout.print("0 Einträge.")
            return
        oldest = _day(stats.oldest)
        newest = _day(stats.newest)
        size_mb = stats.size_bytes / 1_000_000
        stdout.print(
            f"{counted(stats.entries, 'Eintrag', 'Einträge')} ({number(size_mb, 1)} MB), "
            f"ältester vom {oldest}, "
            f"jüngster vom {newest}."
        )
        judges = ", ".join(f"{judge} ({count(n)})" for judge, n in stats.by_judge)
        stdout.print(f"Judge-Modelle: {judges}")


@cache_app.command("clear")
def cache_clear_command(
    older_than: Annotated[
        float | None,
        typer.Option(
            "--older-than",
            parser=decimal,
            help="Nur Einträge löschen, die älter sind (Tage; Standard: alle löschen).",
        ),
    ] = None,
) -> None:
    """Löscht Einträge des Bewertungs-Caches (alle oder die älteren)."""
    with handled():
        if older_than is not None:
            check_range("--older-than", older_than, 0, MAX_AGE_DAYS, note="Tage")
        path = default_cache_path()
        deleted = clear_cache(path, older_than_days=older_than)
        stdout.print(f"{counted(deleted, 'Eintrag', 'Einträge')} gelöscht ({path}).")


def _day(timestamp: float | None) -> str:
    if timestamp is None:
        return "–"
    return dt.datetime.fromtimestamp(timestamp).strftime("%d.%m.%Y")
