"""The command line: the single place that turns exceptions into messages and exit codes.

Exit codes: 0 done, 1 aborted or cells left for a later run, 2 bad input, 130 Ctrl-C,
143 SIGTERM (the GUI's cancel). Progress goes to stderr, results (scorecard, paths) to
stdout, machine-readable events to ``--events PATH``.
"""

from __future__ import annotations

import enum
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from touchstone import __version__
from touchstone.answers import DEFAULT_CALL_TIMEOUT_S
from touchstone.engine import raise_terminated
from touchstone.errors import InputError, JudgeAborted, Terminated
from touchstone.events import EventLog, fan_out
from touchstone.results import UNSCORED_REASONS
from touchstone.scorecard import render_run_scorecard
from touchstone.stages import (
    JudgeOutcome,
    RunOutcome,
    execute_judge,
    execute_run,
    load_run,
    write_report,
)

app = typer.Typer(
    name="touchstone",
    help="LLMs an Aufgabenpaketen messen, bewertet von einem LLM-Judge.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# In a pipe (GUI jobs, CI logs) rich would assume 80 columns and squeeze the scorecard;
# soft_wrap keeps each message on one line there.
PIPE_WIDTH = 160
stdout = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else PIPE_WIDTH)
stderr = Console(
    stderr=True, highlight=False, soft_wrap=True, width=None if sys.stderr.isatty() else PIPE_WIDTH
)


def say_error(prefix: str, message: str) -> None:
    stderr.print(Text.assemble((prefix, "bold red"), " ", message))


@contextmanager
def handled(events_path: Path | None = None) -> Iterator[EventLog | None]:
    """Map expected failures to a message, an ``aborted`` event and an exit code.

    Opens the ``--events`` log (yielded) inside the guard, so that an unwritable events
    path is bad input like any other. Never a traceback for an expected failure.
    """
    code, prefix, message = 0, "", ""
    events: EventLog | None = None
    try:
        events = EventLog(events_path) if events_path is not None else None
        yield events
    except InputError as exc:
        code, prefix, message = 2, "Fehler:", str(exc)
    except JudgeAborted as exc:
        code, prefix, message = 1, "Judge abgebrochen:", str(exc)
        if exc.health_summary:
            stderr.print(exc.health_summary)
    except KeyboardInterrupt:
        code, prefix = 130, "Abgebrochen (Strg-C):"
        message = "alles bisher Gespeicherte bleibt erhalten."
    except Terminated:
        code, prefix = 143, "Beendet (SIGTERM):"
        message = "alles bisher Gespeicherte bleibt erhalten."
    finally:
        if events is not None:
            if code:
                events("aborted", {"message": f"{prefix} {message}", "exit_code": code})
            events.close()
    if code:
        say_error(prefix, message)
        raise typer.Exit(code)


