"""Numbers and nesting from outside (design.md §15, issue 21): server replies and run dirs.

A server may report any usage, ask for any wait and nest a reply as deep as it likes; a run
dir someone sends may hold what an older touchstone stored from such a server, or anything.
None of it may crash ``run``, ``judge``, ``report`` or the GUI, or turn into an impossible
figure.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FakeJudge
from tests.gui.gui_support import gui_client
from touchstone.judge.backend import OpenAIJudgeBackend
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.judge.replies import parse_dimensions_reply, parse_verdict_reply
from touchstone.jury.verdicts import run_cells
from touchstone.limits import MAX_TOKEN_COUNT, token_count
from touchstone.pack import Scale
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.run.run import execute_run
from touchstone.store import JUDGEMENTS, MANIFEST, RESPONSES, SCORECARD_JSON, RunDir
from touchstone.transport.engine import run_blocking

# A judge config for stages that get a fake backend: its endpoint is never called.
UNUSED = JudgeConfig(JudgeEndpoint("http://127.0.0.1:9/v1"), "unused")
VERDICT = '{"score": 4, "red_flag": false, "rationale": "gut"}'
# Every shape of usage value a server has been seen to send or could send.
IMPLAUSIBLE = [10**400, 10**9 + 1, -5, -24390, True, 1.5, 12.0, "12", [3], {"n": 3}]
# JSON's NaN and Infinity (Python's json reads and writes them) and a float at its edge.
IMPLAUSIBLE += [math.nan, math.inf, -math.inf, 1e308]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    usage: dict[str, Any] | None = None
    # The first ``limited`` calls get a 429 with ``limit_headers``.
    limited = 0
    limit_headers: dict[str, str] = {}  # noqa: RUF012 (set per test)
    calls = 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _send(self, status: int, content_type: str, payload: bytes, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.calls += 1
        if self.server.calls <= self.server.limited:
            body = {"error": {"message": "Rate limit reached", "type": "requests"}}
            self._send(
                429, "application/json", json.dumps(body).encode(), **self.server.limit_headers
            )
            return
        usage = self.server.usage
        model = request["model"]
        if not request.get("stream"):
            reply: dict[str, Any] = {
                "id": "x",
                "object": "chat.completion",
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": VERDICT},
                        "finish_reason": "stop",
                    }
                ],
            }
            if usage is not None:
                reply["usage"] = usage
            self._send(200, "application/json", json.dumps(reply).encode())
            return
        head = {"id": "x", "object": "chat.completion.chunk", "model": model}
        chunks = [
            {**head, "choices": [{"index": 0, "delta": {"content": VERDICT}}]},
            {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ]
        if usage is not None:
            chunks.append({**head, "choices": [], "usage": usage})
        events = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        self._send(200, "text/event-stream", events.encode())


@contextmanager
def serving() -> Iterator[_Server]:
    """The scripted server on a free loopback port, for the test's duration."""
    server = _Server(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def hostile() -> Iterator[_Server]:
    with serving() as server:
        yield server


def base_url(server: _Server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def judge_reply(server: _Server, *, stream: bool) -> Any:
    backend = OpenAIJudgeBackend(base_url(server), "k", "j", deadline_s=5, stream=stream)

    async def once() -> Any:
        try:
            return await backend.call(model="j", system="s", user="u", deadline_s=5)
        finally:
            await backend.aclose()

    return run_blocking(once())


def usage_of(value: object) -> dict[str, Any]:
    return {
        "prompt_tokens": value,
        "completion_tokens": value,
        "total_tokens": value,
        "completion_tokens_details": {"reasoning_tokens": value},
    }


# -- usage a server reports -------------------------------------------------------------------


def test_the_plausibility_rule() -> None:
    assert [token_count(v) for v in (0, 1, 4711, MAX_TOKEN_COUNT, None)] == [
        0,
        1,
        4711,
        MAX_TOKEN_COUNT,
        None,
    ]
    assert [token_count(v) for v in IMPLAUSIBLE] == [None] * len(IMPLAUSIBLE)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("value", IMPLAUSIBLE, ids=lambda v: repr(v)[:12])
def test_implausible_usage_from_a_server_is_unknown(
    hostile: _Server, value: object, stream: bool
) -> None:
    hostile.usage = usage_of(value)
    reply = judge_reply(hostile, stream=stream)
    assert reply.content == VERDICT
    assert (reply.prompt_tokens, reply.completion_tokens, reply.reasoning_tokens) == (None,) * 3


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_plausible_usage_from_a_server_is_kept(hostile: _Server, stream: bool) -> None:
    hostile.usage = {**usage_of(7), "prompt_tokens": 0, "completion_tokens": MAX_TOKEN_COUNT}
    reply = judge_reply(hostile, stream=stream)
    assert (reply.prompt_tokens, reply.completion_tokens, reply.reasoning_tokens) == (
        0,
        MAX_TOKEN_COUNT,
        7,
    )


# -- a shared run dir that holds them already ------------------------------------------------


def rewrite(path: Path, change: Any) -> None:
    """Apply ``change(number, record)`` to each JSON line of ``path``, keeping the rest."""
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    for number, record in enumerate(records, start=1):
        change(number, record)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def tamper(answered_run: Path) -> Path:
    """sim-gut's answers carry impossible counts, as an older touchstone stored them;
    sim-schwach's are plausible. Verdicts carry impossible judge counts."""
    execute_judge(answered_run, config=UNUSED, backend=FakeJudge())
    bad = iter(IMPLAUSIBLE * 10)

    def answers(number: int, record: dict[str, Any]) -> None:
        if record["model"] == "sim-gut":
            record["completion_tokens"] = next(bad)
            record["prompt_tokens"] = -5

    def verdicts(number: int, record: dict[str, Any]) -> None:
        record["judge_completion_tokens"] = 10**400
        record["judge_prompt_tokens"] = -1

    rewrite(answered_run / RESPONSES, answers)
    rewrite(answered_run / JUDGEMENTS, verdicts)
    return answered_run


def test_impossible_counts_in_a_run_dir_are_unknown_with_one_warning(tampered_run: Path) -> None:
    run = RunDir(tampered_run)
    responses = run.load_responses()
    gut = [r for r in responses if r.model == "sim-gut"]
    schwach = [r for r in responses if r.model == "sim-schwach"]
    assert len(gut) == 6 and {(r.prompt_tokens, r.completion_tokens) for r in gut} == {(None, None)}
    assert all(r.completion_tokens and r.completion_tokens > 0 for r in schwach)
    verdicts = run_cells(run).cells
    assert len(verdicts) == 12
    assert {(v.judge_prompt_tokens, v.judge_completion_tokens) for v in verdicts} == {(None, None)}
    # One warning per file, naming it, the first line and key, and how many more.
    assert len(run.warnings) == 2, run.warnings
    first_answer = next(
        n
        for n, line in enumerate((tampered_run / RESPONSES).read_text().splitlines(), start=1)
        if json.loads(line)["model"] == "sim-gut"
    )
    answers_warning, verdicts_warning = run.warnings
    assert f"{tampered_run / RESPONSES}, Zeile {first_answer}:" in answers_warning
    assert "„prompt_tokens“" in answers_warning and "unbekannt" in answers_warning
    assert f"{tampered_run / JUDGEMENTS}, Zeile 1:" in verdicts_warning
    assert len(answers_warning) < 400 and len(verdicts_warning) < 400


def test_a_bad_field_beside_an_impossible_count_is_still_bad_input(answered_run: Path) -> None:
    from touchstone.errors import InputError

    def change(number: int, record: dict[str, Any]) -> None:
        if number == 2:
            record.update(completion_tokens=-5, reasoning=5)

    rewrite(answered_run / RESPONSES, change)
    with pytest.raises(InputError, match=r"Zeile 2: .*„reasoning“"):
        RunDir(answered_run).load_responses()


def test_the_gui_lists_a_run_dir_with_impossible_counts(tampered_run: Path) -> None:

    with gui_client(tampered_run.parent.parent, runs=tampered_run.parent) as client:
        assert client.get("/").status_code == 200
        runs = client.get("/api/runs")
        assert runs.status_code == 200 and [r["name"] for r in runs.json()] == ["tiny"]
        assert client.get("/api/runs/tiny").status_code == 200


# -- Retry-After ----------------------------------------------------------------------------

HOSTILE_WAITS = [
    "Sat, 01 Jan 10000 00:00:00 GMT",
    "Sat, 01 Jan 99999999999999999999 00:00:00 GMT",
    "Sat, 01 Jan 99999999999999999999 00:00:00",  # no zone: time.mktime
    "Fri, 31 Dec 9999 23:59:59 GMT",  # parses, but centuries away
    "Mon, 32 Foo 2026 25:61:61 GMT",
    "Wed, 21 Oct 2015 07:28:00 GMT",  # in the past
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e400",
    "1e308",
    "99999999999999999999",
    "-4",
    "",
    "   ",
    "\x00",
    "sofort",
]


def rate_limit_error(headers: dict[str, str]) -> Any:
    import httpx2
    import openai

    request = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx2.Response(429, headers=headers, request=request)
    return openai.RateLimitError("429", response=response, body=None)


@pytest.mark.parametrize("name", ["retry-after", "retry-after-ms", "llm_provider-retry-after"])
@pytest.mark.parametrize("value", HOSTILE_WAITS, ids=repr)
def test_an_unusable_retry_after_is_ignored(name: str, value: str) -> None:
    from touchstone.errors import JudgeCallError
    from touchstone.transport.classify import call_error, retry_after_s

    error = rate_limit_error({name: value})
    assert retry_after_s(error) is None
    assert call_error(JudgeCallError, error).kind == "rate_limit"


def test_a_usable_retry_after_still_counts() -> None:
    import email.utils
    import time

    from touchstone.transport.classify import retry_after_s

    soon = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < (retry_after_s(rate_limit_error({"retry-after": soon})) or 0) <= 30
    assert retry_after_s(rate_limit_error({"retry-after": "2.5"})) == 2.5
    # An unusable first name does not hide a usable second one.
    waits = {"retry-after-ms": "nan", "retry-after": "3"}
    assert retry_after_s(rate_limit_error(waits)) == 3


@pytest.mark.parametrize("value", HOSTILE_WAITS[:3], ids=repr)
def test_a_run_against_a_429_with_a_hostile_date_waits_and_finishes(
    hostile: _Server, tiny_pack_path: Path, tmp_path: Path, value: str
) -> None:
    """Before: the date crashed the error handler, a traceback out of ``run``."""
    hostile.limited = 2
    hostile.limit_headers = {"Retry-After": value}
    out = tmp_path / "runs" / "tiny"
    outcome = execute_run(
        pack_path=tiny_pack_path, models=["m"], out=out, base_url=base_url(hostile)
    )
    assert hostile.calls == 6 + 2
    assert outcome is not None
    assert all(r.ok for r in RunDir(out).load_responses())


# -- deep replies and deep files ------------------------------------------------------------

DEPTH = 100_000
DEEP_REPLIES = [
    '{"a": ' * DEPTH + "1" + "}" * DEPTH,
    '{"score": ' + "[" * DEPTH + "]" * DEPTH + "}",
    '{"score": 4, "red_flag": false, "rationale": ' + "[" * DEPTH,
    "Begründung " + '{"x": ' * DEPTH,
]


@pytest.mark.parametrize("reply", DEEP_REPLIES, ids=["objects", "arrays", "open", "prose"])
def test_a_deep_reply_is_unparseable(reply: str) -> None:
    scale = Scale(min=0, max=5)
    assert parse_verdict_reply(reply, scale) is None
    assert parse_dimensions_reply(reply, ["korrektheit"], scale) is None


def test_a_deep_judge_reply_is_an_unparseable_cell(answered_run: Path) -> None:
    deep = DEEP_REPLIES[0]
    outcome = execute_judge(
        answered_run, config=UNUSED, backend=FakeJudge(script=[deep] * 12, default=VERDICT)
    )
    reasons = [v.unscored_reason for v in run_cells(RunDir(answered_run)).cells if v.unscored]
    assert reasons == ["unparseable"] * 12
    assert outcome.card.rows


def test_deep_json_in_run_dir_files_is_bad_input_or_ignored(
    answered_run: Path, tmp_path: Path
) -> None:
    from touchstone.errors import InputError
    from touchstone.events import read_events
    from touchstone.gui.cache import fresh_scorecard
    from touchstone.store.jsonl import JsonlAppender

    deep = "[" * DEPTH + "]" * DEPTH
    # A derived file: ignored, the run is loaded instead.
    (answered_run / SCORECARD_JSON).write_text(deep, encoding="utf-8")
    assert fresh_scorecard(answered_run) is None
    # Events of a job: a line that does not parse is skipped.
    events = tmp_path / "events.jsonl"
    events.write_text('{"event": "start"}\n' + deep + "\n", encoding="utf-8")
    assert read_events(events) == [{"event": "start"}]
    # An append after a last line without its newline: cut off as a half line.
    judgements = answered_run / JUDGEMENTS
    judgements.write_text(VERDICT.replace("}", ', "x": ' + deep), encoding="utf-8")
    JsonlAppender(judgements).close()
    assert judgements.read_text(encoding="utf-8") == ""
    # The manifest: bad input, naming the file.
    (answered_run / MANIFEST).write_text('{"name": ' + deep + "}", encoding="utf-8")
    with pytest.raises(InputError, match=r"run\.json"):
        RunDir(answered_run).read_manifest()
