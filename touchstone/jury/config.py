"""The jury's configuration: ``judges: [...]`` instead of one endpoint and model (design.md §18).

Each member is a full single-judge config (``JudgeConfig``): endpoint, model, timeouts,
concurrency, extra_body, stream, price, budget. ``aggregate`` says how a cell's verdict is
made from its members' verdicts, ``quorum`` how many scored verdicts a cell needs.
A file without ``judges`` is a single judge's config, loaded as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, model_validator
from pydantic.dataclasses import dataclass

from touchstone.errors import InputError
from touchstone.judge.config import JudgeConfig, load_judge_config
from touchstone.jury.members import MemberId
from touchstone.urls import without_credentials
from touchstone.yamlfile import read_yaml, validation_message

Aggregate = Literal["median", "mean", "majority"]


def default_quorum(members: int) -> int:
    """More than half of the members."""
    return members // 2 + 1


@dataclass(config=ConfigDict(extra="forbid"))
class JuryConfig:
    judges: list[JudgeConfig] = Field(min_length=2)
    aggregate: Aggregate = "median"
    quorum: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _members_fit(self) -> JuryConfig:
        if self.quorum is not None and self.quorum > len(self.judges):
            raise ValueError(
                f"quorum {self.quorum} ist größer als die Zahl der Judges ({len(self.judges)})"
            )
        seen: set[MemberId] = set()
        for member in self.members:
            if member in seen:
                raise ValueError(
                    f"der Judge {member.model} an {member.base_url} steht zweimal in der Jury"
                )
            seen.add(member)
        return self

    @property
    def members(self) -> list[MemberId]:
        return [member_id(judge) for judge in self.judges]

    @property
    def required(self) -> int:
        """Scored verdicts a cell needs (``quorum``, default more than half)."""
        return self.quorum if self.quorum is not None else default_quorum(len(self.judges))


def member_id(config: JudgeConfig) -> MemberId:
    """A member as verdicts name it: its model and base URL (without credentials)."""
    return MemberId(config.model, without_credentials(config.endpoint.base_url))


def load_config(path: str | Path) -> JudgeConfig | JuryConfig:
    """A judge config (one judge) or a jury (``judges: [...]``); problems as ``InputError``."""
    path = Path(path)
    if not path.exists():
        return load_judge_config(path)  # its message for a missing file
    data = read_yaml(path, "Judge-Konfiguration")
    if not (isinstance(data, dict) and "judges" in data):
        return load_judge_config(path)
    try:
        return TypeAdapter(JuryConfig).validate_python(data)
    except ValidationError as exc:
        raise InputError(validation_message(path, exc)) from exc


def no_model_override(model: str | None) -> None:
    """``--model`` names one judge; with a jury it would be ambiguous: bad input."""
    if model:
        raise InputError(
            f"--model {model} passt nicht zu einer Jury: die Konfiguration nennt mehrere "
            "Judges (judges: […]). Ändern Sie das Modell in der Konfiguration, oder geben "
            "Sie eine Konfiguration mit einem einzigen Judge an."
        )
