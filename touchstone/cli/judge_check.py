"""``judge-check``: know a judge before paying for a run with it (design.md §14)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from touchstone.cli.app import app
from touchstone.cli.pipeline import ConfigOption, EventsOption, JudgeModelOption
from touchstone.cli.progress_bar import ProgressView
from touchstone.cli.ui import handled, stderr, stdout
from touchstone.errors import JudgeUnfit
from touchstone.events import fan_out
from touchstone.jury.config import JuryConfig, load_config, no_model_override
from touchstone.limits import MAX_PROBES

if TYPE_CHECKING:
    from touchstone.quality.fitness import FitnessCard


@app.command(
    "judge-check",
    help=f"Prüft mit höchstens {MAX_PROBES} Proben, ob ein Judge taugt: Exit 0 geeignet, "
    "1 ungeeignet.",
)
def judge_check(
    run_dir: Annotated[
        Path | None,
        typer.Argument(metavar="RUN", help="Run-Verzeichnis: dessen Paket liefert die Proben."),
    ] = None,
    pack: Annotated[
        Path | None,
        typer.Option(
            "--pack",
            help="Paket (mit Referenzantworten und Gegenbeispielen; Standard: das Paket des "
            "Runs RUN).",
        ),
    ] = None,
    config: ConfigOption = Path("judge.yaml"),
    model: JudgeModelOption = None,
    events: EventsOption = None,
) -> None:
    # The help names the battery's real bound (limits.MAX_PROBES), not a number of its own.
    # The probes and their card only for this command: the others start without them.
    from touchstone.scorecard.fitness import render_fitness_card
    from touchstone.stages.judge_check import check_pack, execute_judge_check

    with handled(events) as event_log:
        judge_pack = check_pack(pack, run_dir)
        judge_config = load_config(config)
        if isinstance(judge_config, JuryConfig):
            # A jury's check only for a jury: other commands start without it.
            from touchstone.stages.jury.member_check import execute_jury_check

            no_model_override(model)
            with ProgressView("Proben") as view:
                fitness = execute_jury_check(
                    judge_pack, judge_config, on_event=fan_out(view, event_log)
                )
            for card in fitness.cards:  # one card per member
                stdout.print(render_fitness_card(card))
            if not fitness.suitable:
                raise JudgeUnfit(fitness.verdict_de())
            stderr.print(Text.assemble(("Judge-Check:", "bold green"), " ", fitness.verdict_de()))
            return
        with ProgressView("Proben") as view:
            card = execute_judge_check(
                judge_pack, config=judge_config, model=model, on_event=fan_out(view, event_log)
            )
        stdout.print(render_fitness_card(card))
        if not card.suitable:
            raise JudgeUnfit(card.verdict_de())
        say_suitable(card)


def say_suitable(card: FitnessCard) -> None:
    """In a pipe or a script every verdict ends in one line on stderr, "geeignet" as
    "ungeeignet: …" (README); on a terminal, where both streams show, the card's
    "Urteil: geeignet" already said it."""
    if stdout.is_terminal and stderr.is_terminal:
        return
    stderr.print(Text.assemble(("Judge-Check:", "bold green"), " ", card.verdict_de()))
