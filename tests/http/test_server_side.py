"""A call touchstone gives up on stops on the server too (design.md §6, issue 16).

``sim-runaway`` generates until it notices its client left, as llama.cpp does; the simulator
counts the generations running. Streamed (the default), a call cut at its deadline or by an
abort closes its connection, and the server stops at its next token.
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import coarse, sampling
from touchstone.errors import JudgeAborted
from touchstone.judge.config import JudgeConfig, JudgeEndpoint
from touchstone.sim import SimServer
from touchstone.stages.judge.judge import execute_judge

# The runaway writes a token every 0.05 s; it notices a closed connection at its next write.
NOTICE_S = 0.05


@contextmanager
def sampled(server: SimServer) -> Iterator[list[tuple[float, int]]]:
    """(time, generations running) every 5 ms while the block runs."""
    samples: list[tuple[float, int]] = []

    def sample() -> None:
        samples.append((time.monotonic(), server.generations["running"]))

    with sampling(sample, every_s=0.005):
        yield samples


def longest_excess(samples: list[tuple[float, int]], limit: int) -> float:
    """The longest stretch of time during which more than ``limit`` generations ran."""
    longest, since = 0.0, None
    for at, running in samples:
        if running > limit and since is None:
            since = at
        elif running <= limit and since is not None:
            longest, since = max(longest, at - since), None
    if since is not None:
        longest = max(longest, samples[-1][0] - since)
    return longest


def wait_idle(server: SimServer, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if server.generations["running"] == 0:
            return True
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("concurrency", [1, 3])
def test_calls_that_all_time_out_never_pile_up_on_the_server(
    answered_run: Path, concurrency: int
) -> None:
    with SimServer() as server:
        config = JudgeConfig(
            JudgeEndpoint(server.base_url),
            "sim-runaway",
            call_timeout_s=0.3,
            concurrency=concurrency,
            max_consecutive_failures=0,
            max_failure_ratio=1.0,
        )
        with sampled(server) as samples:
            outcome = execute_judge(answered_run, config=config)
        assert len(outcome.judge_errors) == 12
        assert {v.error_kind for v in outcome.judge_errors} == {"timeout"}
        assert max(running for _, running in samples) >= concurrency
        # A moment's lag for the server to notice aside, never more than `concurrency` run;
        # a server blind to the departed client would hold every call for the whole run.
        assert longest_excess(samples, concurrency) < coarse(4 * NOTICE_S)
        assert wait_idle(server, coarse(4 * NOTICE_S))


def test_an_aborted_judge_leaves_no_generation_behind(answered_run: Path) -> None:
    with SimServer() as server:
        config = JudgeConfig(
            JudgeEndpoint(server.base_url),
            "sim-runaway",
            call_timeout_s=0.3,
            concurrency=4,
            max_consecutive_failures=4,
        )
        with pytest.raises(JudgeAborted):
            execute_judge(answered_run, config=config)
        assert wait_idle(server, coarse(4 * NOTICE_S))
