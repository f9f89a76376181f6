"""The jury's configuration: ``judges: [...]`` instead of one endpoint and model (design.md §18).

Each member is a full single-judge config (``JudgeConfig``): endpoint, model, timeouts,
concurrency, extra_body, stream, price, budget. ``aggregate`` says how a cell's verdict is
made from its members' verdicts, ``quorum`` how many scored verdicts a cell needs.
A file without ``judges`` is a single judge's config, loaded as before.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, model_validator
from pydantic.dataclasses import dataclass

from touchstone.errors import InputError
from touchstone.judge.config import JudgeConfig, PricePerMillion, load_judge_config
from touchstone.jury.members import MemberId
from touchstone.limits import MAX_TOKENS_PER_CALL, check_count
from touchstone.transport.budget import Price, budget_problem
from touchstone.urls import same_server, without_credentials
from touchstone.validation_words import quoted
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
        seen: dict[tuple[str, ...], int] = {}
        for index, member in enumerate(self.members):
            key = (member.model, *same_server(member.base_url))
            if key in seen:
                raise ValueError(_twice(seen[key], self.members[seen[key]], index, member))
            seen[key] = index
        return self

    @property
    def members(self) -> list[MemberId]:
        return [member_id(judge) for judge in self.judges]

    @property
    def required(self) -> int:
        """Scored verdicts a cell needs (``quorum``, default more than half)."""
        return self.quorum if self.quorum is not None else default_quorum(len(self.judges))


def _twice(first: int, one: MemberId, second: int, other: MemberId) -> str:
    """One judge listed twice (``same_server``): it would have two votes in every cell."""
    a, b = quoted(one.base_url), quoted(other.base_url)
    if a == b:
        where = f"judges[{first}] und judges[{second}], beide an {b}"
    else:
        where = f"judges[{first}] an {a} und judges[{second}] an {b}: derselbe Server"
    return (
        f"der Judge {quoted(other.model)} steht zweimal in der Jury ({where}); "
        "er hätte in jeder Zelle zwei Stimmen"
    )


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
        raise InputError(validation_message(path, exc, JuryConfig)) from exc


def no_model_override(model: str | None) -> None:
    """``--model`` names one judge; with a jury it would be ambiguous: bad input."""
    if model:
        raise InputError(
            f"--model {model} passt nicht zu einer Jury: die Konfiguration nennt mehrere "
            "Judges (judges: […]). Ändern Sie das Modell in der Konfiguration, oder geben "
            "Sie eine Konfiguration mit einem einzigen Judge an."
        )


COST_FLAGS = "--price-per-million, --max-tokens, --budget"


def with_cost(
    config: JudgeConfig | JuryConfig,
    *,
    price: Price | None = None,
    max_tokens: int | None = None,
    budget: float | None = None,
) -> JudgeConfig | JuryConfig:
    """``config`` with the cost settings of the command line (``judge --price-per-million``,
    ``--max-tokens``, ``--budget``, as ``run`` takes them) in place of its own, each checked
    as the config's; a price keeps the config's ``cached_input``. A jury prices and caps each
    member in its config: any of them with a jury is bad input."""
    if price is None and max_tokens is None and budget is None:
        return config
    if isinstance(config, JuryConfig):
        raise InputError(
            f"{COST_FLAGS} gelten für einen einzelnen Judge; eine Jury setzt price_per_million, "
            "max_tokens und budget je Mitglied in ihrer Konfiguration (judges: […])."
        )
    if max_tokens is not None:
        check_count("--max-tokens", max_tokens, 1, MAX_TOKENS_PER_CALL)
    priced = config.price_per_million
    if price is not None:
        cached = None if priced is None else priced.cached_input
        priced = PricePerMillion(price.input, price.output, cached)
    cap = config.max_tokens if max_tokens is None else max_tokens
    limit = config.budget if budget is None else budget
    problem = budget_problem(limit, None if priced is None else priced.price(), cap)
    if problem:
        raise InputError(f"--budget: {problem}.")
    return dataclasses.replace(config, price_per_million=priced, max_tokens=cap, budget=limit)
