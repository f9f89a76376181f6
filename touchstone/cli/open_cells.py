"""The words for a run's open cells, in progress and summary alike (docs/run.md, "Begriffe")."""

from __future__ import annotations

from touchstone.german import count


def open_text(failed_calls: int, skipped: int, not_started: int = 0) -> str:
    """The open cells in the words of docs/run.md's "Begriffe": "130 offen (4 Aufruffehler,
    126 übersprungen)". An *Aufruffehler* saved nothing (a *fehlgeschlagene Antwort* is saved
    and not open); each kind is named once cells were skipped or not started ("(129
    übersprungen)" beside 130 open would leave the one failed call unsaid)."""
    text = f"{count(failed_calls + skipped + not_started)} offen"
    # Cells the budget left alone: the budget's message says so right after.
    if not skipped and not (not_started and failed_calls):
        return text
    kinds = [
        f"{count(n)} {word}"
        for n, word in (
            (failed_calls, "Aufruffehler"),
            (skipped, "übersprungen"),
            (not_started, "nicht gestartet"),
        )
        if n
    ]
    return f"{text} ({', '.join(kinds)})"
