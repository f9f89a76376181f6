"""Caps on what a server sends (design.md §15): the cap of a reply and the lines of a stream.

A reply is capped (``DEFAULT_MAX_REPLY_MB`` unless configured) three ways: its body, inflated
(``bodies.cap_bodies``), except the total of a successful event stream, which may run as long
as its deadline allows; each line of a stream (``LineSplitter``); and the content and
reasoning a stream adds up to (``replies.StreamReader``). Beyond the cap a call fails with
``ReplyTooLarge`` (kind ``too_large``) while the reply is read, so memory stays bounded.
This module does not import httpx: commands that call no endpoint need not load it.
"""

from __future__ import annotations

from touchstone.errors import ReplyTooLarge

DEFAULT_MAX_REPLY_MB = 4.0


def reply_limit_bytes(megabytes: float) -> int:
    """The cap in bytes for a cap given in MB (2**20 bytes)."""
    return max(1, int(megabytes * 2**20))


DEFAULT_MAX_REPLY_BYTES = reply_limit_bytes(DEFAULT_MAX_REPLY_MB)


class LineSplitter:
    """The lines of an event stream from the pieces of its body (LF, CR or CRLF end a line),
    each at most ``limit`` bytes; ``ReplyTooLarge`` as soon as one grows beyond it."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._pending: list[bytes] = []
        self._size = 0
        self._skip_lf = False

    def feed(self, data: bytes) -> list[str]:
        if self._skip_lf:
            # A CRLF split between two pieces: its CR already ended the line.
            self._skip_lf = False
            if data.startswith(b"\n"):
                data = data[1:]
        cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
        if cut < 0:
            self._pending.append(data)
            self._size += len(data)
            self._check(self._size)
            return []
        head = data[: cut + 1]
        if self._pending:
            head = b"".join(self._pending) + head
        rest = data[cut + 1 :]
        self._pending = [rest] if rest else []
        self._size = len(rest)
        self._check(self._size)
        self._skip_lf = head.endswith(b"\r")
        lines = head.splitlines()
        self._check(max(map(len, lines), default=0))
        return [line.decode("utf-8", "replace") for line in lines]

    def flush(self) -> list[str]:
        """The last line, when the stream ended without ending it."""
        rest = b"".join(self._pending)
        self._pending, self._size = [], 0
        return [rest.decode("utf-8", "replace")] if rest else []

    def _check(self, size: int) -> None:
        if size > self._limit:
            raise ReplyTooLarge(self._limit, "Eine Zeile des Streams")
