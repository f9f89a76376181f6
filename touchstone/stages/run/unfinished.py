"""Why a run left cells, and what to do, in German (design.md §12, §22).

Told like the judge tells it: the cause in words (never the SDK's exception class), the advice
of ``touchstone.advice`` that fits it (a misspelt model gets the names the endpoint lists, a
dead endpoint the question whether its server runs), and only then how the run goes on. The
same command again is advised only where it can help: after a 404 it would fail the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from touchstone import started
from touchstone.advice import RUN_SETTINGS, cause, cause_advice
from touchstone.german import counted

if TYPE_CHECKING:
    from touchstone.stages.run.answering import RunSummary


def unfinished(
    summary: RunSummary,
    *,
    run_path: Path,
    base_url: str,
    recorded: Sequence[str],
    removed: bool = False,
) -> str:
    """The message for a run with cells left: for each stopped model the cause and advice,
    for cells left by the endpoint's trouble the same, then how the run goes on. A new run
    dir that got no answer was ``removed``: nothing goes on, the corrected command starts
    the run anew (and the message says so, not "setzt … fort")."""
    command = f"`{started.command('run')}` mit --out {run_path}"
    again = f"derselbe Befehl mit --out {run_path}"
    left = counted(summary.left, "Zelle", "Zellen")
    if removed:
        parts = [
            f"Keine Antwort erhalten: das neue Run-Verzeichnis {run_path} ist daher wieder "
            f"entfernt ({left} offen)."
        ]
    else:
        parts = [f"{left} offen."]
    goes_on = f"legt {command} den Run neu an." if removed else f"setzt {command} den Run fort."
    advised: set[str] = set()
    for model, error in summary.stop_causes.items():
        parts.append(f"Modell „{model}“ gestoppt – {cause(error)}.")
        advice = cause_advice(
            error.kind,
            RUN_SETTINGS,
            model=model,
            base_url=base_url,
            available=summary.available,
            unknown_path=error.unknown_path,
        )
        # A wrong path stops every model alike: its advice is said once.
        if advice not in advised:
            advised.add(advice)
            parts.append(advice)
        # A model the run does not record yet is a new model for the run's other models:
        # adding it needs --extend (stages.extend), unless the run has none yet.
        extend = " und --extend" if recorded else ""
        if model in recorded and not removed:
            parts.append(f"Danach holt {again} seine offenen Zellen nach.")
        elif error.unknown_path:
            parts.append(
                f"„{model}“ ist nicht in den Run aufgenommen; mit dem richtigen Pfad in "
                f"--base-url {goes_on}"
            )
        elif error.kind == "not_found":
            parts.append(
                f"„{model}“ ist nicht in den Run aufgenommen; mit dem richtigen Namen in "
                f"--model{extend} {goes_on}"
            )
        elif removed:
            parts.append(f"Danach {goes_on}")
        else:
            parts.append(
                f"„{model}“ ist nicht in den Run aufgenommen; danach nimmt {again}{extend} es auf."
            )
    for kind, times in summary.left_by_kind.most_common():
        error = summary.left_causes[kind]
        parts.append(f"{counted(times, 'Aufruf', 'Aufrufe')} ohne Antwort – {cause(error)}.")
        parts.append(
            cause_advice(
                kind,
                RUN_SETTINGS,
                model="",
                base_url=base_url,
                server_busy=error.server_busy,
                unknown_path=error.unknown_path,
                unknown_host=error.unknown_host,
            )
        )
    if summary.unreachable is not None:
        parts.append(
            "Kein weiterer Aufruf wurde gestellt; mit dem richtigen Rechnernamen in --base-url "
            + (goes_on if removed else f"holt {command} die offenen Zellen nach.")
        )
    elif summary.left_by_kind and removed:
        parts.append(f"Danach {goes_on}")
    elif summary.left_by_kind:
        parts.append(f"Danach holt {again} die offenen Zellen nach.")
    return " ".join(part for part in parts if part)
