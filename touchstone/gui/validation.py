"""What a request to the GUI may hold, and the German 422 when it holds something else.

Values of a job request end up on a CLI's command line (or in its environment): a NUL byte
there cannot be passed at all, a control character would reach the terminal and the job's
files, and a name of 200 KB exceeds what an exec accepts. Each is refused here, before
anything is created, with a message that names the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from touchstone.validation_words import german_problem
from touchstone.yamlfile import MAX_PROBLEMS

# Model names carry provider paths ("accounts/x/models/y"), so they may be longer than an id
# (at most 128 characters, ``pack.ID_RULE``), but not without bound.
MAX_MODEL_NAME = 256
MAX_PATH = 1000
MAX_URL = 2000
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_WHERE = ("body", "query", "path", "header", "cookie")


def _no_control_chars(value: str) -> str:
    if _CONTROL.search(value):
        raise ValueError("enthält Steuerzeichen (etwa ein Null-Byte oder einen Zeilenumbruch)")
    return value


def line(max_length: int) -> Any:
    """A non-empty line of text of at most ``max_length`` characters, no control characters."""
    return Annotated[
        str, Field(min_length=1, max_length=max_length), AfterValidator(_no_control_chars)
    ]


ModelName = line(MAX_MODEL_NAME)
RelativePath = line(MAX_PATH)
Url = line(MAX_URL)
VariantName = line(128)


def request_problem(errors: Sequence[Mapping[str, Any]]) -> str:
    """FastAPI's validation errors of a request as one German sentence naming the fields."""
    problems = [_problem(error) for error in errors[:MAX_PROBLEMS]]
    if len(errors) > MAX_PROBLEMS:
        problems.append(f"und {len(errors) - MAX_PROBLEMS} weitere")
    return "Ungültige Anfrage: " + "; ".join(problems) + "."


def _problem(error: Mapping[str, Any]) -> str:
    loc = tuple(error.get("loc", ()))
    loc = loc[1:] if loc[:1] and loc[0] in _WHERE else loc
    if error.get("type") == "json_invalid":
        return "der Inhalt ist kein gültiges JSON"
    if not loc:
        return "die Anfrage muss ein JSON-Objekt mit den Feldern des Formulars sein"
    return german_problem({**error, "loc": loc})
