"""The data model: answers of evaluated models, verdicts of the judge, holistic reports (design.md
§3).

All three are plain dataclasses that round-trip through ``as_dict()`` / ``from_dict()``.
``from_dict`` ignores keys it does not know (a line written by a newer version) and fills
fields a line lacks with their defaults (a line written by an older version).

Token counts are what a server reported (``limits.TokenCount``). Read back from a run dir, a
count that is no plausible one (an older touchstone stored whatever a server sent; a shared
run dir may hold anything) is unknown, with a warning: the fields named in ``TOKEN_FIELDS``.
Any other bad field is bad input (``store.jsonl``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, ClassVar, NamedTuple, Self, cast

# At run time, not only for type checkers: pydantic reads the fields' types when it loads
# a run dir, and these bound the token counts.
from touchstone.errors import ERROR_LABELS, kind_label
from touchstone.limits import TokenCount

# Why a cell is unscored; the scorecard counts each reason separately.
UNSCORED_REASONS: dict[str, str] = {
    "reasoning_only": "nur Reasoning",
    "empty": "leere Antwort",
    "model_error": "Modellfehler",
    "unparseable": "Judge-Ausgabe unlesbar",
    "judge_error": "Judge-Fehler",
    # A content filter of the judge's endpoint refused the cell: persisted (findable), and
    # asked again by every later judge run (``judge.plan``).
    "judge_refused": "Judge-Filter",
    # A jury's cell with fewer scored verdicts of its members than the quorum.
    "no_quorum": "kein Quorum",
    "unknown": "ohne Angabe",
}


# Failed answers that say something about the model (design.md §16): the scorecard counts them
# with the scale's minimum, apart from judged scores. A key is the verdict's unscored reason
# ("empty", "reasoning_only") or, for a failed call ("model_error"), its error kind. Trouble of
# the endpoint (connection, server errors, rate limits) never becomes an answer: the run
# retries it later. "bad_request" does, but says the request could not work, not what the model
# can do: like a judge-side gap (judge error, unparseable reply) it stays out of the means.
FAILED_REASONS: dict[str, str] = {
    **{kind: ERROR_LABELS[kind] for kind in ("timeout", "refused", "too_large")},
    "empty": UNSCORED_REASONS["empty"],
    "reasoning_only": UNSCORED_REASONS["reasoning_only"],
}


def unscored_label(verdict: Verdict) -> str:
    """Why ``verdict`` is unscored, in German: ``Modellfehler (Frist überschritten)``."""
    label = UNSCORED_REASONS.get(verdict.unscored_reason, verdict.unscored_reason or "unbewertet")
    if verdict.error_kind and verdict.unscored_reason in ("model_error", "judge_error"):
        return f"{label} ({kind_label(verdict.error_kind)})"
    return label


def failure_of(verdict: Verdict) -> str:
    """What failed about the model in ``verdict``'s answer (a ``FAILED_REASONS`` key), or ""."""
    if not verdict.unscored or verdict.judge_error:
        return ""
    reason = verdict.unscored_reason
    if reason == "model_error":
        return verdict.error_kind if verdict.error_kind in FAILED_REASONS else ""
    return reason if reason in FAILED_REASONS else ""


class VerdictKey(NamedTuple):
    model: str
    variant: str
    prompt_id: str
    repeat: int


# The cell key of a record as a plain tuple, made in C: equal to (and hashing like) the
# VerdictKey of the same cell and several times cheaper, which counts at 100k cells.
_cell_key = attrgetter("model", "variant", "prompt_id", "repeat")
# ``record.key`` for hot loops: called straight into C, no Python frame per record.
cell_key = cast("Callable[[EvalResponse | Verdict], VerdictKey]", _cell_key)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


