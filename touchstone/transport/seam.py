"""The call seam: what every chat call of touchstone goes through, in either role.

An evaluated model (``answers``) and a judge (``judge``) are called alike: one request of a
system and a user message, bounded by a deadline, answered with a ``ChatReply``; a failed
call raises a ``CallError`` of its kind (``ModelCallError``, ``JudgeCallError``). The seam
also says who answers (``model``, ``identity``), where (``base_url``, without credentials),
which models the endpoint lists, and releases what it holds on the running loop.

Implementations: ``transport.endpoint.OpenAIChat`` (an OpenAI-compatible endpoint) and, for
tests, ``transport.fake.FakeChat``. Both are called the same way, on the engine's loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from touchstone.transport.replies import ChatReply

# Whether a judge's calls ask for their JSON schema (judge config ``schema``): "auto" where the
# endpoint takes one (a refusal turns it off for the session), "on" always (a refusal is
# fatal), "off" never.
SchemaMode = Literal["auto", "on", "off"]


@dataclass(frozen=True, slots=True)
class ReplySchema:
    """The JSON schema a reply is asked to follow (``name``: what it holds, e.g. "verdict")."""

    name: str
    schema: Mapping[str, Any]

    def response_format(self) -> dict[str, Any]:
        """As the OpenAI API takes it (``response_format``), strict."""
        return {
            "type": "json_schema",
            "json_schema": {"name": self.name, "strict": True, "schema": dict(self.schema)},
        }


class ChatSeam(Protocol):
    """One chat endpoint as a role calls it."""

    @property
    def model(self) -> str:
        """The model a judge answers under ("" for evaluated models: each call names its own)."""
        ...

    @property
    def deadline_s(self) -> float | None:
        """The deadline of one call, retries included (``None``: unbounded)."""
        ...

    @property
    def identity(self) -> Mapping[str, Any]:
        """Everything about it that can change its replies (the judge's verdict cache key)."""
        ...

    @property
    def base_url(self) -> str:
        """The endpoint without credentials, as advice and run.json may name it ("": none)."""
        ...

    @property
    def max_tokens(self) -> int | None:
        """The cap on a reply's tokens it sends (``None``: none), which a schema's bounded
        strings must fit."""
        ...

    async def call(
        self,
        *,
        model: str,
        system: str,
        user: str,
        deadline_s: float | None,
        schema: ReplySchema | None = None,
    ) -> ChatReply:
        """One chat call bounded by ``deadline_s``; ``CallError`` of its kind when it fails.
        ``schema``: the reply's JSON schema, sent as the endpoint's setting allows
        (``ChatReply.schema`` tells what became of it)."""
        ...

    async def model_ids(self) -> list[str]:
        """The model ids the endpoint lists; ``CallError`` when the listing fails."""
        ...

    async def aclose(self) -> None:
        """Close what it holds on the running loop (nothing outlives the loop it ran on)."""
        ...
