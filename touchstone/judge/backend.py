"""The judge in the call seam: ``JudgeBackend`` and the judge behind an OpenAI endpoint.

A judge answers a judge prompt with its raw reply (``ChatReply``); a failed call raises
``JudgeCallError`` with its kind. ``OpenAIJudgeBackend`` bounds every call by a hard
wall-clock deadline (retries included, see ``transport``) and streams by default, so that a
call touchstone gives up on also stops on the server. A reply with reasoning but no content
is a call failure too (``transport.endpoint``).

The judge engine calls backends through ``judge_caller``. ``ask_judge`` is the one blocking
call (``score_response``, ``score_dimensions``); both keep the reply's ``finish_reason``, by
which a cut-off reply is known (design.md §16).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from touchstone.errors import JudgeCallError
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_MB
from touchstone.transport.endpoint import OpenAIChat, Role
from touchstone.transport.engine import run_blocking
from touchstone.transport.identity import canonical
from touchstone.transport.replies import ChatReply
from touchstone.transport.seam import ChatSeam, ReplySchema, SchemaMode

# The seam in the judging role: ``model`` is the judge, recorded in every verdict as
# ``judge_model``.
JudgeBackend: TypeAlias = ChatSeam

# (system, user, deadline_s, the reply's schema) -> reply
JudgeCall = Callable[[str, str, float | None, ReplySchema | None], Awaitable[ChatReply]]

JUDGING = Role(JudgeCallError, system_always=True, content_required=True)


def judge_identity(backend: JudgeBackend) -> str:
    """Everything about a judge that can change its verdicts, as canonical JSON.

    Two judges that share a model name but differ in endpoint or settings have different
    identities, so they never share a cached verdict.
    """
    return canonical(backend.identity)


class OpenAIJudgeBackend(OpenAIChat):
    """A judge behind an OpenAI-compatible endpoint (``OpenAIChat`` in the judging role)."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        temperature: float = 0.0,
        *,
        deadline_s: float | None = None,
        max_retries: int = 0,
        max_tokens: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        stream: bool = True,
        max_reply_mb: float = DEFAULT_MAX_REPLY_MB,
        schema_mode: SchemaMode = "auto",
    ) -> None:
        super().__init__(
            base_url,
            api_key,
            role=JUDGING,
            model=model,
            deadline_s=deadline_s,
            max_retries=max_retries,
            temperature=temperature,
            max_tokens=max_tokens,
            extra_body=extra_body,
            stream=stream,
            max_reply_mb=max_reply_mb,
            schema_mode=schema_mode,
        )


def ask_judge(
    backend: JudgeBackend, *, system: str, user: str, schema: ReplySchema | None = None
) -> ChatReply:
    """One blocking judge call within the judge's deadline, the engine's path, so that a
    cut-off reply is known here too."""

    async def once() -> ChatReply:
        try:
            return await backend.call(
                model=backend.model,
                system=system,
                user=user,
                deadline_s=backend.deadline_s,
                schema=schema,
            )
        finally:
            await backend.aclose()

    return run_blocking(once())


def judge_caller(backend: JudgeBackend) -> JudgeCall:
    """How the engine calls ``backend``: ``call(system, user, deadline_s, schema) -> ChatReply``."""
    call, model = backend.call, backend.model

    def ask(
        system: str, user: str, deadline_s: float | None, schema: ReplySchema | None
    ) -> Awaitable[ChatReply]:
        # The backend's coroutine itself: no coroutine around it to resume on every step.
        return call(model=model, system=system, user=user, deadline_s=deadline_s, schema=schema)

    return ask
