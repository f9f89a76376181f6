"""``rate``: the human spot check in the terminal (design.md §17).

Blind: each cell shows the task, its expectations and red flags and the answer, never the
model's name nor the judge's verdict (the model's reasoning is left out: it is not what the
judge scores). The person gives a score on the pack's scale, a red flag (j/n) and an
optional note; ``s`` skips a cell, ``z`` goes back to the one before (its new rating
replaces the old: the last line of a rater and cell wins), ``q`` (or the end of input) quits,
keeping what was rated. Each rating is stored as it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from touchstone import german, started
from touchstone.cli.app import app
from touchstone.cli.rate_text import bullets, prose
from touchstone.cli.ui import handled, show_warnings, stdout
from touchstone.errors import InputError
from touchstone.pack import Scale
from touchstone.plain import plain
from touchstone.results import VerdictKey
from touchstone.spot.card import render_human_card
from touchstone.spot.sample import DEFAULT_SAMPLE
from touchstone.stages.spot_check import (
    BACK,
    QUIT,
    SKIP,
    Decision,
    Rated,
    SpotCell,
    rate_cells,
    spot_cells,
)
from touchstone.stages.view import load_run
from touchstone.store.ratings import checked_rater, default_rater

# An answer longer than this is cut in the terminal (the GUI shows it whole).
ANSWER_SHOWN = 20_000
Ask = Callable[[str], str]


def _bullets(title: str, items: list[str]) -> list[RenderableType]:
    return [Text("\n" + title, style="bold"), bullets(items)]


def cell_view(cell: SpotCell) -> Panel:
    """One cell as the person sees it: no model, no variant, no verdict. The pack's text as
    paragraphs (``rate_text``), a wrapped bullet indented under its text."""
    prompt = cell.prompt
    parts: list[RenderableType] = [Text("Aufgabe", style="bold"), prose(prompt.text)]
    if prompt.expectations:
        parts += _bullets("Erwartungen", prompt.expectations)
    if prompt.red_flags:
        parts += _bullets("Warnsignale", prompt.red_flags)
    answer = cell.answer.strip()
    parts.append(Text("\nAntwort", style="bold"))
    if len(answer) > ANSWER_SHOWN:
        rest = german.counted(len(answer), "Zeichen", "Zeichen")
        answer = answer[:ANSWER_SHOWN] + f"\n… (gekürzt; die ganze Antwort hat {rest})"
    parts.append(plain(answer) if answer else Text("(leere Antwort)", style="dim"))
    if cell.reasoning_chars:
        chars = german.counted(cell.reasoning_chars, "Zeichen", "Zeichen")
        parts.append(Text(f"(Reasoning des Modells: {chars}, ausgeblendet)", style="dim"))
    return Panel(Group(*parts), title=_title(cell), title_align="left")


def _title(cell: SpotCell) -> str:
    return f"Zelle {cell.position} von {cell.total}"


def _reminder(cell: SpotCell, width: int) -> Text:
    """Above the prompt of a cell taller than the screen, whose header scrolled away: which
    cell this is and its task's first words, on one line."""
    head = f"— {_title(cell)} · Aufgabe: "
    room = max(width - len(head) - 2, 10)
    task = " ".join(cell.prompt.text.split())
    task = task if len(task) <= room else task[:room].rstrip() + " …"
    return plain(head + task, style="bold")


def terminal_decide(console: Console, scale: Scale, ask: Ask) -> Callable[[SpotCell], Decision]:
    """The terminal's questions for one cell; a wrong entry is asked again. ``z`` goes back
    to the cell before (rated again, the new rating replaces the old one)."""
    score_prompt = f"Wertung ({scale.min}–{scale.max}; z = zurück, s = überspringen, q = beenden): "
    shown: list[VerdictKey] = []

    def decide(cell: SpotCell) -> Decision:
        if cell.key not in shown:
            shown.append(cell.key)
        view = cell_view(cell)
        console.print()
        console.print(view)
        if len(console.render_lines(view, pad=False)) > console.height - 4:
            console.print(_reminder(cell, console.width))
        while True:
            entry = _read(ask, score_prompt).strip().lower()
            if entry in ("q", QUIT):
                return QUIT
            if entry == "s":
                return SKIP
            if entry == "z":
                if shown.index(cell.key) > 0:
                    return BACK
                console.print("Keine Zelle davor: dies ist die erste dieser Sitzung.")
                continue
            try:
                score = int(entry)
            except ValueError:
                score = scale.min - 1
            if scale.min <= score <= scale.max:
                break
            console.print(
                plain(f"Bitte eine ganze Zahl von {scale.min} bis {scale.max}, z, s oder q.")
            )
        while True:
            flag = _read(ask, "Warnsignal? (j/n, Enter = n): ").strip().lower()
            if flag in ("", "n", "nein", "j", "ja", "y"):
                break
            console.print("Bitte j oder n.")
        note = _read(ask, "Notiz (optional, Enter = keine): ").strip()
        console.print(Text("gespeichert", style="green"))
        return Rated(score=score, red_flag=flag in ("j", "ja", "y"), note=note)

    return decide


