"""HTTP plumbing of the simulator: JSON replies, timed waits, chunked streams."""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TRICKLE_INTERVAL_S = 0.2
# ``sim-langsam`` writes one token (``SLOW_TOKEN_CHARS`` characters) this often: a CPU server.
SLOW_TOKEN_S = 0.1
SLOW_TOKEN_CHARS = 4
# A hanging request gives up after this long even if nobody disconnects.
MAX_HANG_S = 3600.0


class SimHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server that can tell its handlers to stop waiting.

    ``keep_alive_s``: a connection idle that long after a reply is closed without a word,
    as llama.cpp's HTTP library (cpp-httplib) closes it; the timeout is announced in a
    ``Keep-Alive`` header, as cpp-httplib does. ``keep_alive_max``: after that many requests
    the next one finds its connection reset before the server read it.
    ``close_after_stream_s``: that long after each streamed reply the connection is closed,
    whatever arrived meanwhile unread, as llama-server does (cpp-httplib closes a connection
    whose chunked reply ended, though it announced keep-alive). ``idle_closed`` counts the
    connections closed in any of these ways.
    """

    daemon_threads = True
    allow_reuse_address = True
    # The default backlog of 5 drops connections of a burst of parallel calls, which then
    # wait a whole SYN retry (1 s): fatal for concurrency benchmarks.
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.stopping = threading.Event()
        self.keep_alive_s: float | None = None
        self.keep_alive_max: int | None = None
        self.close_after_stream_s: float | None = None
        self.idle_closed = 0
        self.count_lock = threading.Lock()


class ClientGone(Exception):
    """The client hung up (or the server stops) before its answer was due."""


class Plumbing(BaseHTTPRequestHandler):
    """Replies, waits and chunked streams; the routes live in ``server``."""

    protocol_version = "HTTP/1.1"
    server: SimHTTPServer
    due: float
    # Whether the last reply was a stream that ended cleanly (``close_after_stream_s``).
    stream_ended = False

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without NODELAY, Nagle's algorithm
        # and delayed ACKs add ~40 ms to every call, which would distort every benchmark.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle(self) -> None:
        """Requests on this connection until either side closes it, or the server's
        keep-alive limits do (``SimHTTPServer.keep_alive_s``, ``keep_alive_max``)."""
        served = 0
        self.close_connection = False
        self.stream_ended = False
        while not self.close_connection:
            if served and not self._kept_alive(served):
                return
            self.handle_one_request()
            served += 1
            if self.stream_ended and self.server.close_after_stream_s is not None:
                self._close_after_stream(self.server.close_after_stream_s)
                return

    def _close_after_stream(self, delay_s: float) -> None:
        """Close the connection ``delay_s`` after a streamed reply ended, reading nothing
        that arrived meanwhile: a clean close (no reset) that crosses the next request."""
        time.sleep(delay_s)
        with self.server.count_lock:
            self.server.idle_closed += 1
        try:
            self.connection.shutdown(socket.SHUT_WR)
            # Read what came (unanswered) until the client hangs up: closing a socket
            # with unread data would reset it, and a reset is not what llama-server sends.
            self.connection.settimeout(2.0)
            while self.connection.recv(65536):
                pass
        except OSError:
            pass

    def _kept_alive(self, served: int) -> bool:
        """Whether the connection is kept for another request after ``served`` ones.

        Idle for ``keep_alive_s``, it is closed as cpp-httplib closes it. Past
        ``keep_alive_max`` it is closed as the next request arrives, unread and with a reset
        (``SO_LINGER`` 0): a close that crosses the client's request, as an idle close can.
        """
        readable, _, _ = select.select([self.connection], [], [], self.server.keep_alive_s)
        if readable and self._client_gone():
            return False
        limit = self.server.keep_alive_max
        if readable and (limit is None or served < limit):
            return True
        with self.server.count_lock:
            self.server.idle_closed += 1
        if readable:
            linger = struct.pack("ii", 1, 0)
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
            self.connection.close()
        return False

    def end_headers(self) -> None:
        if self.server.keep_alive_s is not None:
            # Announced as cpp-httplib announces it ("timeout=5, max=5").
            self.send_header("Keep-Alive", f"timeout={self.server.keep_alive_s:g}")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the simulator must not clutter the user's terminal."""

    # -- plumbing -------------------------------------------------------------------------
    def _send_json(
        self,
        status: int,
        payload: Any,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode()
        self._hold()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _error(
        self, status: int, message: str, code: str, kind: str, headers: dict[str, str] | None = None
    ) -> None:
        error = {"error": {"message": message, "type": kind, "code": code}}
        self._send_json(status, error, headers=headers)

    def _client_gone(self) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            peeked: bytes = self.connection.recv(1, socket.MSG_PEEK)
            return peeked == b""
        except OSError:
            return True

    def _wait(self, seconds: float, *, watch_client: bool = True) -> bool:
        """Sleep up to ``seconds``; False when the server stops or (watched) the client left."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.server.stopping.wait(min(0.05, max(0.0, end - time.monotonic()))):
                return False
            if watch_client and self._client_gone():
                return False
        return True

    def _hold(self) -> None:
        """Wait until the answer is due; ``ClientGone`` when the client left meanwhile."""
        # The last millisecond is slept in one piece: a timed wait on an Event oversleeps
        # by a few tenths of a millisecond, a plain sleep that short by a few hundredths.
        if not self._wait(self.due - time.monotonic() - 0.001):
            raise ClientGone
        time.sleep(max(0.0, self.due - time.monotonic()))

    def _start_stream(self, content_type: str) -> None:
        self._hold()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _send_chunk(self, data: bytes) -> None:
        """One chunk of the body; ``OSError`` when the client is gone."""
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.stream_ended = True

    def _drip(self, piece: bytes, interval_s: float) -> None:
        """Write ``piece`` every ``interval_s`` until the client leaves or the server stops."""
        deadline = time.monotonic() + MAX_HANG_S
        try:
            while time.monotonic() < deadline:
                self._send_chunk(piece)
                if self.server.stopping.wait(interval_s):
                    break
        except OSError:
            pass  # the client left: that is how a generation notices
        self.close_connection = True

    def _stream_reply(
        self,
        name: str,
        content: str,
        reasoning: str,
        finish: str,
        usage: dict[str, Any],
        request: dict[str, Any],
        *,
        slow: bool = False,
    ) -> None:
        """The reply as a stream; ``slow``: one token per event, every ``SLOW_TOKEN_S``."""
        parts = [chunk(name, {"role": "assistant", "content": ""})]
        if reasoning:
            parts.append(chunk(name, {"reasoning_content": reasoning}))
        step = SLOW_TOKEN_CHARS if slow else 40
        for start in range(0, len(content), step):
            parts.append(chunk(name, {"content": content[start : start + step]}))
        parts.append(chunk(name, {}, finish))
        if (request.get("stream_options") or {}).get("include_usage"):
            final = chunk(name, {})
            final["choices"] = []
            final["usage"] = usage
            parts.append(final)
        if slow:
            self._send_slowly([*map(sse, parts), b"data: [DONE]\n\n"])
            return
        # A reply of fixed latency leaves at once, in one chunk.
        self._send_whole_stream(b"".join(map(sse, parts)) + b"data: [DONE]\n\n")

    def _send_whole_stream(self, body: bytes) -> None:
        """A complete event stream in one chunk (a client that left just ends it)."""
        self._start_stream("text/event-stream")
        try:
            self._send_chunk(body)
            self._end_stream()
        except OSError:
            self.close_connection = True

    def _send_slowly(self, events: list[bytes]) -> None:
        """The events one by one, ``SLOW_TOKEN_S`` apart (a client that left ends it)."""
        self._start_stream("text/event-stream")
        try:
            for event in events:
                self._send_chunk(event)
                if self.server.stopping.wait(SLOW_TOKEN_S):
                    break
            self._end_stream()
        except OSError:
            self.close_connection = True

    def _broken(self, base: str, name: str, stream: bool) -> None:
        """Replies that look like answers but are not complete chat completions."""
        if base == "sim-nochoices":
            if not stream:
                self._send_json(
                    200,
                    {
                        "id": "chatcmpl-sim",
                        "object": "chat.completion",
                        "model": name,
                        "choices": [],
                    },
                )
                return
            empty = chunk(name, {})
            empty["choices"] = []
            body = sse(empty) + b"data: [DONE]\n\n"
        else:
            if not stream:
                # A body shorter than announced: the connection breaks off mid-reply.
                self._hold()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "4096")
                self.end_headers()
                self.wfile.write(b'{"id": "chatcmpl-sim", "choices": [{"index": 0, "mess')
                self.close_connection = True
                return
            # The stream ends cleanly after its first piece: no finish_reason, no [DONE].
            first = chunk(name, {"role": "assistant", "content": "Simulierte Antwort, abgebr"})
            body = sse(first)
        self._send_whole_stream(body)


def chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-sim",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def sse(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()
