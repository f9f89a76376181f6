"""The evaluated models: one streamed chat call per cell, bounded by a wall-clock deadline.

Streaming keeps content and reasoning apart as they arrive, lets the deadline cut a model that
thinks for ever, and lets the server notice when touchstone gives up on a call. A failed call
raises ``ModelCallError`` with its kind; the run stage decides by kind what follows.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from touchstone.classify import call_error
from touchstone.engine import in_threads, run_blocking
from touchstone.errors import ErrorKind, ModelCallError
from touchstone.results import REASONING_KEPT
from touchstone.transport import ChatReply, ChatTransport, split_think
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_MB, reply_limit_bytes

DEFAULT_CALL_TIMEOUT_S = 300.0

# (model, system, user, deadline_s) -> reply
AnswerCall = Callable[[str, str, str, float | None], Awaitable[ChatReply]]


class AnswerBackend(Protocol):
    """Anything that answers a prompt. Raises ``ModelCallError`` when the call fails."""

    def answer(self, *, model: str, system: str, user: str) -> ChatReply: ...


class OpenAIAnswerBackend:
    """Evaluated models behind one OpenAI-compatible endpoint, streamed.

    ``call_timeout_s`` bounds each call as a whole (and is the SDK's read timeout);
    ``max_reply_mb`` caps each reply (beyond it the answer fails as ``too_large``).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        max_tokens: int | None = None,
        temperature: float | None = None,
        max_reply_mb: float = DEFAULT_MAX_REPLY_MB,
    ) -> None:
        self.timeout = call_timeout_s
        self.max_tokens = max_tokens
        self.temperature = temperature
        self._transport = ChatTransport(
            base_url,
            api_key,
            timeout=call_timeout_s,
            max_retries=0,
            max_reply_bytes=reply_limit_bytes(max_reply_mb),
        )

    async def aanswer(
        self, *, model: str, system: str, user: str, deadline_s: float | None = None
    ) -> ChatReply:
        messages = [{"role": "user", "content": user}]
        if system:
            messages.insert(0, {"role": "system", "content": system})
        try:
            return await self._transport.chat(
                model=model,
                messages=messages,
                deadline_s=self.timeout if deadline_s is None else deadline_s,
                stream=True,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
            )
        except Exception as exc:
            raise call_error(ModelCallError, exc) from exc

    def answer(self, *, model: str, system: str, user: str) -> ChatReply:
        async def once() -> ChatReply:
            try:
                return await self.aanswer(model=model, system=system, user=user)
            finally:
                await self.aclose()

        return run_blocking(once())

    async def model_ids(self) -> list[str]:
        """The model ids the endpoint lists (for "Meinten Sie …?"); ``CallError`` when the
        listing fails."""
        return await self._transport.model_ids()

    async def aclose(self) -> None:
        """Close the clients of the running loop."""
        await self._transport.aclose()


def answer_caller(backend: AnswerBackend, executor: concurrent.futures.Executor) -> AnswerCall:
    """How the engine calls ``backend``: natively async, or in a thread for sync fakes."""
    native = getattr(backend, "aanswer", None)
    if native is not None:

        async def call_native(
            model: str, system: str, user: str, deadline_s: float | None
        ) -> ChatReply:
            reply: ChatReply = await native(
                model=model, system=system, user=user, deadline_s=deadline_s
            )
            return reply

        return call_native
    threaded = in_threads(backend.answer, executor)

    async def call_sync(model: str, system: str, user: str, deadline_s: float | None) -> ChatReply:
        reply: ChatReply = await threaded(model=model, system=system, user=user)
        return reply

    return call_sync


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
