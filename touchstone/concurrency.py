"""Bounded parallel calls whose results come back in completion order.

Both stages use it: the judge (its breaker counts failures in the order they happen) and the
run stage. The caller consumes results in its own thread, so persisting and counting need no
locks; ``stop()`` lets the caller refuse new work (after an abort) while the calls already
running finish — each of them is bounded by its own deadline, so none outlives it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Finished(Generic[T, R]):
    index: int
    item: T
    result: R | None
    error: BaseException | None


class CallPool:
    """Runs ``call(item)`` for items with at most ``concurrency`` calls at once."""

    def __init__(self, concurrency: int = 1) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency
        self._stopped = threading.Event()

    def stop(self) -> None:
        """Start no new call; calls already running still report when they finish."""
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def run(self, items: Iterable[T], call: Callable[[T], R]) -> Iterator[Finished[T, R]]:
        source = iter(enumerate(items))
        pending: dict[Future[R], tuple[int, T]] = {}
        executor = ThreadPoolExecutor(self.concurrency, thread_name_prefix="touchstone-call")

        def fill() -> None:
            while not self.stopped and len(pending) < self.concurrency:
                try:
                    index, item = next(source)
                except StopIteration:
                    return
                pending[executor.submit(call, item)] = (index, item)

        try:
            fill()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    index, item = pending.pop(future)
                    error = future.exception()
                    result = future.result() if error is None else None
                    yield Finished(index, item, result, error)
                fill()
        finally:
            # On Ctrl-C or an abort in the consumer: cancel what has not started; running
            # calls end by their own deadline.
            executor.shutdown(wait=False, cancel_futures=True)
