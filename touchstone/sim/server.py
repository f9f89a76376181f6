"""The simulator's HTTP server: an OpenAI-compatible endpoint on loopback (see ``sim``).

Streams use chunked transfer encoding on a kept-alive connection, like llama.cpp, vLLM or
Ollama. Every chat call is a *generation* from its arrival until its reply is written or the
generation notices that its client left; ``SimServer.generations`` (and ``GET
/sim/generations``) tell how many run now and at most ran at once. A streamed generation
notices a departed client at its next write, as real servers do; a non-streamed runaway does
not notice it at all until it is done, as llama.cpp does not.

``capacity``: at most that many generations at once; a call beyond it gets 429 with
``Retry-After``/``retry-after-ms`` at once, like a rate-limited provider. ``zero_usage``:
every reply reports 0 prompt and 0 completion tokens, as behind a proxy that rewrites usage.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

from touchstone import jsontext
from touchstone.sim.catalogue import (
    ANSWERERS,
    DIMENSIONS,
    MODELS,
    NO_SCHEMA,
    RAMBLER,
    STATUS_FAULTS,
    UNKNOWN_STREAM_OPTIONS,
    capped,
    rambling_answer,
    simulated_answer,
)
from touchstone.sim.hostile import HOSTILE, hostile_reply
from touchstone.sim.judges import (
    CHARACTER_JUDGES,
    GOOD_JUDGES,
    PROSE_VERDICT,
    THOUGHT,
    asks_schema,
    character_verdict,
    simulated_dimensions,
    simulated_verdict,
    thinking_switched_off,
)
from touchstone.sim.ledger import Ledger
from touchstone.sim.plumbing import (
    MAX_HANG_S,
    SLOW_TOKEN_CHARS,
    SLOW_TOKEN_S,
    TRICKLE_INTERVAL_S,
    ClientGone,
    Plumbing,
    SimHTTPServer,
    chunk,
    sse,
)

# A runaway writes one token this often while streaming.
TOKEN_INTERVAL_S = 0.05


class _Server(SimHTTPServer, Ledger):
    def __init__(
        self,
        address: tuple[str, int],
        *,
        capacity: int | None,
        retry_after_s: float,
        runaway_limit_s: float,
    ) -> None:
        SimHTTPServer.__init__(self, address, _Handler)
        Ledger.__init__(self, capacity)
        self.retry_after_s = retry_after_s
        self.runaway_limit_s = runaway_limit_s
        self.zero_usage = False


class _Handler(Plumbing):
    server: _Server

    # -- routes ---------------------------------------------------------------------------
    def do_GET(self) -> None:
        self.due = time.monotonic()
        path = self.path.rstrip("/")
        if path in ("/v1/models", "/models"):
            data = [{"id": m, "object": "model", "owned_by": "touchstone-sim"} for m in MODELS]
            self._send_json(200, {"object": "list", "data": data})
        elif path == "/sim/generations":
            with self.server.lock:
                counts = {"running": self.server.running, "peak": self.server.peak}
            self._send_json(200, counts)
        else:
            self._error(404, f"unknown path {self.path}", "not_found", "invalid_request_error")

    def parse_request(self) -> bool:
        # "@latency" is the time from the request to the answer: the simulator's own work
        # (parsing, building the reply) counts toward it, so benchmarks see the stated L.
        self.due = time.monotonic()
        return super().parse_request()

    def do_POST(self) -> None:
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._error(404, f"unknown path {self.path}", "not_found", "invalid_request_error")
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = jsontext.loads(self.rfile.read(length) or b"{}")
        except ValueError:  # jsontext.NotJson, or bytes that are no text
            request = None
        if not isinstance(request, dict):
            self._error(400, "invalid JSON body", "invalid_json", "invalid_request_error")
            return
        name = str(request.get("model", ""))
        base, _, latency = name.partition("@")
        try:
            delay = float(latency) if latency else 0.0
        except ValueError:
            # "sim-judge@schnell" names no simulated model: answer like any unknown name.
            base, delay = name, 0.0
        if not self.server.admit():
            wait_ms = round(self.server.retry_after_s * 1000)
            headers = {"retry-after-ms": str(wait_ms), "retry-after": f"{wait_ms / 1000:g}"}
            self.due = time.monotonic()
            self._error(
                429,
                "Rate limit reached: the simulated server is busy (capacity "
                f"{self.server.capacity}). Please try again in {wait_ms} ms.",
                "rate_limit_exceeded",
                "requests",
                headers,
            )
            return
        self.due += delay
        try:
            self._chat(base, name, request)
        except ClientGone:
            self.close_connection = True
        finally:
            self.server.finish()

    def _chat(self, base: str, name: str, request: dict[str, Any]) -> None:
        stream = bool(request.get("stream"))
        messages = request.get("messages") or []
        user = str(messages[-1].get("content", "")) if messages else ""
        number = self.server.record(base, request)
        if base == "sim-hang":
            self._wait(MAX_HANG_S)
            return
        if base == "sim-drop":
            self.close_connection = True  # read, then closed without a reply
            return
        if base in ("sim-trickle", "sim-think-endless") and not stream:
            self._start_stream("application/json")
            self._drip(b" ", TRICKLE_INTERVAL_S)
            return
        if base == "sim-trickle":
            self._start_stream("text/event-stream")
            self._drip(b": keep-alive\n\n", TRICKLE_INTERVAL_S)
            return
        if base == "sim-think-endless":
            self._start_stream("text/event-stream")
            thought = chunk(name, {"role": "assistant", "reasoning_content": "Hmm, ich denke "})
            self._drip(sse(thought), TRICKLE_INTERVAL_S)
            return
        if base == "sim-runaway":
            self._runaway(name, stream)
            return
        if base in HOSTILE:
            hostile_reply(self, base, name, stream)
            return
        if base in ("sim-cutoff", "sim-nochoices"):
            self._broken(base, name, stream)
            return
        if base in STATUS_FAULTS:
            self._error(*STATUS_FAULTS[base])
            return
        if base == "sim-schemalos" and "response_format" in request:
            self._error(*NO_SCHEMA)
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
        if base == RAMBLER:
            content, finish = capped(rambling_answer(user), request.get("max_tokens"))
        elif base in ANSWERERS:
            content = simulated_answer(base, user)
            if base == "sim-denker":
                reasoning = "Simulierte Überlegung: Angaben prüfen, dann antworten."
        elif base == "sim-prosa" and not asks_schema(request):
            content = PROSE_VERDICT
        elif base in GOOD_JUDGES or base in CHARACTER_JUDGES:
            if DIMENSIONS.search(user):
                verdict = simulated_dimensions(user, base)
            elif base in CHARACTER_JUDGES:
                verdict = character_verdict(base, user)
            else:
                verdict = simulated_verdict(user, base)
            content = json.dumps(verdict, ensure_ascii=False)
            if base == "sim-denkt-stur" or (
                base == "sim-denkt" and not thinking_switched_off(request)
            ):
                reasoning = THOUGHT
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
        prompt_tokens = max(1, len(user) // 4)
        completion_tokens = max(1, (len(content) + len(reasoning)) // 4)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            # As OpenAI, vLLM and llama.cpp report it: the part a prefix cache served.
            "prompt_tokens_details": {"cached_tokens": self.server.cached_chars(user) // 4},
        }
        if reasoning:
            # As OpenAI reports it: the reasoning's share of the completion tokens.
            usage["completion_tokens_details"] = {"reasoning_tokens": max(1, len(reasoning) // 4)}
        if self.server.zero_usage:
            usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        if stream:
            slow = base == "sim-langsam"
            self._stream_reply(name, content, reasoning, finish, usage, request, slow=slow)
            return
        if base == "sim-langsam":  # the whole generation's time, then the reply
            self.due += SLOW_TOKEN_S * len(content) / SLOW_TOKEN_CHARS
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

    def _runaway(self, name: str, stream: bool) -> None:
        """Generate without end (``ignore_eos``): streamed until the client leaves; not
        streamed until ``runaway_limit_s``, blind to the client, as llama.cpp is."""
        if stream:
            self._start_stream("text/event-stream")
            self._drip(sse(chunk(name, {"content": "und "})), TOKEN_INTERVAL_S)
            return
        self._hold()
        if self._wait(self.server.runaway_limit_s, watch_client=False):
            self._error(500, "simulated runaway hit its limit", "server_error", "server_error")
        self.close_connection = True


class SimServer:
    """The simulator on a loopback port, in a background thread (``port=0``: a free one).

    ``capacity`` caps the generations at once (429 + Retry-After beyond it);
    ``runaway_limit_s`` bounds how long a non-streamed ``sim-runaway`` generates;
    ``keep_alive_s``/``keep_alive_max`` close connections idle that long or that served that
    many requests, unannounced, as llama.cpp's HTTP library does; ``close_after_stream_s``
    closes each connection that long after a streamed reply, as llama-server does
    (``plumbing``).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        capacity: int | None = None,
        retry_after_s: float = 0.1,
        runaway_limit_s: float = 30.0,
        keep_alive_s: float | None = None,
        keep_alive_max: int | None = None,
        close_after_stream_s: float | None = None,
        zero_usage: bool = False,
    ) -> None:
        self._server = _Server(
            (host, port),
            capacity=capacity,
            retry_after_s=retry_after_s,
            runaway_limit_s=runaway_limit_s,
        )
        self._server.keep_alive_s = keep_alive_s
        self._server.keep_alive_max = keep_alive_max
        self._server.close_after_stream_s = close_after_stream_s
        self._server.zero_usage = zero_usage
        # ``shutdown()`` waits for the serving loop's next poll: at the default 0.5 s every
        # stop of a server in a thread would cost half a second.
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="touchstone-sim",
            daemon=True,
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
        with self._server.lock:
            return dict(self._server.calls)

    @property
    def history(self) -> list[dict[str, Any]]:
        """The most recent chat request bodies, oldest first."""
        with self._server.lock:
            return list(self._server.history)

    @property
    def generations(self) -> dict[str, int]:
        """Generations running now, the most that ran at once, calls rejected for capacity."""
        with self._server.lock:
            return {
                "running": self._server.running,
                "peak": self._server.peak,
                "rejected": self._server.rejected,
            }

    @property
    def idle_closed(self) -> int:
        """Connections closed by ``keep_alive_s``/``keep_alive_max``/``close_after_stream_s``
        so far."""
        with self._server.count_lock:
            return self._server.idle_closed

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
