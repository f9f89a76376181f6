"""JSON from outside (run-dir files, job files, events), parsed within a bound.

``json.loads`` recurses once per level of nesting: a file nested 100,000 deep raises
``RecursionError``, which no caller expects of a parser. Here it is malformed JSON like any
other, a ``json.JSONDecodeError`` (a ``ValueError``), so that every ``except`` that handles a
bad file handles a deep one too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def loads(
    text: str | bytes, *, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None
) -> Any:
    """``json.loads(text)``; nesting too deep to parse is a ``json.JSONDecodeError``."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except RecursionError:
        raise json.JSONDecodeError("zu tief verschachtelt", "", 0) from None
