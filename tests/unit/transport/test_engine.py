"""The engine: bounded calls on one loop, completion order, rate limits, structured cancel."""

import asyncio
import contextlib
import time

import pytest

from touchstone.errors import CallError
from touchstone.transport.engine import AdaptiveLimit, completed, run_blocking


def collect(items, call, **options):  # type: ignore[no-untyped-def]
    async def run() -> list:
        results = completed(items, call, **options)
        async with contextlib.aclosing(results):
            return [done async for done in results]

    return run_blocking(run())


def test_results_come_in_completion_order_with_at_most_concurrency_calls() -> None:
    active, peak = 0, 0

    async def call(item: int, deadline_s: float | None) -> int:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.01 * (10 - item))  # early items end last
        active -= 1
        return item * item

    done = collect(range(10), call, concurrency=3)
    assert peak == 3
    assert sorted(d.result for d in done) == [i * i for i in range(10)]
    assert [d.index for d in done] != list(range(10))  # not input order
    assert all(d.error is None and d.latency_s > 0 for d in done)


def test_leaving_early_cancels_every_call_in_flight_before_it_returns() -> None:
    started, unwound = [], []

    async def call(item: int, deadline_s: float | None) -> int:
        started.append(item)
        try:
            if item == 0:
                return 0
            await asyncio.sleep(3600)
            return item
        finally:
            unwound.append(item)

    async def run() -> None:
        results = completed(range(100), call, concurrency=4)
        async with contextlib.aclosing(results):
            async for _ in results:
                break  # the consumer stops: an abort
        # Nothing is left running once the results are closed: no call is abandoned.
        assert sorted(unwound) == sorted(started)
        assert all(t.done() for t in asyncio.all_tasks() if t is not asyncio.current_task())

    run_blocking(run())
    assert len(started) <= 5  # no new call started after the stop


def test_a_rate_limited_item_waits_as_told_and_is_tried_again() -> None:
    tries: dict[int, int] = {}

    async def call(item: int, deadline_s: float | None) -> str:
        tries[item] = tries.get(item, 0) + 1
        if tries[item] == 1:
            raise CallError("429", kind="rate_limit", retry_after_s=0.05)
        return "ok"

    done = collect(range(4), call, concurrency=4, deadline_s=5)
    assert [d.result for d in done] == ["ok"] * 4
    assert all(d.rate_limited == 1 and d.error is None for d in done)
    assert tries == dict.fromkeys(range(4), 2)


def test_rate_limits_use_up_the_budget_then_the_item_fails() -> None:
    async def call(item: int, deadline_s: float | None) -> str:
        assert deadline_s is not None and deadline_s > 0
        raise CallError("429", kind="rate_limit", retry_after_s=0.1)

    (done,) = collect([1], call, deadline_s=0.35)
    assert done.error is not None and done.error.kind == "rate_limit"
    assert done.rate_limited == 3  # 0.1 s waits until the next would pass 0.35 s


def test_other_call_errors_are_results_and_bugs_propagate() -> None:
    async def failing(item: int, deadline_s: float | None) -> str:
        raise CallError("boom", kind="server")

    (done,) = collect([1], failing)
    assert done.error is not None and done.error.kind == "server" and done.rate_limited == 0

    async def buggy(item: int, deadline_s: float | None) -> str:
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        collect([1, 2], buggy)


def test_items_are_pulled_only_when_a_slot_is_free() -> None:
    pulled: list[int] = []

    def items():  # type: ignore[no-untyped-def]
        for i in range(6):
            pulled.append(i)
            yield i

    seen_when_done: list[int] = []

    async def call(item: int, deadline_s: float | None) -> int:
        await asyncio.sleep(0.001)
        seen_when_done.append(len(pulled))
        return item

    collect(items(), call, concurrency=2)
    assert seen_when_done[0] <= 2  # the first call ended before the third item was pulled


def test_the_limit_halves_on_a_rate_limit_and_grows_back_by_one() -> None:
    limit = AdaptiveLimit(16)
    limit.rate_limited()
    limit.rate_limited()
    assert limit.current == 4
    for _ in range(20):
        limit.succeeded()
    assert limit.current == 16
    with pytest.raises(ValueError):
        AdaptiveLimit(0)


