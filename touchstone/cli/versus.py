"""``compare``: a run against a baseline, and the CI gate over it (design.md §19)."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated

import typer

from touchstone.cli.app import app
from touchstone.cli.ui import handled, stdout
from touchstone.limits import decimal
from touchstone.stages.view import load_run
from touchstone.store import atomic_write_text


class FailOn(enum.StrEnum):
    schlechter = "schlechter"
    # The name of the first releases, which CI scripts keep: the same gate.
    worse = "worse"


# One string per paragraph: a docstring's line breaks would stay in the rich help page.
COMPARE_HELP = "\n\n".join(
    [
        "Vergleicht einen Run mit einer Baseline: Differenz je Zeile mit 95-%-Intervall.",
        "Ohne --fail-on und --margin: Exit 0, sobald der Vergleich gelungen ist (welche Zeile "
        "schlechter ist, sagt die Tabelle).",
        "Mit --fail-on schlechter (oder worse): Exit 1, wenn eine Zeile signifikant schlechter "
        "ist, entschieden über alle Zeilen zusammen (Bonferroni: ein unveränderter Run fällt in "
        "höchstens 5 % durch, wie viele Zeilen er auch hat).",
        "Mit --margin D: Exit 0, wenn das 95-%-Intervall jeder Zeile über -D liegt, 1, wenn "
        "eine sicher mehr verliert (Bonferroni über die Zeilen), 3, wenn die Intervalle das "
        "noch nicht entscheiden.",
        "Mit --fail-on schlechter oder --margin: Exit 3 auch, wenn eine Zeile der Baseline, "
        "die der neue Run beantwortet hat, nicht verglichen werden kann (noch nicht bewertet, "
        "weniger als 2 gemeinsame Prompts); eine solche Zeile besteht das Gate nie.",
        "Exit 2: ungültige Eingabe (unbekannter Run, kein gemeinsames Modell, keine Bewertungen).",
    ]
)


@app.command(help=COMPARE_HELP)
def compare(
    new: Annotated[Path, typer.Argument(metavar="NEU", help="Der neue Run (Run-Verzeichnis).")],
    baseline: Annotated[
        Path, typer.Argument(metavar="BASELINE", help="Der Run, gegen den verglichen wird.")
    ],
    pair: Annotated[
        list[str] | None,
        typer.Option(
            "--pair",
            metavar="NEU=ALT",
            help="Umbenanntes Modell paaren: NEUES_MODELL=ALTES_MODELL (mehrfach; Standard: "
            "nur gleiche Namen).",
        ),
    ] = None,
    json_path: Annotated[
        Path | None,
        typer.Option(
            "--json",
            help="Den Vergleich als JSON in diese Datei schreiben (Standard: keine Datei). "
            "Eine bestehende Datei nur, wenn sie eine frühere Ausgabe von compare ist, und "
            "nie in einem Run-Verzeichnis (außer mit --force).",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="--json schreibt auch über eine andere Datei oder in ein Run-Verzeichnis.",
        ),
    ] = False,
    fail_on: Annotated[
        FailOn | None,
        typer.Option(
            "--fail-on",
            help="schlechter (oder worse): Exit 1, wenn eine Zeile signifikant schlechter ist, "
            "über alle Zeilen zusammen zu 95 % (Bonferroni; Standard: kein Gate, Exit 0).",
        ),
    ] = None,
    categories: Annotated[
        bool,
        typer.Option(
            "--categories",
            help="Jede Kategorie jeder Zeile zeigen, mit ihrem 95-%-Intervall je Kategorie "
            "(explorativ; sonst nur die besseren und schlechteren, über die Kategorien der Zeile "
            "entschieden; --json enthält immer alle).",
        ),
    ] = False,
    margin: Annotated[
        float | None,
        typer.Option(
            "--margin",
            parser=decimal,
            metavar="D",
            help="Nicht-Unterlegenheit: Exit 0, wenn jede Zeile mit 95 % höchstens D "
            "Skalenpunkte schlechter ist (das gilt für alle zusammen, ohne Korrektur); 1, wenn "
            "eine sicher mehr verliert (Bonferroni über die Zeilen); sonst 3 (unentschieden; "
            "Standard: keine Marge).",
        ),
    ] = None,
) -> None:
    # Comparing loads its statistics only when asked: other commands start without them.
    from touchstone.versus import compare_runs, gate
    from touchstone.versus.gate import check_margin
    from touchstone.versus.target import check_json_target
    from touchstone.versus.terminal import render_comparison

    code = 0
    with handled():
        if json_path is not None:
            check_json_target(json_path, force=force)
        new_view = load_run(new)
        baseline_view = load_run(baseline)
        scale = new_view.pack.scale
        check_margin(margin, float(scale.max - scale.min))
        comparison = compare_runs(new_view, baseline_view, pair or [])
        result = gate(comparison, fail_on_worse=fail_on is not None, margin=margin)
        if json_path is not None:
            data = {**comparison.as_dict(), "gate": result.as_dict()}
            atomic_write_text(json_path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
        stdout.print(
            render_comparison(
                comparison, result, baseline_path=str(baseline), every_category=categories
            )
        )
        code = result.exit_code
    if code:
        raise typer.Exit(code)
