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
from starlette.exceptions import HTTPException

from touchstone.errors import InputError
from touchstone.limits import (
    MAX_BUDGET,
    MAX_CONCURRENCY,
    MAX_TOKENS_PER_CALL,
    MIN_BUDGET,
    DecimalText,
)
from touchstone.stages.run.extend import NO_MODEL, model_names
from touchstone.transport.budget import Price, parse_price
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


def line(max_length: int) -> Any:
    """A non-empty line of text of at most ``max_length`` characters, no control characters."""
    return Annotated[
        str, Field(min_length=1, max_length=max_length), AfterValidator(_no_control_chars)
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


def price_of(text: str | None) -> Price | None:
    """The price a checked ``PriceText`` names (None: no price)."""
    return None if text is None else parse_price(text)


# ``--price-per-million``, checked as the CLI checks it; a number with a comma or a point, and
# a budget, in the bounds the CLI holds (``limits``).
PriceText = Annotated[
    str, Field(max_length=200), AfterValidator(_no_control_chars), AfterValidator(_price_text)
]
BudgetAmount = Annotated[
    float, DecimalText, Field(ge=MIN_BUDGET, le=MAX_BUDGET, allow_inf_nan=False)
]
# The bounds of the forms' cost fields, as the browser's input hints (the request is checked).
FORM_LIMITS = {"max_tokens": MAX_TOKENS_PER_CALL, "concurrency": MAX_CONCURRENCY}
# The field of the forms a budget's price comes from (a budget's message names it).
PRICE_FIELD = "Feld „Preis je Million Tokens“"


def budget_problem(budget: float | None, price: Price | None, max_tokens: int | None) -> str:
    """Why the form's budget cannot be a cap, in the form's words, or "" (``run --budget``
    refuses the same: no worst case of a call without a price and a bounded output)."""
    if budget is None:
        return ""
    if price is None:
        return f"ein Budget braucht einen Preis ({PRICE_FIELD}), sonst ist es keine Grenze"
    if max_tokens is None:
        return (
            "ein Budget braucht max_tokens (höchstens so viele Tokens je Antwort): ohne "
            "begrenzte Ausgabe je Aufruf gibt es keinen schlimmsten Fall, den man zurückhalten "
            "könnte"
        )
    return ""


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
