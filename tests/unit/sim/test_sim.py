"""The simulator keeps the latency a model name asks for: benchmarks measure against it."""

import json
import time

import httpx2

from tests.conftest import coarse
from touchstone.sim import SimServer

LATENCY = 0.25


def _answer_times(sim: SimServer, model: str, user: str, *, stream: bool = False) -> list[float]:
    body = json.dumps(
        {"model": model, "stream": stream, "messages": [{"role": "user", "content": user}]}
    ).encode()
    times = []
    with httpx2.Client(timeout=10) as client:
        for _ in range(3):
            started = time.monotonic()
            with client.stream(
                "POST",
                f"{sim.base_url}/chat/completions",
                content=body,
                headers={"Content-Type": "application/json"},
            ) as reply:
                next(reply.iter_raw())  # the first byte of the answer
                times.append(time.monotonic() - started)
    return times


def test_latency_counts_the_simulators_own_work(sim: SimServer) -> None:
    # A 3 MB prompt costs the simulator >10 ms of parsing and hashing: that time is part of
    # the stated latency, not added to it (what a server with fixed latency L looks like).
    times = _answer_times(sim, f"sim-judge@{LATENCY}", "Skala: 0 bis 5 " + "x" * 3_000_000)
    assert LATENCY <= min(times) < coarse(LATENCY), times


def test_errors_and_streams_keep_the_latency_too(sim: SimServer) -> None:
    for model, stream in ((f"sim-500@{LATENCY}", False), (f"sim-gut@{LATENCY}", True)):
        times = _answer_times(sim, model, "Hallo", stream=stream)
        assert LATENCY <= min(times) < coarse(LATENCY), (model, times)
