"""Server replies are untrusted (design.md §15): capped in size, read as parts, choice 0 only.

Over real HTTP against the simulator's hostile models (``touchstone.sim.hostile``).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_cli import judge_config
from tests.conftest import PackRun, answer_once, coarse, sampling
from touchstone.answers import OpenAIAnswerBackend
from touchstone.errors import JudgeCallError
from touchstone.judge.backend import OpenAIJudgeBackend, ask_judge
from touchstone.judge.config import load_judge_config
from touchstone.sim import SimServer
from touchstone.store import RunDir

HUGE = ["sim-bomb", "sim-flood", "sim-longline"]
STATM = Path("/proc/self/statm")


@contextlib.contextmanager
def rss_growth() -> Iterator[list[int]]:
    """The most this process's resident memory grew (bytes) while the block ran, sampled."""
    page = os.sysconf("SC_PAGE_SIZE")

    def rss() -> int:
        return int(STATM.read_text().split()[1]) * page

    base = rss()
    peak = [0]

    def sample() -> None:
        peak[0] = max(peak[0], rss() - base)

    try:
        with sampling(sample, every_s=0.01):
            yield peak
    finally:
        sample()


needs_proc = pytest.mark.skipif(not STATM.exists(), reason="reads /proc/self/statm")


@needs_proc
@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("model", HUGE)
def test_a_huge_reply_fails_as_too_large_fast_and_in_bounded_memory(
    sim: SimServer, model: str, stream: bool
) -> None:
    # The default cap (4 MB) against a gigabyte: a gzip bomb, a flood, one endless line.
    backend = OpenAIJudgeBackend(sim.base_url, "", model, deadline_s=20, stream=stream)
    started = time.monotonic()
    with rss_growth() as grown, pytest.raises(JudgeCallError) as info:
        ask_judge(backend, system="s", user="u")
    assert info.value.kind == "too_large", str(info.value)
    assert "4 MB" in str(info.value)
    assert time.monotonic() - started < coarse(1.0)
    assert grown[0] < 200 * 2**20


def test_the_judge_config_sets_the_cap_and_old_configs_load_unchanged(
    sim: SimServer, tmp_path: Path
) -> None:
    old = tmp_path / "old.yaml"
    old.write_text(f"endpoint: {{base_url: '{sim.base_url}'}}\nmodel: sim-judge\n")
    assert load_judge_config(old).max_reply_mb == 4
    small = tmp_path / "small.yaml"
    small.write_text(
        f"endpoint: {{base_url: '{sim.base_url}'}}\nmodel: sim-judge\nmax_reply_mb: 0.0625\n"
        "call_timeout_s: 5\n"
    )
    # A judge reply of about 100 characters passes; 64 KB of a flood do not.
    assert (
        '"score"'
        in ask_judge(load_judge_config(small).backend(), system="s", user="Skala 0-5").content
    )
    with pytest.raises(JudgeCallError) as info:
        ask_judge(load_judge_config(small).backend("sim-flood"), system="s", user="u")
    assert info.value.kind == "too_large"
    assert "0.0625 MB" in str(info.value)


def test_an_answer_beyond_the_cap_is_a_failed_answer_too_large(tiny_run: PackRun) -> None:
    outcome = tiny_run(
        "sim-longline", "sim-gut", variants=["none"], max_reply_mb=0.0625, call_timeout_s=10
    )
    assert outcome.summary.failures == {"too_large": 3}
    responses = RunDir(tiny_run.out).load_responses()
    failed = [r for r in responses if r.model == "sim-longline"]
    assert len(failed) == 3  # persisted: a finding about the model, not retried
    assert all(not r.ok and r.error_kind == "too_large" for r in failed)
    assert all(len(r.error) < 1000 for r in failed)
    assert all(r.ok for r in responses if r.model == "sim-gut")


def test_the_cap_counts_content_and_reasoning_of_a_stream() -> None:
    from touchstone.errors import ReplyTooLarge
    from touchstone.transport.replies import StreamReader

    reader = StreamReader(max_bytes=1000)
    piece = '{"choices": [{"index": 0, "delta": {"reasoning_content": "%s"}}]}' % ("x" * 300)
    with pytest.raises(ReplyTooLarge):
        for _ in range(4):
            reader.feed("data: " + piece)
            reader.feed("")


# -- content as a list of parts ---------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_content_as_a_list_of_parts_is_read(sim: SimServer, stream: bool) -> None:
    backend = OpenAIAnswerBackend(sim.base_url, "", deadline_s=5)
    if not stream:
        # The answer backend always streams; the judge backend can ask for a whole reply.
        judge = OpenAIJudgeBackend(sim.base_url, "", "sim-parts", deadline_s=5, stream=False)
        assert (
            ask_judge(judge, system="s", user="u").content == "Simulierte Antwort in Teilen: 19 €."
        )
        return
    reply = answer_once(backend, model="sim-parts", system="", user="u")
    assert reply.content == "Simulierte Antwort in Teilen: 19 €."
    assert reply.reasoning == "Erst prüfen. "


