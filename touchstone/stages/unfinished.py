"""Why a run left cells, and what to do, in German (DESIGN §12, §22).

Told like the judge tells it: the cause in words (never the SDK's exception class), the advice
of ``touchstone.advice`` that fits it (a misspelt model gets the names the endpoint lists, a
dead endpoint the question whether its server runs), and only then how the run goes on. The
same command again is advised only where it can help: after a 404 it would fail the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from touchstone.advice import RUN_SETTINGS, cause_advice
from touchstone.errors import CallError
from touchstone.german import counted

if TYPE_CHECKING:
    from touchstone.stages.answering import RunSummary

# What happened, by kind; the kinds a run leaves open or stops a model for (the others are
# recorded as failed answers and never come here).
_WHAT = {
    "not_found": "nicht gefunden",
    "auth": "Zugang verweigert",
    "quota": "Kontingent erschöpft",
    "connection": "keine Verbindung zum Server",
    "server": "Serverfehler",
    "rate_limit": "Rate-Limit über die Frist hinaus",
    "other": "unerwarteter Fehler",
}
# ``describe``'s "<Type>: " and the SDK's "Error code: 404 - " before the server's own words.
_TYPE_PREFIX = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*: ")
_STATUS_PREFIX = re.compile(r"^Error code: (\d{3}) - ")
_WORDS_MAX = 200


def cause(error: CallError) -> str:
    """``nicht gefunden (404: „The model … does not exist“)``: the kind in German, then the
    status and the server's words, without the class name of the exception."""
    what = _WHAT.get(error.kind, "Fehler")
    if error.kind == "connection":
        return what  # the SDK's words ("Connection error.") add nothing to it
    text = _TYPE_PREFIX.sub("", str(error).strip(), count=1)
    status = _STATUS_PREFIX.match(text)
    words = text[status.end() :] if status else text
    words = " ".join(words.split()).rstrip(".")
    if len(words) > _WORDS_MAX:
        words = words[: _WORDS_MAX - 1] + "…"
    quoted = f"„{words}“" if words else ""
    inner = ": ".join(part for part in (status.group(1) if status else "", quoted) if part)
    return f"{what} ({inner})" if inner else what


def unfinished(
    summary: RunSummary, *, run_path: Path, base_url: str, recorded: Sequence[str]
) -> str:
    """The message for a run with cells left: for each stopped model the cause and advice,
    for cells left by the endpoint's trouble the same, then how the run goes on."""
    again = f"derselbe Befehl mit --out {run_path}"
    parts = [f"{counted(summary.left, 'Zelle', 'Zellen')} offen."]
    for model, error in summary.stop_causes.items():
        parts.append(f"Modell „{model}“ gestoppt – {cause(error)}.")
        parts.append(
            cause_advice(
                error.kind,
                RUN_SETTINGS,
                model=model,
                base_url=base_url,
                available=summary.available,
            )
        )
        # A model the run does not record yet is a new model for the run's other models:
        # adding it needs --extend (stages.extend), unless the run has none yet.
        extend = " und --extend" if recorded else ""
        if model in recorded:
            parts.append(f"Danach holt {again} seine offenen Zellen nach.")
        elif error.kind == "not_found":
            parts.append(
                f"„{model}“ ist nicht in den Run aufgenommen; mit dem richtigen Namen in "
                f"--model{extend} setzt `touchstone run` mit --out {run_path} den Run fort."
            )
        else:
            parts.append(
                f"„{model}“ ist nicht in den Run aufgenommen; danach nimmt {again}{extend} es auf."
            )
    for kind, times in summary.left_by_kind.most_common():
        error = summary.left_causes[kind]
        parts.append(f"{counted(times, 'Aufruf', 'Aufrufe')} ohne Antwort – {cause(error)}.")
        parts.append(
            cause_advice(
                kind, RUN_SETTINGS, model="", base_url=base_url, server_busy=error.server_busy
            )
        )
    if summary.left_by_kind:
        parts.append(f"Danach holt {again} die offenen Zellen nach.")
    return " ".join(part for part in parts if part)
