"""What the judge answers: strict parsers for its per-answer and holistic replies (§6, §11).

The verdict is the *last top-level* JSON object of the reply, fenced or not: judges reason
first and conclude last, and an object quoted earlier (e.g. from an answer that tries to
inject a score) is not the judge's verdict. Nested objects are never taken on their own, and
when the last object does not validate there is no fallback to an earlier one. Text around
the object and extra keys are tolerated. A per-answer verdict needs an integer ``score`` on
the pack's scale, a boolean ``red_flag`` and a string ``rationale``: anything else is
unparseable, never a default. A score outside the scale is unparseable, never clamped, and
so is a rationale over ``MAX_RATIONALE_CHARS``. ``checked_verdict`` is that check on its own:
rows of the verdict cache pass it too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    ValidationError,
)
from pydantic.functional_validators import AfterValidator

from touchstone.pack import Scale

# A rationale is a few sentences. One this long is a judge that runs on (or a damaged cache
# row), and every verdict's rationale goes into judgements.jsonl, the CSV and the report.
MAX_RATIONALE_CHARS = 20_000


def _whole(value: int | float) -> int:
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("score must be a whole number")
        return int(value)
    return value


class _VerdictReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    score: Annotated[StrictInt | StrictFloat, AfterValidator(_whole)]
    red_flag: StrictBool
    rationale: Annotated[StrictStr, StringConstraints(max_length=MAX_RATIONALE_CHARS)]


class _DimensionEntry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    score: StrictInt | StrictFloat
    rationale: StrictStr


def last_top_level_object(text: str) -> dict[str, Any] | None:
    """The last JSON object of ``text`` that is not inside another one, or None.

    None too when an object nests deeper than the parser recurses: where it ends is then
    unknown, so whatever follows cannot be told from what is inside it, and taking an object
    from within it would be taking a nested one.
    """
    decoder = json.JSONDecoder()
    last: dict[str, Any] | None = None
    position = text.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            position = text.find("{", position + 1)
            continue
        except RecursionError:
            # A reply nested 100,000 deep: unparseable, like any other reply without a
            # verdict, not a traceback.
            return None
        if isinstance(value, dict):
            last = value
        # Whatever the object contains is part of it, never an object of its own.
        position = text.find("{", end)
    return last


def parse_verdict_reply(text: str, scale: Scale) -> tuple[int, bool, str] | None:
    """``(score, red_flag, rationale)`` from a per-answer reply, or ``None`` if unparseable."""
    obj = last_top_level_object(text)
    if obj is None:
        return None
    return checked_verdict(obj, scale)


def checked_verdict(obj: Mapping[str, Any], scale: Scale) -> tuple[int, bool, str] | None:
    """``(score, red_flag, rationale)`` if ``obj`` holds a valid verdict on ``scale``, else None."""
    try:
        reply = _VerdictReply.model_validate(obj)
    except ValidationError:
        return None
    score = int(reply.score)
    if not scale.min <= score <= scale.max:
        return None
    return score, reply.red_flag, reply.rationale


def parse_dimensions_reply(
    text: str, dimension_ids: Sequence[str], scale: Scale
) -> tuple[dict[str, float], dict[str, str]] | None:
    """Scores and rationales per dimension from a holistic reply, or ``None``.

    The reply maps each dimension id to ``{"score", "rationale"}``, or wraps that mapping
    as ``{"dimensions": {...}}``; every dimension must be there with a number on the scale.
    """
    obj = last_top_level_object(text)
    if obj is None:
        return None
    inner = obj.get("dimensions")
    mapping = inner if isinstance(inner, dict) else obj
    scores: dict[str, float] = {}
    rationales: dict[str, str] = {}
    for dim in dimension_ids:
        try:
            entry = _DimensionEntry.model_validate(mapping.get(dim))
        except ValidationError:
            return None
        if not scale.min <= entry.score <= scale.max:
            return None
        scores[dim] = float(entry.score)
        rationales[dim] = entry.rationale
    return scores, rationales
