"""What the judge answers: parsers for its per-answer and holistic replies.

Parsers tolerate code fences, text around the JSON object and extra keys; a score outside
the pack's scale is unparseable, never clamped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from touchstone.pack import Scale

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _json_objects(text: str) -> Iterable[dict[str, Any]]:
    """Every JSON object in ``text``: fenced blocks first, then objects in running text."""
    decoder = json.JSONDecoder()
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        position = candidate.find("{")
        while position != -1:
            try:
                value, _ = decoder.raw_decode(candidate, position)
            except json.JSONDecodeError:
                value = None
            if isinstance(value, dict):
                yield value
            position = candidate.find("{", position + 1)


def _integral(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def parse_verdict_reply(text: str, scale: Scale) -> tuple[int, bool, str] | None:
    """``(score, red_flag, rationale)`` from a per-answer reply, or ``None`` if unparseable.

    A score outside the scale is unparseable: it is never clamped.
    """
    for obj in _json_objects(text):
        if "score" not in obj:
            continue
        score = _integral(obj.get("score"))
        red_flag = obj.get("red_flag", False)
        rationale = obj.get("rationale", "")
        if score is None or not isinstance(red_flag, bool) or not isinstance(rationale, str):
            continue
        if not scale.min <= score <= scale.max:
            continue
        return score, red_flag, rationale
    return None


def parse_dimensions_reply(
    text: str, dimension_ids: Sequence[str], scale: Scale
) -> tuple[dict[str, float], dict[str, str]] | None:
    """Scores and rationales per dimension from a holistic reply, or ``None``."""
    for obj in _json_objects(text):
        inner = obj.get("dimensions")
        mapping = inner if isinstance(inner, dict) else obj
        scores: dict[str, float] = {}
        rationales: dict[str, str] = {}
        for dim in dimension_ids:
            entry = mapping.get(dim)
            if not isinstance(entry, dict):
                break
            score = _number(entry.get("score"))
            rationale = entry.get("rationale", "")
            if score is None or not scale.min <= score <= scale.max:
                break
            scores[dim] = score
            rationales[dim] = rationale if isinstance(rationale, str) else str(rationale)
        else:
            return scores, rationales
    return None
