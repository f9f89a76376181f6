"""The data model: answers of evaluated models, verdicts of the judge, holistic reports (§3).

All three are plain dataclasses that round-trip through ``as_dict()`` / ``from_dict()``.
``from_dict`` ignores keys it does not know (a line written by a newer version) and fills
fields a line lacks with their defaults (a line written by an older version).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, NamedTuple, Self, TypeVar

T = TypeVar("T")

# Why a cell is unscored; the scorecard counts each reason separately.
UNSCORED_REASONS: dict[str, str] = {
    "reasoning_only": "nur Reasoning",
    "empty": "leere Antwort",
    "model_error": "Modellfehler",
    "unparseable": "Judge-Ausgabe unlesbar",
    "judge_error": "Judge-Fehler",
}


class VerdictKey(NamedTuple):
    model: str
    variant: str
    prompt_id: str
    repeat: int


def _from_dict(cls: type[T], data: dict[str, Any]) -> T:
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in data.items() if k in known})


class _CellRecord:
    """Shared behaviour of the per-cell records: their key and their dict form."""

    model: str
    variant: str
    prompt_id: str
    repeat: int

    @property
    def key(self) -> VerdictKey:
        return VerdictKey(self.model, self.variant, self.prompt_id, self.repeat)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload, no-any-return]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        return _from_dict(cls, data)


@dataclass
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
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None


@dataclass
class Verdict(_CellRecord):
    model: str
    variant: str
    prompt_id: str
    repeat: int
    category: str
    score: int
    red_flag: bool
    rationale: str
    unscored: bool = False
    safety_critical: bool = False
    judge_error: bool = False
    judge_model: str = ""
    error_kind: str = ""
    unscored_reason: str = ""
    # True when the verdict was reused (verdict cache, or an identical cell of this run).
    cached: bool = False
    # sha256 of judge model and rendered judge prompt; lets a resume reuse this verdict.
    cache_key: str = ""


@dataclass
class ModelReport:
    model: str
    variant: str
    dim_scores: dict[str, float] = field(default_factory=dict)
    dim_rationales: dict[str, str] = field(default_factory=dict)
    judge_model: str = ""

    @property
    def degraded(self) -> bool:
        return not self.dim_scores

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelReport:
        return _from_dict(cls, data)
