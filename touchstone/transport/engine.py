"""The engine: every model call of touchstone runs here, as a task on one asyncio loop.

    items ──► admission (adaptive limit) ──► call tasks ──► completion order ──► consumer
                  ▲                               │
                  └──── parked (Retry-After) ◄────┘ rate limit

``completed(items, call, ...)`` starts ``call(item, deadline_s)`` for the items, at most
``concurrency`` at a time, and yields a ``Done`` for each in the order the calls end. The
consumer (the judge's breaker, the run stage's policy, persistence) runs in the consuming
coroutine, between calls, so it needs no locks.

- A call that fails with a rate limit (kind ``rate_limit``) is no result: its item waits as
  the server asked (``retry_after_s``, or a doubling backoff) and is tried again, as long as
  its deadline allows. The deadline counts the item's attempts and its waits, not the time
  it queues for a free slot. The in-flight limit halves on every rate
  limit and grows by one per success, up to ``concurrency``.
- A refused connection (``CallError.refused_connection``) while other calls succeed (one did
  within ``BUSY_WINDOW_S``) is a server that takes fewer connections at once than offered,
  not one that is down: it is treated like a rate limit (backoff, the limit halves) and, if
  it outlasts the deadline, ends marked ``server_busy``. Before the first success a refusal
  waits likewise while other calls are in flight (they may have got through); once none
  is, and none ever succeeded, every waiting refusal fails at once: the server may be down.
- Structured cancellation: when the consumer stops (it raised, the judge was aborted, Ctrl-C,
  SIGTERM), closing the generator cancels every call in flight and waits until each has
  unwound; a cancelled call closes its connection. No call is abandoned, none outlives it.
- Items are pulled from ``items`` only when a slot is free, so a lazy iterable can still
  decide what to offer (the run stage skips the cells of a model it just stopped).
- Admission (the cost cap, ``budget.Budget``): ``admit(item, in_flight)`` is asked before an
  item's first call starts. A refusal while calls are in flight (or waiting to be tried
  again) holds the item until one of them ends; a refusal with none is final: the item and
  every later one are never started, and the calls end as they would.
- Signs of life: while calls are in flight, ``on_waiting`` hears every ``heartbeat_s(deadline_s)``
  how many there are, how long the oldest has run and the deadline (``InFlight``). It is
  called in the consuming coroutine, like the consumer itself: a judge whose calls hang for
  minutes is seen to be working, not frozen at 0.

``run_blocking(coro)`` is the synchronous face of the engine: the CLI, the stages and the
public sync API (``judge_responses`` and friends) run their coroutine through it.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import heapq
import signal
import threading
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from touchstone.errors import CallError, Terminated, raise_terminated

T = TypeVar("T")
R = TypeVar("R")

# The wait after a rate limit that names none: doubling from here, capped.
BACKOFF_START_S = 0.5
BACKOFF_MAX_S = 8.0
# Without a deadline, an item is tried at most this often against a rate limit.
MAX_RATE_LIMITED = 20
# A refused connection counts as a busy server if another call succeeded this recently.
BUSY_WINDOW_S = 10.0

# How often calls in flight are reported: every few seconds, but several times within a
# short deadline, so that a call is seen to run before it is given up on.
HEARTBEAT_S = 5.0
MIN_HEARTBEAT_S = 0.2

Call = Callable[[T, float | None], Awaitable[R]]


@dataclass(frozen=True, slots=True)
class InFlight:
    """The calls running right now: how many, the oldest one's age (its item's earlier
    attempts and waits included, as its deadline counts them) and that deadline."""

    calls: int
    oldest_s: float
    deadline_s: float | None


def heartbeat_s(deadline_s: float | None) -> float:
    """The interval of ``InFlight`` reports for calls with deadline ``deadline_s``."""
    if deadline_s is None:
        return HEARTBEAT_S
    return min(HEARTBEAT_S, max(MIN_HEARTBEAT_S, deadline_s / 4))


@dataclass(frozen=True, slots=True)
class Done(Generic[T, R]):
    """One item's end: its result, or the ``CallError`` of its last attempt."""

    index: int
    item: T
    result: R | None
    error: CallError | None
    latency_s: float
    rate_limited: int = 0


