"""JSON from outside (run-dir files, job files, events, replies), parsed within a bound.

``json.loads`` fails in more ways than ``json.JSONDecodeError``: a file nested 100,000 deep
raises ``RecursionError``, an integer of more than 4,300 digits a plain ``ValueError``
(Python's bound on converting digits to an int), neither of which any caller expects of a
parser. Here each is malformed JSON like any other, a ``NotJson`` (a ``json.JSONDecodeError``,
so a ``ValueError``), so that every ``except`` that handles a bad file handles these too;
``str()`` of it and ``reason`` word the problem in German for the user.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

DEEP = "zu tief verschachtelt"

# Python's reasons (``json.JSONDecodeError.msg``) in German, by how they start.
_REASONS = (
    ("Expecting value", "Wert erwartet"),
    (
        "Expecting property name enclosed in double quotes",
        "Schlüssel in doppelten Anführungszeichen erwartet",
    ),
    ("Unterminated string", "Text ohne schließendes Anführungszeichen"),
    ("Extra data", "überzählige Zeichen nach dem Objekt"),
    ("Expecting ',' delimiter", "Komma erwartet"),
    ("Expecting ':' delimiter", "Doppelpunkt erwartet"),
    ("Invalid control character", "Steuerzeichen in einem Text"),
    ("Invalid \\escape", "ungültige Escape-Sequenz"),
    ("Invalid \\uXXXX escape", "ungültige Escape-Sequenz"),
    ("Unexpected UTF-8 BOM", "beginnt mit einer UTF-8-Byte-Order-Mark (BOM)"),
)


class NotJson(json.JSONDecodeError):
    """Text that is no JSON (or none Python can hold); ``str()`` says why in German, with
    line and column."""

    def __str__(self) -> str:
        return f"{reason(self)} (Zeile {self.lineno}, Spalte {self.colno})"


def reason(exc: json.JSONDecodeError) -> str:
    """The German reason of a parse failure, without its position ("" for none known)."""
    return next((german for start, german in _REASONS if exc.msg.startswith(start)), exc.msg)


def problem(exc: ValueError) -> str:
    """What ``loads`` (or decoding before it) raised, in German: ``NotJson``'s reason and
    position, or the byte that is no UTF-8."""
    if isinstance(exc, UnicodeDecodeError):
        return f"kein UTF-8 (Byte 0x{exc.object[exc.start]:02x} an Stelle {exc.start + 1})"
    return str(exc)


def loads(
    text: str | bytes, *, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None
) -> Any:
    """``json.loads(text)``; any text it cannot turn into a value is a ``NotJson``.

    Bytes are decoded as ``json.loads`` decodes them (UTF-8 with or without BOM, UTF-16,
    UTF-32); bytes that are none of these stay a ``UnicodeDecodeError`` (a ``ValueError``
    too). Whatever ``object_pairs_hook`` raises passes unchanged.
    """
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise NotJson(exc.msg, exc.doc, exc.pos) from None
    except RecursionError:
        raise NotJson(DEEP, "", 0) from None
    except ValueError as exc:
        # Python raises a plain ValueError for the integer; subclasses (UnicodeDecodeError,
        # the hook's own errors) pass unchanged.
        document = text if isinstance(text, str) else _decoded(text)
        position = None if document is None else _long_integer(document)
        if type(exc) is not ValueError or document is None or position is None:
            raise
        limit = sys.get_int_max_str_digits()
        raise NotJson(f"eine Zahl mit mehr als {limit} Ziffern", document, position) from exc


def _decoded(data: bytes) -> str | None:
    """``data`` decoded as ``json.loads`` decodes it; None if it does not decode."""
    try:
        return data.decode(json.detect_encoding(data), "surrogatepass")
    except UnicodeDecodeError:
        return None


def _long_integer(text: str) -> int | None:
    """Where ``text`` holds an integer too long for Python to convert, or None (also when
    the limit is off): the first digit run that long, outside a string as a rule (only the
    position a message names depends on it)."""
    limit = sys.get_int_max_str_digits()
    found = re.search(f"[0-9]{{{limit + 1},}}", text) if limit else None
    return None if found is None else found.start()