class ProgressView:
    """Turns pipeline events into a rich progress bar on stderr."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.errors = 0
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            console=stderr,
            transient=False,
        )
        self.task = self.progress.add_task(label, total=None, note="")

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "start":
            self.progress.update(self.task, total=data.get("total"))
            done = data.get("already_done")
            if done is None and "todo" in data:
                done = int(data["total"]) - int(data["todo"])
            self.progress.update(self.task, completed=done or 0)
        elif kind == "progress":
            if data.get("outcome") != "done":
                self.progress.advance(self.task)
        elif kind == "judge_error":
            self.errors += 1
            self.progress.advance(self.task)
            self.progress.update(self.task, note=f"[yellow]⚠ {self.errors} Judge-Fehler")

    def __enter__(self) -> ProgressView:
        self.progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.progress.stop()


def show_judge_outcome(outcome: JudgeOutcome) -> None:
    stdout.print(
        render_run_scorecard(outcome.pack, outcome.responses, outcome.verdicts, outcome.reports)
    )
    stdout.print(f"{outcome.new_verdicts} neue Bewertungen gespeichert in {outcome.run_dir.path}.")
    stdout.print(outcome.health.summary_de())
    if outcome.judge_errors:
        stdout.print(
            Text(
                f"⚠ {outcome.cells_left} Zellen blieben wegen Judge-Fehlern unbewertet "
                f"({UNSCORED_REASONS['judge_error']}, nicht gespeichert). "
                f"`touchstone judge {outcome.run_dir.path}` bewertet sie beim nächsten Lauf "
                "(z. B. mit --model für ein anderes Judge-Modell).",
                style="yellow",
            )
        )


def show_warnings(warnings: list[str]) -> None:
    for warning in warnings:
        stderr.print(Text(f"Warnung: {warning}", style="yellow"))


def show_run_outcome(outcome: RunOutcome) -> None:
    summary = outcome.summary
    stdout.print(
        f"{summary.recorded} Antworten gespeichert in {outcome.run_dir.path} "
        f"({summary.already_done} waren schon da, {summary.failed_recorded} als Fehlschlag "
        f"erfasst, {summary.left} offen)."
    )
    for model, error in summary.stopped_models.items():
        say_error(f"Modell {model} gestoppt:", f"{error} – seine übrigen Zellen bleiben offen.")
    if summary.left:
        stdout.print(
            Text(
                f"⚠ {summary.left} Zellen offen (letzter Fehler: {summary.last_error}). "
                "Derselbe Befehl mit --out "
                f"{outcome.run_dir.path} holt sie nach.",
                style="yellow",
            )
        )


class RejudgeChoice(enum.StrEnum):
    none = "none"
    unscored = "unscored"
    all = "all"


EventsOption = Annotated[
    Path | None,
    typer.Option("--events", help="Fortschritt als JSON-Zeilen an diese Datei anhängen."),
]


@app.command()
def run(
    pack: Annotated[Path, typer.Option("--pack", help="Pfad zum Aufgabenpaket (YAML).")],
    model: Annotated[list[str], typer.Option("--model", help="Zu testendes Modell (mehrfach).")],
    variant: Annotated[
        list[str] | None, typer.Option("--variant", help="System-Prompt-Variante (mehrfach).")
    ] = None,
    repeats: Annotated[int, typer.Option("--repeats", help="Wiederholungen je Prompt.")] = 1,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-kompatibler Endpunkt.")
    ] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="API-Schlüssel.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Run-Verzeichnis.")] = None,
    call_timeout_s: Annotated[
        float, typer.Option("--call-timeout-s", help="Frist je Aufruf in Sekunden.")
    ] = DEFAULT_CALL_TIMEOUT_S,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", help="Obergrenze der Antwortlänge.")
    ] = None,
    events: EventsOption = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", help="Parallele Aufrufe an die Modelle.")
    ] = 1,
) -> None:
    """Jedes Modell beantwortet jeden Prompt des Pakets; Antworten landen im Run-Verzeichnis."""
    with handled(events) as event_log:
        with ProgressView("Antworten") as view:
            outcome = execute_run(
                pack_path=pack,
                models=model,
                out=out,
                variants=variant or [],
                repeats=repeats,
                base_url=base_url,
                api_key=api_key,
                call_timeout_s=call_timeout_s,
                max_tokens=max_tokens,
                on_event=fan_out(view, event_log),
                concurrency=concurrency,
            )
        show_warnings(outcome.run_dir.warnings)
        show_run_outcome(outcome)
    raise typer.Exit(0 if outcome.summary.complete else 1)


@app.command()
def judge(
    run_dir: Annotated[Path, typer.Argument(help="Run-Verzeichnis.")],
    config: Annotated[Path, typer.Option("--config", help="Judge-Konfiguration (YAML).")] = Path(
        "judge.yaml"
    ),
    model: Annotated[
        str | None, typer.Option("--model", help="Judge-Modell (überschreibt die Konfiguration).")
    ] = None,
    events: EventsOption = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency", help="Parallele Judge-Aufrufe (überschreibt die Konfiguration)."
        ),
    ] = None,
    rejudge: Annotated[
        RejudgeChoice,
        typer.Option(
            "--rejudge", help="none: nur offene Zellen; unscored: auch unbewertete; all: alle."
        ),
    ] = RejudgeChoice.none,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Den Verdict-Cache weder lesen noch füllen.")
    ] = False,
) -> None:
    """Bewertet alle noch unbewerteten Antworten eines Runs mit dem LLM-Judge."""
    with handled(events) as event_log:
        with ProgressView("Bewertungen") as view:
            outcome = execute_judge(
                run_dir,
                config=config,
                model=model,
                on_event=fan_out(view, event_log),
                concurrency=concurrency,
                rejudge=rejudge.value,
                use_cache=not no_cache,
            )
        show_warnings(outcome.run_dir.warnings)
        show_judge_outcome(outcome)


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="Run-Verzeichnis.")]) -> None:
    """Schreibt report.html (eigenständig, offline lesbar) und zeigt die Scorecard."""
    with handled():
        view = load_run(run_dir)
        path = write_report(view)
        show_warnings(view.run_dir.warnings)
        stdout.print(render_run_scorecard(view.pack, view.responses, view.verdicts, view.reports))
        stdout.print(f"Bericht: {path}")


@app.command()
def gui(
    runs_dir: Annotated[Path, typer.Option("--runs-dir", help="Verzeichnis der Runs.")] = Path(
        "runs"
    ),
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="0 = freier Port.")] = 8642,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Keinen Browser öffnen.")
    ] = False,
) -> None:
    """Startet die lokale Web-Oberfläche (Runs, Scorecards, Judge-Jobs)."""
    from touchstone.gui.server import serve

    with handled():
        serve(
            runs_dir=runs_dir,
            host=host,
            port=port,
            open_browser=not no_browser,
            announce=lambda url: stdout.print(f"touchstone-GUI: {url}  (Beenden mit Strg-C)"),
        )


@app.command()
def sim(
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port")] = 8765,
) -> None:
    """Startet den Simulator: einen OpenAI-kompatiblen Server mit simulierten Modellen."""
    from touchstone.sim import MODELS, SimServer

    with handled():
        try:
            server = SimServer(host, port)
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