@pytest.mark.parametrize(
    "content",
    [
        '[{"type": "image_url", "image_url": {"url": "x"}}]',
        '{"text": "kein Array"}',
        "42",
        '[{"type": "text", "text": 7}]',
    ],
)
def test_content_that_cannot_be_read_is_a_failed_call_not_an_empty_answer(content: str) -> None:
    from touchstone.errors import BrokenReply
    from touchstone.transport.replies import StreamReader, reply_from_json

    reader = StreamReader()
    with pytest.raises(BrokenReply):
        reader.feed('data: {"choices": [{"index": 0, "delta": {"content": ' + content + "}}]}")
        reader.feed("")
        reader.feed("data: [DONE]")
        reader.reply(0.1)
    body = '{"choices": [{"index": 0, "message": {"content": %s}, "finish_reason": "stop"}]}'
    with pytest.raises(BrokenReply):
        reply_from_json(body % content, 0.1)


def test_a_deeply_nested_stream_event_is_a_broken_reply_not_a_recursion_error() -> None:
    from touchstone.errors import BrokenReply
    from touchstone.transport.replies import StreamReader, reply_from_json

    deep = "[" * 100_000 + "]" * 100_000
    reader = StreamReader()
    with pytest.raises(BrokenReply):
        reader.feed("data: " + deep)
        reader.feed("")
    with pytest.raises(BrokenReply):
        reply_from_json(deep, 0.1)


# -- many choices -----------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_only_choice_0_is_the_answer(sim: SimServer, stream: bool) -> None:
    judge = OpenAIJudgeBackend(sim.base_url, "", "sim-choices", deadline_s=5, stream=stream)
    assert ask_judge(judge, system="s", user="u").content == "Simulierte Antwort Nr. 0."


def test_judge_replies_beyond_the_cap_stop_the_judge_with_fitting_advice(
    sim: SimServer, answered_run: Path, tmp_path: Path
) -> None:
    from touchstone.errors import JudgeAborted
    from touchstone.stages.judge.judge import execute_judge

    limits = {"max_reply_mb": 0.0625, "max_consecutive_failures": 2, "call_timeout_s": 5}
    config = judge_config(tmp_path / "j.yaml", sim, "sim-longline", **limits)
    before = sim.calls.get("sim-longline", 0)
    with pytest.raises(JudgeAborted) as info:
        execute_judge(answered_run, config=config)
    assert info.value.kind == "too_large"
    assert "max_reply_mb" in str(info.value)
    assert sim.calls.get("sim-longline", 0) - before == 2  # failed calls, counted by the breaker


# -- bodies inflated in bounded steps ---------------------------------------------------------


def _fetch(body: bytes, encoding: str, status: int = 200, limit: int = 2**20) -> bytes:
    import asyncio

    import httpx2

    from touchstone.transport.bodies import cap_bodies

    class Body(httpx2.AsyncByteStream):
        # Read over the network, in pieces (``content=`` would be inflated at once).
        async def __aiter__(self):  # type: ignore[no-untyped-def]
            for start in range(0, len(body), 1000):
                yield body[start : start + 1000]

    def reply(request: httpx2.Request) -> httpx2.Response:
        headers = {"content-encoding": encoding, "content-type": "application/json"}
        return httpx2.Response(status, headers=headers, stream=Body())

    async def fetch() -> bytes:
        hooks = {"response": [cap_bodies(limit)]}
        transport = httpx2.MockTransport(reply)
        async with httpx2.AsyncClient(transport=transport, event_hooks=hooks) as client:
            return (await client.get("http://127.0.0.1/x")).content

    return asyncio.run(fetch())


def test_bodies_are_inflated_as_sent_and_an_error_body_bomb_is_capped() -> None:
    import gzip
    import zlib

    from touchstone.errors import ReplyTooLarge

    text = b'{"ok": true}' * 100
    assert _fetch(gzip.compress(text), "gzip") == text
    assert _fetch(gzip.compress(text[:600]) + gzip.compress(text[600:]), "gzip") == text
    assert _fetch(zlib.compress(text), "deflate") == text
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    assert _fetch(raw.compress(text) + raw.flush(), "deflate") == text
    assert _fetch(gzip.compress(zlib.compress(text)), "deflate, gzip") == text
    from touchstone.errors import BrokenReply

    with pytest.raises(BrokenReply):
        _fetch(gzip.compress(text)[:40] + b"kaputt" * 20, "gzip")
    with pytest.raises(BrokenReply):
        _fetch(text, "br")  # not asked for: touchstone accepts gzip and deflate
    # A reply body beyond the cap is too large: the model's finding.
    bomb = gzip.compress(b"x" * (64 * 2**20), 1)
    with pytest.raises(ReplyTooLarge):
        _fetch(bomb, "gzip")
    # An error body is read by the SDK itself: the cap holds there too, by cutting it. The
    # status says what went wrong (a 500 is the server's trouble); a bomb in its body must not
    # make it a reply "too large", which counts against the model.
    assert _fetch(bomb, "gzip", status=500) == b"x" * 2**20


def test_stream_lines_end_at_lf_cr_or_crlf_across_pieces_and_are_capped() -> None:
    from touchstone.errors import ReplyTooLarge
    from touchstone.transport.bounds import LineSplitter

    lines = LineSplitter(limit=100)
    pieces = [b"data: a", b"b\r", b"\ndata: c\r\r", b"\n", b": x\rdata: d\n\n", b"data: e"]
    got = [line for piece in pieces for line in lines.feed(piece)] + lines.flush()
    # "\r\r" + "\n": a CR ends "data: c", a CRLF split across pieces the empty line.
    assert got == ["data: ab", "data: c", "", ": x", "data: d", "", "data: e"]
    with pytest.raises(ReplyTooLarge):
        for _ in range(5):
            lines.feed(b"x" * 30)
