"""The simulator's HTTP server: an OpenAI-compatible endpoint on loopback (see ``sim``)."""

from __future__ import annotations

import json
import select
import socket
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from touchstone.sim.catalogue import (
    ANSWERERS,
    DIMENSIONS,
    MODELS,
    STATUS_FAULTS,
    UNKNOWN_STREAM_OPTIONS,
    simulated_answer,
    simulated_dimensions,
    simulated_verdict,
)

TRICKLE_INTERVAL_S = 0.2
# Request bodies kept for inspection (tests, benchmarks); older ones are dropped.
_HISTORY_SIZE = 1000
# A hanging request gives up after this long even if nobody disconnects.
_MAX_HANG_S = 3600.0


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # The default backlog of 5 drops connections of a burst of parallel calls, which then
    # wait a whole SYN retry (1 s): fatal for concurrency benchmarks.
    request_queue_size = 256

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, _Handler)
        self.stopping = threading.Event()
        self.calls: dict[str, int] = {}
        self.history: list[dict[str, Any]] = []
        self.calls_lock = threading.Lock()

    def record(self, model: str, request: dict[str, Any]) -> int:
        """Count the call and keep its request body; returns the model's call number."""
        with self.calls_lock:
            self.calls[model] = self.calls.get(model, 0) + 1
            self.history.append(request)
            del self.history[:-_HISTORY_SIZE]
            return self.calls[model]


