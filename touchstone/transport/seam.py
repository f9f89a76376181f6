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
from typing import Any, Protocol

from touchstone.transport.replies import ChatReply


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

    async def call(
        self, *, model: str, system: str, user: str, deadline_s: float | None
    ) -> ChatReply:
        """One chat call bounded by ``deadline_s``; ``CallError`` of its kind when it fails."""
        ...

    async def model_ids(self) -> list[str]:
        """The model ids the endpoint lists; ``CallError`` when the listing fails."""
        ...

    async def aclose(self) -> None:
        """Close what it holds on the running loop (nothing outlives the loop it ran on)."""
        ...
