"""The judge configuration (``judge.yaml``): endpoint, model and the guard's settings.

Every key but ``endpoint.base_url`` and ``model`` is optional; old configs without the newer
keys load unchanged. ``judge.example.yaml`` documents every key.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.dataclasses import dataclass

from touchstone.errors import InputError
from touchstone.judge.health import JudgeHealth
from touchstone.judge.thinking import ServerKind, Thinking, detected_kind, switch, thinking_text
from touchstone.limits import (
    MAX_CONCURRENCY,
    MAX_PRICE_PER_MILLION,
    MAX_REPLY_MB,
    MAX_TEMPERATURE,
    MAX_TIMEOUT_S,
    DecimalText,
)
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_MB
from touchstone.transport.budget import Budget, Price, budget_problem
from touchstone.transport.identity import canonical, endpoint_identity
from touchstone.transport.seam import SchemaMode
from touchstone.urls import scheme_problem
from touchstone.yamlfile import load_yaml_model

if TYPE_CHECKING:
    from touchstone.judge.backend import OpenAIJudgeBackend

# What touchstone puts into every request body itself. ``extra_body`` is merged last, so any
# of these in it would override it unseen: ``model`` would judge with another model than the
# one verdicts and cache record, ``max_tokens: -5`` would dodge the number checks, ``stream``
# and ``stream_options`` would break how the reply is read, ``n`` would pay for choices
# nobody reads. The value is the judge.yaml key that sets it, if there is one. (extra_body
# exists only here: the answers of ``run`` are requested without one.)
RESERVED_BODY_KEYS: dict[str, str] = {
    "model": "model",
    "messages": "",
    "stream": "stream",
    "stream_options": "",
    "max_tokens": "max_tokens",
    "max_completion_tokens": "max_tokens",
    "n": "",
    "temperature": "temperature",
}


def _reserved_keys_problem(extra_body: dict[str, Any]) -> str:
    """Why ``extra_body`` is refused (German), or "" when it sets no reserved key."""
    reserved = [key for key in extra_body if key in RESERVED_BODY_KEYS]
    if not reserved:
        return ""
    names = ", ".join(f"„{key}“" for key in reserved)
    instead = sorted({RESERVED_BODY_KEYS[key] for key in reserved} - {""})
    hint = f" (dafür gibt es {', '.join(instead)} in der Judge-Konfiguration)" if instead else ""
    return f"darf {names} nicht setzen, das setzt touchstone selbst{hint}"


def _on_off(value: object) -> object:
    """YAML 1.1 reads a bare ``off``/``on`` as false/true: the setting meant by them."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return value


# For ``schema: off`` and ``thinking: on`` as a user writes them in judge.yaml.
YamlOnOff = BeforeValidator(_on_off)


@dataclass(config=ConfigDict(extra="forbid"))
class JudgeEndpoint:
    base_url: str
    api_key: str = ""
    # Name of an environment variable holding the key, so the key stays out of the file.
    api_key_env: str = ""

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        problem = scheme_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    def resolved_api_key(self) -> str:
        if self.api_key:
            return self.api_key
        if self.api_key_env:
            value = os.environ.get(self.api_key_env)
            if value is None:
                raise InputError(
                    f"Die Judge-Konfiguration nennt api_key_env: {self.api_key_env}, "
                    "aber diese Umgebungsvariable ist nicht gesetzt."
                )
            return value
        return ""


@dataclass(config=ConfigDict(extra="forbid"))
class PricePerMillion:
    """What a million tokens cost (in any currency; touchstone only multiplies)."""

    input: Annotated[float, DecimalText] = Field(
        ge=0, le=MAX_PRICE_PER_MILLION, allow_inf_nan=False
    )
    output: Annotated[float, DecimalText] = Field(
        ge=0, le=MAX_PRICE_PER_MILLION, allow_inf_nan=False
    )
    # Input tokens the server's prompt cache served (``cached_tokens``); without it, at input.
    cached_input: Annotated[float | None, DecimalText] = Field(
        default=None, ge=0, le=MAX_PRICE_PER_MILLION, allow_inf_nan=False
    )

    def price(self) -> Price:
        return Price(self.input, self.output, self.cached_input)


