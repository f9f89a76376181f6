"""Chat calls over the openai SDK, as coroutines, each bounded by a hard wall-clock deadline.

Why a deadline of our own: the SDK's ``timeout`` bounds each network *read*, not the call.
A server that trickles bytes (keep-alive whitespace before a JSON body, SSE comments in a
stream, as some proxies send while a model thinks) resets that read timeout with every byte
and keeps a call with ``timeout=2`` alive for as long as it likes.

How: the whole call (connect, the SDK's retries, every byte of the reply) runs inside
``asyncio.timeout(deadline)``. When it passes, or when the caller cancels the call (an
abort, Ctrl-C, SIGTERM), the pending read is cancelled wherever it is, and httpcore closes
the connection: a connection that was mid-response is never reused. A streamed call is how
the *server* learns of it: it notices the closed connection on its next write and stops
generating (llama.cpp, LM Studio, Ollama, vLLM do). A non-streamed call gives a server no
such chance until its reply is written; that is why judge and answer calls stream.

The clients belong to the event loop that uses them (an httpx connection lives on one loop).
``aclose`` releases them on that loop; a transport used from a later loop makes new ones.
Exceptions of the SDK pass through unchanged: ``endpoint`` classifies them (``classify``) once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from touchstone.errors import CallError, DeadlineExceeded, Progress
from touchstone.transport.bounds import DEFAULT_MAX_REPLY_BYTES, LineSplitter
from touchstone.transport.classify import call_error, refused_connection, unread_by_server
from touchstone.transport.pool import ClientPool, NetworkStream
from touchstone.transport.replies import ChatReply, StreamReader, reply_from_json

if TYPE_CHECKING:
    import ssl

    import httpx2
    import openai

# A response hook of every client (the reply cap): an httpx2 event hook.
ResponseHook = Callable[["httpx2.Response"], Awaitable[None]]

# How often a call is sent again on a fresh connection after a kept-alive one was reset
# before the server read it (``ChatTransport._attempts``).
MAX_RESENDS = 2

# Local servers (LM Studio, Ollama, llama.cpp) need no key, but the SDK insists on one.
PLACEHOLDER_API_KEY = "touchstone-no-key"


class ChatTransport:
    """One OpenAI-compatible endpoint; ``chat`` is a coroutine bounded by ``deadline_s``.

    ``read_timeout_s`` is the SDK's per-read timeout (``None``: the SDK default) and
    ``max_retries`` its retry count, both inside the deadline. ``max_reply_bytes`` caps every
    reply (``bounds``): beyond it a call fails with ``ReplyTooLarge``. Calls may overlap: each
    borrows a client of its own from a small pool, because httpcore scans every pooled
    connection on every request (one shared pool of 16 connections costs a third of a
    call's CPU at concurrency 16). The clients share one SSL context, which makes a new one
    cheap. A call is sent again only when it provably never reached the server (``pool``,
    ``_attempts``).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        read_timeout_s: float | None = None,
        max_retries: int = 0,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        self._options: dict[str, Any] = {
            "base_url": base_url or None,
            "api_key": api_key or PLACEHOLDER_API_KEY,
            "max_retries": max_retries,
        }
        if read_timeout_s is not None:
            self._options["timeout"] = read_timeout_s
        self._max_reply_bytes = max_reply_bytes
        # The SDK, the reply cap and the SSL context are made by the first call (``_prepare``):
        # the SDK takes a second to import, which a run with nothing left to ask (a resume,
        # report, cache, --help) need not pay.
        self._client_parts: tuple[ssl.SSLContext, ResponseHook] | None = None
        self._pool = ClientPool(self._new_client)
        self._note_keep_alive = self._pool.note_keep_alive()
        # Cleared once a server rejects ``stream_options`` (older OpenAI-compatible servers).
        self._ask_for_usage = True

    def _prepare(self) -> tuple[ssl.SSLContext, ResponseHook]:
        """Import the SDK and make what every client shares, once. ``chat`` calls it before
        its deadline starts, so that no call's deadline pays for the import."""
        if self._client_parts is None:
            import httpx2
            import openai  # noqa: F401

            from touchstone.transport.bodies import cap_bodies

            self._client_parts = (
                httpx2.create_ssl_context(),
                cap_bodies(self._max_reply_bytes),
            )
        return self._client_parts

    def _new_client(self) -> openai.AsyncOpenAI:
        import openai

        from touchstone.transport.bodies import ACCEPT_ENCODING

        ssl_context, cap = self._prepare()
        http_client = openai.DefaultAsyncHttpxClient(
            verify=ssl_context,
            headers={"Accept-Encoding": ACCEPT_ENCODING},
            event_hooks={"response": [cap, self._note_keep_alive]},
        )
        return openai.AsyncOpenAI(**self._options, http_client=http_client)

    async def chat(
        self,
        *,
        model: str,
        messages: list[dict[str, str]],
        deadline_s: float | None,
        stream: bool,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> ChatReply:
        body: dict[str, Any] = {"model": model, "messages": messages}
        if temperature is not None:
            body["temperature"] = temperature
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if extra_body:
            body.update(extra_body)
        if response_format is not None:
            body["response_format"] = dict(response_format)
        self._prepare()
        seen: list[StreamReader] = []
        if deadline_s is None:
            return await self._attempts(body, stream, seen)
        started = time.monotonic()
        scope = asyncio.timeout(deadline_s)
        try:
            async with scope:
                return await self._attempts(body, stream, seen)
        except TimeoutError as exc:
            if not scope.expired():
                raise  # a TimeoutError of the call itself, not our deadline
            # How far the (last) reply got: data for the advice by cause (design.md §26).
            now = time.monotonic()
            progress = (
                seen[-1].progress(started, now)
                if seen
                else Progress(streamed=stream, elapsed_s=now - started)
            )
            raise DeadlineExceeded(deadline_s, progress) from exc

    async def _attempts(
        self, body: dict[str, Any], stream: bool, seen: list[StreamReader]
    ) -> ChatReply:
        """The call, sent again (within the caller's deadline) while it provably never
        reached the server: a kept-alive connection the server reset before reading it.
        ``seen``: each stream's reader, as it is made (how far a reply got)."""
        for attempt in range(MAX_RESENDS + 1):
            # A call sent again gets a new connection: the idle ones may be as stale.
            client, reused = await self._pool.borrow(fresh=attempt > 0)
            dropped = False
            streamed_on = None
            try:
                reply, streamed_on = await self._call(client, body, stream, seen)
                return reply
            except Exception as exc:
                if not refused_connection(exc):
                    raise
                # It holds no connection; the clients that answered may hold the server's
                # only ones (kept alive): borrowing them next is how calls get through to
                # a server that takes few connections at once.
                dropped = True
                await self._pool.drop(client)
                if not (reused and attempt < MAX_RESENDS and unread_by_server(exc)):
                    raise
            finally:
                if not dropped:
                    self._pool.give_back(client, streamed_on)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _call(
        self,
        client: openai.AsyncOpenAI,
        body: dict[str, Any],
        stream: bool,
        seen: list[StreamReader],
    ) -> tuple[ChatReply, NetworkStream | None]:
        """The reply and, of a streamed one, the connection it came on (``pool``: a server
        may close it right after)."""
        started = time.monotonic()
        if not stream:
            import httpx2

            # The SDK's low-level post keeps its retries, timeout and error classes but skips
            # the typed request transform and response model, over half of its CPU per call.
            # The body is parsed here, not by the SDK: its ``json()`` raises whatever Python's
            # json raises (a plain ValueError for an integer of 4,301 digits), ``jsontext``
            # makes every such body a ``MalformedReply`` of the server.
            response = await client.post("/chat/completions", body=body, cast_to=httpx2.Response)
            return reply_from_json(response.content, time.monotonic() - started), None
        response = await self._open_stream(client, body)
        reader = StreamReader(self._max_reply_bytes)
        seen.append(reader)
        lines = LineSplitter(self._max_reply_bytes)
        try:
            # Read to the end, [DONE] included: a fully read HTTP/1.1 response lets the
            # connection be reused; a cancelled read closes it. (Not ``aiter_lines``: it
            # would hold a line of any length.)
            # Raw: the response hook (``bodies``) already undid any content coding.
            feed = reader.feed_lines
            async for data in response.aiter_raw():
                feed(lines.feed(data))
            feed(lines.flush())
        finally:
            await response.aclose()
        return reader.reply(time.monotonic() - started), response.extensions.get("network_stream")

    async def _open_stream(
        self, client: openai.AsyncOpenAI, body: dict[str, Any]
    ) -> httpx2.Response:
        import httpx2
        import openai

        streamed = {**body, "stream": True}
        if self._ask_for_usage:
            try:
                return await client.post(
                    "/chat/completions",
                    body={**streamed, "stream_options": {"include_usage": True}},
                    cast_to=httpx2.Response,
                    stream=True,
                )
            except openai.BadRequestError as exc:
                if "stream_options" not in str(exc):
                    raise
                self._ask_for_usage = False
        return await client.post(
            "/chat/completions", body=streamed, cast_to=httpx2.Response, stream=True
        )

    async def model_ids(self, deadline_s: float = 10.0) -> list[str]:
        """The model ids the endpoint lists (``GET /models``); a failure is a ``CallError``
        of its kind (the caller decides what a listing that failed means)."""
        client, _ = await self._pool.borrow()
        try:
            async with asyncio.timeout(deadline_s):
                data = await client.get("/models", cast_to=object)
        except Exception as exc:
            raise call_error(CallError, exc) from exc
        finally:
            self._pool.give_back(client)
        entries = data.get("data") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            return []
        return [str(e["id"]) for e in entries if isinstance(e, dict) and e.get("id")]

    async def aclose(self) -> None:
        """Close the clients of the running loop (their connections with them)."""
        await self._pool.aclose()
