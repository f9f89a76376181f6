"""Chat calls over the openai SDK with a hard wall-clock deadline per call.

Why a deadline of our own: the SDK's ``timeout`` bounds each network *read*, not the call.
A server that trickles bytes (keep-alive whitespace before a JSON body, SSE comments in a
stream, as some proxies send while a model thinks) resets that read timeout with every byte
and keeps a call with ``timeout=2`` alive for as long as it likes.

How: the call runs on the SDK's async client, on an event loop in a background thread that
the transport owns, inside ``asyncio.timeout(deadline)``. Cancellation is what the httpx
maintainers recommend for a total timeout: when the deadline passes, the pending read is
cancelled wherever it is (connect, headers, a body trickling in, a stream between chunks),
the connection is closed, and the caller gets ``DeadlineExceeded``. The deadline wraps the
SDK's retries too. A synchronous caller waits on the loop's future with a small grace on top
of the deadline, so even a loop that failed to cancel cannot keep it waiting.

Exceptions of the SDK pass through unchanged: callers classify them (``errors.classify``)
and wrap them in their own error type, once, at their boundary.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import re
import threading
import time
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx2
import openai

from touchstone.errors import CallFailed, DeadlineExceeded

T = TypeVar("T")

# Local servers (LM Studio, Ollama, llama.cpp) need no key, but the SDK insists on one.
PLACEHOLDER_API_KEY = "touchstone-no-key"
REASONING_FIELDS = ("reasoning_content", "reasoning", "thinking")
# Past the deadline, the synchronous side waits this long for the cancelled call to unwind.
_UNWIND_GRACE_S = 0.5

_THINK_BLOCK = re.compile(r"<think>(.*?)</think>", re.DOTALL)


@dataclass
class ChatReply:
    content: str
    reasoning: str
    finish_reason: str
    latency_s: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None


def split_think(content: str) -> tuple[str, str]:
    """Move inline ``<think>…</think>`` reasoning out of ``content``: ``(content, reasoning)``.

    Handles an unterminated ``<think>`` (a model cut off while thinking) and a closing tag
    without an opening one (chat templates that put ``<think>`` into the prompt).
    """
    reasoning: list[str] = []

    def take(match: re.Match[str]) -> str:
        reasoning.append(match.group(1))
        return ""

    text = _THINK_BLOCK.sub(take, content)
    if "<think>" in text:
        before, _, after = text.partition("<think>")
        reasoning.append(after)
        text = before
    elif "</think>" in text:
        before, _, after = text.partition("</think>")
        reasoning.insert(0, before)
        text = after
    return text.strip(), "\n".join(r.strip() for r in reasoning if r.strip())


def _reasoning_in(fields: Mapping[str, Any]) -> str:
    """The reasoning text a message or delta carries, under whichever name the server uses.

    (The SDK declares none of these names, so on its objects they live in ``model_extra``.)
    """
    for name in REASONING_FIELDS:
        value = fields.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def _usage_numbers(usage: Any) -> tuple[int | None, int | None, int | None]:
    if usage is None:
        return None, None, None
    details = getattr(usage, "completion_tokens_details", None)
    reasoning_tokens = getattr(details, "reasoning_tokens", None) if details else None
    return (
        getattr(usage, "prompt_tokens", None),
        getattr(usage, "completion_tokens", None),
        reasoning_tokens,
    )


def _reply_from_json(data: object, latency_s: float) -> ChatReply:
    """A ``ChatReply`` from a chat completion's JSON.

    A body that is no chat completion at all (not JSON, or no choice with a message, as
    proxies send with a 200) is a failed call, not an empty answer.
    """
    if isinstance(data, str | bytes):
        # Servers that label their JSON text/plain: the SDK then hands over the raw text.
        # Text that is no JSON stays text and is reported below.
        with contextlib.suppress(ValueError):
            data = json.loads(data)
    choices = data.get("choices") if isinstance(data, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(data, dict) or not isinstance(choice, dict) or not isinstance(message, dict):
        excerpt = " ".join(str(data).split())[:200]
        raise CallFailed(f"Antwort ist keine Chat-Completion: {excerpt!r}")
    content = message.get("content")
    usage: dict[str, Any] = data["usage"] if isinstance(data.get("usage"), dict) else {}
    details = usage.get("completion_tokens_details")
    return ChatReply(
        content=content if isinstance(content, str) else "",
        reasoning=_reasoning_in(message),
        finish_reason=str(choice.get("finish_reason") or ""),
        latency_s=latency_s,
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
        reasoning_tokens=details.get("reasoning_tokens") if isinstance(details, dict) else None,
    )


class _LoopThread:
    """An asyncio event loop running in a daemon thread, fed from synchronous callers."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], wait_s: float | None) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout=wait_s)
        except BaseException:
            # Timed out, or Ctrl-C in the caller: do not leave the call running on the loop.
            future.cancel()
            raise

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=2)
        if not self._thread.is_alive():
            self.loop.close()


