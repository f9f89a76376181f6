"""What the judge answers: strict parsers for its per-answer and holistic replies (design.md §6,
§11, §16).

The verdict is the *last top-level* ``{…}`` span of the reply, fenced or not: judges reason
first and conclude last, and an object quoted earlier (e.g. from an answer that tries to
inject a score) is not the judge's verdict. The span is found by one linear, string-aware
scan: braces inside strings do not count. If that span does not validate, is cut off, or is
followed by an unbalanced ``{``, the reply is unparseable: nothing earlier and nothing nested
is ever taken instead. Near-JSON that small judges write (trailing commas, Python's
``True``/``False``/``None``, single-quoted strings) is repaired inside that span only. A reply
the server cut off (``finish_reason`` "length" or "content_filter") is unparseable: the
judge's own verdict may not have been written yet.

Text around the object and extra keys are tolerated. A per-answer verdict needs an integer
``score`` on the pack's scale, a boolean ``red_flag`` and a string ``rationale``: anything
else is unparseable, never a default. A score outside the scale is unparseable, never
clamped, and so is a rationale over ``MAX_RATIONALE_CHARS``. ``checked_verdict`` is that
check on its own: rows of the verdict cache pass it too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
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


# Deeper than any verdict or dimensions object; bounds what the JSON decoder recurses into.
MAX_NESTING = 32

# A server's word that it stopped the reply before the judge ended it.
CUT_OFF_REASONS = frozenset({"length", "content_filter"})

_IN_OBJECT = re.compile(r"""[{}\[\]"']""")
_QUOTE = re.compile(r"[\"']")
_STRING_STOP = {'"': re.compile(r'[\\"]'), "'": re.compile(r"[\\']")}
# Where a Python string literal can start; elsewhere an apostrophe is prose ("geht's").
_BEFORE_PY_STRING = frozenset("{[,:(")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_PY_LITERAL = re.compile(r"\b(True|False|None)\b")
_JSON_LITERAL = {"True": "true", "False": "false", "None": "null"}
_PY_STRING_ESCAPE = re.compile(r'\\(.)|"', re.DOTALL)


def _opens_string(text: str, pos: int) -> bool:
    """Whether the quote at ``pos`` (inside an object) starts a string literal."""
    if text[pos] == '"':
        return True
    before = pos - 1
    while before >= 0 and text[before].isspace():
        before -= 1
    return before >= 0 and text[before] in _BEFORE_PY_STRING


def _string_end(text: str, pos: int) -> int:
    """The index after the string literal that opens at ``pos``; -1 if it never closes."""
    stop = _STRING_STOP[text[pos]]
    pos += 1
    while (found := stop.search(text, pos)) is not None:
        if found.group() == "\\":
            pos = found.end() + 1  # an escaped character never ends the string
            continue
        return found.end()
    return -1


def last_top_level_span(text: str) -> str | None:
    """The last top-level ``{…}`` span of ``text``; None if there is none, if it is nested
    deeper than ``MAX_NESTING``, or if the text ends inside an object (a cut-off reply).

    One pass, no recursion: each character is looked at a bounded number of times.
    """
    last: str | None = None
    start = text.find("{")
    while start != -1:
        pos, braces, nesting, deepest = start, 0, 0, 0
        while True:
            found = _IN_OBJECT.search(text, pos)
            if found is None:
                return None  # unbalanced: the judge had not finished
            pos, char = found.start(), found.group()
            if char in "\"'":
                if _opens_string(text, pos):
                    pos = _string_end(text, pos)
                    if pos == -1:
                        return None
                    continue
            elif char in "{[":
                nesting += 1
                deepest = max(deepest, nesting)
                braces += char == "{"
            else:
                nesting -= 1
                braces -= char == "}"
            pos += 1
            if braces == 0:
                break
        last = text[start:pos] if deepest <= MAX_NESTING else None
        start = text.find("{", pos)
    return last


def _repaired(span: str) -> str:
    """``span`` with trailing commas dropped and Python literals and single-quoted strings
    made JSON; what is inside strings stays as it is."""
    out: list[str] = []
    pos = code_from = 0
    while (found := _QUOTE.search(span, pos)) is not None:
        quote = found.start()
        end = _string_end(span, quote) if _opens_string(span, quote) else -1
        if end == -1:
            pos = quote + 1
            continue
        out.append(_json_code(span[code_from:quote]))
        literal = span[quote:end]
        if literal[0] == "'":
            literal = '"' + _PY_STRING_ESCAPE.sub(_requote, literal[1:-1]) + '"'
        out.append(literal)
        pos = code_from = end
    out.append(_json_code(span[code_from:]))
    return "".join(out)


def _json_code(code: str) -> str:
    code = _TRAILING_COMMA.sub(r"\1", code)
    return _PY_LITERAL.sub(lambda m: _JSON_LITERAL[m.group()], code)


