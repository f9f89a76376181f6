"""Judge health: what the calls of one judge invocation did, for the end-of-run summary."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from touchstone import german
from touchstone.advice import Slowness
from touchstone.errors import kind_label
from touchstone.transport.budget import Price, money

if TYPE_CHECKING:
    from touchstone.errors import Progress
    from touchstone.transport.engine import Done
    from touchstone.transport.replies import ChatReply


def percentile(values: Sequence[float], share: float) -> float | None:
    """The value at ``share`` (0.95: p95) of ``values``, nearest rank; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def percent(share: float) -> str:
    """``83 %``: a share as the cards and summaries show it."""
    return german.percent(share)


@dataclass
class JudgeHealth:
    calls: int = 0
    successes: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    latencies_s: list[float] = field(default_factory=list)
    unparseable: int = 0
    cells_left: int = 0
    rate_limited: int = 0
    # Tokens as the server reported them (calls without usage add nothing).
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    # Of the prompt tokens, those the server's prefix cache served (as far as it said so).
    cached_tokens: int = 0
    # (input, output) price per million tokens, when the judge config names one, and the
    # price of cached input tokens, when it names that too.
    price_per_million: tuple[float, float] | None = None
    cached_input_price: float | None = None
    # Calls asked in the reply schema, and answered without it because the endpoint refused
    # it (schema: auto).
    schema_sent: int = 0
    schema_refused: int = 0
    # Characters of reasoning in the replies (a judge that thinks although told not to).
    reasoning_chars: int = 0
    # What the calls cut at their deadline got (``errors.Progress``), for the advice by
    # cause (design.md §26): reasoning seen, calls without a first character, calls not
    # streamed, the slowest first character, the speeds of the streams.
    deadline_reasoning: int = 0
    deadline_silent: int = 0
    deadline_blind: int = 0
    deadline_first_s: float | None = None
    deadline_speeds: list[float] = field(default_factory=list)
    # Unreadable replies the server cut at ``max_tokens`` in the middle of a verdict.
    cut_verdicts: int = 0
    # Completion tokens and latency of the answered calls that reported their tokens.
    timed_tokens: int = 0
    timed_latency_s: float = 0.0

    def record(self, done: Done[Any, ChatReply]) -> None:
        """Count one finished judge call (with the rate-limited attempts before it)."""
        self.calls += 1 + done.rate_limited
        self.rate_limited += done.rate_limited
        if done.error is not None:
            self.failures[done.error.kind] += 1
            progress = done.error.progress
            if progress is not None:
                self._cut(progress)
            return
        self.successes += 1
        self.latencies_s.append(done.latency_s)
        reply = done.result
        if reply is not None:
            self.prompt_tokens += reply.prompt_tokens or 0
            self.completion_tokens += reply.completion_tokens or 0
            self.reasoning_tokens += reply.reasoning_tokens or 0
            self.cached_tokens += reply.cached_tokens or 0
            self.reasoning_chars += len(reply.reasoning)
            if reply.completion_tokens:
                self.timed_tokens += reply.completion_tokens
                self.timed_latency_s += done.latency_s
            self.schema_sent += reply.schema == "sent"
            self.schema_refused += reply.schema == "refused"

    def _cut(self, progress: Progress) -> None:
        if progress.reasoning_chars:
            self.deadline_reasoning += 1
        if not progress.streamed:
            self.deadline_blind += 1
        elif progress.first_s is None:
            self.deadline_silent += 1
        else:
            self.deadline_first_s = max(self.deadline_first_s or 0.0, progress.first_s)
        if progress.tokens_per_s is not None:
            self.deadline_speeds.append(progress.tokens_per_s)

    def slowness(self, deadline_s: float | None = None) -> Slowness:
        """What the calls measured, for the advice on a deadline stop: reasoning in any
        reply or cut stream; the speed of the answered calls, else of the cut streams."""
        speed = None
        if self.timed_latency_s > 0:
            speed = self.timed_tokens / self.timed_latency_s
        elif self.deadline_speeds:
            speed = statistics.median(self.deadline_speeds)
        return Slowness(
            reasoning=bool(self.deadline_reasoning or self.reasoning_chars),
            silent=self.deadline_silent,
            first_s=self.deadline_first_s,
            tokens_per_s=speed,
            blind=self.deadline_blind,
            deadline_s=deadline_s,
        )

    @property
    def cost(self) -> float | None:
        if self.price_per_million is None:
            return None
        price = Price(*self.price_per_million, cached_input=self.cached_input_price)
        return price.cost(self.prompt_tokens, self.completion_tokens, self.cached_tokens)

    def percentile(self, share: float) -> float | None:
        return percentile(self.latencies_s, share)

    def cut_at_deadline(self) -> str:
        """``3 Aufrufe an der Frist abgebrochen``, or "" when no call hit its deadline."""
        cut = self.failures.get("timeout", 0)
        if not cut:
            return ""
        return f"{german.counted(cut, 'Aufruf', 'Aufrufe')} an der Frist abgebrochen"

    def latency(self) -> tuple[float | None, float | None]:
        """Median and p95 of the answered calls' latencies (None without any)."""
        median = statistics.median(self.latencies_s) if self.latencies_s else None
        return median, self.percentile(0.95)

    def as_dict(self, *, resumable: bool = True) -> dict[str, Any]:
        """The figures, and beside them the line ``summary_de`` makes of them (the GUI shows
        that line, so terminal and GUI say the same)."""
        median, p95 = self.latency()
        return {
            "calls": self.calls,
            "successes": self.successes,
            "failures": dict(self.failures),
            "unparseable": self.unparseable,
            "rate_limited": self.rate_limited,
            "latency_median_s": None if median is None else round(median, 3),
            "latency_p95_s": None if p95 is None else round(p95, 3),
            "cells_left": self.cells_left,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_tokens": self.cached_tokens,
            "schema_refused": self.schema_refused,
            "cost": None if self.cost is None else round(self.cost, 6),
            "summary": self.summary_de(resumable=resumable, latency=(median, p95)),
        }

    def summary_de(
        self,
        *,
        resumable: bool = True,
        latency: tuple[float | None, float | None] | None = None,
    ) -> str:
        """One German line for the terminal and the GUI; ``resumable``: with the cells left
        for a later run (a judge-check leaves none); ``latency``: ``self.latency()`` when the
        caller has it (sorting 100k latencies once is enough)."""
        failures = (
            ", ".join(
                f"{kind_label(kind)}: {german.count(n)}"
                for kind, n in sorted(self.failures.items())
            )
            or "keine"
        )
        median, p95 = latency or self.latency()
        latency_text = (
            german.DASH
            if median is None
            else f"Median {german.seconds(median)}, p95 {german.seconds(p95)}"
        )
        # Calls cut at their deadline have no latency, only a lower bound: said beside the
        # figures of the answered ones, as the judge-check card says it (not a bare "–").
        cut = self.cut_at_deadline()
        if cut:
            latency_text += f" ({cut})"
        waits = (
            f"; Rate-Limit abgewartet: {german.count(self.rate_limited)}-mal"
            if self.rate_limited
            else ""
        )
        tokens = ""
        if self.prompt_tokens or self.completion_tokens:
            thinking = (
                f", davon {german.count(self.reasoning_tokens)} Reasoning"
                if self.reasoning_tokens
                else ""
            )
            tokens = (
                f"; Tokens: {german.count(self.prompt_tokens)} ein, "
                f"{german.count(self.completion_tokens)} aus"
                f"{thinking}"
            )
            if self.cached_tokens and self.prompt_tokens:
                share = german.percent(min(1.0, self.cached_tokens / self.prompt_tokens))
                tokens += f"; Eingabe-Tokens: {share} aus dem Prompt-Cache des Servers"
        cost = self.cost
        if cost is not None:
            tokens += f"; Kosten: {money(cost)}"
        if self.schema_refused:
            tokens += (
                "; der Endpunkt nimmt kein JSON-Schema (response_format): "
                f"{german.counted(self.schema_refused, 'Aufruf', 'Aufrufe')} ohne Schema bewertet"
            )
        left = f"; offen für einen späteren Durchgang: {german.count(self.cells_left)}."
        return (
            f"Judge-Bilanz: {german.counted(self.calls, 'Aufruf', 'Aufrufe')}, "
            f"{german.count(self.successes)} erfolgreich, Fehler nach Art: {failures}; "
            f"unlesbare Antworten: {german.count(self.unparseable)}{waits}; "
            f"Latenz: {latency_text}{tokens}" + (left if resumable else ".")
        )


def count_de(count: int) -> str:
    """A count the German way: 12.345."""
    return german.count(count)