@dataclass(config=ConfigDict(extra="forbid"))
class JudgeConfig:
    endpoint: JudgeEndpoint
    model: str = Field(min_length=1)
    temperature: Annotated[float, DecimalText] = Field(
        default=0.0, ge=0, le=MAX_TEMPERATURE, allow_inf_nan=False
    )
    call_timeout_s: Annotated[float, DecimalText] = Field(
        default=120, gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False
    )
    max_consecutive_failures: int = Field(default=3, ge=0)
    max_tokens: int | None = Field(default=None, ge=1)
    max_failure_ratio: Annotated[float, DecimalText] = Field(
        default=0.2, ge=0, le=1, allow_inf_nan=False
    )
    max_retries: int = Field(default=0, ge=0, le=20)
    concurrency: int = Field(default=1, ge=1, le=MAX_CONCURRENCY)
    extra_body: dict[str, Any] = Field(default_factory=dict)
    stream: bool = True
    price_per_million: PricePerMillion | None = None
    max_reply_mb: Annotated[float, DecimalText] = Field(
        default=DEFAULT_MAX_REPLY_MB, gt=0, le=MAX_REPLY_MB, allow_inf_nan=False
    )
    # The hard cap on what one judge invocation spends, in the currency of the price (after
    # price_per_million and max_tokens: its check reads them).
    budget: Annotated[float | None, DecimalText] = Field(default=None, allow_inf_nan=False)
    # What a judge run does when the judge answers cached cells differently than the cache
    # holds (quality/drift.py): go on and warn, or stop before judging (exit 1).
    on_drift: Literal["warn", "stop"] = "warn"
    # What a judge run does when the last judge-check of this judge found it unfit
    # (store/judge_fitness.py): go on and say so, or stop before any call (exit 1, nothing written).
    on_unfit: Literal["warn", "stop"] = "warn"
    # Whether the judge is asked to reply in a JSON schema built from the pack (judge.schemas):
    # "auto" where the endpoint takes one, "on" always (a refusal stops the run), "off" never.
    schema: Annotated[SchemaMode, YamlOnOff] = "auto"
    # Thinking switched off (or on) on purpose (judge.thinking): "server" sends nothing; the
    # switch depends on the kind of server, detected from the URL or named by ``server``.
    thinking: Annotated[Thinking, YamlOnOff] = "server"
    server: ServerKind | None = None

    @field_validator("budget")
    @classmethod
    def _budget_can_hold(cls, value: float | None, info: ValidationInfo) -> float | None:
        price = info.data.get("price_per_million")
        problem = budget_problem(
            value,
            None if price is None else price.price(),
            info.data.get("max_tokens"),
        )
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("extra_body")
    @classmethod
    def _no_reserved_keys(cls, value: dict[str, Any]) -> dict[str, Any]:
        problem = _reserved_keys_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _thinking_has_a_switch(self) -> JudgeConfig:
        try:
            fields = switch(self.thinking, self.server_kind())
        except ValueError as exc:
            raise ValueError(f"thinking: {exc}") from None
        clash = sorted(fields.keys() & self.extra_body.keys())
        if clash:
            raise ValueError(
                f"thinking: {self.thinking} setzt {', '.join(clash)} selbst; "
                "in extra_body nicht noch einmal"
            )
        return self

    def server_kind(self) -> ServerKind | None:
        """The kind of server the judge runs on: as configured, else as its URL tells."""
        return self.server or detected_kind(self.endpoint.base_url)

    def request_fields(self) -> dict[str, Any]:
        """``extra_body`` and the thinking switch: what joins every judge request."""
        return {**self.extra_body, **switch(self.thinking, self.server_kind())}

    def thinking_text(self) -> str:
        """What the judge is sent about thinking, for the cards ("" when nothing)."""
        return thinking_text(self.thinking, self.server_kind())

    def health(self) -> JudgeHealth:
        """An empty health summary that prices calls as this config says."""
        health = JudgeHealth()
        if self.price_per_million is not None:
            health.price_per_million = (
                self.price_per_million.input,
                self.price_per_million.output,
            )
            health.cached_input_price = self.price_per_million.cached_input
        return health

    def cost_cap(self) -> Budget | None:
        """A fresh cap for one judge invocation, when the config sets ``budget``."""
        if self.budget is None or self.price_per_million is None or self.max_tokens is None:
            return None  # the validator allows a budget only with both
        return Budget(self.budget, self.price_per_million.price(), self.max_tokens)

    def identity(self, model: str | None = None) -> str:
        """The judge identity ``backend(model)`` would have (``judge_identity``), without
        building it: a settled judge run imports no SDK."""
        return canonical(
            endpoint_identity(
                model=model or self.model,
                url=self.endpoint.base_url,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                extra_body=self.request_fields(),
                schema_mode=self.schema,
            )
        )

    def backend(self, model: str | None = None) -> OpenAIJudgeBackend:
        """The backend this config describes (``model`` overrides the configured one)."""
        from touchstone.judge.backend import OpenAIJudgeBackend  # the transport: only to call

        return OpenAIJudgeBackend(
            self.endpoint.base_url,
            self.endpoint.resolved_api_key(),
            model or self.model,
            self.temperature,
            deadline_s=self.call_timeout_s,
            max_retries=self.max_retries,
            max_tokens=self.max_tokens,
            extra_body=self.request_fields(),
            stream=self.stream,
            max_reply_mb=self.max_reply_mb,
            schema_mode=self.schema,
        )


def load_judge_config(path: str | Path) -> JudgeConfig:
    """Load a judge config; any problem is an ``InputError`` naming the file and key."""
    if not Path(path).exists():
        raise InputError(
            f"Judge-Konfiguration nicht gefunden: {path} (Vorlage: judge.example.yaml)."
        )
    return load_yaml_model(Path(path), JudgeConfig, "Judge-Konfiguration")