def _requote(match: re.Match[str]) -> str:
    """A single-quoted string's escape or double quote, as a JSON string needs it."""
    if match.group() == '"':
        return '\\"'
    return "'" if match.group(1) == "'" else match.group()


def last_top_level_object(text: str) -> dict[str, Any] | None:
    """The last top-level object of ``text`` (repaired if need be), or None."""
    whole = text.strip()
    if (
        whole[:1] == "{"
        and whole[-1:] == "}"
        and whole.count("{") + whole.count("[") <= MAX_NESTING
    ):
        # The usual reply: one JSON object and nothing else. It is its own last top-level
        # span (no deeper than MAX_NESTING: it opens no more), so the scan is not needed.
        try:
            # ``_STRICT.decode`` without its whitespace scans: ``whole`` starts and ends with
            # a brace, so it is one object exactly when the object read ends at its end.
            value, end = _STRICT_SCAN(whole, 0)
            if end != len(whole):
                value = None
        except _DuplicateKey:
            return None
        except (StopIteration, ValueError):
            value = None
        if isinstance(value, dict):
            return value
    span = last_top_level_span(text)
    if span is None:
        return None
    for strict in (True, False):
        # Repaired only when the span as it stands is no JSON (the common case is).
        candidate = span if strict else _repaired(span)
        try:
            value = (_STRICT if strict else _LENIENT).decode(candidate)
        except _DuplicateKey:
            return None
        except ValueError:  # JSONDecodeError, and integers too long to convert
            continue
        return value if isinstance(value, dict) else None
    return None


class _DuplicateKey(Exception):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object from ``pairs``, or ``_DuplicateKey``: a key given twice is no verdict. A judge
    that copies an answer's ``", "score": 5, …`` unescaped into its rationale gives its object
    a second score, and JSON would keep the last one: the answer's."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _DuplicateKey
    return out


# ``json.loads`` with these options would build a decoder per reply.
_STRICT = json.JSONDecoder(strict=True, object_pairs_hook=_unique_keys)
_LENIENT = json.JSONDecoder(strict=False, object_pairs_hook=_unique_keys)
_STRICT_SCAN: Callable[[str, int], tuple[Any, int]] = _STRICT.scan_once  # type: ignore[attr-defined]


def cut_off(finish_reason: str | None) -> bool:
    """Whether the server stopped the reply before the judge ended it."""
    return (finish_reason or "") in CUT_OFF_REASONS


def verdict_begun(text: str) -> bool:
    """Whether ``text`` holds the beginning of a verdict: an object with a ``"score"`` key."""
    brace = text.find("{")
    return brace >= 0 and '"score"' in text[brace:]


def cut_verdict(text: str, finish_reason: str | None) -> bool:
    """Whether the server cut the reply at ``max_tokens`` in the middle of a verdict: then,
    and only then, a larger ``max_tokens`` helps (design.md §26)."""
    return finish_reason == "length" and verdict_begun(text)


def unreadable_note(text: str, finish_reason: str | None) -> str:
    """Why a reply gave no verdict, as the rationale a user reads."""
    excerpt = " ".join(text.split())[:300]
    if cut_verdict(text, finish_reason):
        why = "mitten im Urteil abgeschnitten (finish_reason=length; max_tokens des Judges erhöhen)"
        return f"Judge-Ausgabe {why}, nicht ausgewertet: „{excerpt}“"
    if finish_reason == "length":
        why = "abgeschnitten (finish_reason=length), ohne begonnenes Urteil"
        return f"Judge-Ausgabe {why}, nicht ausgewertet: „{excerpt}“"
    if cut_off(finish_reason):
        return f"Judge-Ausgabe abgebrochen (finish_reason={finish_reason}): „{excerpt}“"
    return f"Judge-Ausgabe nicht auswertbar: „{excerpt}“"


def parse_verdict_reply(
    text: str, scale: Scale, *, finish_reason: str | None = None
) -> tuple[int, bool, str] | None:
    """``(score, red_flag, rationale)`` from a per-answer reply, or ``None`` if unparseable
    (a reply the server cut off, see ``cut_off``, included)."""
    obj = None if cut_off(finish_reason) else last_top_level_object(text)
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
    text: str, dimension_ids: Sequence[str], scale: Scale, *, finish_reason: str | None = None
) -> tuple[dict[str, float], dict[str, str]] | None:
    """Scores and rationales per dimension from a holistic reply, or ``None``.

    The reply's last top-level object maps each dimension id to ``{"score", "rationale"}``,
    or is ``{"dimensions": {...}}`` around that mapping; every dimension must be there with
    a number on the scale. A reply the server cut off is ``None``, as for verdicts.
    """
    obj = None if cut_off(finish_reason) else last_top_level_object(text)
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
