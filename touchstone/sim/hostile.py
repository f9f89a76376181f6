"""Replies no honest server sends, to show that touchstone stays bounded (design.md §15).

The huge ones are written lazily, piece by piece, so that the simulator holds no more of them
than a piece; a client that hangs up ends them (its next write fails).
"""

from __future__ import annotations

import functools
import json
import re
import struct
import zlib
from collections.abc import Iterator
from typing import Any

from touchstone.sim.plumbing import Plumbing, chunk, sse

# How much a huge reply would be, inflated or written out in full.
HUGE_BYTES = 1 << 30
_BLOCK = b"a" * (1 << 20)
HOSTILE = ("sim-bomb", "sim-flood", "sim-longline", "sim-parts", "sim-choices", "sim-bignum")
CHOICES = 1000
# An integer JSON allows and Python's ``json`` refuses to convert (more than 4,300 digits).
BIG_NUMBER = "7" * 4301


def hostile_reply(handler: Plumbing, base: str, name: str, stream: bool) -> None:
    """Answer as the hostile model ``base`` (one of ``HOSTILE``) does."""
    if base == "sim-bomb":
        # A gzip body of about a megabyte that inflates to a gigabyte: one giant SSE line
        # when streamed, one giant JSON body when not.
        _send_pieces(handler, stream, _gzip_bomb(_opening(name, stream)), encoding="gzip")
    elif base == "sim-longline":
        _send_pieces(handler, stream, _long_line(_opening(name, stream)))
    elif base == "sim-flood":
        _send_pieces(handler, stream, _flood(name, stream))
    elif base == "sim-parts":
        _parts(handler, name, stream)
    elif base == "sim-bignum":
        _big_number(handler, name, stream)
    else:
        _choices(handler, name, stream)


def _opening(name: str, stream: bool) -> bytes:
    """A reply up to the first character of its content, which then never ends."""
    if stream:
        return b'data: {"model": "%s", "choices": [{"index": 0, "delta": {"content": "' % (
            name.encode()
        )
    return b'{"model": "%s", "choices": [{"index": 0, "message": {"content": "' % name.encode()


def _send_pieces(
    handler: Plumbing, stream: bool, pieces: Iterator[bytes], encoding: str = ""
) -> None:
    handler._hold()
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream" if stream else "application/json")
    if encoding:
        handler.send_header("Content-Encoding", encoding)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    try:
        for piece in pieces:
            if handler.server.stopping.is_set():
                break
            handler._send_chunk(piece)
        handler._end_stream()
    except OSError:
        pass  # the client hung up: what a bounded client does
    handler.close_connection = True


@functools.cache
def _deflated_block() -> tuple[bytes, bytes]:
    """A megabyte of "a", deflated so that the piece can be repeated (a full flush ends it
    on a byte boundary with a fresh dictionary), and the end of a deflate stream."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = deflate.compress(_BLOCK) + deflate.flush(zlib.Z_FULL_FLUSH)
    return block, deflate.flush()


def _gzip_bomb(opening: bytes) -> Iterator[bytes]:
    block, end = _deflated_block()
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    yield b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # the gzip header
    yield deflate.compress(opening) + deflate.flush(zlib.Z_FULL_FLUSH)
    repeats = HUGE_BYTES // len(_BLOCK)
    for _ in range(repeats):
        yield block
    crc = zlib.crc32(opening)
    for _ in range(repeats):  # only for a client that read it all
        crc = zlib.crc32(_BLOCK, crc)
    size = (len(opening) + repeats * len(_BLOCK)) & 0xFFFFFFFF
    yield end + struct.pack("<II", crc, size)


def _long_line(opening: bytes) -> Iterator[bytes]:
    yield opening
    for _ in range(HUGE_BYTES // len(_BLOCK)):
        yield _BLOCK


def _flood(name: str, stream: bool) -> Iterator[bytes]:
    """Content in pieces of a few kilobytes without end (up to ``HUGE_BYTES``)."""
    words = "Flut " * 1000
    if stream:
        piece = sse(chunk(name, {"content": words}))
        yield sse(chunk(name, {"role": "assistant", "content": ""}))
    else:
        piece = words.encode()
        yield _opening(name, stream=False)
    for _ in range(HUGE_BYTES // len(piece)):
        yield piece


def _parts(handler: Plumbing, name: str, stream: bool) -> None:
    """Content as a list of parts, as Mistral sends it (with its thinking as a part)."""
    thinking = {"type": "thinking", "thinking": [{"type": "text", "text": "Erst prüfen. "}]}
    pieces = ["Simulierte Antwort ", "in Teilen: ", "19 €."]
    if not stream:
        message = {
            "role": "assistant",
            "content": [thinking, *({"type": "text", "text": p} for p in pieces)],
        }
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        handler._send_json(200, {"model": name, "choices": [choice]})
        return
    parts = [chunk(name, {"role": "assistant", "content": [thinking]})]
    parts += [chunk(name, {"content": [{"type": "text", "text": p}]}) for p in pieces]
    parts.append(chunk(name, {}, "stop"))
    handler._send_whole_stream(b"".join(map(sse, parts)) + b"data: [DONE]\n\n")


def _choices(handler: Plumbing, name: str, stream: bool) -> None:
    """A thousand choices (``n`` was never asked for): only choice 0 is the answer."""
    if not stream:
        choices: list[dict[str, Any]] = [
            {
                "index": i,
                "message": {"role": "assistant", "content": f"Simulierte Antwort Nr. {i}."},
                "finish_reason": "stop",
            }
            for i in reversed(range(CHOICES))
        ]
        handler._send_json(200, {"model": name, "choices": choices})
        return
    events = []
    for words in ("Simulierte Antwort ", "Nr. "):
        event = chunk(name, {})
        event["choices"] = [
            {"index": i, "delta": {"content": words}, "finish_reason": None}
            for i in reversed(range(CHOICES))
        ]
        events.append(event)
    last = chunk(name, {})
    last["choices"] = [
        {"index": i, "delta": {"content": f"{i}."}, "finish_reason": "stop"}
        for i in reversed(range(CHOICES))
    ]
    events.append(last)
    handler._send_whole_stream(
        b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events) + b"data: [DONE]\n\n"
    )


def _big_number(handler: Plumbing, name: str, stream: bool) -> None:
    """A complete reply, an answer as any other, whose ``created`` is ``BIG_NUMBER``."""
    created = f'"created": {BIG_NUMBER}'
    if not stream:
        message = {"role": "assistant", "content": "Simulierte Antwort."}
        reply = {"model": name, "created": 0, "choices": [{"index": 0, "message": message}]}
        body = json.dumps(reply).replace('"created": 0', created, 1).encode()
        _send_pieces(handler, False, iter([body]))
        return
    events = [chunk(name, {"role": "assistant", "content": "Simulierte Antwort."}, "stop")]
    text = b"".join(map(sse, events)).decode()
    body = re.sub(r'"created": \d+', created, text).encode() + b"data: [DONE]\n\n"
    handler._send_whole_stream(body)
