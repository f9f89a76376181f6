"""What a request to the GUI may hold, and the German 422 when it holds something else.

Values of a job request end up on a CLI's command line (or in its environment): a NUL byte
there cannot be passed at all, a control character would reach the terminal and the job's
files, and a name of 200 KB exceeds what an exec accepts. Each is refused here, before
anything is created, with a message that names the field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, Field
from starlette.exceptions import HTTPException

from touchstone.errors import InputError
from touchstone.stages.run.extend import NO_MODEL, model_names
from touchstone.transport.budget import parse_price
from touchstone.validation_words import german_problem
from touchstone.yamlfile import MAX_PROBLEMS

# Model names carry provider paths ("accounts/x/models/y"), so they may be longer than an id
# (at most 128 characters, ``pack.ID_RULE``), but not without bound.
MAX_MODEL_NAME = 256
MAX_PATH = 1000
MAX_URL = 2000
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_WHERE = ("body", "query", "path", "header", "cookie")
NOT_JSON = "der Inhalt ist kein gültiges JSON"
# What FastAPI and Starlette answer themselves, in German (the GUI's own details are German).
_FRAMEWORK_WORDS = {
    (404, "Not Found"): "Diese Seite gibt es nicht.",
    (405, "Method Not Allowed"): "Diese Methode ist hier nicht erlaubt.",
    # FastAPI's answer to a body its JSON parser failed on with other than a JSONDecodeError
    # (a number of more than 4,300 digits, bytes that are no UTF-8, nesting too deep).
    (400, "There was an error parsing the body"): f"Ungültige Anfrage: {NOT_JSON}",
}
# Why the parser failed, by the exception FastAPI keeps as the cause.
_PARSE_CAUSES: tuple[tuple[type[BaseException], str], ...] = (
    (UnicodeDecodeError, "kein UTF-8"),
    (RecursionError, "zu tief verschachtelt"),
)


def _no_control_chars(value: str) -> str:
    if _CONTROL.search(value):
        raise ValueError("enthält Steuerzeichen (etwa ein Null-Byte oder einen Zeilenumbruch)")
    return value


def line(max_length: int, *checks: Callable[[str], str]) -> Any:
    """A non-empty line of text of at most ``max_length`` characters, no control characters;
    then ``checks`` (each returns the value or raises a ``ValueError`` in German)."""
    return Annotated[
        str,
        Field(min_length=1, max_length=max_length),
        AfterValidator(_no_control_chars),
        *map(AfterValidator, checks),
    ]


ModelName = line(MAX_MODEL_NAME)
RelativePath = line(MAX_PATH)
Url = line(MAX_URL)
VariantName = line(128)


def _price_text(value: str) -> str:
    """A price as ``--price-per-million`` reads it (``0.15,0.60`` or ``0,15/0,60``), written
    back as the CLI's unambiguous ``IN,OUT`` with decimal points."""
    try:
        price = parse_price(value, option="Preis")
    except InputError as exc:
        raise ValueError(str(exc).removesuffix(".")) from exc
    return f"{price.input!r},{price.output!r}"


# ``--price-per-million``, checked as the CLI checks it (the forms' price).
PriceText = line(200, _price_text)


def model_list(values: list[str]) -> list[str]:
    """The run form's "Modelle": each entry split at ',' and ';' as ``run --model`` splits it,
    so the settings checked against a run's are the models its job runs."""
    names = model_names(values)
    if not names:
        raise ValueError(NO_MODEL)
    return names


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
        return NOT_JSON
    if not loc:
        return "die Anfrage muss ein JSON-Objekt mit den Feldern des Formulars sein"
    return german_problem({**error, "loc": loc})


def german_detail(exc: HTTPException) -> str:
    """The detail of an HTTP error for the GUI's answer: the framework's own in German, with
    its status kept; any other as the GUI raised it."""
    detail = str(exc.detail)
    words = _FRAMEWORK_WORDS.get((exc.status_code, detail))
    if words is None:
        return detail
    cause = exc.__cause__
    reason = next((why for kind, why in _PARSE_CAUSES if isinstance(cause, kind)), "")
    if reason and words.endswith(NOT_JSON):
        return f"{words} ({reason})."
    return words if words.endswith(".") else words + "."
