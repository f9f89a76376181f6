"""``touchstone show RUN PROMPT_ID``: the answers of one prompt, their verdicts and the judge's
raw replies as judge-replies.jsonl keeps them (design.md §26). Everything printed comes from
the run dir: through the plain console (control characters written out, no markup read)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.padding import Padding
from rich.rule import Rule
from rich.text import Text

from touchstone.cli.app import app
from touchstone.cli.ui import handled, show_warnings, stdout
from touchstone.german import count, counted, cut, number, seconds
from touchstone.plain import plain
from touchstone.results import unscored_label
from touchstone.stages.show import ShownCell, prompt_cells
from touchstone.stages.view import load_run

# An answer is read for context here (the whole is in the GUI and verdicts.csv).
ANSWER_SHOWN = 2000


@app.command()
def show(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="Run-Verzeichnis.")],
    prompt_id: Annotated[str, typer.Argument(metavar="PROMPT_ID", help="ID des Prompts.")],
    model: Annotated[
        str | None, typer.Option("--model", help="Nur dieses Modell (Standard: alle).")
    ] = None,
    variant: Annotated[
        str | None, typer.Option("--variant", help="Nur diese Variante (Standard: alle).")
    ] = None,
    repeat: Annotated[
        int | None,
        typer.Option("--repeat", help="Nur diese Wiederholung (1, 2, …; Standard: alle)."),
    ] = None,
) -> None:
    """Zeigt zu einem Prompt je Antwort die Bewertung und die Rohantwort des Judges."""
    with handled():
        view = load_run(run_dir)
        cells = prompt_cells(view, prompt_id, model=model, variant=variant, repeat=repeat)
        show_warnings(view.run_dir.warnings)
        if not cells:
            stdout.print(f"Keine Antworten zu „{prompt_id}“ in diesem Run (mit diesen Filtern).")
            return
        for cell in cells:
            _print_cell(cell)
        stdout.print(f"{counted(len(cells), 'Antwort', 'Antworten')} zu „{prompt_id}“.")


def _print_cell(cell: ShownCell) -> None:
    answer, verdict = cell.answer, cell.verdict
    title = f"{answer.model} · {answer.variant} · Wiederholung {answer.repeat}"
    stdout.print(Rule(plain(title, "bold"), align="left"))
    facts = [seconds(answer.latency_s)] if answer.latency_s else []
    if answer.finish_reason:
        facts.append(f"finish_reason: {answer.finish_reason}")
    head = "Antwort" if answer.ok else "Fehler des Modells"
    stdout.print(Text.assemble((head, "bold"), plain(f" ({', '.join(facts)})" if facts else "")))
    _block(cut(answer.response_text if answer.ok else answer.error, ANSWER_SHOWN))
    if verdict is None:
        stdout.print(Text("noch nicht bewertet", style="dim"))
        return
    if verdict.unscored:
        line = Text.assemble(("⚠ ", "yellow"), plain(unscored_label(verdict)))
    else:
        score = count(verdict.score) if isinstance(verdict.score, int) else number(verdict.score)
        flag = ("⚑ Warnsignal", "red") if verdict.red_flag else ("kein Warnsignal", "")
        line = Text.assemble("Wertung ", (score, "bold"), " · ", flag)
    line.append_text(plain(f" · {verdict.judge_model}" + (" (Cache)" if verdict.cached else "")))
    stdout.print(line)
    if verdict.rationale:
        stdout.print(Text.assemble(("Begründung: ", "bold"), plain(verdict.rationale)))
    for judge, reply, judged in cell.replies:
        header = Text.assemble(("Rohantwort", "bold"), plain(f" von Judge {judge}"))
        if reply is None:
            stdout.print(header)
            if not judged:
                why = "dieses Jury-Mitglied gab zu der Antwort kein Urteil."
            elif verdict.cached:
                why = "die Bewertung kam aus dem Bewertungs-Cache, ohne Aufruf in diesem Run."
            else:
                why = "bewertet vor judge-replies.jsonl (ältere touchstone-Version)."
            stdout.print(Text(f"  Nicht gespeichert: {why}", style="dim"))
            continue
        reason = f", finish_reason: {reply.finish_reason}" if reply.finish_reason else ""
        header.append_text(plain(f" ({count(len(reply.reply))} Zeichen{reason})"))
        stdout.print(header)
        _block(reply.reply)
        if reply.cut:
            stdout.print(
                Text("  Gekürzt: gespeichert sind die ersten 16 KB der Antwort.", style="yellow")
            )


def _block(text: str) -> None:
    """``text`` indented by two, wrapped to the terminal, long words folded."""
    stdout.print(Padding(plain(text), (0, 0, 0, 2)), overflow="fold")