def test_run_blocking_works_inside_a_running_loop() -> None:
    async def inner() -> int:
        return 7

    async def outer() -> int:
        # e.g. a notebook calling the synchronous API
        return run_blocking(inner())

    assert asyncio.run(outer()) == 7


def test_a_deadline_used_up_by_rate_limit_waits_is_reported_as_the_rate_limit() -> None:
    tries = 0

    async def call(item: int, deadline_s: float | None) -> str:
        nonlocal tries
        tries += 1
        if tries == 1:
            raise CallError("RateLimitError: 429", kind="rate_limit", retry_after_s=0.2)
        raise CallError("DeadlineExceeded: Frist", kind="timeout")

    (done,) = collect([1], call, deadline_s=0.5)
    assert done.error is not None and done.error.kind == "rate_limit"
    assert str(done.error) == "RateLimitError: 429"
    # The timeout is reported as the rate limit, but not retried as one: a call that ran
    # out of time is not asked to wait and try again.
    assert tries == 2


def refusal() -> CallError:
    return CallError(
        "APIConnectionError: Connection error.", kind="connection", refused_connection=True
    )


def test_refusals_while_other_calls_succeed_lower_the_limit_like_a_rate_limit() -> None:
    # A server that takes two connections at once and refuses the rest (concurrency 16).
    active, peak_ok = 0, 0

    async def call(item: int, deadline_s: float | None) -> int:
        nonlocal active, peak_ok
        if active >= 2:
            raise refusal()
        active += 1
        peak_ok = max(peak_ok, active)
        try:
            await asyncio.sleep(0.01)
        finally:
            active -= 1
        return item

    done = collect(range(40), call, concurrency=16, deadline_s=5)
    assert all(d.error is None for d in done), [str(d.error) for d in done if d.error]
    assert sorted(d.result for d in done) == list(range(40))
    assert peak_ok == 2


def test_refusals_of_a_server_that_never_answered_fail_at_once() -> None:
    # Down from the start: no retries, "Läuft der Server?" is the right question.
    async def call(item: int, deadline_s: float | None) -> int:
        raise refusal()

    started = time.monotonic()
    done = collect(range(3), call, concurrency=3, deadline_s=5)
    assert time.monotonic() - started < 0.4  # no backoff waited (it starts at 0.5 s)
    assert len(done) == 3
    assert all(d.error is not None and d.rate_limited == 0 for d in done)
    assert not any(d.error.server_busy for d in done if d.error)


def test_refusals_that_outlast_the_budget_fail_marked_busy() -> None:
    async def call(item: int, deadline_s: float | None) -> int:
        if item == 0:
            return 0
        await asyncio.sleep(0.01)
        raise refusal()

    done = collect(range(2), call, concurrency=1, deadline_s=1.0)
    failed = [d for d in done if d.error]
    assert len(failed) == 1 and failed[0].rate_limited >= 1
    assert failed[0].error is not None and failed[0].error.server_busy
    assert failed[0].error.kind == "connection"


def test_calls_in_flight_are_reported_while_nothing_completes() -> None:
    # Two calls that take far longer than the heartbeat: the consumer hears of them while
    # it waits, with the oldest call's age and the deadline, without any thread.
    seen: list = []

    async def call(item: int, deadline_s: float | None) -> int:
        # Nearly three heartbeats long: two are heard even when a busy machine is late.
        await asyncio.sleep(1.4)
        return item

    done = collect(range(2), call, concurrency=2, deadline_s=2.0, on_waiting=seen.append)
    assert [d.result for d in sorted(done, key=lambda d: d.index)] == [0, 1]
    assert len(seen) >= 2
    assert all(s.calls == 2 and s.deadline_s == 2.0 for s in seen)
    ages = [s.oldest_s for s in seen]
    # The first after a heartbeat (0.5 s for a 2 s deadline), none after the calls ended.
    assert ages == sorted(ages) and ages[0] >= 0.3 and ages[-1] < 2.0
