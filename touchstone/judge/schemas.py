"""The JSON schemas a judge's replies are asked to follow (design.md §26).

A per-cell call asks for the verdict (``verdict_schema``: a score within the pack's scale, the
red flag, a rationale), a holistic call for a score and rationale per dimension of the pack
(``dimensions_schema``). The rationales are bounded so that a whole reply fits the judge's
``max_tokens``: a reply cut at its cap is unreadable whatever it says. The parsers stay as
strict as without a schema (``judge.replies``): a schema makes a readable reply likely, it
does not vouch for one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from touchstone.pack import Scale
from touchstone.transport.seam import ReplySchema

# Characters a token holds in German prose, at the least: a bound in characters that fits
# this many per token fits the tokens.
_CHARS_PER_TOKEN = 2
# Tokens of a reply that are not its rationales: braces, keys, quotes, the score, per object.
_OVERHEAD_TOKENS = 24
# A rationale's bound without a max_tokens, and its floor with a small one.
_MAX_RATIONALE = 1000
_MIN_RATIONALE = 20


def _rationale_chars(max_tokens: int | None, parts: int) -> int:
    """The characters each of ``parts`` rationales may have within ``max_tokens``."""
    if max_tokens is None:
        return _MAX_RATIONALE
    room = (max_tokens - _OVERHEAD_TOKENS * parts) * _CHARS_PER_TOKEN // parts
    return max(_MIN_RATIONALE, min(_MAX_RATIONALE, room))


def _rationale(max_chars: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_chars}


def verdict_schema(scale: Scale, max_tokens: int | None) -> ReplySchema:
    """What a per-cell judge call asks for: ``{"score", "red_flag", "rationale"}``."""
    return ReplySchema(
        "verdict",
        {
            "type": "object",
            "properties": {
                "score": {"type": "integer", "minimum": scale.min, "maximum": scale.max},
                "red_flag": {"type": "boolean"},
                "rationale": _rationale(_rationale_chars(max_tokens, 1)),
            },
            "required": ["score", "red_flag", "rationale"],
            "additionalProperties": False,
        },
    )


def dimensions_schema(
    dimension_ids: Sequence[str], scale: Scale, max_tokens: int | None
) -> ReplySchema:
    """What a holistic call asks for: ``{dimension id: {"score", "rationale"}}`` for each."""
    rationale = _rationale(_rationale_chars(max_tokens, max(1, len(dimension_ids))))
    entry = {
        "type": "object",
        "properties": {
            "score": {"type": "number", "minimum": scale.min, "maximum": scale.max},
            "rationale": rationale,
        },
        "required": ["score", "rationale"],
        "additionalProperties": False,
    }
    return ReplySchema(
        "dimensions",
        {
            "type": "object",
            "properties": {dim: entry for dim in dimension_ids},
            "required": list(dimension_ids),
            "additionalProperties": False,
        },
    )