def _read(ask: Ask, prompt: str) -> str:
    """The person's entry; the end of input quits like ``q``."""
    try:
        return ask(prompt)
    except EOFError:
        return "q"


@app.command()
def rate(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="Run-Verzeichnis.")],
    n: Annotated[
        int,
        typer.Option(
            "--n",
            help="Größe der Stichprobe; mehr erweitert dieselbe Stichprobe (die ersten 30 von "
            "60 sind die 30).",
        ),
    ] = DEFAULT_SAMPLE,
    rater: Annotated[
        str | None,
        typer.Option(
            "--rater", help="Wer bewertet (Standard: der Name des Benutzers im Betriebssystem)."
        ),
    ] = None,
) -> None:
    """Stichprobe bewerten: Antworten eines Runs blind selbst bewerten (ohne Modellnamen und
    ohne die Wertung des Judges); danach zeigt touchstone, wie weit der Judge mit Ihnen
    übereinstimmt."""
    with handled():
        run_spot_check(run_dir, n=n, rater=rater, console=stdout, ask=stdout.input)


def run_spot_check(run_dir: Path, *, n: int, rater: str | None, console: Console, ask: Ask) -> None:
    """``rate`` without Typer: the session, then the agreement card."""
    if not 1 <= n <= 100_000:
        raise InputError(f"--n muss zwischen 1 und 100.000 liegen, nicht {n}.")
    name = checked_rater(rater) if rater is not None else default_rater()
    view = load_run(run_dir)
    ratings = view.ratings()
    # A jury's disputed cells first: where the judges disagree, a person's word counts most.
    jury = view.scorecard().jury_card if view.manifest.jury else None
    disputed = jury.disputed if jury is not None else None
    cells = spot_cells(
        view.pack, view.responses, view.verdicts, ratings, rater=name, n=n, disputed=disputed
    )
    show_warnings(view.run_dir.warnings)
    if not any(v.scored for v in view.verdicts):
        raise InputError(
            f"Keine bewerteten Antworten in {view.run_dir.path}: die Stichprobe vergleicht Ihre "
            f"Wertung mit der des Judges, also zuerst `{started.command('judge')} "
            f"{view.run_dir.path}`."
        )
    saved = 0
    if not cells:
        console.print(plain(f"Alle Zellen der Stichprobe (bis {n}) hat {name} schon bewertet."))
    else:
        done = cells[0].total - len(cells)
        console.print(
            plain(
                f"Stichprobe für {name}: {german.counted(len(cells), 'Zelle', 'Zellen')} zu "
                f"bewerten{f' ({done} schon bewertet)' if done > 0 else ''}. Blind: ohne "
                "Modellnamen und ohne die Wertung des Judges. Jede Wertung wird sofort "
                "gespeichert; q beendet."
            )
        )
        tally = rate_cells(
            view.run_dir,
            view.pack,
            cells,
            rater=name,
            decide=terminal_decide(console, view.pack.scale, ask),
        )
        console.print()
        console.print(
            plain(
                f"{german.counted(tally.saved, 'Wertung', 'Wertungen')} gespeichert in "
                f"{view.run_dir.file('human.jsonl')}"
                + (f", {tally.skipped} übersprungen" if tally.skipped else "")
                + "."
            )
        )
        saved = tally.saved
    # The ratings read at the start, unless some were added: a big human.jsonl read once.
    card = view.human(None if saved else ratings)
    if card is not None:
        console.print(render_human_card(card))