class AdaptiveLimit:
    """How many calls may be in flight: halves on a rate limit, grows by one per success."""

    def __init__(self, ceiling: int) -> None:
        if ceiling < 1:
            raise ValueError("concurrency must be at least 1")
        self.ceiling = ceiling
        self.current = ceiling

    def rate_limited(self) -> None:
        self.current = max(1, self.current // 2)

    def succeeded(self) -> None:
        self.current = min(self.ceiling, self.current + 1)


@dataclass(order=True, slots=True)
class _Cell(Generic[T]):
    ready_at: float
    index: int
    item: T = field(compare=False)
    spent_s: float = field(default=0.0, compare=False)
    rate_limited: int = field(default=0, compare=False)
    last_rate_limit: CallError | None = field(default=None, compare=False)


def _wait_after(error: CallError, tries: int) -> float:
    if error.retry_after_s is not None:
        return error.retry_after_s
    return min(BACKOFF_MAX_S, BACKOFF_START_S * 2.0 ** (tries - 1))


async def completed(
    items: Iterable[T],
    call: Call[T, R],
    *,
    concurrency: int = 1,
    deadline_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_waiting: Callable[[InFlight], None] | None = None,
    admit: Callable[[T, bool], bool] | None = None,
) -> AsyncGenerator[Done[T, R]]:
    """``Done`` per item in completion order; see the module docstring.

    Consume it inside ``contextlib.aclosing`` so that leaving the loop early cancels the calls
    in flight at once. An exception of a call that is not a ``CallError`` is a bug and
    propagates (after the other calls were cancelled).
    """
    limit = AdaptiveLimit(concurrency)
    last_success: float | None = None
    source = iter(enumerate(items))
    exhausted = False
    held: _Cell[T] | None = None  # pulled, but not admitted yet
    parked: list[_Cell[T]] = []
    # By item index (an item has one attempt running at a time): its task, cell and start.
    running: dict[int, tuple[asyncio.Future[None], _Cell[T], float]] = {}
    # Item index, result and exception of the attempts that ended, in the order they did.
    finished: collections.deque[tuple[int, R | None, BaseException | None]] = collections.deque()
    # What the consumer awaits while nothing has ended (an Event costs more per call).
    waiter: asyncio.Future[None] | None = None
    beat_every = heartbeat_s(deadline_s)
    next_beat = clock() + beat_every

    def wake() -> None:
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def attempt(cell: _Cell[T], deadline_s: float | None) -> None:
        # The attempt reports its own end: a done callback would cost every call another
        # turn of the event loop before the consumer hears of it.
        try:
            result = await call(cell.item, deadline_s)
        except BaseException as exc:
            finished.append((cell.index, None, exc))
            wake()
            if not isinstance(exc, Exception):
                raise  # cancelled, or KeyboardInterrupt/SystemExit: the loop must see it
        else:
            finished.append((cell.index, result, None))
            wake()

    def next_cell() -> _Cell[T] | None:
        nonlocal exhausted, held
        if parked and parked[0].ready_at <= clock():
            return heapq.heappop(parked)
        if held is None:
            if exhausted:
                return None
            try:
                index, item = next(source)
            except StopIteration:
                exhausted = True
                return None
            held = _Cell(0.0, index, item)
        if admit is not None and not admit(held.item, bool(running or parked)):
            if not (running or parked):
                held, exhausted = None, True  # final: nothing in flight can make room
            return None
        cell, held = held, None
        return cell

    try:
        while True:
            while len(running) < limit.current and (cell := next_cell()) is not None:
                # What is left of the item's deadline after its earlier attempts and waits.
                left_s = None if deadline_s is None else max(0.0, deadline_s - cell.spent_s)
                running[cell.index] = (
                    asyncio.ensure_future(attempt(cell, left_s)),
                    cell,
                    clock(),
                )
            if not running and not parked and exhausted:
                return
            if not running:
                next_beat = clock() + beat_every  # life is counted from the next call on
            if not finished:
                timeout = None
                if parked:
                    timeout = max(0.0, parked[0].ready_at - clock())
                if on_waiting is not None and running:
                    beat_in = max(0.0, next_beat - clock())
                    timeout = beat_in if timeout is None else min(timeout, beat_in)
                waiter = asyncio.get_running_loop().create_future()
                try:
                    if timeout is None:
                        await waiter
                    else:
                        with contextlib.suppress(TimeoutError):
                            async with asyncio.timeout(timeout):
                                await waiter
                finally:
                    waiter = None
            now = clock()
            if on_waiting is not None and running and now >= next_beat:
                oldest = max(cell.spent_s + now - began for _, cell, began in running.values())
                on_waiting(InFlight(len(running), oldest, deadline_s))
                next_beat = now + beat_every
            while finished:
                index, result, error = finished.popleft()
                _, cell, began = running.pop(index)
                elapsed = clock() - began
                if error is None:
                    last_success = clock()
                    limit.succeeded()
                    yield Done(cell.index, cell.item, result, None, elapsed, cell.rate_limited)
                    continue
                if not isinstance(error, CallError):
                    raise error
                refused_early = False
                if error.refused_connection:
                    if last_success is not None and clock() - last_success <= BUSY_WINDOW_S:
                        error.server_busy = True
                    refused_early = last_success is None and bool(running)
                if error.kind == "rate_limit" or error.server_busy or refused_early:
                    wait = _wait_after(error, cell.rate_limited + 1)
                    spent = cell.spent_s + elapsed + wait
                    fits = (
                        spent < deadline_s
                        if deadline_s is not None
                        else cell.rate_limited < MAX_RATE_LIMITED
                    )
                    if fits:
                        limit.rate_limited()
                        cell.spent_s = spent
                        cell.rate_limited += 1
                        cell.last_rate_limit = error
                        cell.ready_at = clock() + wait
                        heapq.heappush(parked, cell)
                        continue
                if error.kind == "timeout" and cell.last_rate_limit is not None:
                    # The waits the server asked for used up the deadline: the cause is the
                    # rate limit, and that is what the advice must speak of (not a reason
                    # to wait and try again).
                    error = cell.last_rate_limit
                yield Done(cell.index, cell.item, None, error, elapsed, cell.rate_limited)
                if error.refused_connection and last_success is None and not running:
                    for down in _take_refused(parked):
                        # Its last wait is not waited: that retry never happens.
                        assert down.last_rate_limit is not None
                        error, tries = down.last_rate_limit, down.rate_limited - 1
                        yield Done(down.index, down.item, None, error, 0.0, tries)
    finally:
        tasks = [task for task, _, _ in running.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def _take_refused(parked: list[_Cell[T]]) -> list[_Cell[T]]:
    """Take the cells waiting after a refused connection out of ``parked`` (a heap)."""
    refused = [c for c in parked if c.last_rate_limit and c.last_rate_limit.refused_connection]
    parked[:] = [c for c in parked if c not in refused]
    heapq.heapify(parked)
    return refused


def run_blocking(coro: Coroutine[Any, Any, R]) -> R:
    """Run ``coro`` to its end on a new event loop and return its result.

    In a thread that already runs a loop (a notebook, an async caller) it runs in a thread
    of its own. In the main thread, when the process turned SIGTERM into ``Terminated``
    (the CLI does), SIGTERM cancels ``coro`` like Ctrl-C does, so that every call in flight
    unwinds and closes its connection, and then raises ``Terminated``.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_with_sigterm(coro))
    with concurrent.futures.ThreadPoolExecutor(1) as executor:
        return executor.submit(asyncio.run, _with_sigterm(coro)).result()


async def _with_sigterm(coro: Coroutine[Any, Any, R]) -> R:
    main = asyncio.current_task()
    terminated = False
    installed = False
    if (
        threading.current_thread() is threading.main_thread()
        and hasattr(signal, "SIGTERM")
        and signal.getsignal(signal.SIGTERM) is raise_terminated
    ):

        def on_sigterm() -> None:
            nonlocal terminated
            terminated = True
            if main is not None:
                main.cancel()

        with contextlib.suppress(NotImplementedError, RuntimeError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, on_sigterm)
            installed = True
    try:
        return await coro
    except asyncio.CancelledError:
        if terminated:
            raise Terminated from None
        raise
    finally:
        if installed:
            asyncio.get_running_loop().remove_signal_handler(signal.SIGTERM)
            signal.signal(signal.SIGTERM, raise_terminated)