class _ClientGone(Exception):
    """The client hung up (or the server stops) before its answer was due."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without NODELAY, Nagle's algorithm
        # and delayed ACKs add ~40 ms to every call, which would distort every benchmark.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the simulator must not clutter the user's terminal."""

    # -- plumbing -------------------------------------------------------------------------
    def _send_json(self, status: int, payload: Any, content_type: str = "application/json") -> None:
        body = json.dumps(payload, ensure_ascii=False).encode()
        self._hold()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str, code: str, kind: str) -> None:
        self._send_json(status, {"error": {"message": message, "type": kind, "code": code}})

    def _client_gone(self) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            peeked: bytes = self.connection.recv(1, socket.MSG_PEEK)
            return peeked == b""
        except OSError:
            return True

    def _wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; False when the server stops or the client left."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.server.stopping.wait(min(0.05, max(0.0, end - time.monotonic()))):
                return False
            if self._client_gone():
                return False
        return True

    def _start_stream(self, content_type: str) -> None:
        self._hold()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _trickle(self, piece: bytes) -> None:
        deadline = time.monotonic() + _MAX_HANG_S
        try:
            while time.monotonic() < deadline and not self.server.stopping.is_set():
                self.wfile.write(piece)
                self.wfile.flush()
                if self.server.stopping.wait(TRICKLE_INTERVAL_S):
                    return
        except OSError:
            return

    # -- routes ---------------------------------------------------------------------------
    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            data = [{"id": m, "object": "model", "owned_by": "touchstone-sim"} for m in MODELS]
            self._send_json(200, {"object": "list", "data": data})
            return
        self._error(404, f"unknown path {self.path}", "not_found", "invalid_request_error")

    def parse_request(self) -> bool:
        # "@latency" is the time from the request to the answer: the simulator's own work
        # (parsing, building the reply) counts toward it, so benchmarks see the stated L.
        self.due = time.monotonic()
        return super().parse_request()

    def _hold(self) -> None:
        """Wait until the answer is due; ``_ClientGone`` when the client left meanwhile."""
        # The last millisecond is slept in one piece: a timed wait on an Event oversleeps
        # by a few tenths of a millisecond, a plain sleep that short by a few hundredths.
        if not self._wait(self.due - time.monotonic() - 0.001):
            raise _ClientGone
        time.sleep(max(0.0, self.due - time.monotonic()))

    def do_POST(self) -> None:
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._error(404, f"unknown path {self.path}", "not_found", "invalid_request_error")
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._error(400, "invalid JSON body", "invalid_json", "invalid_request_error")
            return
        name = str(request.get("model", ""))
        base, _, latency = name.partition("@")
        try:
            delay = float(latency) if latency else 0.0
        except ValueError:
            # "sim-judge@schnell" names no simulated model: answer like any unknown name.
            base, delay = name, 0.0
        self.due += delay
        try:
            self._chat(base, name, request)
        except _ClientGone:
            self.close_connection = True

    def _chat(self, base: str, name: str, request: dict[str, Any]) -> None:
        stream = bool(request.get("stream"))
        messages = request.get("messages") or []
        user = str(messages[-1].get("content", "")) if messages else ""
        number = self.server.record(base, request)
        if base == "sim-hang":
            self._wait(_MAX_HANG_S)
            return
        if base in ("sim-trickle", "sim-think-endless") and not stream:
            self._start_stream("application/json")
            self._trickle(b" ")
            return
        if base == "sim-trickle":
            self._start_stream("text/event-stream")
            self._trickle(b": keep-alive\n\n")
            return
        if base == "sim-think-endless":
            self._start_stream("text/event-stream")
            chunk = _chunk(name, {"role": "assistant", "reasoning_content": "Hmm, ich denke "})
            self._trickle(_sse(chunk))
            return
        if base in STATUS_FAULTS:
            self._error(*STATUS_FAULTS[base])
            return
        if base == "sim-old" and "stream_options" in request:
            self._error(*UNKNOWN_STREAM_OPTIONS)
            return
        if base == "sim-picky" and "IBAN" in user:
            self._error(*STATUS_FAULTS["sim-filter"])
            return
        if base == "sim-flaky" and number % 2 == 0:
            self._error(500, "simulated flaky server", "server_error", "server_error")
            return
        reasoning = ""
        finish = "stop"
        if base in ANSWERERS:
            content = simulated_answer(base, user)
            if base == "sim-denker":
                reasoning = "Simulierte Überlegung: Angaben prüfen, dann antworten."
        elif base in ("sim-judge", "sim-flaky", "sim-picky", "sim-plaintext"):
            if DIMENSIONS.search(user):
                content = json.dumps(simulated_dimensions(user), ensure_ascii=False)
            else:
                content = json.dumps(simulated_verdict(user), ensure_ascii=False)
        elif base == "sim-reasoning":
            content = ""
            reasoning = "Simulierte endlose Überlegung ... " * 20
            finish = "length" if request.get("max_tokens") else "stop"
        elif base == "sim-garbage":
            content = "Simulierter Judge: Ich finde die Antwort ganz gut, würde ich sagen."
        else:
            self._error(
                404,
                f"The model '{name}' does not exist (touchstone simulator).",
                "model_not_found",
                "invalid_request_error",
            )
            return
        usage = {
            "prompt_tokens": max(1, len(user) // 4),
            "completion_tokens": max(1, (len(content) + len(reasoning)) // 4),
            "total_tokens": max(1, len(user) // 4) + max(1, (len(content) + len(reasoning)) // 4),
        }
        if stream:
            self._stream_reply(name, content, reasoning, finish, usage, request)
        else:
            message: dict[str, Any] = {"role": "assistant", "content": content}
            if reasoning:
                message["reasoning_content"] = reasoning
            self._send_json(
                200,
                {
                    "id": f"chatcmpl-sim-{uuid.uuid4().hex[:12]}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": name,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                },
                "text/plain" if base == "sim-plaintext" else "application/json",
            )

    def _stream_reply(
        self,
        name: str,
        content: str,
        reasoning: str,
        finish: str,
        usage: dict[str, int],
        request: dict[str, Any],
    ) -> None:
        self._start_stream("text/event-stream")
        parts = [_chunk(name, {"role": "assistant", "content": ""})]
        if reasoning:
            parts.append(_chunk(name, {"reasoning_content": reasoning}))
        for start in range(0, len(content), 40):
            parts.append(_chunk(name, {"content": content[start : start + 40]}))
        parts.append(_chunk(name, {}, finish))
        if (request.get("stream_options") or {}).get("include_usage"):
            final = _chunk(name, {})
            final["choices"] = []
            final["usage"] = usage
            parts.append(final)
        try:
            for part in parts:
                self.wfile.write(_sse(part))
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except OSError:
            return


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-sim",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _sse(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()


class SimServer:
    """The simulator on a loopback port, in a background thread (``port=0``: a free one)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = _Server((host, port))
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="touchstone-sim", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        host = str(self._server.server_address[0])
        return f"http://{host}:{self.port}/v1"

    @property
    def calls(self) -> dict[str, int]:
        """Chat calls received so far, by model name without latency suffix."""
        with self._server.calls_lock:
            return dict(self._server.calls)

    @property
    def history(self) -> list[dict[str, Any]]:
        """The most recent chat request bodies, oldest first."""
        with self._server.calls_lock:
            return list(self._server.history)

    def start(self) -> SimServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (``touchstone sim``)."""
        try:
            self._server.serve_forever()
        finally:
            self._server.stopping.set()
            self._server.server_close()

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
