"""The evaluated models: one streamed chat call per cell, bounded by a wall-clock deadline.

Streaming keeps content and reasoning apart as they arrive, lets the deadline cut a model that
thinks for ever, and lets the server notice when touchstone gives up on a call. A failed call
raises ``ModelCallError`` with its kind; the run stage decides by kind what follows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from touchstone.errors import ErrorKind, ModelCallError
from touchstone.limits import DEFAULT_CALL_TIMEOUT_S
from touchstone.results import REASONING_KEPT
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_MB
from touchstone.transport.endpoint import OpenAIChat, Role
from touchstone.transport.replies import ChatReply, split_think
from touchstone.transport.seam import ChatSeam

# The seam in the answering role: each call names its model.
AnswerBackend: TypeAlias = ChatSeam

# (model, system, user, deadline_s) -> reply
AnswerCall = Callable[[str, str, str, float | None], Awaitable[ChatReply]]

ANSWERING = Role(ModelCallError, system_always=False, content_required=False)


class OpenAIAnswerBackend(OpenAIChat):
    """Evaluated models behind one OpenAI-compatible endpoint, streamed.

    ``deadline_s`` bounds each call as a whole (and is the SDK's read timeout);
    ``max_reply_mb`` caps each reply (beyond it the answer fails as ``too_large``).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        deadline_s: float = DEFAULT_CALL_TIMEOUT_S,
        max_tokens: int | None = None,
        temperature: float | None = None,
        max_reply_mb: float = DEFAULT_MAX_REPLY_MB,
    ) -> None:
        super().__init__(
            base_url,
            api_key,
            role=ANSWERING,
            deadline_s=deadline_s,
            temperature=temperature,
            max_tokens=max_tokens,
            max_reply_mb=max_reply_mb,
        )


def answer_caller(backend: AnswerBackend) -> AnswerCall:
    """How the engine calls ``backend``: ``call(model, system, user, deadline_s)``."""
    call = backend.call

    def ask(model: str, system: str, user: str, deadline_s: float | None) -> Awaitable[ChatReply]:
        # The backend's coroutine itself: no coroutine around it to resume on every step.
        return call(model=model, system=system, user=user, deadline_s=deadline_s)

    return ask


def answer_fields(reply: ChatReply) -> dict[str, Any]:
    """What an ``EvalResponse`` records of a successful reply (reasoning kept apart)."""
    content, inline_reasoning = split_think(reply.content)
    reasoning = "\n".join(r for r in (reply.reasoning, inline_reasoning) if r)
    return {
        "response_text": content,
        "ok": True,
        "content_empty": not content,
        "reasoning_chars": len(reply.reasoning) + len(inline_reasoning),
        "reasoning": reasoning[:REASONING_KEPT],
        "finish_reason": reply.finish_reason,
        "latency_s": round(reply.latency_s, 3),
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "reasoning_tokens": reply.reasoning_tokens,
    }


def failure_fields(error: str, kind: ErrorKind) -> dict[str, Any]:
    """What an ``EvalResponse`` records of a failed call that is a finding about the model."""
    return {
        "response_text": "",
        "ok": False,
        "content_empty": True,
        "reasoning_chars": 0,
        "error": error,
        "error_kind": kind,
    }
