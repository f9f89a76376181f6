"""What a reader of a comparison must know beside its numbers, in German.

``surface``: the terminal names commands, the GUI names what to click (design.md §22).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from touchstone import started
from touchstone.german import counted
from touchstone.versus.build import RunComparison

Surface = Literal["cli", "gui"]


@dataclass(frozen=True)
class Note:
    text: str
    prominent: bool = False


def _listed(items: list[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" und {len(items) - limit} weitere" if len(items) > limit else "")


def judges_note(comparison: RunComparison, surface: Surface, baseline_path: str = "") -> str:
    """Different judges: the difference may be theirs; the remedy, and where it writes."""
    new = ", ".join(comparison.new_judges) or "unbekannt"
    old = ", ".join(comparison.baseline_judges) or "unbekannt"
    head = (
        f"Achtung, verschiedene Judges – neuer Run: {new}; Baseline: {old}. Ein Unterschied "
        "kann am Judge liegen statt am Modell."
    )
    judge = comparison.new_judges[0] if comparison.new_judges else "JUDGE"
    if surface == "gui":
        return (
            f"{head} Abhilfe: den Baseline-Run {comparison.baseline_name} öffnen und mit dem "
            f"Judge des neuen Runs (Modell {judge}) „alle neu“ bewerten. Das ersetzt die "
            "Bewertungen im Baseline-Run selbst."
        )
    where = baseline_path or comparison.baseline_name
    return (
        f"{head} Abhilfe: die Baseline mit dem Judge des neuen Runs neu bewerten: "
        f"{started.command('judge')} {where} --model {judge} --rejudge all (mit dessen "
        "Judge-Konfiguration: --config …). Das schreibt die neuen Bewertungen in den "
        "Baseline-Run selbst und ersetzt die bisherigen; wer sie behalten will, kopiert den "
        "Run vorher."
    )


def notes(comparison: RunComparison, surface: Surface, baseline_path: str = "") -> list[Note]:
    """The notes in the order they matter: judges first."""
    out: list[Note] = []
    if comparison.judges_differ:
        out.append(Note(judges_note(comparison, surface, baseline_path), prominent=True))
    prompts = comparison.prompts
    if prompts.changed:
        out.append(
            Note(
                f"{counted(len(prompts.changed), 'Prompt', 'Prompts')} mit geänderter "
                f"Bewertungsgrundlage nicht verglichen ({_listed(sorted(prompts.changed))})."
            )
        )
    if comparison.new_pack != comparison.baseline_pack:
        out.append(
            Note(
                f"Verschiedene Pakete (neu: {comparison.new_pack}, Baseline: "
                f"{comparison.baseline_pack}): verglichen nur auf den "
                f"{counted(len(prompts.shared), 'gemeinsamen Prompt', 'gemeinsamen Prompts')}."
            )
        )
    only = []
    if prompts.new_only:
        only.append(f"{counted(len(prompts.new_only), 'Prompt', 'Prompts')} nur im neuen Run")
    if prompts.baseline_only:
        only.append(
            f"{counted(len(prompts.baseline_only), 'Prompt', 'Prompts')} nur in der Baseline"
        )
    if only:
        out.append(Note(" und ".join(only) + ": nicht verglichen."))
    unmatched = []
    if comparison.unmatched_new:
        names = [f"{m} · {v}" for m, v in comparison.unmatched_new]
        unmatched.append(f"im neuen Run {_listed(names)}")
    if comparison.unmatched_baseline:
        names = [f"{m} · {v}" for m, v in comparison.unmatched_baseline]
        unmatched.append(f"in der Baseline {_listed(names)}")
    if unmatched:
        hint = " Ein umbenanntes Modell paart --pair NEU=ALT." if surface == "cli" else ""
        if surface == "gui" and comparison.unmatched_new and comparison.unmatched_baseline:
            hint = " Ein umbenanntes Modell paaren Sie unten unter „Modell paaren“."
        out.append(Note(f"Ohne Gegenstück, nicht verglichen: {'; '.join(unmatched)}.{hint}"))
    open_cells = []
    if comparison.unjudged_new:
        open_cells.append(
            f"{counted(comparison.unjudged_new, 'Antwort', 'Antworten')} im neuen Run"
        )
    if comparison.unjudged_baseline:
        open_cells.append(
            f"{counted(comparison.unjudged_baseline, 'Antwort', 'Antworten')} in der Baseline"
        )
    if open_cells:
        out.append(
            Note(
                f"Noch nicht bewertet: {' und '.join(open_cells)}; verglichen wird, was "
                "bewertet ist."
            )
        )
    for warning in comparison.warnings:
        out.append(Note(f"Warnung: {warning}"))
    return out
