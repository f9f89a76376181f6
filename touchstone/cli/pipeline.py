"""The pipeline commands: ``run``, ``judge``, ``report``."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.padding import Padding

from touchstone import german, started
from touchstone.cli.app import app
from touchstone.cli.progress_bar import ProgressView
from touchstone.cli.ui import (
    handled,
    show_judge_outcome,
    show_open_in_run,
    show_run_outcome,
    show_warnings,
    stderr,
    stdout,
)
from touchstone.events import fan_out
from touchstone.limits import DEFAULT_CALL_TIMEOUT_S, decimal
from touchstone.plain import plain
from touchstone.scorecard.terminal import render_run_scorecard
from touchstone.spot.card import render_human_card
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.view import load_run, write_report
from touchstone.store import SCORECARD_JSON, VERDICTS_CSV
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_MB
from touchstone.transport.budget import parse_price

if TYPE_CHECKING:
    from touchstone.judge.config import JudgeConfig
    from touchstone.jury.config import JuryConfig
    from touchstone.stages.judge.outcome import JudgeOutcome
    from touchstone.stages.preview.preview import JuryPreview, Preview
    from touchstone.stages.run.run import RunOptions


class RejudgeChoice(enum.StrEnum):
    none = "none"
    unscored = "unscored"
    all = "all"


ConfigOption = Annotated[Path, typer.Option("--config", help="Judge-Konfiguration (YAML).")]
JudgeModelOption = Annotated[
    str | None,
    typer.Option(
        "--model", help="Judge-Modell (überschreibt die Konfiguration; Standard: deren `model`)."
    ),
]
DryRunOption = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Nur schätzen: Aufrufe, Tokens, Kosten, Dauer; nichts aufrufen, nichts schreiben.",
    ),
]
EventsOption = Annotated[
    Path | None,
    typer.Option(
        "--events",
        help="Fortschritt als JSON-Zeilen an diese Datei anhängen (Standard: keine Datei).",
    ),
]


def budget_option(help_text: str) -> Any:
    """``--budget`` of ``run`` and ``judge``: a number with a decimal comma or point."""
    return typer.Option("--budget", parser=decimal, help=help_text)


class RunStarted:
    """Hears the run stage's ``start`` event: the run dir a Ctrl-C's hint names (without
    ``--out`` it has a name with a time stamp the user has not seen)."""

    def __init__(self) -> None:
        self.run_dir = ""

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "start" and isinstance(data.get("run_dir"), str):
            self.run_dir = data["run_dir"]

    def resume(self) -> str:
        """How the run goes on after Ctrl-C; "" before it started (nothing to resume)."""
        if not self.run_dir:
            return ""
        if not Path(self.run_dir).exists():  # it was new and got no answer (``execute_run``)
            return f"Es kam keine Antwort an: das neue Run-Verzeichnis {self.run_dir} ist entfernt."
        return f"Derselbe Befehl mit --out {self.run_dir} setzt den Run fort."


@app.command()
def run(
    pack: Annotated[Path, typer.Option("--pack", help="Pfad zum Aufgabenpaket (YAML).")],
    model: Annotated[
        list[str],
        typer.Option(
            "--model",
            help="Zu testendes Modell (mehrfach, oder mehrere durch Komma oder Semikolon "
            "getrennt: a,b).",
        ),
    ],
    variant: Annotated[
        list[str] | None,
        typer.Option(
            "--variant",
            help="System-Prompt-Variante (mehrfach; Standard: alle, bei einem bestehenden Run "
            "dessen).",
        ),
    ] = None,
    repeats: Annotated[
        int | None,
        typer.Option(
            "--repeats",
            help="Wiederholungen je Prompt (Standard: 1, bei einem bestehenden Run dessen Zahl).",
            show_default=False,
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url",
            help="OpenAI-kompatibler Endpunkt, meist mit …/v1 am Ende (Standard: die "
            "Umgebungsvariable OPENAI_BASE_URL, sonst der Endpunkt von OpenAI).",
        ),
    ] = None,
    api_key: Annotated[
        str | None,
        typer.Option(
            "--api-key",
            help="API-Schlüssel (Standard: die Umgebungsvariable OPENAI_API_KEY; lokale Server "
            "brauchen keinen).",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Run-Verzeichnis; ein bestehendes wird fortgesetzt (Standard: "
            "runs/<Paket>-<Zeitstempel>).",
        ),
    ] = None,
    call_timeout_s: Annotated[
        float, typer.Option("--call-timeout-s", parser=decimal, help="Frist je Aufruf in Sekunden.")
    ] = DEFAULT_CALL_TIMEOUT_S,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens",
            help="Obergrenze der Antwortlänge in Tokens (Standard: keine, der Server entscheidet).",
        ),
    ] = None,
    events: EventsOption = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", help="Parallele Aufrufe an die Modelle.")
    ] = 1,
    max_reply_mb: Annotated[
        float,
        typer.Option(
            "--max-reply-mb",
            parser=decimal,
            help="Obergrenze einer Antwort in MB (entpackt); darüber: Fehler „Antwort zu groß“.",
        ),
    ] = DEFAULT_MAX_REPLY_MB,
    extend: Annotated[
        bool,
        typer.Option(
            "--extend",
            help="Einen bestehenden Run erweitern (neue Modelle, Varianten, mehr "
            "Wiederholungen, ein weiterer Endpunkt); ohne diese Option wird ein Run mit "
            "anderen Einstellungen abgelehnt.",
        ),
    ] = False,
    price_per_million: Annotated[
        str | None,
        typer.Option(
            "--price-per-million",
            metavar="IN,OUT",
            help="Preis je Million Tokens, Eingabe und Ausgabe (z. B. 0.15,0.60; mit "
            "Dezimalkomma 0,15/0,60): für die Schätzung (--dry-run) und --budget (Standard: "
            "keine Kosten).",
        ),
    ] = None,
    budget: Annotated[
        float | None,
        budget_option(
            "Harte Kostengrenze dieses Aufrufs in der Währung des Preises (braucht "
            "--price-per-million und --max-tokens); erreicht: Exit 1, fortsetzbar (Standard: "
            "keine Grenze)."
        ),
    ] = None,
    dry_run: DryRunOption = False,
) -> None:
    """Jedes Modell beantwortet jeden Prompt des Pakets; Antworten landen im Run-Verzeichnis."""
    from touchstone.stages.run.run import execute_run  # the answering only for ``run``

    run_started = RunStarted()
    with handled(None if dry_run else events, resume=run_started.resume) as event_log:
        price = None if price_per_million is None else parse_price(price_per_million)
        options: RunOptions = {
            "pack_path": pack,
            "models": model,
            "out": out,
            "variants": variant or [],
            "repeats": repeats,
            "base_url": base_url,
            "call_timeout_s": call_timeout_s,
            "max_tokens": max_tokens,
            "concurrency": concurrency,
            "max_reply_mb": max_reply_mb,
            "extend": extend,
            "price": price,
            "budget": budget,
        }
        if dry_run:
            # The estimate's modules only for ``--dry-run``: a run or judge starts without them.
            from touchstone.stages.preview.preview import preview_run

            show_preview(preview_run(**options))
            return
        with ProgressView("Antworten") as view:
            outcome = execute_run(
                **options, api_key=api_key, on_event=fan_out(view, event_log, run_started)
            )
        show_warnings(outcome.run_dir.warnings)
        try:
            show_run_outcome(outcome)
        finally:  # after the call's own count, before the message of an incomplete run
            show_open_in_run(outcome)


@app.command()
def judge(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="Run-Verzeichnis.")],
    config: ConfigOption = Path("judge.yaml"),
    model: JudgeModelOption = None,
    events: EventsOption = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            help="Parallele Judge-Aufrufe (überschreibt die Konfiguration; Standard: deren "
            "`concurrency`).",
        ),
    ] = None,
    rejudge: Annotated[
        RejudgeChoice,
        typer.Option(
            "--rejudge", help="none: nur offene Zellen; unscored: auch unbewertete; all: alle."
        ),
    ] = RejudgeChoice.none,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Den Bewertungs-Cache weder lesen noch füllen.")
    ] = False,
    price_per_million: Annotated[
        str | None,
        typer.Option(
            "--price-per-million",
            metavar="IN,OUT",
            help="Preis je Million Tokens wie bei run, nicht für eine Jury (Standard: "
            "price_per_million der Konfiguration).",
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens",
            help="Obergrenze einer Judge-Antwort in Tokens, nicht für eine Jury (Standard: "
            "max_tokens der Konfiguration).",
        ),
    ] = None,
    budget: Annotated[
        float | None,
        budget_option(
            "Harte Kostengrenze wie bei run, nicht für eine Jury (Standard: budget der "
            "Konfiguration)."
        ),
    ] = None,
    dry_run: DryRunOption = False,
) -> None:
    """Bewertet alle noch unbewerteten Antworten eines Runs mit dem LLM-Judge."""
    with handled(None if dry_run else events) as event_log:
        judge_config = costed_config(config, price_per_million, max_tokens, budget)
        if dry_run:
            from touchstone.stages.preview.preview import preview_judge

            preview = preview_judge(
                run_dir,
                config=judge_config,
                model=model,
                concurrency=concurrency,
                rejudge=rejudge.value,
                use_cache=not no_cache,
            )
            show_preview(preview)
            return
        with ProgressView("Bewertungen") as view:
            outcome = execute_judge(
                run_dir,
                config=judge_config,
                model=model,
                on_event=fan_out(view, event_log, say_continued),
                concurrency=concurrency,
                rejudge=rejudge.value,
                use_cache=not no_cache,
            )
        show_warnings(outcome.run_dir.warnings)
        show_judge_outcome(outcome)
        show_other_judges(outcome, run_dir, config, model)


def say_continued(kind: str, data: dict[str, Any]) -> None:
    """An interrupted ``--rejudge all`` continued: said before its calls, which it spares."""
    open_cells, cells = data.get("rejudge_open"), data.get("rejudge_cells")
    if kind == "start" and isinstance(open_cells, int) and isinstance(cells, int):
        stderr.print(
            f"Setzt die unterbrochene Neubewertung fort: {german.count(open_cells)} von "
            f"{german.count(cells)} Zellen offen (die übrigen hat sie schon neu bewertet)."
        )


def show_other_judges(
    outcome: JudgeOutcome, run_dir: Path, config: Path, model: str | None
) -> None:
    """Verdicts of another judge than this invocation names: said on the card, with the
    command that re-judges (a changed judge in the config judges nothing already judged)."""
    others = outcome.other_judges
    if not others:
        return
    names = ", ".join(others)
    whose = (
        f"Ein Teil der Bewertungen stammt von Judge {names}"
        if outcome.judge_model in outcome.card.judge_models
        else f"Die Bewertungen stammen von Judge {names}"
    )
    named = f"--model nennt {model}" if model else f"die Konfiguration nennt {outcome.judge_model}"
    again = started.command(f"judge {run_dir} --config {config}")
    again += f" --model {model}" if model else ""
    stdout.print(plain(f"⚠ {whose}; {named}. Neu bewerten: {again} --rejudge all", style="yellow"))


def costed_config(
    config: Path, price: str | None, max_tokens: int | None, budget: float | None
) -> Path | JudgeConfig | JuryConfig:
    """The judge config as ``judge`` uses it: the file, or with the cost flags in place of its
    own settings (``jury.config.with_cost``)."""
    if price is None and max_tokens is None and budget is None:
        return config  # the stage loads it, after the run dir is known to hold answers
    from touchstone.jury.config import load_config, with_cost

    parsed = None if price is None else parse_price(price)
    return with_cost(load_config(config), price=parsed, max_tokens=max_tokens, budget=budget)


def show_preview(preview: Preview | JuryPreview) -> None:
    """The estimate of a ``--dry-run``, one line per figure (stdout: it is the result); an
    indented line (a jury member's figures) keeps its indent where it wraps."""
    for line in preview.lines():
        text = line.lstrip(" ")
        indent = len(line) - len(text)
        stdout.print(
            Padding(plain(text), (0, 0, 0, indent), expand=False) if indent else plain(line)
        )


@app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="Run-Verzeichnis.")],
) -> None:
    """Schreibt report.html (eigenständig, offline lesbar), scorecard.json und verdicts.csv."""
    with handled():
        view = load_run(run_dir)
        card = view.scorecard()
        path = write_report(view, card)
        show_warnings(view.run_dir.warnings)
        stdout.print(render_run_scorecard(view.pack, card))
        human = view.human()
        if human is not None:
            stdout.print(render_human_card(human))
        stdout.print(f"Bericht: {path}")
        stdout.print(
            f"Daten: {path.with_name(SCORECARD_JSON)} (Scorecard), "
            f"{path.with_name(VERDICTS_CSV)} (alle Bewertungen mit Antworten)"
        )
