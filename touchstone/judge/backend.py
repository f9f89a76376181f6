"""Judge backends: the ``JudgeBackend`` protocol and the judge behind an OpenAI endpoint.

A backend answers a judge prompt with the judge's raw reply text; a failed call raises
``JudgeCallError`` with its kind. ``OpenAIJudgeBackend`` bounds every call by a hard
wall-clock deadline (retries included, see ``transport``) and streams by default, so that a
call touchstone gives up on also stops on the server. A reply with reasoning but no content
is a call failure too: persisting it as an unscored verdict would hide a runaway judge from
the breaker and from every resume.

The judge engine calls backends through ``judge_caller``: natively async for
``OpenAIJudgeBackend`` (``ajudge``), in worker threads for synchronous backends and fakes.
``ask_judge`` is the one blocking call (``score_response``, ``score_dimensions``); both keep
the reply's ``finish_reason``, by which a cut-off reply is known (DESIGN §16).
"""

from __future__ import annotations

import concurrent.futures
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from touchstone.classify import call_error
from touchstone.engine import in_threads, run_blocking
from touchstone.errors import JudgeCallError, ReasoningOnly
from touchstone.transport import ChatTransport, split_think
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_MB, reply_limit_bytes


class JudgeBackend(Protocol):
    """Anything that answers a judge prompt with the judge's raw reply text.

    Raises ``JudgeCallError`` when the call fails. A ``model`` attribute, when present, is
    recorded in every verdict as ``judge_model``.
    """

    def judge(self, *, system: str, user: str) -> str: ...


@dataclass(frozen=True, slots=True)
class JudgeReply:
    """A judge call's reply text and what the server reported about it."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    # "length" says the judge was cut off: its own verdict may be missing (DESIGN §16).
    finish_reason: str = ""
    # Prompt tokens the server's prefix cache served, as it reported them (DESIGN §21).
    cached_tokens: int | None = None


JudgeCall = Callable[[str, str, float | None], Awaitable[JudgeReply]]


def judge_model_of(backend: object) -> str:
    """The judge model a backend names (its optional ``model`` attribute), or ""."""
    return str(getattr(backend, "model", "") or "")


def judge_identity(backend: object) -> str:
    """Everything about a judge that can change its verdicts, as canonical JSON.

    Two judges that share a model name but differ in endpoint or settings have different
    identities, so they never share a cached verdict. A backend without an ``identity``
    (a fake) is known by its model name alone.
    """
    identity = getattr(backend, "identity", None)
    data = identity if isinstance(identity, dict) else {"model": judge_model_of(backend)}
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class OpenAIJudgeBackend:
    """A judge behind an OpenAI-compatible endpoint.

    ``timeout`` (seconds) is both the SDK's request timeout and the hard wall-clock deadline
    of one call, retries included; ``None`` leaves both to the SDK defaults (not advisable).
    ``max_tokens`` is sent only when set; ``extra_body`` is merged into every request.
    ``stream=False`` asks for whole replies (a server then cannot notice that a call was
    given up on until it has written its reply). ``max_reply_mb`` caps each reply: beyond it
    the call fails as ``too_large``.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        temperature: float = 0.0,
        *,
        timeout: float | None = None,
        max_retries: int = 0,
        max_tokens: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        stream: bool = True,
        max_reply_mb: float = DEFAULT_MAX_REPLY_MB,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.temperature = temperature
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self.stream = stream
        self._transport = ChatTransport(
            base_url,
            api_key,
            timeout=timeout,
            max_retries=max_retries,
            max_reply_bytes=reply_limit_bytes(max_reply_mb),
        )

    @property
    def identity(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "base_url": self.base_url.rstrip("/"),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "extra_body": self.extra_body,
        }

    async def ajudge(
        self, *, system: str, user: str, deadline_s: float | None = None
    ) -> JudgeReply:
        """One judge call; ``deadline_s`` (at most ``timeout``) bounds it as a whole."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        deadline = self.timeout if deadline_s is None else deadline_s
        try:
            reply = await self._transport.chat(
                model=self.model,
                messages=messages,
                deadline_s=deadline,
                stream=self.stream,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                extra_body=self.extra_body,
            )
            content, inline_reasoning = split_think(reply.content)
            if not content:
                reasoning_chars = len(reply.reasoning) + len(inline_reasoning)
                raise ReasoningOnly(
                    f"Antwort ohne Inhalt (finish_reason={reply.finish_reason or '-'}, "
                    f"{reasoning_chars} Zeichen Reasoning)"
                )
        except Exception as exc:
            raise call_error(JudgeCallError, exc) from exc
        return JudgeReply(
            content,
            reply.prompt_tokens,
            reply.completion_tokens,
            reply.reasoning_tokens,
            reply.finish_reason,
            reply.cached_tokens,
        )

    def judge(self, *, system: str, user: str) -> str:
        return ask_judge(self, system=system, user=user).text

    async def model_ids(self) -> list[str]:
        """The model ids the judge's endpoint lists; ``CallError`` when the listing fails."""
        return await self._transport.model_ids()

    async def aclose(self) -> None:
        """Close the clients of the running loop (nothing outlives the loop it ran on)."""
        await self._transport.aclose()


def ask_judge(backend: JudgeBackend, *, system: str, user: str) -> JudgeReply:
    """One blocking judge call, with what the server said about the reply when the backend
    can tell (``ajudge``): the engine's path, so that a cut-off reply is known here too."""
    native = getattr(backend, "ajudge", None)
    if native is None:
        return JudgeReply(backend.judge(system=system, user=user))

    async def once() -> JudgeReply:
        try:
            reply: JudgeReply = await native(system=system, user=user)
            return reply
        finally:
            await release(backend)

    return run_blocking(once())


def judge_caller(backend: JudgeBackend, executor: concurrent.futures.Executor) -> JudgeCall:
    """How the engine calls ``backend``: ``call(system, user, deadline_s) -> JudgeReply``."""
    native = getattr(backend, "ajudge", None)
    if native is not None:

        def call_native(system: str, user: str, deadline_s: float | None) -> Awaitable[JudgeReply]:
            # The backend's coroutine itself: no coroutine around it to resume on every step.
            reply: Awaitable[JudgeReply] = native(system=system, user=user, deadline_s=deadline_s)
            return reply

        return call_native
    threaded = in_threads(backend.judge, executor)

    async def call_sync(system: str, user: str, deadline_s: float | None) -> JudgeReply:
        return JudgeReply(await threaded(system=system, user=user))

    return call_sync


async def release(backend: object) -> None:
    """Close what ``backend`` holds on the running loop (an OpenAI backend's clients)."""
    aclose = getattr(backend, "aclose", None)
    if aclose is not None:
        await aclose()
