"""Response bodies, inflated in bounded steps and capped (see ``bounds``).

``cap_bodies`` is an httpx response hook: it runs before a byte of the body is read and takes
over the content coding (gzip, deflate), inflating each piece the network delivers in steps of
at most ``PIECE_BYTES`` and counting the inflated bytes. A body beyond its cap raises
``ReplyTooLarge`` while it is read, wherever it is read: by the SDK (a whole reply, an error
body, a redirect) or by the transport. httpx's own decoders would inflate in bounded steps
too, but ``Response.aread`` joins them all: the count has to sit in the stream itself. A
successful event stream without a content coding is left as it is: nothing to inflate, no
total to count, and the transport reads it raw and caps its lines and content.
Imported with the SDK, by the first transport.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import httpx2

from touchstone.errors import BrokenReply, ReplyTooLarge

# The most a body is inflated by in one step: a bomb is noticed one step past the cap.
PIECE_BYTES = 64 * 1024
# What touchstone asks for: the codings it inflates in bounded steps (not br, not zstd).
ACCEPT_ENCODING = "gzip, deflate"


class _Inflater:
    """One content coding (gzip or deflate) undone in steps of at most ``PIECE_BYTES``."""

    def __init__(self, coding: str) -> None:
        self._gzip = coding in ("gzip", "x-gzip")
        self._started = False
        self._inflate = self._new(raw=False)

    def _new(self, *, raw: bool) -> zlib._Decompress:
        if self._gzip:
            return zlib.decompressobj(zlib.MAX_WBITS | 16)
        # "deflate" is meant to be zlib-wrapped, but some servers send it raw.
        return zlib.decompressobj(-zlib.MAX_WBITS if raw else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            yield from self._feed(data)
        except zlib.error as exc:
            raise BrokenReply(f"Antwort nicht zu entpacken: {exc}") from None

    def _feed(self, data: bytes) -> Iterator[bytes]:
        while data:
            try:
                out = self._inflate.decompress(data, PIECE_BYTES)
            except zlib.error:
                if self._gzip or self._started:
                    raise
                self._inflate = self._new(raw=True)
                out = self._inflate.decompress(data, PIECE_BYTES)
            self._started = True
            while out:
                yield out
                out = self._inflate.decompress(self._inflate.unconsumed_tail, PIECE_BYTES)
            # Several gzip members one after another: the next one starts afresh.
            data = self._inflate.unused_data if self._inflate.eof else b""
            if data:
                self._inflate = self._new(raw=False)


class CappedBody(httpx2.AsyncByteStream):
    """A response body, inflated in bounded steps; ``ReplyTooLarge`` beyond ``limit`` bytes
    (``None``: no cap on the total)."""

    def __init__(
        self,
        raw: httpx2.AsyncByteStream,
        codings: list[str],
        limit: int | None,
        cap: int,
        *,
        truncate: bool = False,
    ) -> None:
        self._raw = raw
        self._inflaters = [_Inflater(coding) for coding in reversed(codings)]
        self._limit = limit
        self._cap = cap
        # An error reply's body is cut at the limit, not refused: the status says what went
        # wrong (a 500 is the server's trouble), and a bomb in its body must not turn it into
        # ``too_large``, a finding about the model.
        self._truncate = truncate

    def _decoded(self, data: bytes) -> Iterator[bytes]:
        if not self._inflaters:
            return iter((data,))
        pieces: Iterator[bytes] = iter((data,))
        for inflater in self._inflaters:
            pieces = _through(inflater, pieces)
        return pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for data in self._raw:
            for piece in self._decoded(data):
                size += len(piece)
                if self._limit is not None and size > self._limit:
                    if self._truncate:
                        yield piece[: len(piece) - (size - self._limit)]
                        return
                    raise ReplyTooLarge(self._cap, "Antwort (entpackt)")
                yield piece

    async def aclose(self) -> None:
        await self._raw.aclose()


def _through(inflater: _Inflater, pieces: Iterator[bytes]) -> Iterator[bytes]:
    for piece in pieces:
        yield from inflater.feed(piece)


def cap_bodies(limit: int) -> Callable[[httpx2.Response], Awaitable[None]]:
    """The response hook that caps every body at ``limit`` inflated bytes (but the total of a
    successful event stream, whose lines and content are capped as they are read)."""

    async def hook(response: httpx2.Response) -> None:
        values = response.headers.get_list("content-encoding", split_commas=True)
        codings = [v.strip().lower() for v in values if v.strip().lower() not in ("", "identity")]
        unknown = [c for c in codings if c not in ("gzip", "x-gzip", "deflate")]
        if unknown:
            raise BrokenReply(f"Antwort in nicht angefragter Kodierung: {', '.join(unknown)}"[:200])
        content_type = response.headers.get("content-type", "")
        stream = response.is_success and content_type.startswith("text/event-stream")
        if stream and not codings:
            # Nothing to inflate, no total to cap (the transport caps its lines and content):
            # no layer between the network and the reader, which reads every piece.
            return
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        response.stream = CappedBody(
            response.stream,
            codings,
            None if stream else limit,
            limit,
            truncate=response.status_code >= 400,
        )
        if codings:
            # Inflated here: httpx must not inflate it again, nor trust its length.
            del response.headers["content-encoding"]
            if "content-length" in response.headers:
                del response.headers["content-length"]

    return hook
