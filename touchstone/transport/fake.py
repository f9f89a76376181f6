"""A chat seam without a server, for tests (like httpx's ``MockTransport``).

``FakeChat`` replays a script: a string is a reply's content, a ``ChatReply`` is the reply,
an exception is raised. When the script runs out it answers ``default``. It takes every
JSON schema it is sent (``SentCall.schema``). Every call lands in
``history`` first, as a ``SentCall``. A test double that answers by the request overrides
``reply`` (``await asyncio.sleep`` in it to take time: the calls run on the engine's loop,
concurrently, as real calls do).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from touchstone.transport.replies import ChatReply
from touchstone.transport.seam import ReplySchema

VERDICT = '{"score": 4, "red_flag": false, "rationale": "gut"}'


@dataclass(frozen=True, slots=True)
class SentCall:
    """One call as the fake received it."""

    model: str
    system: str
    user: str
    deadline_s: float | None
    schema: ReplySchema | None = None


@dataclass
class FakeChat:
    """A ``ChatSeam`` that replays ``script``; see the module docstring."""

    script: list[str | ChatReply | Exception] = field(default_factory=list)
    default: str = VERDICT
    model: str = "fake-judge"
    deadline_s: float | None = None
    base_url: str = ""
    max_tokens: int | None = None
    # What ``model_ids`` lists.
    models: list[str] = field(default_factory=list)
    history: list[SentCall] = field(default_factory=list)
    closed: int = 0

    @property
    def identity(self) -> dict[str, str]:
        # A fake is known by its model name alone.
        return {"model": self.model}

    async def call(
        self,
        *,
        model: str,
        system: str,
        user: str,
        deadline_s: float | None,
        schema: ReplySchema | None = None,
    ) -> ChatReply:
        sent = SentCall(model, system, user, deadline_s, schema)
        self.history.append(sent)
        reply = await self.reply(sent)
        if isinstance(reply, str):
            reply = ChatReply(content=reply, reasoning="", finish_reason="", latency_s=0.0)
        # A fake takes every schema it is sent.
        return dataclasses.replace(reply, schema="sent") if schema is not None else reply

    async def reply(self, sent: SentCall) -> str | ChatReply:
        """The reply to ``sent``: the script's next step (raised if it is an exception)."""
        step = self.script.pop(0) if self.script else self.default
        if isinstance(step, Exception):
            raise step
        return step

    async def model_ids(self) -> list[str]:
        return list(self.models)

    async def aclose(self) -> None:
        self.closed += 1
