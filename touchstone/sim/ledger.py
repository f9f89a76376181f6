"""What the simulator's server counts and keeps across its connections: calls per model, the
request bodies, the generations running now and at most, the prompts of its prefix cache."""

from __future__ import annotations

import collections
import threading
from typing import Any

# Request bodies kept for inspection (tests, benchmarks); older ones are dropped.
_HISTORY_SIZE = 1000
# Prompts the simulated prefix cache remembers (like a server's slots): a prompt that starts
# as one of them reports that part as cached_tokens.
_PREFIX_CACHE_SIZE = 4


def _shared_chars(a: str, b: str) -> int:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


class Ledger:
    """The server's counts; ``capacity``: at most that many generations at once (None: any)."""

    def __init__(self, capacity: int | None) -> None:
        self.capacity = capacity
        self.calls: dict[str, int] = {}
        self.history: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0
        self.rejected = 0
        self.recent_prompts: collections.deque[str] = collections.deque(maxlen=_PREFIX_CACHE_SIZE)

    def cached_chars(self, prompt: str) -> int:
        """How much of ``prompt`` a recent prompt starts with; remembers ``prompt``."""
        with self.lock:
            seen = max((_shared_chars(prompt, old) for old in self.recent_prompts), default=0)
            self.recent_prompts.append(prompt)
            return seen

    def record(self, model: str, request: dict[str, Any]) -> int:
        """Count the call and keep its request body; returns the model's call number."""
        with self.lock:
            self.calls[model] = self.calls.get(model, 0) + 1
            self.history.append(request)
            del self.history[:-_HISTORY_SIZE]
            return self.calls[model]

    def admit(self) -> bool:
        """Start a generation, unless the capacity is taken."""
        with self.lock:
            if self.capacity is not None and self.running >= self.capacity:
                self.rejected += 1
                return False
            self.running += 1
            self.peak = max(self.peak, self.running)
            return True

    def finish(self) -> None:
        with self.lock:
            self.running -= 1