class _Record:
    """``as_dict``/``from_dict`` for the dataclasses below.

    (``dataclasses.asdict`` deep-copies every value: ten times slower and not needed here.)
    """

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _field_names(type(self))}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Keys written by a newer version are ignored; a missing field still raises."""
        known = _field_names(cls)
        return cls(**{k: v for k, v in data.items() if k in known})


class _CellRecord(_Record):
    """A record of one cell, known by its ``VerdictKey``."""

    __slots__ = ()
    model: str
    variant: str
    prompt_id: str
    repeat: int

    @property
    def key(self) -> VerdictKey:
        return cast(VerdictKey, _cell_key(self))


@dataclass(slots=True)
class EvalResponse(_CellRecord):
    model: str
    variant: str
    prompt_id: str
    repeat: int
    category: str
    response_text: str
    ok: bool
    content_empty: bool
    reasoning_chars: int
    error: str = ""
    error_kind: str = ""
    finish_reason: str = ""
    latency_s: float = 0.0
    prompt_tokens: TokenCount | None = None
    completion_tokens: TokenCount | None = None
    reasoning_tokens: TokenCount | None = None
    # The model's reasoning, cut to ``REASONING_KEPT`` characters (shown collapsed in the GUI).
    reasoning: str = ""

    TOKEN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"prompt_tokens", "completion_tokens", "reasoning_tokens"}
    )


def cut_at_cap(response: EvalResponse) -> bool:
    """Whether the answer stopped at its token cap (``finish_reason`` "length", design.md
    §13); an answer recorded without a finish_reason (older runs) was not cut."""
    return response.finish_reason == "length"


# Reasoning kept per answer: enough to read why, bounded for 100k-cell runs.
REASONING_KEPT = 20_000


@dataclass(slots=True)
class Verdict(_CellRecord):
    model: str
    variant: str
    prompt_id: str
    repeat: int
    category: str
    # An integer on the pack's scale; a jury's cell verdict may be between two (a mean).
    score: int | float
    red_flag: bool
    rationale: str
    unscored: bool = False
    safety_critical: bool = False
    judge_model: str = ""
    error_kind: str = ""
    unscored_reason: str = ""
    # True when the verdict was reused (verdict cache, or an identical cell of this run).
    cached: bool = False
    # sha256 of judge identity and rendered judge prompt; lets a resume reuse this verdict.
    cache_key: str = ""
    # Hash of the rubric this verdict judged by (the judge prompt without the answer and the
    # judge): when the pack changes it, the verdict is stale and the cell is judged again.
    rubric_hash: str = ""
    judge_prompt_tokens: TokenCount | None = None
    judge_completion_tokens: TokenCount | None = None
    judge_reasoning_tokens: TokenCount | None = None
    # Of the prompt tokens, those the server's prefix cache served (when it says so).
    judge_cached_tokens: TokenCount | None = None
    # A jury member's verdict (design.md §18): one line per member and cell, named by
    # ``judge_model`` and ``judge_base_url``; the cell's verdict is their aggregate, made when
    # the run is read (``jury.aggregate``). Both are left out of a single judge's lines, so
    # its files stay as they were.
    judge_base_url: str = ""
    jury: bool = False

    TOKEN_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "judge_prompt_tokens",
            "judge_completion_tokens",
            "judge_reasoning_tokens",
            "judge_cached_tokens",
        }
    )

    def as_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in _VERDICT_KEYS}
        if not self.jury:
            del data["jury"], data["judge_base_url"]
        return data

    @property
    def scored(self) -> bool:
        return not self.unscored

    @property
    def judge_error(self) -> bool:
        """Whether this is a failed judge call's verdict (never persisted): told by its
        ``unscored_reason`` alone, the one place that says it."""
        return self.unscored_reason == "judge_error"


def _verdict_keys() -> tuple[str, ...]:
    names = list(_field_names(Verdict))
    names.insert(names.index("safety_critical") + 1, "judge_error")
    return tuple(names)


# A verdict's keys in judgements.jsonl: its fields, and ``judge_error`` where it stood when
# it was one (always false on disk, so every line reads and is written as it always was).
_VERDICT_KEYS = _verdict_keys()


def is_aggregate(verdict: Verdict) -> bool:
    """Whether ``verdict`` is a jury's cell verdict (computed, never persisted): marked
    ``jury`` without the ``judge_base_url`` every member's line names."""
    return verdict.jury and not verdict.judge_base_url


@dataclass(slots=True)
class ModelReport(_Record):
    model: str
    variant: str
    dim_scores: dict[str, float] = field(default_factory=dict)
    dim_rationales: dict[str, str] = field(default_factory=dict)
    judge_model: str = ""
    # Hash of the holistic prompt this report answered: the pass runs again only when it
    # changes (or with --rejudge).
    input_hash: str = ""

    @property
    def degraded(self) -> bool:
        return not self.dim_scores

    @property
    def scored(self) -> bool:
        return not self.degraded
