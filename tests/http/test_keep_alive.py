"""Kept-alive connections a server closes (design.md §21, issue 27).

llama.cpp's HTTP library closes an idle keep-alive connection without a word; a request sent
on it just then never reaches the server. Such a request is sent again, within its deadline;
one that may have reached the server (it read the request, then closed) is not: a
generation may be running.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PackRun
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge
from touchstone.stages.run.run import RunOutcome
from touchstone.store import RunDir
from touchstone.transport.chat import ChatTransport
from touchstone.transport.pool import ClientPool, announced_timeout_s

BUERO = Path(__file__).resolve().parents[2] / "packs" / "buero.yaml"
HELLO = [{"role": "user", "content": "Hallo"}]


def buero_at_4(server: SimServer, out: Path, model: str) -> RunOutcome:
    """``model`` on the buero pack's variant none into ``out``, four calls at a time."""
    run = PackRun(server.base_url, BUERO, out)
    return run(model, variants=["none"], concurrency=4, call_timeout_s=10)


def test_a_connection_reset_before_the_server_read_the_request_is_sent_again() -> None:
    async def twice(url: str) -> list[str]:
        transport = ChatTransport(url, "")
        try:
            replies = []
            for _ in range(2):
                reply = await transport.chat(
                    model="sim-gut", messages=HELLO, deadline_s=5, stream=True
                )
                replies.append(reply.content)
            return replies
        finally:
            await transport.aclose()

    with SimServer(keep_alive_max=1) as server:
        replies = asyncio.run(twice(server.base_url))
        assert server.idle_closed == 1  # the second call found its connection reset
        assert server.calls == {"sim-gut": 2}  # and reached the server once, on a new one
    assert all(reply.startswith("Simulierte Antwort") for reply in replies)


# llama-server closes each connection a moment after a streamed reply (cpp-httplib ends a
# chunked reply that way, though it announced keep-alive): a call sent on it at once is never
# read, and the client sees a clean close, as from a server that read the call and hung up.
CLOSES_AFTER_STREAM_S = 0.02

# How servers drop kept-alive connections: after a few requests on one (Node, gunicorn), and
# a moment after each streamed reply (llama-server).
CLOSING = {
    "after_two_requests": {"keep_alive_max": 2},
    "after_each_stream": {"keep_alive_s": 5, "close_after_stream_s": CLOSES_AFTER_STREAM_S},
}


@pytest.mark.parametrize("closing", CLOSING.values(), ids=CLOSING.keys())
def test_a_run_at_concurrency_4_loses_no_cell_to_closed_connections(
    tmp_path: Path, closing: dict[str, Any]
) -> None:
    out = tmp_path / "r"
    with SimServer(**closing) as server:
        outcome = buero_at_4(server, out, "sim-gut@0.01")
        closed, calls = server.idle_closed, server.calls
    cells = len(RunDir(out).load_responses())
    assert outcome.summary.complete and not outcome.summary.failures
    assert closed > 0
    assert calls == {"sim-gut": cells}  # every cell reached the server exactly once


@pytest.mark.parametrize("closing", CLOSING.values(), ids=CLOSING.keys())
def test_a_judge_at_concurrency_4_loses_no_cell_and_waits_for_nothing(
    four_model_run: Path, closing: dict[str, Any]
) -> None:
    with SimServer(**closing) as server:
        config = JudgeConfig(
            JudgeEndpoint(server.base_url), "sim-judge@0.01", call_timeout_s=10, concurrency=4
        )
        outcome = execute_judge(four_model_run, config=config)
        closed = server.idle_closed
    assert closed > 0
    assert outcome.new_verdicts == 24 and not outcome.judge_errors
    # Sent again at once by the transport: no backoff, as for a busy server.
    assert outcome.health.rate_limited == 0 and outcome.health.failures == {}


def test_a_transport_learns_whether_its_server_closes_after_each_stream() -> None:
    async def three(url: str) -> tuple[bool | None, int]:
        transport = ChatTransport(url, "")
        try:
            for _ in range(3):
                await transport.chat(model="sim-gut", messages=HELLO, deadline_s=5, stream=True)
            return transport._pool.closes_after_stream, len(transport._pool._clients)
        finally:
            await transport.aclose()

    with SimServer(keep_alive_s=5, close_after_stream_s=CLOSES_AFTER_STREAM_S) as server:
        assert asyncio.run(three(server.base_url)) == (True, 1)  # a new client per call
        assert server.calls == {"sim-gut": 3}
    with SimServer(keep_alive_s=5) as server:
        assert asyncio.run(three(server.base_url)) == (False, 1)  # one, kept alive


def test_a_request_the_server_read_before_it_closed_is_not_sent_again(tmp_path: Path) -> None:
    with SimServer() as server:
        outcome = buero_at_4(server, tmp_path / "r", "sim-drop")
        calls = server.calls
    summary = outcome.summary
    assert summary.failures == {"connection": summary.total} and summary.left == summary.total
    assert calls == {"sim-drop": summary.total}  # each asked once: it may be generating


def test_an_announced_keep_alive_timeout_is_read() -> None:
    assert announced_timeout_s("timeout=5, max=100") == 5.0
    assert announced_timeout_s("max=5,timeout=0.05") == 0.05
    assert announced_timeout_s("max=5") is None
    assert announced_timeout_s("timeout=soon") is None


def test_a_connection_idle_past_half_the_announced_timeout_is_not_reused() -> None:
    async def clients(url: str) -> list[set[object]]:
        transport = ChatTransport(url, "")
        seen = []
        try:
            for pause in (0.0, 0.0, 0.3):  # 0.3 s: past half of 0.4 s
                await asyncio.sleep(pause)
                await transport.chat(model="sim-gut", messages=HELLO, deadline_s=5, stream=True)
                seen.append(set(transport._pool._clients))
            return seen
        finally:
            await transport.aclose()

    with SimServer(keep_alive_s=0.4) as server:
        first, second, third = asyncio.run(clients(server.base_url))
    assert len(first) == 1 and second == first  # kept alive and reused
    assert len(third) == 1 and third != first  # idle too long: a new connection


def test_a_pool_replaces_every_client_given_back_too_long_ago() -> None:
    made: list[object] = []

    class Client:
        closed = False

        async def close(self) -> None:
            self.closed = True

    def make() -> Client:
        made.append(Client())
        return made[-1]

    async def scenario() -> tuple[bool, bool, bool, int]:
        pool = ClientPool(make)  # type: ignore[arg-type]
        first, reused_first = await pool.borrow()
        pool.give_back(first)
        again, reused_again = await pool.borrow()
        assert again is first
        pool.give_back(again)
        pool._reuse_s = 0.0
        await asyncio.sleep(0.01)
        fresh, reused_fresh = await pool.borrow()
        assert fresh is not first and first.closed  # type: ignore[attr-defined]
        return reused_first, reused_again, reused_fresh, len(made)

    assert asyncio.run(scenario()) == (False, True, False, 2)