class ChatTransport:
    """Async openai clients on one private loop thread; ``chat`` is synchronous and bounded.

    ``timeout`` is the SDK's per-request timeout (``None``: the SDK default) and
    ``max_retries`` its retry count; ``deadline_s`` of ``chat`` bounds the whole call.
    Thread-safe: several threads may call ``chat`` at once and their calls overlap. Each
    call borrows a client of its own (same settings) from a small pool: httpcore scans every
    pooled connection on every request, so one shared pool of 16 connections costs a third
    of the CPU of a call at concurrency 16. The clients share one SSL context, which makes a
    new one cheap (5 ms instead of 30). ``client`` is the first one, for inspection.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float | None = None,
        max_retries: int = 0,
    ) -> None:
        self._runner = _LoopThread(name="touchstone-transport")
        # Cleared once a server rejects ``stream_options`` (older OpenAI-compatible servers).
        self._ask_for_usage = True
        options: dict[str, Any] = {
            "base_url": base_url or None,
            "api_key": api_key or PLACEHOLDER_API_KEY,
            "max_retries": max_retries,
        }
        if timeout is not None:
            options["timeout"] = timeout

        self._options = options
        self._ssl_context = httpx2.create_ssl_context()
        self._clients: list[openai.AsyncOpenAI] = []
        self._idle: list[openai.AsyncOpenAI] = []
        self._clients_lock = threading.Lock()
        self.client: openai.AsyncOpenAI = self._borrow()
        self._give_back(self.client)

    def _borrow(self) -> openai.AsyncOpenAI:
        with self._clients_lock:
            if self._idle:
                return self._idle.pop()

        async def build() -> openai.AsyncOpenAI:
            http_client = openai.DefaultAsyncHttpxClient(verify=self._ssl_context)
            return openai.AsyncOpenAI(**self._options, http_client=http_client)

        client = self._runner.run(build(), wait_s=30)
        with self._clients_lock:
            self._clients.append(client)
        return client

    def _give_back(self, client: openai.AsyncOpenAI) -> None:
        with self._clients_lock:
            self._idle.append(client)

    def chat(
        self,
        *,
        model: str,
        messages: list[dict[str, str]],
        deadline_s: float | None,
        stream: bool,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> ChatReply:
        request: dict[str, Any] = {"model": model, "messages": messages}
        if temperature is not None:
            request["temperature"] = temperature
        if max_tokens is not None:
            request["max_tokens"] = max_tokens
        if extra_body:
            request["extra_body"] = dict(extra_body)
        client = self._borrow()
        call = self._streamed(client, request) if stream else self._plain(client, request)
        wait_s = None if deadline_s is None else deadline_s + _UNWIND_GRACE_S
        try:
            return self._runner.run(_bounded(call, deadline_s), wait_s)
        except concurrent.futures.TimeoutError:
            assert deadline_s is not None
            raise DeadlineExceeded(deadline_s) from None
        finally:
            self._give_back(client)

    async def _plain(self, client: openai.AsyncOpenAI, request: dict[str, Any]) -> ChatReply:
        # The SDK's low-level post keeps its retries, timeout and error classes but skips
        # the typed request transform and response model, over half of its CPU per call:
        # that is what lets 16 parallel judge calls reach the server's pace.
        started = time.monotonic()
        body = dict(request)
        body.update(body.pop("extra_body", {}))
        data = await client.post("/chat/completions", body=body, cast_to=object)
        return _reply_from_json(data, time.monotonic() - started)

    async def _streamed(self, client: openai.AsyncOpenAI, request: dict[str, Any]) -> ChatReply:
        started = time.monotonic()
        content: list[str] = []
        reasoning: list[str] = []
        finish_reason = ""
        usage: Any = None
        stream = await self._open_stream(client, request)
        try:
            async for chunk in stream:
                if chunk.usage is not None:
                    usage = chunk.usage
                for choice in chunk.choices:
                    if choice.delta is not None:
                        if choice.delta.content:
                            content.append(choice.delta.content)
                        piece = _reasoning_in(choice.delta.model_extra or {})
                        if piece:
                            reasoning.append(piece)
                    if choice.finish_reason:
                        finish_reason = choice.finish_reason
        finally:
            await stream.close()
        prompt_t, completion_t, reasoning_t = _usage_numbers(usage)
        return ChatReply(
            content="".join(content),
            reasoning="".join(reasoning),
            finish_reason=finish_reason,
            latency_s=time.monotonic() - started,
            prompt_tokens=prompt_t,
            completion_tokens=completion_t,
            reasoning_tokens=reasoning_t,
        )

    async def _open_stream(self, client: openai.AsyncOpenAI, request: dict[str, Any]) -> Any:
        if self._ask_for_usage:
            try:
                return await client.chat.completions.create(
                    **request, stream=True, stream_options={"include_usage": True}
                )
            except openai.BadRequestError as exc:
                if "stream_options" not in str(exc):
                    raise
                self._ask_for_usage = False
        return await client.chat.completions.create(**request, stream=True)

    def close(self) -> None:
        """Cancel calls still running (a Ctrl-C or SIGTERM arrived), then close the client."""

        async def shutdown() -> None:
            running = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
            with self._clients_lock:
                clients = list(self._clients)
            for client in clients:
                await client.close()

        # Closing a half-dead connection may fail; that must not mask the run's result.
        with contextlib.suppress(Exception):
            self._runner.run(shutdown(), wait_s=2)
        self._runner.stop()


async def _bounded(call: Coroutine[Any, Any, T], deadline_s: float | None) -> T:
    if deadline_s is None:
        return await call
    try:
        async with asyncio.timeout(deadline_s):
            return await call
    except TimeoutError as exc:
        raise DeadlineExceeded(deadline_s) from exc
