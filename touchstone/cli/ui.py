"""What the terminal shows: consoles, the error guard, progress, outcomes.

``handled`` is the single place where exceptions become messages and exit codes: 0 done,
1 aborted (or cells left for a later run), 2 bad input, 130 Ctrl-C, 143 SIGTERM (the GUI's
cancel). Progress goes to stderr, results (scorecard, paths) to stdout, machine-readable
events to ``--events PATH``. Every text from data or a server is printed with
``touchstone.plain`` (no markup read from it, no control character passed on).
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.text import Text

from touchstone import german, started
from touchstone.cli.open_cells import open_text
from touchstone.errors import (
    BudgetReached,
    InputError,
    JudgeAborted,
    JudgeUnfit,
    RunIncomplete,
    Terminated,
)
from touchstone.events import EventLog
from touchstone.german import count, counted
from touchstone.plain import clean, plain
from touchstone.results import UNSCORED_REASONS
from touchstone.scorecard.terminal import render_run_scorecard
from touchstone.spot.card import render_human_card

if TYPE_CHECKING:
    from touchstone.stages.judge.outcome import JudgeOutcome
    from touchstone.stages.run.run import RunOutcome
    from touchstone.transport.budget import Budget


class PlainConsole(Console):
    """A console that takes every string as plain text: no markup, no ``:emoji:`` codes, no
    highlighting, control characters written out. Styled output is built as ``Text``; a
    string with data in it (a name, a path, a server's message) is never read as markup."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(markup=False, emoji=False, highlight=False, **kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        # Every string printed, and every string cell of a table, passes here.
        return super().render_str(clean(text), **kwargs)


# In a pipe (GUI jobs, CI logs) rich would assume 80 columns and squeeze the scorecard;
# soft_wrap keeps each message on one line there, to be searched. On a terminal rich wraps
# prose at words (the terminal itself would break it inside a word) and tables fit its width.
PIPE_WIDTH = 160


def console_for(*, terminal: bool, **options: Any) -> PlainConsole:
    """A console for a terminal (its width, prose wrapped at words) or a pipe (160 columns,
    each message on one line)."""
    options.setdefault("width", None if terminal else PIPE_WIDTH)
    return PlainConsole(soft_wrap=not terminal, **options)


stdout = console_for(terminal=sys.stdout.isatty())
stderr = console_for(terminal=sys.stderr.isatty(), stderr=True)


@contextmanager
def honour_columns(columns: str | None) -> Iterator[None]:
    """An explicit ``COLUMNS`` sets the width of a console that writes to a pipe, as rich does
    (issue 36): the pipe then gets what a terminal of that width shows, prose wrapped at words
    and a word longer than the line (a long path) folded at the width. ``main`` holds it for
    one command, never at import, and puts the consoles back after it: an in-process test
    must not inherit another test's width. A value that is no positive number is ignored, as
    rich ignores it."""
    kept = [(console, console.width, console.soft_wrap) for console in (stdout, stderr)]
    if columns and columns.isdigit() and int(columns) > 0:
        for console, stream in ((stdout, sys.stdout), (stderr, sys.stderr)):
            if not stream.isatty():
                console.width = int(columns)
                console.soft_wrap = False
    try:
        yield
    finally:
        for console, width, soft_wrap in kept:
            console.width = width
            console.soft_wrap = soft_wrap


_OS_REASONS = {
    errno.EACCES: "keine Schreib- oder Leseberechtigung",
    errno.EPERM: "keine Schreib- oder Leseberechtigung",
    errno.EROFS: "das Dateisystem ist schreibgeschützt",
    errno.ENOSPC: "der Datenträger ist voll",
    errno.EFBIG: "die Datei darf nicht weiter wachsen (Datenträger voll oder Grenze erreicht)",
    errno.ENOENT: "nicht gefunden",
    errno.ENOTDIR: "ein Teil des Pfads ist kein Verzeichnis",
    errno.EISDIR: "ist ein Verzeichnis",
}
if hasattr(errno, "EDQUOT"):
    _OS_REASONS[errno.EDQUOT] = "das Speicherkontingent ist erschöpft"


def os_error_message(exc: OSError) -> str:
    """A failing machine in one German sentence, naming the path."""
    reason = _OS_REASONS.get(exc.errno or -1, exc.strerror or str(exc))
    path = exc.filename or "(unbekannter Pfad)"
    return f"{path}: {reason}. Bereits Gespeichertes bleibt unverändert."


def say_error(prefix: str, message: str) -> None:
    stderr.print(Text.assemble((prefix, "bold red"), " ", plain(message)))


@contextmanager
def handled(
    events_path: Path | None = None, *, resume: Callable[[], str] | None = None
) -> Iterator[EventLog | None]:
    """Map expected failures to a message, an ``aborted`` event and an exit code.

    Opens the ``--events`` log (yielded) inside the guard, so that an unwritable events
    path is bad input like any other. Never a traceback for an expected failure.
    ``resume``: after Ctrl-C, how the command goes on ("" when there is nothing to say yet).
    """
    code, prefix, message = 0, "", ""
    # How the command ended, and its facts, for the ``aborted`` event (``touchstone.events``).
    ending, facts = "", dict[str, object]()
    events: EventLog | None = None
    events_error: OSError | None = None
    try:
        events = EventLog(events_path) if events_path is not None else None
        yield events
    except InputError as exc:
        code, prefix, message, ending = 2, "Fehler:", str(exc), "input"
    except BudgetReached as exc:
        # Stops like the breaker: "Budget erreicht: 4,98 von 5,00 (…)", resumable.
        code, prefix, ending = 1, "Budget erreicht:", "budget_reached"
        message = str(exc).removeprefix(prefix).strip()
        facts = dict(exc.facts)
        if exc.health_summary:
            stderr.print(plain(exc.health_summary))
    except JudgeAborted as exc:
        code, prefix, message, ending = 1, "Judge abgebrochen:", str(exc), "judge_stopped"
        facts = dict(exc.facts)
        if exc.health_summary:
            stderr.print(plain(exc.health_summary))
    except RunIncomplete as exc:
        code, prefix, message, ending = 1, "Run unvollständig:", str(exc), "run_incomplete"
        facts = dict(exc.facts)
    except JudgeUnfit as exc:
        code, prefix, message, ending = 1, "Judge-Check:", str(exc), "judge_unfit"
        facts = dict(exc.facts)
    except OSError as exc:
        # What reaches here is the machine failing (a read-only or full disk): the calls
        # map their own network errors to kinds long before.
        code, prefix, message, ending = 2, "Fehler:", os_error_message(exc), "system"
    except KeyboardInterrupt:
        code, prefix, ending = 130, "Abgebrochen (Strg-C):", "cancelled"
        how = resume() if resume is not None else ""
        message = " ".join(("alles bisher Gespeicherte bleibt erhalten.", how)).strip()
    except Terminated:
        code, prefix, ending = 143, "Beendet (SIGTERM):", "cancelled"
        message = "alles bisher Gespeicherte bleibt erhalten."
    finally:
        if events is not None:
            ended = {"message": f"{prefix} {message}", "exit_code": code, "ending": ending}
            events_error = _close_events(events, code, {**facts, **ended})
    if code:
        say_error(prefix, message)
    if events_error is not None:
        say_error("Fehler:", os_error_message(events_error))
        code = code or 2
    if code:
        raise typer.Exit(code)


def _close_events(events: EventLog, code: int, ended: dict[str, Any]) -> OSError | None:
    """Write the ``aborted`` event (after a failure, with ``ended``'s fields) and close the log.

    An events file that fails here (the disk filled up meanwhile) is returned, to be said
    after the failure that ended the command, never raised over it. A log that broke before
    has had its say: that failure ended the command.
    """
    error: OSError | None = None
    if code and events.broken is None:
        try:
            events("aborted", ended)
        except OSError as exc:
            error = exc
    try:
        events.close()
    except OSError as exc:
        error = error or exc
    return error


def show_judge_outcome(outcome: JudgeOutcome) -> None:
    stdout.print(render_run_scorecard(outcome.pack, outcome.card))
    new = german.counted(outcome.new_verdicts, "neue Bewertung", "neue Bewertungen")
    cached = (
        f"; davon {german.count(outcome.from_cache)} aus dem Bewertungs-Cache (gleiche Antwort, "
        "gleicher Judge)"
        if outcome.from_cache
        else ""
    )
    stdout.print(plain(f"{new} gespeichert in {outcome.run_dir.path}{cached}."))
    if outcome.stale:
        stdout.print(
            f"{german.counted(outcome.stale, 'Bewertung', 'Bewertungen')} veraltet (die Rubrik "
            "im Paket hat sich geändert): diese Zellen wurden neu bewertet."
        )
    if outcome.kept:
        kept = german.counted(outcome.kept, "bisherige Bewertung", "bisherige Bewertungen")
        stdout.print(
            plain(
                f"{kept} behalten: die neue Bewertung war "
                "fehlgeschlagen oder unlesbar, und eine Bewertung wird nie durch eine "
                "schlechtere ersetzt.",
                style="yellow",
            )
        )
    if outcome.jury_lines:  # a jury: each member's calls, or why it was dropped
        for line in outcome.jury_lines:
            stdout.print(plain(line, style="yellow" if line.startswith("⚠") else ""))
    else:
        stdout.print(plain(outcome.health.summary_de()))
    if outcome.budget is not None:
        stdout.print(plain(outcome.budget.summary_de()))
    if outcome.agreement is not None:
        stdout.print(plain(outcome.agreement.summary_de()))
    if outcome.human is not None:
        stdout.print(render_human_card(outcome.human))
    unreadable = outcome.health.unparseable
    if unreadable:
        stdout.print(
            german.counted(unreadable, "Antwort des Judges war", "Antworten des Judges waren")
            + " unlesbar; `--rejudge unscored` bewertet "
            + ("diese Zelle" if unreadable == 1 else "diese Zellen")
            + " erneut."
        )
    left = outcome.cells_left
    if left:
        stdout.print(
            plain(
                f"⚠ {german.counted(left, 'Zelle blieb', 'Zellen blieben')} wegen Judge-Fehlern "
                f"unbewertet ({UNSCORED_REASONS['judge_error']}, nicht gespeichert). "
                f"`{started.command('judge')} {outcome.run_dir.path}` bewertet sie beim nächsten "
                "Durchgang "
                "(z. B. mit --model für ein anderes Judge-Modell).",
                style="yellow",
            )
        )
    if outcome.refused:
        stdout.print(
            plain(
                f"⚠ {counted(outcome.refused, 'Zelle', 'Zellen')} lehnte der Inhaltsfilter des "
                f"Judges ab: gespeichert als unbewertet ({UNSCORED_REASONS['judge_refused']}). "
                f"`{started.command('judge')} {outcome.run_dir.path}` fragt sie beim nächsten "
                "Durchgang erneut "
                "(z. B. mit --model für ein anderes Judge-Modell).",
                style="yellow",
            )
        )


def show_warnings(warnings: list[str]) -> None:
    for warning in warnings:
        stderr.print(plain(f"Warnung: {warning}", style="yellow"))


def show_open_in_run(outcome: RunOutcome) -> None:
    """Cells run.json plans beyond what this call asked for (a subset resumed, a run
    extended for other models): the call's own "offen" does not count them."""
    beyond = sum(outcome.open_in_run.values()) - outcome.summary.left
    if beyond <= 0:
        return
    listed = ", ".join(f"{model} {count}" for model, count in outcome.open_in_run.items())
    stdout.print(
        plain(
            f"Im Run noch ohne Antwort (laut run.json): {listed}. `{started.command('run')}` mit "
            f"--out {outcome.run_dir.path} und diesen Modellen, ohne --variant und --repeats, "
            "holt sie nach.",
            style="yellow",
        )
    )


def _over_budget(outcome: RunOutcome, budget: Budget) -> str:
    """What a run stopped by its budget left, and the command that goes on."""
    not_started = counted(outcome.summary.over_budget, "Zelle", "Zellen")
    text = f"{budget.message()} {not_started} nicht gestartet, alles Gespeicherte bleibt."
    # run.json remembers the models asked (asked_models): the same command resumes them all.
    return f"{text} Derselbe Befehl mit --out {outcome.run_dir.path} holt sie nach."


def show_run_outcome(outcome: RunOutcome) -> None:
    """What the run did; ``RunIncomplete`` (exit 1, the reason as message) if cells are left."""
    summary = outcome.summary
    budget = summary.budget
    stopped_by_budget = budget is not None and budget.reached
    if outcome.removed:
        # ``outcome.unfinished`` (the RunIncomplete below) says it first; only the budget's
        # stop has other words.
        if stopped_by_budget:
            stdout.print(
                plain(
                    f"Keine Antwort erhalten ({count(summary.left)} offen): das neue "
                    f"Run-Verzeichnis {outcome.run_dir.path} ist wieder entfernt."
                )
            )
    else:
        calls = summary.left - summary.skipped - summary.over_budget
        failed = counted(
            summary.failed_recorded, "fehlgeschlagene Antwort", "fehlgeschlagene Antworten"
        )
        stdout.print(
            plain(
                f"{counted(summary.recorded, 'Antwort', 'Antworten')} gespeichert in "
                f"{outcome.run_dir.path} ({count(summary.already_done)} "
                f"{'war' if summary.already_done == 1 else 'waren'} schon da, "
                f"{failed}, "
                f"{open_text(calls, summary.skipped, summary.over_budget)})."
            )
        )
    if budget is not None and stopped_by_budget:
        raise budget.error(_over_budget(outcome, budget))
    if budget is not None:
        stdout.print(plain(budget.summary_de()))
    if not summary.complete:
        error = RunIncomplete(outcome.unfinished())
        error.facts = outcome.facts()
        raise error
    stdout.print(
        plain(
            f"Als Nächstes: die Antworten bewerten mit `{started.command('judge')} "
            f"{outcome.run_dir.path} --config judge.yaml` (Vorlage: judge.example.yaml)."
        )
    )
