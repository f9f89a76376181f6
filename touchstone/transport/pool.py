"""The clients a transport lends its calls, and when a kept-alive connection is not reused.

Each call borrows a client of its own (``ChatTransport``: httpcore scans every pooled
connection on every request, so one shared pool costs CPU at high concurrency); a client
given back keeps its connection alive for the next call.

Servers close idle keep-alive connections without a word: llama.cpp's HTTP library
(cpp-httplib) after 5 s, uvicorn (vLLM) and Node after 5 s, gunicorn after 2 s. A request sent
on such a connection just as the server closes it is lost in a way the client cannot always
tell from a server that read the request and then dropped it, so it must not be retried
(a generation may be running). The way out is not to send it: a client idle longer than
half the keep-alive timeout the server announces (``Keep-Alive: timeout=N``, as cpp-httplib
and Node do), or ``DEFAULT_REUSE_S`` when it announces none, is closed instead of lent, and
its call opens a fresh connection.

llama-server also closes every connection right after a streamed reply, though it announced
keep-alive (cpp-httplib ends a chunked reply that way): the close comes a moment after the
reply's last byte, so a call sent on that connection at once crosses it, is never read, and
fails as if the server had read it and hung up (no resend then). So before the first reuse
of a connection a streamed reply came on, the pool waits until ``SETTLE_S`` after that reply
and looks whether the server closed it: then it learns that this server closes after every
stream, and from then on such a connection is never lent again (its call opens a fresh one).
Every later reuse looks again, so a server that closes later than that is found out as well.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import httpx2
    import openai

# How long an idle connection is reused when the server announces no keep-alive timeout:
# well inside the shortest common default (gunicorn's 2 s).
DEFAULT_REUSE_S = 1.0

# How long after a streamed reply a server that closes its connection then has done so
# (llama-server: well under a millisecond). Waited once per transport, before the first reuse.
SETTLE_S = 0.05

_TIMEOUT = re.compile(r"(?:^|[\s,;])timeout\s*=\s*([0-9]+(?:\.[0-9]*)?)", re.IGNORECASE)


def announced_timeout_s(keep_alive: str) -> float | None:
    """The idle timeout a ``Keep-Alive`` header announces (``timeout=5, max=100``), or None."""
    match = _TIMEOUT.search(keep_alive)
    return float(match.group(1)) if match else None


class NetworkStream(Protocol):
    """The connection a reply came on (httpcore's ``network_stream`` response extension)."""

    def get_extra_info(self, info: str) -> Any: ...


class ClientPool:
    """The clients of one event loop: lent one per call, given back, closed when stale."""

    def __init__(self, make: Callable[[], openai.AsyncOpenAI]) -> None:
        self._make = make
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clients: set[openai.AsyncOpenAI] = set()
        # Idle clients with the time each was given back and, after a streamed reply, the
        # connection it came on; the most recent last.
        self._idle: list[tuple[openai.AsyncOpenAI, float, NetworkStream | None]] = []
        self._reuse_s = DEFAULT_REUSE_S
        # Whether the server closes each connection after a streamed reply (None: not known).
        self.closes_after_stream: bool | None = None

    async def borrow(self, *, fresh: bool = False) -> tuple[openai.AsyncOpenAI, bool]:
        """A client for one call, and whether it holds a connection an earlier call used;
        ``fresh``: a new one (a new connection)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            # A new loop: the clients of an earlier one cannot serve it (their loop is gone).
            self._loop, self._clients, self._idle = loop, set(), []
        if self._idle and not fresh:
            client, since, streamed_on = self._idle.pop()
            if await self._reusable(since, streamed_on):
                return client, True
            # The others were given back earlier still (or after a stream, too): the server
            # may have closed all of them.
            stale = [client, *(other for other, _, _ in self._idle)]
            self._idle = []
            for other in stale:
                await self.drop(other)
        client = self._make()
        self._clients.add(client)
        return client, False

    async def _reusable(self, since: float, streamed_on: NetworkStream | None) -> bool:
        """Whether a client given back at ``since`` may be lent again: not idle too long and,
        after a streamed reply on ``streamed_on``, its connection not closed by the server."""
        unknown = streamed_on is not None and self.closes_after_stream is None
        if unknown and time.monotonic() - since <= self._reuse_s:
            await asyncio.sleep(max(0.0, since + SETTLE_S - time.monotonic()))
        if time.monotonic() - since > self._reuse_s:
            return False
        return streamed_on is None or not self._closed_after_stream(streamed_on)

    def _closed_after_stream(self, streamed_on: NetworkStream) -> bool:
        """Whether the server closed the connection a streamed reply came on (an idle
        connection turns readable when closed), learning whether it does so after each."""
        if self.closes_after_stream:
            return True
        if streamed_on.get_extra_info("is_readable"):
            self.closes_after_stream = True
            return True
        if self.closes_after_stream is None:
            self.closes_after_stream = False
        return False

    def give_back(
        self, client: openai.AsyncOpenAI, streamed_on: NetworkStream | None = None
    ) -> None:
        """``client``'s call is over; ``streamed_on``: the connection its streamed reply
        came on (read to its end)."""
        if client in self._clients:
            self._idle.append((client, time.monotonic(), streamed_on))

    async def drop(self, client: openai.AsyncOpenAI) -> None:
        """Close ``client`` (and its connections) instead of lending it again."""
        if client in self._clients:
            self._clients.discard(client)
            await client.close()

    def note_keep_alive(self) -> Callable[[httpx2.Response], Awaitable[None]]:
        """The response hook that learns the keep-alive timeout the server announces."""

        async def hook(response: httpx2.Response) -> None:
            # ``get_list``: no KeyError raised and caught for every reply without the header.
            values = response.headers.get_list("keep-alive")
            timeout = announced_timeout_s(", ".join(values)) if values else None
            if timeout is not None:
                self._reuse_s = timeout / 2

        return hook

    async def aclose(self) -> None:
        """Close the clients of the running loop (their connections with them)."""
        if self._loop is not asyncio.get_running_loop():
            return
        clients, self._clients, self._idle = self._clients, set(), []
        self._loop = None
        for client in clients:
            await client.close()
