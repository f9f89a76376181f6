"""Judge health: what the calls of one judge invocation did, for the end-of-run summary."""

from __future__ import annotations

import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from touchstone.errors import JudgeCallError
from touchstone.judge import JudgeBackend, judge_model_of


@dataclass
class JudgeHealth:
    calls: int = 0
    successes: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    latencies_s: list[float] = field(default_factory=list)
    unparseable: int = 0
    cells_left: int = 0

    def percentile(self, share: float) -> float | None:
        if not self.latencies_s:
            return None
        ordered = sorted(self.latencies_s)
        index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
        return ordered[index]

    def as_dict(self) -> dict[str, Any]:
        median = statistics.median(self.latencies_s) if self.latencies_s else None
        p95 = self.percentile(0.95)
        return {
            "calls": self.calls,
            "successes": self.successes,
            "failures": dict(self.failures),
            "unparseable": self.unparseable,
            "latency_median_s": None if median is None else round(median, 3),
            "latency_p95_s": None if p95 is None else round(p95, 3),
            "cells_left": self.cells_left,
        }

    def summary_de(self) -> str:
        """One German line for the terminal and the GUI."""
        data = self.as_dict()
        failures = ", ".join(f"{k}: {n}" for k, n in sorted(self.failures.items())) or "keine"
        median = data["latency_median_s"]
        p95 = data["latency_p95_s"]
        latency = "–" if median is None else f"Median {median:.2f} s, p95 {p95:.2f} s"
        return (
            f"Judge-Bilanz: {self.calls} Aufrufe, {self.successes} erfolgreich, "
            f"Fehler nach Art: {failures}; unlesbare Antworten: {self.unparseable}; "
            f"Latenz: {latency}; offen für einen späteren Lauf: {self.cells_left}."
        )


class MeteredJudge:
    """Wraps a judge backend and records every call in a ``JudgeHealth``."""

    def __init__(self, inner: JudgeBackend, clock: Callable[[], float] = time.monotonic) -> None:
        self.inner = inner
        self.model = judge_model_of(inner)
        self.health = JudgeHealth()
        self._clock = clock
        self._lock = threading.Lock()

    def judge(self, *, system: str, user: str) -> str:
        started = self._clock()
        try:
            reply = self.inner.judge(system=system, user=user)
        except JudgeCallError as exc:
            with self._lock:
                self.health.calls += 1
                self.health.failures[exc.kind] += 1
            raise
        elapsed = self._clock() - started
        with self._lock:
            self.health.calls += 1
            self.health.successes += 1
            self.health.latencies_s.append(elapsed)
        return reply
